"""Images and samplers through PyOpenCL: creation and queries, transfers of
every image type compared with NumPy slicing, fills, maps, image/buffer
copies, error codes, sampler objects, and kernels that sample one image and
write another, compared with a NumPy computation."""

import numpy as np
import pyopencl as cl
import pytest

from conftest import build

from pyopencl import _cl

mf = cl.mem_flags
RGBA_F = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
R_F = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
RGBA_U8 = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
RG_I16 = cl.ImageFormat(cl.channel_order.RG, cl.channel_type.SIGNED_INT16)
R_U32 = cl.ImageFormat(cl.channel_order.R, cl.channel_type.UNSIGNED_INT32)


def descriptor(image_type, shape, array_size=0, buffer=None):
    desc = cl.ImageDescriptor()
    desc.image_type = image_type
    desc.shape = shape
    desc.array_size = array_size
    if buffer is not None:
        desc.buffer = buffer
    return desc


def test_device_limits_meet_the_full_profile(device):
    assert device.image_support
    assert device.image2d_max_width >= 8192 and device.image2d_max_height >= 8192
    assert min(device.image3d_max_width, device.image3d_max_height, device.image3d_max_depth) >= 2048
    assert device.max_read_image_args >= 128
    assert device.max_write_image_args >= 8
    assert device.max_samplers >= 16
    assert device.image_max_buffer_size >= 65536
    assert device.image_max_array_size >= 2048


def test_supported_formats_include_the_minimum_list(ctx):
    minimum = [
        cl.ImageFormat(cl.channel_order.RGBA, t)
        for t in (
            cl.channel_type.UNORM_INT8, cl.channel_type.UNORM_INT16,
            cl.channel_type.SIGNED_INT8, cl.channel_type.SIGNED_INT16,
            cl.channel_type.SIGNED_INT32, cl.channel_type.UNSIGNED_INT8,
            cl.channel_type.UNSIGNED_INT16, cl.channel_type.UNSIGNED_INT32,
            cl.channel_type.HALF_FLOAT, cl.channel_type.FLOAT,
        )
    ] + [cl.ImageFormat(cl.channel_order.BGRA, cl.channel_type.UNORM_INT8)]
    for image_type in (cl.mem_object_type.IMAGE1D, cl.mem_object_type.IMAGE2D,
                       cl.mem_object_type.IMAGE3D, cl.mem_object_type.IMAGE2D_ARRAY):
        formats = cl.get_supported_image_formats(ctx, mf.READ_WRITE, image_type)
        assert all(f in formats for f in minimum)


@pytest.mark.parametrize(
    "image_type, shape, array_size, expect",
    [
        # (width, height, depth, array size) as clGetImageInfo reports them.
        (cl.mem_object_type.IMAGE1D, (9, 1, 1), 0, (9, 0, 0, 0)),
        (cl.mem_object_type.IMAGE1D_ARRAY, (9, 1, 1), 3, (9, 0, 0, 3)),
        (cl.mem_object_type.IMAGE2D, (9, 5, 1), 0, (9, 5, 0, 0)),
        (cl.mem_object_type.IMAGE2D_ARRAY, (9, 5, 1), 3, (9, 5, 0, 3)),
        (cl.mem_object_type.IMAGE3D, (9, 5, 2), 0, (9, 5, 2, 0)),
    ],
)
def test_image_info(ctx, image_type, shape, array_size, expect):
    image = cl.Image(ctx, mf.READ_WRITE, RGBA_U8, desc=descriptor(image_type, shape, array_size))
    info = cl.image_info
    got = tuple(image.get_image_info(q) for q in (info.WIDTH, info.HEIGHT, info.DEPTH, info.ARRAY_SIZE))
    assert got == expect
    assert image.get_image_info(info.ELEMENT_SIZE) == 4
    assert image.get_image_info(info.ROW_PITCH) == 36
    slices = image_type in (cl.mem_object_type.IMAGE1D_ARRAY, cl.mem_object_type.IMAGE2D_ARRAY,
                            cl.mem_object_type.IMAGE3D)
    slice_pitch = 36 * (1 if image_type == cl.mem_object_type.IMAGE1D_ARRAY else 5) if slices else 0
    assert image.get_image_info(info.SLICE_PITCH) == slice_pitch
    assert image.get_image_info(info.FORMAT) == RGBA_U8
    assert image.type == image_type
    assert image.size == 36 * max(1, expect[1]) * max(1, expect[2]) * max(1, expect[3])


