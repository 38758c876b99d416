//! Buffers and transfers through the safe API (no kernels needed).

use vecl::{Buffer, Context, Error, MapFlags, Mem, MemFlags};

#[test]
fn typed_buffers_round_trip_through_a_queue() {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    let data: Vec<i32> = (0..1000).collect();
    let buf = ctx.buffer_from(&data).expect("buffer");
    assert_eq!(buf.len(), 1000);
    assert_eq!(buf.byte_size(), 4000);
    assert_eq!(queue.read_vec(&buf, &[]).expect("read"), data);

    queue.write(&buf, 10, &[-1, -2, -3]).expect("write");
    let mut window = [0i32; 5];
    queue.read(&buf, 9, &mut window).expect("read");
    assert_eq!(window, [9, -1, -2, -3, 13]);

    queue.fill(&buf, 7, 100, 50, &[]).expect("fill");
    let other = ctx.buffer::<i32>(1000).expect("buffer");
    let copied = queue.copy(&buf, &other, &[]).expect("copy");
    let out = queue.read_vec(&other, &[copied]).expect("read");
    assert!(out[100..150].iter().all(|&v| v == 7));
    assert_eq!(out[99], 99);
    assert_eq!(out[150], 150);

    assert!(matches!(
        queue.write(&buf, 999, &[1, 2]),
        Err(Error::InvalidValue(_))
    ));
}

#[test]
fn async_writes_own_their_data() {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue_builder().out_of_order().build().expect("queue");
    let buf = ctx.buffer::<u8>(256).expect("buffer");
    let gate = vecl::Event::user();
    let write = queue
        .write_async(&buf, 0, vec![5u8; 256], std::slice::from_ref(&gate))
        .expect("write");
    assert_ne!(write.status(), vecl::event::COMPLETE);
    gate.set_user_status(vecl::event::COMPLETE).expect("open");
    let out = queue.read_vec(&buf, &[write]).expect("read");
    assert!(out.iter().all(|&b| b == 5));
}

#[test]
fn builder_flags_and_host_access() {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    let hidden = Buffer::<f32>::builder(&ctx, 64)
        .read_only()
        .host_no_access()
        .build()
        .expect("buffer");
    assert!(hidden
        .raw()
        .flags()
        .contains(MemFlags::READ_ONLY | MemFlags::HOST_NO_ACCESS));
    assert!(matches!(
        queue.read_vec(&hidden, &[]),
        Err(Error::InvalidOperation(_))
    ));
    let write_only = Buffer::<f32>::builder(&ctx, 64)
        .host_write_only()
        .build()
        .expect("buffer");
    queue
        .write(&write_only, 0, &[1.0; 64])
        .expect("host may write");
    assert!(matches!(
        queue.read_vec(&write_only, &[]),
        Err(Error::InvalidOperation(_))
    ));
    let conflicting = Buffer::<f32>::builder(&ctx, 64)
        .read_only()
        .write_only()
        .build();
    assert!(matches!(conflicting, Err(Error::InvalidValue(_))));
}

#[test]
fn sub_buffers_alias_their_parent() {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    let parent = ctx
        .buffer_from(&(0..256).collect::<Vec<u32>>())
        .expect("buffer");
    let sub = parent
        .sub_buffer(32, 16)
        .expect("sub-buffer (128-byte origin)");
    assert_eq!(
        queue.read_vec(&sub, &[]).expect("read"),
        (32..48).collect::<Vec<u32>>()
    );
    queue.write(&sub, 0, &[0; 16]).expect("write");
    let all = queue.read_vec(&parent, &[]).expect("read");
    assert!(all[32..48].iter().all(|&v| v == 0));
    assert_eq!(all[48], 48);
    assert!(matches!(
        parent.sub_buffer(1, 4),
        Err(Error::MisalignedSubBufferOffset(4))
    ));
}

#[test]
fn raw_buffers_cover_every_host_pointer_mode() {
    let ctx = Context::new().expect("context");
    let queue = ctx.queue().expect("queue");
    let mut host = vec![3u8; 128];
    // SAFETY: `host` outlives the buffer.
    let zero_copy =
        unsafe { ctx.create_raw_buffer(MemFlags::USE_HOST_PTR, 128, host.as_mut_ptr()) }
            .expect("use");
    let (_, ptr) = queue
        .raw()
        .enqueue_map(&zero_copy, MapFlags::WRITE, 0, 128, true, &[])
        .expect("map");
    assert_eq!(
        ptr,
        host.as_mut_ptr(),
        "mapping a USE_HOST_PTR buffer hands out the host memory"
    );
    queue
        .raw()
        .enqueue_unmap(&zero_copy, ptr, &[])
        .expect("unmap");
    // SAFETY: as above; COPY_HOST_PTR reads `host` during the call only.
    let copied = unsafe { ctx.create_raw_buffer(MemFlags::COPY_HOST_PTR, 128, host.as_mut_ptr()) }
        .expect("copy");
    host[0] = 99;
    let typed = Buffer::<u8>::from_mem(&ctx, copied).expect("typed view");
    assert_eq!(queue.read_vec(&typed, &[]).expect("read")[0], 3);
    // SAFETY: null host pointer with ALLOC_HOST_PTR.
    let alloc =
        unsafe { ctx.create_raw_buffer(MemFlags::ALLOC_HOST_PTR, 128, std::ptr::null_mut()) };
    assert_eq!(alloc.expect("alloc").as_ptr() as usize % 64, 0);
    // SAFETY: rejected before the pointer is used.
    let missing =
        unsafe { ctx.create_raw_buffer(MemFlags::USE_HOST_PTR, 128, std::ptr::null_mut()) };
    assert_eq!(missing.map_err(|e| e.cl_code()).err(), Some(-37));
    let too_big = Mem::new(MemFlags::READ_WRITE, u64::MAX);
    assert_eq!(too_big.map_err(|e| e.cl_code()).err(), Some(-61));
}
