"""Sub-groups and work-group collectives through the ICD loader: the
extension strings and features, the sub-group queries of a kernel against
clGetKernelSubGroupInfo, and results checked against numpy using the
partition the kernel itself reports."""

import numpy as np
import pyopencl as cl

from conftest import build

SUB_GROUP_EXTENSIONS = [
    "cl_khr_subgroups", "cl_khr_subgroup_non_uniform_vote", "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_shuffle", "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_extended_types", "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_clustered_reduce", "cl_khr_subgroup_rotate",
]

SOURCE = """
__kernel void sg(__global const int *in, __global int *ids, __global int *sums,
                 __global int *scans)
{
    size_t i = get_global_id(0);
    ids[4 * i] = get_sub_group_id();
    ids[4 * i + 1] = get_sub_group_local_id();
    ids[4 * i + 2] = get_sub_group_size();
    ids[4 * i + 3] = get_num_sub_groups() * 1000 + get_max_sub_group_size();
    sums[i] = sub_group_reduce_add(in[i]);
    scans[i] = sub_group_scan_exclusive_max(in[i]);
}

__kernel void wg(__global const float *in, __global float *sums, __global float *scans,
                 __global int *votes)
{
    size_t i = get_global_id(0);
    sums[i] = work_group_reduce_add(in[i]);
    scans[i] = work_group_scan_inclusive_add(in[i]);
    votes[i] = work_group_any(in[i] > 90.0f) * 2 + work_group_all(in[i] >= 0.0f);
}
"""


def test_device_reports_sub_groups(device):
    extensions = device.extensions.split()
    for e in SUB_GROUP_EXTENSIONS:
        assert e in extensions, e
    features = {f.name for f in device.opencl_c_features}
    assert "__opencl_c_subgroups" in features
    assert "__opencl_c_work_group_collective_functions" in features
    assert device.max_num_sub_groups >= 1
    assert device.sub_group_independent_forward_progress == 0


def test_sub_group_functions_match_kernel_sub_group_info(ctx, device, queue):
    program = build(ctx, SOURCE, "-cl-std=CL3.0")
    kernel = program.sg
    local, groups = 37, 3  # rows not a multiple of any SIMD width
    n = local * groups
    rng = np.random.default_rng(7)
    data = rng.integers(-1000, 1000, n).astype(np.int32)
    mf = cl.mem_flags
    inp = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    ids = cl.Buffer(ctx, mf.WRITE_ONLY, 16 * n)
    sums = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * n)
    scans = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * n)
    kernel(queue, (n,), (local,), inp, ids, sums, scans)
    got_ids = np.empty(4 * n, np.int32)
    got_sums = np.empty(n, np.int32)
    got_scans = np.empty(n, np.int32)
    for host, buf in ((got_ids, ids), (got_sums, sums), (got_scans, scans)):
        cl.enqueue_copy(queue, host, buf)
    got_ids = got_ids.reshape(n, 4)

    info = cl.kernel_sub_group_info
    max_size = kernel.get_sub_group_info(device, info.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (local,))
    count = kernel.get_sub_group_info(device, info.SUB_GROUP_COUNT_FOR_NDRANGE, (local,))
    assert 1 <= max_size <= local
    assert count == -(-local // max_size)
    assert (got_ids[:, 3] == count * 1000 + max_size).all()
    for_count = kernel.get_sub_group_info(device, info.LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 2)
    assert tuple(for_count)[0] == 2 * max_size
    assert kernel.get_sub_group_info(device, info.MAX_NUM_SUB_GROUPS, None) >= count
    assert kernel.get_sub_group_info(device, info.COMPILE_NUM_SUB_GROUPS, None) == 0

    for g in range(groups):
        rows = slice(g * local, (g + 1) * local)
        sg, lid, size = got_ids[rows, 0], got_ids[rows, 1], got_ids[rows, 2]
        assert sorted(set(sg)) == list(range(count))
        for s in range(count):
            members = np.flatnonzero(sg == s)
            # Every sub-group but the last is full; local ids 0..size-1.
            assert len(members) == (max_size if s < count - 1 else local - max_size * (count - 1))
            assert (size[members] == len(members)).all()
            order = members[np.argsort(lid[members])]
            assert list(lid[order]) == list(range(len(members)))
            values = data[rows][order]
            assert (got_sums[rows][order] == values.sum()).all()
            exclusive = np.maximum.accumulate(np.concatenate(([np.iinfo(np.int32).min], values)))[:-1]
            assert (got_scans[rows][order] == exclusive).all()


def test_work_group_collectives(ctx, queue):
    program = build(ctx, SOURCE, "-cl-std=CL2.0")
    local, groups = 48, 4
    n = local * groups
    data = (np.arange(n, dtype=np.float32) % 97) * 0.5
    mf = cl.mem_flags
    inp = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    sums = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * n)
    scans = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * n)
    votes = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * n)
    program.wg(queue, (n,), (local,), inp, sums, scans, votes)
    got = [np.empty(n, np.float32), np.empty(n, np.float32), np.empty(n, np.int32)]
    for host, buf in zip(got, (sums, scans, votes)):
        cl.enqueue_copy(queue, host, buf)
    for g in range(groups):
        part = data[g * local:(g + 1) * local]
        rows = slice(g * local, (g + 1) * local)
        # Sums of halves are exact in float.
        assert (got[0][rows] == part.sum()).all()
        assert (got[1][rows] == np.cumsum(part)).all()
        assert (got[2][rows] == (2 * int((part > 90).any()) + 1)).all()


def test_required_sub_group_size(ctx, device):
    src = """__attribute__((intel_reqd_sub_group_size(4)))
__kernel void k(__global int *o) { o[get_global_id(0)] = get_sub_group_size(); }"""
    kernel = build(ctx, src, "-cl-std=CL2.0").k
    info = cl.kernel_sub_group_info
    assert kernel.get_sub_group_info(device, info.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (64,)) == 4
    assert kernel.get_sub_group_info(device, info.SUB_GROUP_COUNT_FOR_NDRANGE, (64,)) == 16
    assert "intel_reqd_sub_group_size(4)" in kernel.get_info(cl.kernel_info.ATTRIBUTES)
    bad = src.replace("(4)", "(6)")
    program = cl.Program(ctx, bad)
    try:
        program.build(options="-cl-std=CL2.0")
        raise AssertionError("a sub-group size of 6 was accepted")
    except cl.RuntimeError as e:
        # PyOpenCL's cached build path builds another program object, so
        # the log is read from the error, which carries it either way.
        log = str(e) + program.get_build_info(device, cl.program_build_info.LOG)
        assert "<source>:1:42: error: sub-group size 6 is not available" in log, log


def test_device_reports_work_group_collectives(device):
    assert device.work_group_collective_functions_support