def numpy_dtype(fmt):
    return {
        cl.channel_type.FLOAT: np.float32,
        cl.channel_type.UNORM_INT8: np.uint8,
        cl.channel_type.SIGNED_INT16: np.int16,
        cl.channel_type.UNSIGNED_INT32: np.uint32,
    }[fmt.channel_data_type]


CHANNELS = {cl.channel_order.R: 1, cl.channel_order.RG: 2, cl.channel_order.RGBA: 4}

# (image type, (width, height, depth), array size, NumPy shape: slowest first)
SHAPES = [
    (cl.mem_object_type.IMAGE1D, (11, 1, 1), 0, (11,)),
    (cl.mem_object_type.IMAGE1D_ARRAY, (11, 1, 1), 4, (4, 11)),
    (cl.mem_object_type.IMAGE2D, (11, 7, 1), 0, (7, 11)),
    (cl.mem_object_type.IMAGE2D_ARRAY, (11, 7, 1), 3, (3, 7, 11)),
    (cl.mem_object_type.IMAGE3D, (11, 7, 5), 0, (5, 7, 11)),
]


def random_pixels(rng, fmt, shape):
    dtype = numpy_dtype(fmt)
    full = shape + (CHANNELS[fmt.channel_order],)
    if dtype == np.float32:
        return rng.standard_normal(full).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=full, endpoint=True).astype(dtype)


# PyOpenCL's enqueue_copy handles 2-D and 3-D images only, so the transfer
# tests call the wrappers of the entry points themselves.
def read_image(queue, image, origin, region, out):
    _cl._enqueue_read_image(queue, image, tuple(origin), tuple(region), out)


def write_image(queue, image, origin, region, data):
    _cl._enqueue_write_image(queue, image, tuple(origin), tuple(region), data)


