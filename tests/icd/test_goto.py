"""Kernels written with goto, through the ICD loader and PyOpenCL: each
must give the same buffers as the same kernel written with loops and ifs,
and a goto that vecl cannot structure is a build error with its position."""

import numpy as np
import pyopencl as cl
import pytest

from conftest import build

mf = cl.mem_flags

# CRC-32 of each word (the zlib polynomial), as a state machine of labels,
# then the same with loops; and a scan that stops early under a varying
# condition, with goto and with break.
GOTO = """
kernel void crc(global const uint *data, global uint *out)
{
    size_t i = get_global_id(0);
    uint word = data[i];
    uint crc = 0xFFFFFFFFu;
    int byte = 0, bit;
next_byte:
    if (byte == 4)
        goto done;
    crc ^= (word >> (8 * byte)) & 0xFFu;
    bit = 0;
next_bit:
    if (crc & 1u)
        goto odd;
    crc >>= 1;
    goto bit_done;
odd:
    crc = (crc >> 1) ^ 0xEDB88320u;
bit_done:
    if (++bit < 8)
        goto next_bit;
    byte++;
    goto next_byte;
done:
    out[i] = ~crc;
}

kernel void first_big(global const uint *data, global int *out, int n)
{
    size_t i = get_global_id(0);
    int j;
    for (j = 0; j < n; j++) {
        uint x = data[(i + j) % n];
        if ((x & 7u) == 0)
            goto next;
        if (x > 0xF0000000u)
            goto found;
    next:;
    }
    out[i] = -1;
    return;
found:
    out[i] = j;
}
"""

STRUCTURED = """
kernel void crc(global const uint *data, global uint *out)
{
    size_t i = get_global_id(0);
    uint word = data[i];
    uint crc = 0xFFFFFFFFu;
    for (int byte = 0; byte < 4; byte++) {
        crc ^= (word >> (8 * byte)) & 0xFFu;
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    out[i] = ~crc;
}

kernel void first_big(global const uint *data, global int *out, int n)
{
    size_t i = get_global_id(0);
    int r = -1;
    for (int j = 0; j < n; j++) {
        uint x = data[(i + j) % n];
        if ((x & 7u) == 0)
            continue;
        if (x > 0xF0000000u) {
            r = j;
            break;
        }
    }
    out[i] = r;
}
"""


def run_both(ctx, queue, name, data, out_dtype, extra=()):
    results = []
    for source in (GOTO, STRUCTURED):
        program = build(ctx, source)
        data_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
        out = np.zeros(data.size, dtype=out_dtype)
        out_buf = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
        getattr(program, name)(queue, (data.size,), (64,), data_buf, out_buf, *extra)
        cl.enqueue_copy(queue, out, out_buf)
        results.append(out)
    return results


def test_goto_state_machine_matches_loops(ctx, queue):
    import zlib

    data = np.random.default_rng(7).integers(0, 2**32, 4096, dtype=np.uint32)
    with_goto, without = run_both(ctx, queue, "crc", data, np.uint32)
    assert np.array_equal(with_goto, without)
    expected = [zlib.crc32(int(w).to_bytes(4, "little")) for w in data[:64]]
    assert with_goto[:64].tolist() == expected


def test_goto_out_of_a_loop_matches_break(ctx, queue):
    data = np.random.default_rng(8).integers(0, 2**32, 1024, dtype=np.uint32)
    with_goto, without = run_both(ctx, queue, "first_big", data, np.int32, (np.int32(data.size),))
    assert np.array_equal(with_goto, without)
    assert (with_goto >= 0).any() and (with_goto != with_goto[0]).any()


def test_goto_into_a_loop_is_a_build_error(ctx, device):
    source = """kernel void k(global int *a)
{
    int i = 0;
    if (a[0])
        goto inside;
    while (i < 4) {
        i++;
    inside:
        a[i] = i;
    }
}
"""
    program = cl._cl._Program(ctx, source)
    with pytest.raises(cl.RuntimeError) as error:
        program.build(b"")
    assert error.value.code == cl.status_code.BUILD_PROGRAM_FAILURE
    log = program.get_build_info(device, cl.program_build_info.LOG)
    assert "<source>:8:5: error: irreducible control flow through label 'inside'" in log
