"""Shared virtual memory: clSVMAlloc'd memory is the host's, so kernels,
SVM commands and the host all see the same bytes (coarse- and fine-grained
buffer SVM)."""

import numpy as np
import pyopencl as cl
import pytest

from conftest import build

TWICE = """
kernel void twice(global float *a) { a[get_global_id(0)] *= 2; }
kernel void sum_at(global int *out, global int *global *table, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += table[i][get_global_id(0)];
    out[get_global_id(0)] = s;
}
"""


def test_coarse_grain_map_kernel_copy(ctx, queue):
    n = 3000
    svm = cl.SVM(cl.csvm_empty(ctx, (n,), np.float32, alignment=64))
    cl.enqueue_svm_memfill(queue, svm, np.float32(0))
    with svm.map_rw(queue) as ary:
        assert ary.ctypes.data % 64 == 0
        assert not ary.any()
        ary[:] = np.arange(n, dtype=np.float32)
    twice = build(ctx, TWICE).twice
    twice(queue, (n,), None, svm)
    # The same memory as a USE_HOST_PTR buffer.
    as_buffer = svm.as_buffer(ctx)
    assert as_buffer.get_info(cl.mem_info.USES_SVM_POINTER)
    twice(queue, (n,), None, as_buffer)
    out = np.empty(n, dtype=np.float32)
    cl.enqueue_copy(queue, out, svm)
    assert np.array_equal(out, 4 * np.arange(n, dtype=np.float32))


def test_fine_grain_host_writes_without_map(ctx, queue):
    ary = cl.fsvm_empty(ctx, 1000, np.float32, alignment=128)
    ary[:] = 17
    prg = build(ctx, TWICE)
    prg.twice(queue, ary.shape, None, cl.SVM(ary))
    queue.finish()
    assert np.all(ary == 34)


def test_svm_pointer_into_the_middle_of_an_allocation(ctx, queue):
    ary = cl.fsvm_empty(ctx, 64, np.float32)
    ary[:] = 1
    prg = build(ctx, TWICE)
    # An SVM argument may point anywhere inside its allocation.
    prg.twice(queue, (16,), None, cl.SVM(ary[32:48]))
    queue.finish()
    assert np.all(ary[32:48] == 2)
    assert np.all(ary[:32] == 1) and np.all(ary[48:] == 1)


def test_kernel_follows_pointers_stored_in_svm(ctx, queue):
    # Pointers to SVM stored in SVM are valid in the kernel: one address space.
    rows = [cl.fsvm_empty(ctx, 8, np.int32) for _ in range(3)]
    for i, row in enumerate(rows):
        row[:] = np.arange(8) * (i + 1)
    table = cl.fsvm_empty(ctx, 3, np.uintp)
    table[:] = [row.ctypes.data for row in rows]
    out = cl.fsvm_empty(ctx, 8, np.int32)
    prg = build(ctx, TWICE)
    knl = prg.sum_at
    knl.set_arg(0, cl.SVM(out))
    knl.set_arg(1, cl.SVM(table))
    knl.set_arg(2, np.int32(3))
    cl.enqueue_nd_range_kernel(queue, knl, (8,), None)
    queue.finish()
    assert np.array_equal(out, np.arange(8) * 6)


def test_svm_memcpy_and_fill_patterns(ctx, queue):
    src = cl.svm_empty(ctx, cl.svm_mem_flags.READ_WRITE, 256, np.uint8)
    dst = cl.svm_empty(ctx, cl.svm_mem_flags.READ_WRITE, 256, np.uint8)
    cl.enqueue_svm_memfill(queue, cl.SVM(src), np.array([1, 2, 3, 4], dtype=np.uint8))
    cl.enqueue_copy(queue, cl.SVM(dst), cl.SVM(src))  # clEnqueueSVMMemcpy
    with cl.SVM(dst).map_ro(queue) as ary:
        assert np.array_equal(ary, np.tile(np.arange(1, 5, dtype=np.uint8), 64))


def test_svm_alloc_rejects_atomics_and_bad_alignment(ctx):
    with pytest.raises(cl.Error):
        cl.SVMAllocation(ctx, 64, alignment=3, flags=cl.svm_mem_flags.READ_WRITE)
    with pytest.raises(cl.Error):
        cl.SVMAllocation(
            ctx,
            64,
            alignment=0,
            flags=cl.svm_mem_flags.SVM_FINE_GRAIN_BUFFER | cl.svm_mem_flags.SVM_ATOMICS,
        )