@pytest.mark.parametrize("fmt", [RGBA_F, RGBA_U8, RG_I16, R_U32], ids=str)
@pytest.mark.parametrize("image_type, size, array_size, np_shape", SHAPES)
def test_transfers_match_numpy(ctx, queue, fmt, image_type, size, array_size, np_shape):
    rng = np.random.default_rng(7)
    data = random_pixels(rng, fmt, np_shape)
    image = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, fmt,
                     desc=descriptor(image_type, size, array_size), hostbuf=data)
    dims = len(np_shape)
    extent = list(reversed(np_shape)) + [1] * (3 - dims)

    # Read back whole.
    out = np.empty_like(data)
    read_image(queue, image, (0, 0, 0), extent, out)
    assert np.array_equal(out, data)

    # Write a sub-block, read a block overlapping it.
    origin = [1] * dims + [0] * (3 - dims)
    region = [e - 2 for e in extent[:dims]] + [1] * (3 - dims)
    block = random_pixels(rng, fmt, tuple(reversed(region[:dims])))
    write_image(queue, image, origin, region, block)
    index = tuple(slice(o, o + r) for o, r in zip(reversed(origin[:dims]), reversed(region[:dims])))
    data[index] = block
    read_image(queue, image, (0, 0, 0), extent, out)
    assert np.array_equal(out, data)

    # Image to image, into the far corner of a second image.
    other = cl.Image(ctx, mf.READ_WRITE, fmt, desc=descriptor(image_type, size, array_size))
    cl.enqueue_fill_image(queue, other, np.zeros(4, numpy_dtype_fill(fmt)), (0, 0, 0), tuple(extent))
    half = [(e + 1) // 2 for e in extent[:dims]] + [1] * (3 - dims)
    corner = [e - h for e, h in zip(extent[:dims], half)] + [0] * (3 - dims)
    _cl._enqueue_copy_image(queue, image, other, (0, 0, 0), tuple(corner), tuple(half))
    expected = np.zeros_like(data)
    src_index = tuple(slice(0, h) for h in reversed(half[:dims]))
    dst_index = tuple(slice(c, c + h) for c, h in zip(reversed(corner[:dims]), reversed(half[:dims])))
    expected[dst_index] = data[src_index]
    got = np.empty_like(data)
    read_image(queue, other, (0, 0, 0), extent, got)
    assert np.array_equal(got, expected)

    # Image to buffer (packed, at an offset) and back into the origin.
    buf = cl.Buffer(ctx, mf.READ_WRITE, data.nbytes + 16)
    _cl._enqueue_copy_image_to_buffer(queue, image, buf, tuple(origin), tuple(region), 16)
    packed = np.empty_like(block)
    cl.enqueue_copy(queue, packed, buf, src_offset=16)
    assert np.array_equal(packed, data[index])
    _cl._enqueue_copy_buffer_to_image(queue, buf, other, 16, (0, 0, 0), tuple(region))
    expected[tuple(slice(0, r) for r in reversed(region[:dims]))] = data[index]
    read_image(queue, other, (0, 0, 0), extent, got)
    assert np.array_equal(got, expected)


def numpy_dtype_fill(fmt):
    kind = numpy_dtype(fmt)
    if kind == np.float32 or fmt.channel_data_type == cl.channel_type.UNORM_INT8:
        return np.float32
    return np.int32 if np.issubdtype(kind, np.signedinteger) else np.uint32


@pytest.mark.parametrize(
    "fmt, color, pixel",
    [
        (RGBA_F, np.float32([0.25, -1.5, 3.0, 1.0]), np.float32([0.25, -1.5, 3.0, 1.0])),
        # Round to nearest: 0.5 * 255 = 127.5 -> 128; saturated outside [0, 1].
        (RGBA_U8, np.float32([0.5, 1.5, -0.25, 1.0]), np.uint8([128, 255, 0, 255])),
        # RG keeps red and green, saturated to the channel's range.
        (RG_I16, np.int32([-40000, 1234, 7, 7]), np.int16([-32768, 1234])),
        (R_U32, np.uint32([4000000000, 1, 2, 3]), np.uint32([4000000000])),
    ],
    ids=str,
)
def test_fill_encodes_the_colour(ctx, queue, fmt, color, pixel):
    image = cl.Image(ctx, mf.READ_WRITE, fmt, desc=descriptor(cl.mem_object_type.IMAGE2D, (6, 5, 1)))
    cl.enqueue_fill_image(queue, image, np.zeros(4, color.dtype), (0, 0, 0), (6, 5, 1))
    cl.enqueue_fill_image(queue, image, color, (1, 2, 0), (4, 2, 1))
    out = np.empty((5, 6, CHANNELS[fmt.channel_order]), numpy_dtype(fmt))
    cl.enqueue_copy(queue, out, image, origin=(0, 0), region=(6, 5))
    expected = np.zeros_like(out)
    expected[2:4, 1:5] = pixel
    assert np.array_equal(out, expected)


def test_map_gives_the_pixels_with_their_pitches(ctx, queue):
    data = np.arange(5 * 7 * 9 * 4, dtype=np.float32).reshape(5, 7, 9, 4)
    image = cl.Image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, RGBA_F,
                     desc=descriptor(cl.mem_object_type.IMAGE3D, (9, 7, 5)), hostbuf=data)
    # The mapping is read with the image's pitches (a packed image here).
    strides = (7 * 9 * 16, 9 * 16, 16, 4)
    mapped, _, row_pitch, slice_pitch = cl.enqueue_map_image(
        queue, image, cl.map_flags.READ | cl.map_flags.WRITE,
        (1, 2, 3), (4, 3, 2), (2, 3, 4, 4), np.float32, strides=strides)
    assert (row_pitch, slice_pitch) == (9 * 16, 7 * 9 * 16)
    assert np.array_equal(mapped, data[3:5, 2:5, 1:5])
    mapped[...] = -1
    mapped.base.release(queue)
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, image, origin=(0, 0, 0), region=(9, 7, 5))
    data[3:5, 2:5, 1:5] = -1
    assert np.array_equal(out, data)
    assert image.get_info(cl.mem_info.MAP_COUNT) == 0


