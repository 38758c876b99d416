"""Buffers, sub-buffers, copies, fills, maps, rectangles, events and
profiling: every command that needs no kernel."""

import time

import numpy as np
import pytest
import pyopencl as cl

mf = cl.mem_flags


def test_write_then_read_round_trips(ctx, queue):
    data = np.arange(1000, dtype=np.float32)
    buf = cl.Buffer(ctx, mf.READ_WRITE, data.nbytes)
    cl.enqueue_copy(queue, buf, data)
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    assert np.array_equal(out, data)
    assert buf.size == data.nbytes
    assert buf.get_info(cl.mem_info.TYPE) == cl.mem_object_type.BUFFER


def test_copy_host_ptr_and_use_host_ptr(ctx, queue):
    data = np.arange(64, dtype=np.int32)
    copied = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    data[:] = -1
    out = np.empty(64, dtype=np.int32)
    cl.enqueue_copy(queue, out, copied)
    assert np.array_equal(out, np.arange(64))

    host = np.zeros(64, dtype=np.int32)
    shared = cl.Buffer(ctx, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=host)
    cl.enqueue_copy(queue, shared, np.full(64, 7, dtype=np.int32))
    queue.finish()
    # USE_HOST_PTR is zero-copy: the write landed in the application's array.
    assert np.all(host == 7)


def test_copy_between_buffers_and_fill(ctx, queue):
    src = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.arange(256, dtype=np.uint8))
    dst = cl.Buffer(ctx, mf.READ_WRITE, 256)
    cl.enqueue_fill_buffer(queue, dst, np.uint32(0xAABBCCDD), 0, 256)
    cl.enqueue_copy(queue, dst, src, byte_count=64, src_offset=16, dst_offset=128)
    out = np.empty(256, dtype=np.uint8)
    cl.enqueue_copy(queue, out, dst)
    fill = np.frombuffer(np.full(64, 0xAABBCCDD, dtype=np.uint32).tobytes(), dtype=np.uint8)
    assert np.array_equal(out[:128], fill[:128])
    assert np.array_equal(out[128:192], np.arange(16, 80, dtype=np.uint8))
    assert np.array_equal(out[192:], fill[192:])


def test_sub_buffer_is_a_window_on_its_parent(ctx, queue, device):
    align = device.mem_base_addr_align // 8
    parent = cl.Buffer(ctx, mf.READ_WRITE, 4 * align)
    cl.enqueue_fill_buffer(queue, parent, np.uint8(0), 0, 4 * align)
    sub = parent.get_sub_region(align, align)
    assert sub.get_info(cl.mem_info.OFFSET) == align
    assert sub.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT) == parent
    cl.enqueue_fill_buffer(queue, sub, np.uint8(9), 0, align)
    out = np.empty(4 * align, dtype=np.uint8)
    cl.enqueue_copy(queue, out, parent)
    assert np.all(out[:align] == 0)
    assert np.all(out[align : 2 * align] == 9)
    assert np.all(out[2 * align :] == 0)


def test_map_exposes_buffer_contents(ctx, queue):
    data = np.arange(32, dtype=np.float64)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    mapped, _ = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ | cl.map_flags.WRITE, 0, (32,), np.float64)
    assert buf.get_info(cl.mem_info.MAP_COUNT) == 1
    assert np.array_equal(mapped, data)
    mapped[0] = 100.0
    mapped.base.release(queue)
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    assert out[0] == 100.0
    assert buf.get_info(cl.mem_info.MAP_COUNT) == 0


def test_rectangular_copies(ctx, queue):
    image = np.arange(8 * 6, dtype=np.uint8).reshape(6, 8)
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=image)
    tile = np.zeros((3, 4), dtype=np.uint8)
    # A 4×3 tile starting at column 2, row 1 of the 8-byte-wide buffer.
    cl.enqueue_copy(
        queue, tile, buf,
        buffer_origin=(2, 1), host_origin=(0, 0), region=(4, 3),
        buffer_pitches=(8,), host_pitches=(4,),
    )
    assert np.array_equal(tile, image[1:4, 2:6])
    dst = cl.Buffer(ctx, mf.READ_WRITE, image.nbytes)
    cl.enqueue_fill_buffer(queue, dst, np.uint8(0), 0, image.nbytes)
    cl.enqueue_copy(
        queue, dst, buf,
        src_origin=(2, 1), dst_origin=(0, 0), region=(4, 3),
        src_pitches=(8, 48), dst_pitches=(8, 48),
    )
    out = np.empty_like(image)
    cl.enqueue_copy(queue, out, dst)
    assert np.array_equal(out[0:3, 0:4], image[1:4, 2:6])
    assert np.all(out[3:] == 0)


