"""cl_khr_fp16 through the ICD loader: the device reports it, kernels see
its macro, and half arithmetic, conversions and math builtins agree with
NumPy's float16 (which computes in float32 and rounds once, as vecl does)."""

import numpy as np
import pyopencl as cl
import pytest

from conftest import build

PRAGMA = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"


def ulp_distance(a, b):
    """Units in the last place between float16 arrays (NaN against NaN is 0)."""
    def ordered(x):
        bits = x.view(np.uint16).astype(np.int32)
        return np.where(bits & 0x8000, 0x8000 - bits, bits)
    both_nan = np.isnan(a) & np.isnan(b)
    d = np.abs(ordered(a) - ordered(b))
    return np.where(both_nan, 0, d)


def run(ctx, queue, src, outputs, *inputs, n=None):
    """Runs kernel `k` of `src` on the input arrays; returns `outputs`
    arrays (dtype, count) read back."""
    prg = build(ctx, src)
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a) for a in inputs]
    outs = [np.zeros(count, dtype=dtype) for dtype, count in outputs]
    obufs = [cl.Buffer(ctx, mf.WRITE_ONLY, o.nbytes) for o in outs]
    prg.k(queue, (n or len(inputs[0]),), None, *bufs, *obufs)
    for o, b in zip(outs, obufs):
        cl.enqueue_copy(queue, o, b)
    return outs


def halves(n, seed):
    """Finite float16 values of every magnitude, and a few specials."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 0x10000, n, dtype=np.uint32).astype(np.uint16)
    x = bits.view(np.float16).copy()
    x[~np.isfinite(x)] = np.float16(1.5)
    x[:8] = np.array([0.0, -0.0, 1.0, -2.5, 65504.0, 6e-8, np.inf, np.nan], dtype=np.float16)
    return x


def test_device_reports_fp16(device):
    assert "cl_khr_fp16" in device.extensions.split()
    names = {e.name for e in device.extensions_with_version}
    assert "cl_khr_fp16" in names
    assert "__opencl_c_fp16" in {f.name for f in device.opencl_c_features}
    config = device.half_fp_config
    want = cl.device_fp_config.DENORM | cl.device_fp_config.INF_NAN | cl.device_fp_config.ROUND_TO_NEAREST
    assert config & want == want
    assert device.preferred_vector_width_half > 0
    assert device.native_vector_width_half > 0


def test_macro_is_defined(ctx, queue):
    src = "kernel void k(global const int *in, global int *out) {\n#ifdef cl_khr_fp16\n out[0] = 1;\n#endif\n}"
    (out,) = run(ctx, queue, src, [(np.int32, 1)], np.zeros(1, np.int32))
    assert out[0] == 1


def test_half_arithmetic_without_the_extension_is_an_error(ctx):
    src = "kernel void k(global half *p) { p[0] = p[1] + p[2]; }"
    with pytest.raises(cl.RuntimeError) as e:
        cl.Program(ctx, src).build()
    assert "cl_khr_fp16" in str(e.value)


def test_arithmetic_matches_numpy(ctx, queue):
    n = 4096
    a, b = halves(n, 1), halves(n, 2)
    src = PRAGMA + """
    kernel void k(global const half *a, global const half *b, global half *add,
                  global half *sub, global half *mul, global half *div) {
        size_t i = get_global_id(0);
        add[i] = a[i] + b[i];
        sub[i] = a[i] - b[i];
        mul[i] = a[i] * b[i];
        div[i] = a[i] / b[i];
    }"""
    outs = run(ctx, queue, src, [(np.float16, n)] * 4, a, b)
    with np.errstate(all="ignore"):
        want = [a + b, a - b, a * b, a / b]
    for got, w, op in zip(outs, want, "+-*/"):
        assert np.all(ulp_distance(got, w) == 0), (op, np.flatnonzero(ulp_distance(got, w))[:5])


def test_vectors_and_conversions_match_numpy(ctx, queue):
    n = 1024
    a = halves(4 * n, 3)
    f = (np.random.default_rng(4).standard_normal(4 * n) * 1000).astype(np.float32)
    src = PRAGMA + """
    kernel void k(global const half *a, global const float *f, global half *h4,
                  global float *back, global int *sat) {
        size_t i = get_global_id(0);
        half4 v = vload4(i, a);
        vstore4(v * (half)2 - 1.0h, i, h4);
        vstore4(convert_float4(v), i, back);
        int4 s = convert_int4_sat(vload4(i, a));
        vstore4(s, i, sat);
        h4[4 * get_global_size(0) + i] = convert_half(f[i]);
    }"""
    h4, back, sat = run(
        ctx, queue, src, [(np.float16, 5 * n), (np.float32, 4 * n), (np.int32, 4 * n)], a, f, n=n
    )
    with np.errstate(all="ignore"):
        # Two roundings, as the kernel does them (no contraction of a
        # product with a constant difference is asked for: the two
        # operations must round separately unless contracted, so allow the
        # contracted result's single ulp).
        want = (a * np.float16(2)) - np.float16(1)
    assert np.all(ulp_distance(h4[: 4 * n], want) <= 1)
    assert np.array_equal(back.view(np.uint32)[np.isfinite(a)], a.astype(np.float32).view(np.uint32)[np.isfinite(a)])
    clipped = np.where(np.isnan(a), 0, np.clip(np.trunc(a.astype(np.float64)), -2**31, 2**31 - 1)).astype(np.int32)
    assert np.array_equal(sat, clipped)
    assert np.array_equal(h4[4 * n:], f[:n].astype(np.float16))


def test_math_builtins_match_numpy(ctx, queue):
    n = 4096
    a = np.abs(halves(n, 5))
    a[np.isnan(a)] = 1
    src = PRAGMA + """
    kernel void k(global const half *a, global half *sq, global half *ex,
                  global half *lg, global half *sn, global half *mx) {
        size_t i = get_global_id(0);
        half x = a[i];
        sq[i] = sqrt(x);
        ex[i] = exp(x * 0.001h);
        lg[i] = log(x);
        sn[i] = sin(x * 0.01h);
        mx[i] = fmax(x, 1.0h) + fabs(-x);
    }"""
    sq, ex, lg, sn, mx = run(ctx, queue, src, [(np.float16, n)] * 5, a)
    with np.errstate(all="ignore"):
        assert np.all(ulp_distance(sq, np.sqrt(a)) == 0)
        assert np.all(ulp_distance(ex, np.exp(a * np.float16(0.001))) <= 2)
        assert np.all(ulp_distance(lg, np.log(a)) <= 2)
        assert np.all(ulp_distance(sn, np.sin(a * np.float16(0.01))) <= 2)
        assert np.all(ulp_distance(mx, np.maximum(a, np.float16(1)) + a) == 0)


def test_as_half2_of_shorts_keeps_every_bit(ctx, queue):
    # The CTS's `astype` kernel: `as_half2(short2)` stored as `half2` leaves
    # the bits as they were, a negative first component included.
    src = PRAGMA + """
    kernel void k(global const short2 *s, global half2 *r) {
        size_t i = get_global_id(0);
        half2 h = as_half2(s[i]);
        r[i] = h;
    }"""
    rng = np.random.default_rng(7)
    s = rng.integers(-0x8000, 0x8000, 2 * 1000, dtype=np.int32).astype(np.int16)
    (r,) = run(ctx, queue, src, [(np.float16, 2 * 1000)], s, n=1000)
    assert np.array_equal(r.view(np.int16), s)