def test_use_host_ptr_images_are_the_applications_memory(ctx, queue):
    host = np.zeros((6, 8), dtype=np.float32)
    image = cl.Image(ctx, mf.READ_WRITE | mf.USE_HOST_PTR, R_F,
                     desc=descriptor(cl.mem_object_type.IMAGE2D, (8, 6, 1)), hostbuf=host)
    cl.enqueue_fill_image(queue, image, np.float32([2, 0, 0, 0]), (2, 1, 0), (3, 2, 1)).wait()
    expected = np.zeros_like(host)
    expected[1:3, 2:5] = 2
    assert np.array_equal(host, expected)


def test_image_buffers_share_their_buffers_bytes(ctx, queue):
    data = np.arange(64 * 4, dtype=np.uint8)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    image = cl.Image(ctx, mf.READ_WRITE, RGBA_U8,
                     desc=descriptor(cl.mem_object_type.IMAGE1D_BUFFER, (64, 1, 1), buffer=buf))
    assert image.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT) == buf
    cl.enqueue_fill_image(queue, image, np.float32([1, 1, 1, 1]), (8, 0, 0), (2, 1, 1))
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    data[32:40] = 255
    assert np.array_equal(out, data)


def test_2d_images_over_buffers(ctx, queue, device):
    assert "cl_khr_image2d_from_buffer" in device.extensions.split()
    data = np.arange(6 * 64, dtype=np.uint32).astype(np.uint8)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    desc = descriptor(cl.mem_object_type.IMAGE2D, (12, 6, 1), buffer=buf)
    desc.pitches = (64, 0)
    image = cl.Image(ctx, mf.READ_ONLY, RGBA_U8, desc=desc)
    assert image.get_image_info(cl.image_info.ROW_PITCH) == 64
    out = np.empty((6, 12, 4), np.uint8)
    read_image(queue, image, (0, 0, 0), (12, 6, 1), out)
    assert np.array_equal(out, data.reshape(6, 64)[:, :48].reshape(6, 12, 4))
    # "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D image is created from a
    # buffer and the row pitch … does not follow the rules".
    desc.pitches = (50, 0)
    with pytest.raises(cl.Error) as caught:
        cl.Image(ctx, mf.READ_ONLY, RGBA_U8, desc=desc)
    assert caught.value.code == cl.status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR


def error_code(call):
    with pytest.raises(cl.Error) as caught:
        call()
    return caught.value.code


def test_bad_formats_descriptors_and_regions(ctx, queue):
    d2 = desc=descriptor(cl.mem_object_type.IMAGE2D, (8, 8, 1))
    status = cl.status_code
    bad = cl.ImageFormat(cl.channel_order.INTENSITY, cl.channel_type.SIGNED_INT8)
    assert error_code(lambda: cl.Image(ctx, mf.READ_WRITE, bad, desc=d2)) == status.INVALID_IMAGE_FORMAT_DESCRIPTOR
    unsupported = cl.ImageFormat(cl.channel_order.RGBx, cl.channel_type.UNORM_SHORT_565)
    assert error_code(lambda: cl.Image(ctx, mf.READ_WRITE, unsupported, desc=d2)) == status.IMAGE_FORMAT_NOT_SUPPORTED
    empty = desc=descriptor(cl.mem_object_type.IMAGE2D, (0, 8, 1))
    assert error_code(lambda: cl.Image(ctx, mf.READ_WRITE, RGBA_F, desc=empty)) == status.INVALID_IMAGE_DESCRIPTOR
    huge = desc=descriptor(cl.mem_object_type.IMAGE3D, (4, 4, 100000))
    assert error_code(lambda: cl.Image(ctx, mf.READ_WRITE, RGBA_F, desc=huge)) == status.INVALID_IMAGE_SIZE
    image = cl.Image(ctx, mf.READ_WRITE, RGBA_F, desc=d2)
    out = np.empty((8, 8, 4), np.float32)
    read = lambda origin, region: cl.enqueue_copy(queue, out, image, origin=origin, region=region)  # noqa: E731
    assert error_code(lambda: read((1, 0), (8, 8))) == status.INVALID_VALUE
    assert error_code(lambda: read((0, 0, 1), (8, 8, 1))) == status.INVALID_VALUE
    other = cl.Image(ctx, mf.READ_WRITE, R_F, desc=d2)
    copy = lambda: cl.enqueue_copy(queue, other, image, src_origin=(0, 0), dest_origin=(0, 0), region=(2, 2))  # noqa: E731
    assert error_code(copy) == status.IMAGE_FORMAT_MISMATCH
    overlap = lambda: cl.enqueue_copy(queue, image, image, src_origin=(0, 0), dest_origin=(1, 1), region=(4, 4))  # noqa: E731
    assert error_code(overlap) == status.MEM_COPY_OVERLAP
    buf = cl.Buffer(ctx, mf.READ_WRITE, 64)
    assert error_code(lambda: cl.enqueue_copy(queue, buf, image, offset=0, origin=(0, 0), region=(3, 2))) \
        == status.INVALID_VALUE