def test_user_event_holds_back_dependent_commands(ctx):
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    cl.enqueue_fill_buffer(queue, buf, np.uint32(1), 0, 16)
    gate = cl.UserEvent(ctx)
    out = np.zeros(4, dtype=np.uint32)
    fill = cl.enqueue_fill_buffer(queue, buf, np.uint32(2), 0, 16, wait_for=[gate])
    read = cl.enqueue_copy(queue, out, buf, is_blocking=False)
    assert fill.command_execution_status == cl.command_execution_status.QUEUED
    assert read.command_execution_status == cl.command_execution_status.QUEUED
    assert np.all(out == 0)
    gate.set_status(cl.command_execution_status.COMPLETE)
    read.wait()
    assert np.all(out == 2)
    assert fill.command_execution_status == cl.command_execution_status.COMPLETE


def test_event_callbacks_fire_on_completion(ctx):
    queue = cl.CommandQueue(ctx)
    gate = cl.UserEvent(ctx)
    marker = cl.enqueue_marker(queue, wait_for=[gate])
    seen = []
    marker.set_callback(cl.command_execution_status.COMPLETE, lambda status: seen.append(status))
    assert seen == []
    gate.set_status(cl.command_execution_status.COMPLETE)
    marker.wait()
    # PyOpenCL runs Python callbacks on a helper thread: give it a moment.
    deadline = time.monotonic() + 5
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen == [cl.command_execution_status.COMPLETE]


def test_profiling_timestamps_are_ordered(ctx, queue):
    buf = cl.Buffer(ctx, mf.READ_WRITE, 1 << 20)
    event = cl.enqueue_fill_buffer(queue, buf, np.uint32(3), 0, 1 << 20)
    event.wait()
    p = event.profile
    assert 0 < p.queued <= p.submit <= p.start <= p.end
    assert event.command_type == cl.command_type.FILL_BUFFER


def test_out_of_order_barrier_orders_commands(ctx):
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    gate = cl.UserEvent(ctx)
    cl.enqueue_fill_buffer(queue, buf, np.uint32(5), 0, 16, wait_for=[gate])
    cl.enqueue_barrier(queue)
    out = np.zeros(4, dtype=np.uint32)
    read = cl.enqueue_copy(queue, out, buf, is_blocking=False)
    assert read.command_execution_status == cl.command_execution_status.QUEUED
    gate.set_status(cl.command_execution_status.COMPLETE)
    queue.finish()
    assert np.all(out == 5)


def test_failed_dependency_fails_the_command(ctx):
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    gate = cl.UserEvent(ctx)
    out = np.zeros(4, dtype=np.uint32)
    read = cl.enqueue_copy(queue, out, buf, is_blocking=False, wait_for=[gate])
    gate.set_status(-1)
    assert read.command_execution_status < 0
    try:
        cl.wait_for_events([read])
    except cl.RuntimeError as error:
        assert error.code == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    else:
        raise AssertionError("waiting on a failed command succeeded")


def test_a_failure_does_not_spread_down_an_in_order_queue(ctx):
    """Queue order alone does not pass a failure on: the command after a
    failed one runs, whether it was enqueued before the failure (and
    parked behind it) or after."""
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, mf.READ_WRITE, 16)
    gate = cl.UserEvent(ctx)
    ones = np.ones(4, dtype=np.uint32)
    failing = cl.enqueue_copy(queue, buf, ones, is_blocking=False, wait_for=[gate])
    parked = cl.enqueue_fill_buffer(queue, buf, np.uint32(7), 0, 16)
    gate.set_status(-1)
    assert failing.command_execution_status == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    parked.wait()
    assert parked.command_execution_status == cl.command_execution_status.COMPLETE
    later = cl.enqueue_fill_buffer(queue, buf, np.uint32(9), 0, 8)
    later.wait()
    out = np.zeros(4, dtype=np.uint32)
    cl.enqueue_copy(queue, out, buf)
    assert list(out) == [9, 9, 7, 7]


def test_buffers_beyond_the_device_memory_fail_to_allocate(ctx, device):
    """Live buffers may not together exceed CL_DEVICE_GLOBAL_MEM_SIZE: the
    one past it is CL_MEM_OBJECT_ALLOCATION_FAILURE at creation, not a
    process killed when the pages are touched."""
    size = device.max_mem_alloc_size
    held = []
    with pytest.raises(cl.Error) as caught:
        for _ in range(device.global_mem_size // size + 2):
            held.append(cl.Buffer(ctx, mf.READ_WRITE, size))
    assert caught.value.code == cl.status_code.MEM_OBJECT_ALLOCATION_FAILURE
    assert len(held) >= device.global_mem_size // size - 1
    for buffer in held:
        buffer.release()
    cl.Buffer(ctx, mf.READ_WRITE, size).release()


def test_images_are_listed(ctx):
    """The image formats (tested in test_images.py) are offered."""
    formats = cl.get_supported_image_formats(ctx, mf.READ_ONLY, cl.mem_object_type.IMAGE2D)
    assert cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT) in formats
