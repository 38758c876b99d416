"""Platform, device, context and queue objects through PyOpenCL."""

import pyopencl as cl


def test_one_platform_named_vecl(platform):
    assert platform.name == "vecl"
    assert platform.vendor
    assert platform.version.startswith("OpenCL 3.0 ")
    assert platform.profile == "FULL_PROFILE"
    assert "cl_khr_icd" in platform.extensions.split()
    assert platform.get_info(cl.platform_info.NUMERIC_VERSION) == (3 << 22)


def test_device_describes_a_cpu(device, platform):
    assert device.type == cl.device_type.CPU
    assert device.platform == platform
    assert device.name.startswith("vecl")
    assert device.version.startswith("OpenCL 3.0")
    assert device.opencl_c_version.startswith("OpenCL C 1.2")
    assert device.max_compute_units >= 1
    assert device.max_work_group_size >= 256
    assert len(device.max_work_item_sizes) == 3
    assert device.global_mem_size >= device.max_mem_alloc_size >= 128 * 1024 * 1024
    assert device.local_mem_size >= 32 * 1024
    assert device.address_bits == 64
    assert device.endian_little
    assert device.available and device.compiler_available
    assert device.image_support
    svm = cl.device_svm_capabilities
    assert device.svm_capabilities == svm.COARSE_GRAIN_BUFFER | svm.FINE_GRAIN_BUFFER
    assert device.queue_on_host_properties & cl.command_queue_properties.PROFILING_ENABLE
    names = [e.name for e in device.extensions_with_version]
    assert names == device.extensions.split()


def test_device_type_selection(platform):
    assert len(platform.get_devices(cl.device_type.CPU)) == 1
    assert len(platform.get_devices(cl.device_type.ALL)) == 1
    # PyOpenCL turns CL_DEVICE_NOT_FOUND into an empty list.
    assert platform.get_devices(cl.device_type.GPU) == []


def test_context_reports_its_device_and_properties(device, platform):
    ctx = cl.Context(properties=[(cl.context_properties.PLATFORM, platform)], devices=[device])
    assert ctx.devices == [device]
    assert ctx.num_devices == 1
    assert ctx.reference_count >= 1
    from_type = cl.Context(dev_type=cl.device_type.ALL, properties=[(cl.context_properties.PLATFORM, platform)])
    assert from_type.devices == [device]


def test_queues_keep_their_properties(ctx, device):
    props = cl.command_queue_properties
    in_order = cl.CommandQueue(ctx)
    assert in_order.properties == 0
    assert in_order.device == device
    assert in_order.context == ctx
    ooo = cl.CommandQueue(ctx, properties=props.OUT_OF_ORDER_EXEC_MODE_ENABLE | props.PROFILING_ENABLE)
    assert ooo.properties == props.OUT_OF_ORDER_EXEC_MODE_ENABLE | props.PROFILING_ENABLE
    ooo.flush()
    ooo.finish()


def test_host_timer_is_monotonic(device):
    first = device.device_and_host_timer()
    second = device.device_and_host_timer()
    assert second[0] >= first[0] > 0
    assert second[1] >= first[1] > 0