def test_samplers(ctx):
    sampler = cl.Sampler(ctx, True, cl.addressing_mode.MIRRORED_REPEAT, cl.filter_mode.LINEAR)
    assert sampler.normalized_coords
    assert sampler.addressing_mode == cl.addressing_mode.MIRRORED_REPEAT
    assert sampler.filter_mode == cl.filter_mode.LINEAR
    assert sampler.context == ctx
    assert sampler.reference_count == 1
    plain = cl.Sampler(ctx, [cl.sampler_info.NORMALIZED_COORDS, False,
                             cl.sampler_info.ADDRESSING_MODE, cl.addressing_mode.NONE])
    assert not plain.normalized_coords
    assert plain.addressing_mode == cl.addressing_mode.NONE
    assert plain.filter_mode == cl.filter_mode.NEAREST


BILINEAR = """
kernel void resample(read_only image2d_t src, sampler_t s, write_only image2d_t dst,
                     float2 scale) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float2 uv = ((float2)(p.x, p.y) + 0.5f) * scale;
    write_imagef(dst, p, read_imagef(src, s, uv));
}
kernel void shift(read_only image2d_t src, write_only image2d_t dst) {
    const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imageui(dst, p, read_imageui(src, s, p - (int2)(2, 1)) + (uint4)(1, 0, 0, 0));
}
"""


def bilinear_clamp_to_edge(src, out_shape, scale):
    """OpenCL's linear filter with normalised coordinates and
    CLK_ADDRESS_CLAMP_TO_EDGE, for a one-channel image (rows, cols)."""
    h, w = src.shape
    ys, xs = np.mgrid[0:out_shape[0], 0:out_shape[1]].astype(np.float64)
    u = ((xs + 0.5) * scale[0]) * w - 0.5
    v = ((ys + 0.5) * scale[1]) * h - 0.5
    i0, j0 = np.floor(u).astype(int), np.floor(v).astype(int)
    a, b = u - i0, v - j0
    clamp_x = lambda i: np.clip(i, 0, w - 1)  # noqa: E731
    clamp_y = lambda j: np.clip(j, 0, h - 1)  # noqa: E731
    t = lambda j, i: src[clamp_y(j), clamp_x(i)].astype(np.float64)  # noqa: E731
    return ((1 - a) * (1 - b) * t(j0, i0) + a * (1 - b) * t(j0, i0 + 1)
            + (1 - a) * b * t(j0 + 1, i0) + a * b * t(j0 + 1, i0 + 1))


def test_kernel_samples_one_image_and_writes_another(ctx, queue, compiler):
    program = build(ctx, BILINEAR)
    rng = np.random.default_rng(3)
    src = rng.random((13, 17), dtype=np.float32)
    image = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, R_F,
                     desc=descriptor(cl.mem_object_type.IMAGE2D, (17, 13, 1)), hostbuf=src)
    out_shape = (29, 31)
    dst = cl.Image(ctx, mf.WRITE_ONLY, R_F, desc=descriptor(cl.mem_object_type.IMAGE2D, (31, 29, 1)))
    sampler = cl.Sampler(ctx, True, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.LINEAR)
    scale = np.float32([1.0 / 31, 1.0 / 29])
    program.resample(queue, (31, 29), None, image, sampler, dst, cl.cltypes.make_float2(*scale))
    got = np.empty(out_shape, np.float32)
    cl.enqueue_copy(queue, got, dst, origin=(0, 0), region=(31, 29))
    expected = bilinear_clamp_to_edge(src, out_shape, scale.astype(np.float64))
    # Weights carry 8 fraction bits at least (the minimum the spec allows is
    # less precise still): compare with that tolerance.
    assert np.allclose(got, expected, atol=2e-3)

    # Nearest, unnormalised, CLAMP: pixels outside read as the border (0).
    data = rng.integers(0, 1000, size=(6, 9, 4), dtype=np.uint32)
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT32)
    src_u = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt,
                     desc=descriptor(cl.mem_object_type.IMAGE2D, (9, 6, 1)), hostbuf=data)
    dst_u = cl.Image(ctx, mf.WRITE_ONLY, fmt, desc=descriptor(cl.mem_object_type.IMAGE2D, (9, 6, 1)))
    program.shift(queue, (9, 6), None, src_u, dst_u)
    got_u = np.empty_like(data)
    cl.enqueue_copy(queue, got_u, dst_u, origin=(0, 0), region=(9, 6))
    expected_u = np.zeros_like(data)
    expected_u[1:, 2:] = data[:-1, :-2]
    expected_u[..., 0] += 1
    assert np.array_equal(got_u, expected_u)


def test_image_arguments_are_checked(ctx, compiler):
    program = build(ctx, BILINEAR)
    kernel = program.shift
    assert kernel.get_arg_info(0, cl.kernel_arg_info.TYPE_NAME) == "image2d_t"
    assert kernel.get_arg_info(0, cl.kernel_arg_info.ACCESS_QUALIFIER) == cl.kernel_arg_access_qualifier.READ_ONLY
    assert kernel.get_arg_info(1, cl.kernel_arg_info.ACCESS_QUALIFIER) == cl.kernel_arg_access_qualifier.WRITE_ONLY
    buf = cl.Buffer(ctx, mf.READ_WRITE, 64)
    with pytest.raises(cl.Error) as caught:
        kernel.set_arg(0, buf)
    assert caught.value.code == cl.status_code.INVALID_MEM_OBJECT
    volume = cl.Image(ctx, mf.READ_ONLY, R_F, desc=descriptor(cl.mem_object_type.IMAGE3D, (2, 2, 2)))
    with pytest.raises(cl.Error) as caught:
        kernel.set_arg(0, volume)
    assert caught.value.code == cl.status_code.INVALID_ARG_VALUE


# Rows of texels: `read_image*` and `write_image*` at (get_global_id(0) + dx,
# get_global_id(1) + dy), the shape the JIT reads and writes as whole vectors
# when a chunk lies inside the image. The launch covers the image and more,
# so chunks inside it, across its edges and outside it are all compared with
# a NumPy reference of the conversion and addressing rules.
ROWS = r"""
#define ROW_KERNELS(T, R, W)                                                          \
kernel void read_##R(read_only image2d_t src, sampler_t s, global T##4 *out, int dx, int dy) { \
    int x = get_global_id(0), y = get_global_id(1);                                 \
    out[y * get_global_size(0) + x] = read_image##R(src, s, (int2)(x + dx, y + dy)); \
}                                                                                   \
kernel void write_##R(write_only image2d_t dst, global const T##4 *in, int dx, int dy) { \
    int x = get_global_id(0), y = get_global_id(1);                                 \
    write_image##R(dst, (int2)(x + dx, y + dy), in[y * get_global_size(0) + x]);    \
}
ROW_KERNELS(float, f, f)
ROW_KERNELS(int, i, i)
ROW_KERNELS(uint, ui, ui)
"""

CO = cl.channel_order
CT = cl.channel_type

# (order, type, builtin suffix, stored NumPy dtype, channels stored)
ROW_FORMATS = [
    (CO.R, CT.FLOAT, "f", np.float32, 1),
    (CO.RGBA, CT.FLOAT, "f", np.float32, 4),
    (CO.R, CT.UNSIGNED_INT32, "ui", np.uint32, 1),
    (CO.RGBA, CT.SIGNED_INT32, "i", np.int32, 4),
    (CO.RGBA, CT.UNORM_INT8, "f", np.uint8, 4),
    (CO.BGRA, CT.UNORM_INT8, "f", np.uint8, 4),
    (CO.RGBA, CT.UNSIGNED_INT8, "ui", np.uint8, 4),
    (CO.RGBA, CT.SIGNED_INT8, "i", np.int8, 4),
]
ROW_IDS = [f"{o:#x}-{t:#x}" for o, t, *_ in ROW_FORMATS]
RESULT = {"f": np.float32, "i": np.int32, "ui": np.uint32}
CLASS_OF = {CT.FLOAT: "f", CT.UNORM_INT8: "f", CT.SIGNED_INT32: "i", CT.SIGNED_INT8: "i",
            CT.UNSIGNED_INT32: "ui", CT.UNSIGNED_INT8: "ui"}


def decode_rows(order, ctype, stored):
    """The four components read_image* returns for stored pixels (h, w, c)."""
    h, w, _ = stored.shape
    if ctype == CT.UNORM_INT8:
        v = stored.astype(np.float32) / np.float32(255)
    else:
        v = stored.astype(RESULT[CLASS_OF[ctype]])
    if order == CO.R:
        one = np.float32(1) if ctype == CT.FLOAT else 1
        out = np.zeros((h, w, 4), v.dtype)
        out[..., 0] = v[..., 0]
        out[..., 3] = one
        return out
    if order == CO.BGRA:
        return v[..., [2, 1, 0, 3]]
    return v


def encode_rows(order, ctype, comps):
    """The stored pixels (h, w, c) write_image* makes of components (h, w, 4)."""
    if ctype == CT.UNORM_INT8:
        with np.errstate(invalid="ignore", over="ignore"):
            m = comps * np.float32(255)
            m = np.where(np.isnan(m), 0, np.clip(m, 0, 255))
            s = np.rint(m).astype(np.uint8)
    elif ctype == CT.UNSIGNED_INT8:
        s = np.minimum(comps, 255).astype(np.uint8)
    elif ctype == CT.SIGNED_INT8:
        s = np.clip(comps, -128, 127).astype(np.int8)
    else:
        s = comps
    if order == CO.R:
        return s[..., :1]
    if order == CO.BGRA:
        return s[..., [2, 1, 0, 3]]
    return s


@pytest.mark.parametrize("order, ctype, suffix, dtype, channels", ROW_FORMATS, ids=ROW_IDS)
def test_row_reads_match_numpy(ctx, queue, compiler, order, ctype, suffix, dtype, channels):
    program = build(ctx, ROWS)
    rng = np.random.default_rng(11)
    h, w = 9, 61
    if dtype == np.float32:
        stored = rng.standard_normal((h, w, channels)).astype(np.float32)
    else:
        info = np.iinfo(dtype)
        stored = rng.integers(info.min, info.max, size=(h, w, channels), endpoint=True).astype(dtype)
    fmt = cl.ImageFormat(order, ctype)
    src = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(w, h), hostbuf=stored)
    values = decode_rows(order, ctype, stored)
    border = np.zeros(4, values.dtype)
    if order == CO.R:
        border[3] = values[0, 0, 3]
    gw, gh = 64, 10
    out = cl.Buffer(ctx, mf.WRITE_ONLY, gw * gh * 16)
    kernel = getattr(program, "read_" + suffix)
    ys, xs = np.mgrid[0:gh, 0:gw]
    for clamp in (False, True):
        mode = cl.addressing_mode.CLAMP if clamp else cl.addressing_mode.CLAMP_TO_EDGE
        sampler = cl.Sampler(ctx, False, mode, cl.filter_mode.NEAREST)
        for dx, dy in [(0, 0), (-3, -1), (5, 1)]:
            kernel(queue, (gw, gh), None, src, sampler, out, np.int32(dx), np.int32(dy))
            got = np.empty((gh, gw, 4), RESULT[suffix])
            cl.enqueue_copy(queue, got, out)
            u, v = xs + dx, ys + dy
            expected = values[np.clip(v, 0, h - 1), np.clip(u, 0, w - 1)]
            if clamp:
                outside = (u < 0) | (u >= w) | (v < 0) | (v >= h)
                expected[outside] = border
            assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), (clamp, dx, dy)


@pytest.mark.parametrize("order, ctype, suffix, dtype, channels", ROW_FORMATS, ids=ROW_IDS)
def test_row_writes_match_numpy(ctx, queue, compiler, order, ctype, suffix, dtype, channels):
    program = build(ctx, ROWS)
    rng = np.random.default_rng(12)
    h, w = 9, 61
    gw, gh = 64, 10
    if suffix == "f":
        comps = rng.standard_normal((gh, gw, 4)).astype(np.float32) * np.float32(0.7) + np.float32(0.5)
        # NaN, infinities, a negative zero, ties of the 8-bit rounding and
        # values past its range, every fifth component.
        specials = np.float32([np.nan, np.inf, -np.inf, -0.0, 0.5 / 255, 2.5 / 255, 254.5 / 255, 1e30, -3.0])
        flat = comps.reshape(-1)
        flat[::5] = np.resize(specials, flat[::5].shape)
    else:
        comps = rng.integers(-70000, 70000, size=(gh, gw, 4)).astype(RESULT[suffix])
    fmt = cl.ImageFormat(order, ctype)
    kernel = getattr(program, "write_" + suffix)
    inbuf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=comps)
    for dx, dy in [(0, 0), (-3, -1), (5, 1)]:
        blank = np.full((h, w, channels), 7, dtype)
        dst = cl.create_image(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, fmt, shape=(w, h), hostbuf=blank)
        kernel(queue, (gw, gh), None, dst, inbuf, np.int32(dx), np.int32(dy))
        got = np.empty_like(blank)
        cl.enqueue_copy(queue, got, dst, origin=(0, 0), region=(w, h))
        expected = blank.copy()
        # Item (x, y) writes texel (x + dx, y + dy) when that is inside.
        x0, y0 = max(dx, 0), max(dy, 0)
        x1, y1 = min(gw + dx, w), min(gh + dy, h)
        expected[y0:y1, x0:x1] = encode_rows(order, ctype, comps[y0 - dy:y1 - dy, x0 - dx:x1 - dx])
        assert np.array_equal(got.view(np.uint8), expected.view(np.uint8)), (dx, dy)


HALF_TEXELS = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void halves(read_only image2d_t src, write_only image2d_t dst, global half4 *out) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    half4 t = read_imageh(src, p);
    out[p.y * get_global_size(0) + p.x] = t;
    write_imageh(dst, p, t * (half)2 - (half)0.25);
}
"""


@pytest.mark.parametrize("src_type", [cl.channel_type.HALF_FLOAT, cl.channel_type.UNORM_INT8])
def test_half_texels(ctx, queue, compiler, src_type):
    """read_imageh / write_imageh (cl_khr_fp16) on a CL_HALF_FLOAT image and
    a CL_UNORM_INT8 one, written to a CL_HALF_FLOAT image: NumPy's float16
    arithmetic gives the same texels."""
    rng = np.random.default_rng(3)
    h, w = 5, 7
    if src_type == cl.channel_type.HALF_FLOAT:
        data = rng.uniform(-4, 4, (h, w, 4)).astype(np.float16)
        want = data
    else:
        data = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        want = (data.astype(np.float32) / np.float32(255)).astype(np.float16)
    shape = descriptor(cl.mem_object_type.IMAGE2D, (w, h, 1))
    src = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR,
                   cl.ImageFormat(cl.channel_order.RGBA, src_type), desc=shape, hostbuf=data)
    half_fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.HALF_FLOAT)
    dst = cl.Image(ctx, mf.WRITE_ONLY, half_fmt, desc=shape)
    out = cl.Buffer(ctx, mf.WRITE_ONLY, w * h * 8)
    program = build(ctx, HALF_TEXELS)
    program.halves(queue, (w, h), None, src, dst, out)
    got = np.empty((h, w, 4), np.float16)
    cl.enqueue_copy(queue, got, out)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
    written = np.empty((h, w, 4), np.float16)
    cl.enqueue_copy(queue, written, dst, origin=(0, 0), region=(w, h))
    expected = want * np.float16(2) - np.float16(0.25)
    np.testing.assert_array_equal(written.view(np.uint16), expected.view(np.uint16))
