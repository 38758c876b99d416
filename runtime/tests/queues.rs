//! Queues, events and NDRange execution, driven with kernels written in Rust
//! against the kernel ABI (so these tests need no compiler).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use vecl_runtime::abi::{ArgKind, ArgSlot, Launch};
use vecl_runtime::event::{self, ProfilingInfo};
use vecl_runtime::{
    ArgValue, Error, Event, KernelArgs, KernelCode, LaunchRules, MapFlags, Mem, MemFlags, NdRange,
    Queue, QueueProperties, Rect,
};

/// `c[i] = a[i] + b[i]` over the global ids of every group of the range,
/// following the ABI's group numbering and partial last groups. A group
/// listed in `fail_group` returns status 3 instead.
struct VectorAdd {
    slots: Vec<ArgSlot>,
    fail_group: Option<u64>,
}

impl VectorAdd {
    fn new(fail_group: Option<u64>) -> VectorAdd {
        let ptr = |offset| ArgSlot {
            kind: ArgKind::GlobalPointer,
            offset,
            size: 8,
        };
        VectorAdd {
            slots: vec![ptr(0), ptr(8), ptr(16)],
            fail_group,
        }
    }
}

/// The global ids (x, y, z) of group `g`'s items.
fn group_items(launch: &Launch, g: u64) -> Vec<[u64; 3]> {
    let n = launch.num_groups;
    let id = [g % n[0], (g / n[0]) % n[1], g / (n[0] * n[1])];
    let mut out = Vec::new();
    let size =
        |d: usize| launch.local_size[d].min(launch.global_size[d] - id[d] * launch.local_size[d]);
    for z in 0..size(2) {
        for y in 0..size(1) {
            for x in 0..size(0) {
                let local = [x, y, z];
                out.push(std::array::from_fn(|d| {
                    launch.global_offset[d] + id[d] * launch.local_size[d] + local[d]
                }));
            }
        }
    }
    out
}

impl KernelCode for VectorAdd {
    fn name(&self) -> &str {
        "vector_add"
    }
    fn arg_slots(&self) -> &[ArgSlot] {
        &self.slots
    }
    fn args_size(&self) -> usize {
        24
    }
    fn static_local_size(&self) -> u64 {
        0
    }
    fn context_size(&self, _: u64) -> u64 {
        0
    }
    fn simd_width(&self) -> u32 {
        4
    }
    unsafe fn run_groups(
        &self,
        args: *const u8,
        launch: &Launch,
        first: u64,
        end: u64,
        _: *mut u8,
        _: *mut u8,
    ) -> u32 {
        // SAFETY: the block holds three pointers (see `slots`).
        let [a, b, c] =
            unsafe { std::array::from_fn(|i| (args.add(8 * i) as *const *mut f32).read()) };
        for g in first..end {
            if Some(g) == self.fail_group {
                return 3;
            }
            for [x, y, _] in group_items(launch, g) {
                let i = (y * launch.global_size[0] + x) as usize;
                // SAFETY: the tests size the buffers for every global id.
                unsafe { *c.add(i) = *a.add(i) + *b.add(i) };
            }
        }
        0
    }
}

fn floats(mem: &Mem) -> Vec<f32> {
    let mut out = vec![0f32; mem.size() as usize / 4];
    // SAFETY: `out` has exactly the buffer's size.
    unsafe {
        std::ptr::copy_nonoverlapping(mem.as_ptr(), out.as_mut_ptr().cast(), mem.size() as usize)
    };
    out
}

fn float_buffer(values: impl Iterator<Item = f32>) -> Mem {
    let v: Vec<f32> = values.collect();
    // SAFETY: reading the vector's bytes.
    let bytes = unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), v.len() * 4) };
    Mem::from_bytes(MemFlags::READ_WRITE, bytes).expect("buffer")
}

fn add_args(code: &VectorAdd, a: &Mem, b: &Mem, c: &Mem) -> KernelArgs {
    let mut args = KernelArgs::new(code.arg_slots());
    for (i, m) in [a, b, c].into_iter().enumerate() {
        args.set(i as u32, ArgValue::Buffer(Some(m.clone())))
            .expect("arg");
    }
    args
}

fn in_order() -> Queue {
    Queue::new(QueueProperties::default()).expect("queue")
}

#[test]
fn vector_add_over_many_shapes() {
    let q = in_order();
    let code = Arc::new(VectorAdd::new(None));
    let non_uniform = LaunchRules {
        non_uniform_groups: true,
        ..LaunchRules::default()
    };
    let cases: Vec<(NdRange, LaunchRules, usize)> = vec![
        (NdRange::linear(1), LaunchRules::default(), 1),
        (NdRange::linear(100_000), LaunchRules::default(), 100_000),
        (
            NdRange::linear(1000).with_local([10, 1, 1]),
            LaunchRules::default(),
            1000,
        ),
        (
            NdRange::linear(1001).with_local([64, 1, 1]),
            non_uniform,
            1001,
        ),
        (
            NdRange {
                work_dim: 2,
                offset: [0; 3],
                global: [64, 33, 1],
                local: Some([16, 4, 1]),
            },
            non_uniform,
            64 * 33,
        ),
    ];
    for (range, rules, n) in cases {
        let a = float_buffer((0..n).map(|i| i as f32));
        let b = float_buffer((0..n).map(|i| (2 * i) as f32));
        let c = float_buffer((0..n).map(|_| -1.0));
        let args = add_args(&code, &a, &b, &c);
        let e = q
            .enqueue_kernel(code.clone(), &args, &range, &rules, &[])
            .expect("enqueue");
        e.wait().expect("kernel ran");
        let out = floats(&c);
        assert!(
            out.iter().enumerate().all(|(i, &v)| v == (3 * i) as f32),
            "range {range:?}"
        );
    }
}

#[test]
fn global_offsets_shift_the_ids() {
    let q = in_order();
    let code = Arc::new(VectorAdd::new(None));
    let a = float_buffer((0..64).map(|i| i as f32));
    let b = float_buffer((0..64).map(|_| 1.0));
    let c = float_buffer((0..64).map(|_| 0.0));
    let args = add_args(&code, &a, &b, &c);
    let range = NdRange {
        work_dim: 1,
        offset: [32, 0, 0],
        global: [32, 1, 1],
        local: Some([8, 1, 1]),
    };
    q.enqueue_kernel(code, &args, &range, &LaunchRules::default(), &[])
        .expect("enqueue")
        .wait()
        .expect("run");
    let out = floats(&c);
    assert!(out[..32].iter().all(|&v| v == 0.0));
    assert!(out[32..]
        .iter()
        .enumerate()
        .all(|(i, &v)| v == (i + 32) as f32 + 1.0));
}

#[test]
fn launch_errors_come_back_from_the_enqueue() {
    let q = in_order();
    let code = Arc::new(VectorAdd::new(None));
    let a = float_buffer((0..16).map(|i| i as f32));
    let args = add_args(&code, &a, &a, &a);
    let bad = NdRange::linear(100).with_local([30, 1, 1]);
    let err = q
        .enqueue_kernel(code.clone(), &args, &bad, &LaunchRules::default(), &[])
        .err();
    assert!(matches!(err, Some(Error::InvalidWorkGroupSize(_))));
    assert_eq!(err.map(|e| e.cl_code()), Some(-54));
    let unset = KernelArgs::new(code.arg_slots());
    let err = q
        .enqueue_kernel(
            code,
            &unset,
            &NdRange::linear(16),
            &LaunchRules::default(),
            &[],
        )
        .err();
    assert!(matches!(err, Some(Error::InvalidKernelArgs(_))));
}

#[test]
fn a_failing_kernel_fails_its_event_and_its_dependants_only() {
    let q = in_order();
    let code = Arc::new(VectorAdd::new(Some(3)));
    let a = float_buffer((0..4096).map(|i| i as f32));
    let c = float_buffer((0..4096).map(|_| 0.0));
    let args = add_args(&code, &a, &a, &c);
    let failing = q
        .enqueue_kernel(
            code,
            &args,
            &NdRange::linear(4096).with_local([64, 1, 1]),
            &LaunchRules::default(),
            &[],
        )
        .expect("enqueue");
    let ran = Arc::new(AtomicUsize::new(0));
    let r = Arc::clone(&ran);
    let dependant = q
        .enqueue_host_fn(std::slice::from_ref(&failing), move || {
            r.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
        .expect("enqueue");
    assert!(failing.wait().is_err());
    assert_eq!(failing.status(), -5);
    assert!(
        matches!(failing.failure(), Some(Error::OutOfResources(msg)) if msg.contains("vector_add"))
    );
    assert!(dependant.wait().is_err());
    assert_eq!(
        dependant.status(),
        Error::ExecStatusErrorForEventsInWaitList.cl_code()
    );
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "a dependant of a failed command ran"
    );
    // The queue, the pool and the process carry on: queue order alone does
    // not propagate a failure.
    let after = q.enqueue_host_fn(&[], || Ok(())).expect("enqueue");
    after.wait().expect("a later, independent command runs");
}

#[test]
fn failure_cascades_through_a_graph_but_spares_independent_commands() {
    let q = Queue::new(QueueProperties {
        out_of_order: true,
        profiling: false,
        ..Default::default()
    })
    .expect("queue");
    let ran = Arc::new(Mutex::new(Vec::new()));
    let record = |name: &'static str| {
        let ran = Arc::clone(&ran);
        move || {
            ran.lock().map(|mut r| r.push(name)).ok();
            Ok(())
        }
    };
    let root = q
        .enqueue_host_fn(&[], || Err(Error::OutOfResources("deliberate".into())))
        .expect("root");
    let child = q
        .enqueue_host_fn(std::slice::from_ref(&root), record("child"))
        .expect("child");
    let grandchild = q
        .enqueue_host_fn(std::slice::from_ref(&child), record("grandchild"))
        .expect("grandchild");
    let independent = q
        .enqueue_host_fn(&[], record("independent"))
        .expect("independent");
    assert!(grandchild.wait().is_err());
    independent.wait().expect("independent command runs");
    assert_eq!(child.status(), -14);
    assert_eq!(grandchild.status(), -14);
    assert_eq!(*ran.lock().expect("lock"), vec!["independent"]);
}

#[test]
fn out_of_order_queue_follows_its_dependency_graph() {
    let q = Queue::new(QueueProperties {
        out_of_order: true,
        profiling: false,
        ..Default::default()
    })
    .expect("queue");
    let log = Arc::new(Mutex::new(Vec::new()));
    let step = |name: &'static str| {
        let log = Arc::clone(&log);
        move || {
            log.lock().map(|mut l| l.push(name)).ok();
            Ok(())
        }
    };
    let gate = Event::user();
    // d waits for b and c, which wait for a, which waits for the user event.
    let a = q
        .enqueue_host_fn(std::slice::from_ref(&gate), step("a"))
        .expect("a");
    let b = q
        .enqueue_host_fn(std::slice::from_ref(&a), step("b"))
        .expect("b");
    let c = q
        .enqueue_host_fn(std::slice::from_ref(&a), step("c"))
        .expect("c");
    let d = q
        .enqueue_host_fn(&[b.clone(), c.clone()], step("d"))
        .expect("d");
    let free = q.enqueue_host_fn(&[], step("free")).expect("free");
    free.wait().expect("free runs while the gate is closed");
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(*log.lock().expect("lock"), vec!["free"]);
    assert_eq!(a.status(), event::QUEUED, "waiting for its dependencies");
    gate.set_user_status(event::COMPLETE).expect("open");
    d.wait().expect("d");
    let order = log.lock().expect("lock").clone();
    let pos = |n| order.iter().position(|&x| x == n).expect("ran");
    assert!(pos("a") < pos("b") && pos("a") < pos("c"));
    assert!(pos("b") < pos("d") && pos("c") < pos("d"));
    assert_eq!(order.len(), 5);
}

#[test]
fn a_failed_user_event_fails_its_dependants() {
    let q = in_order();
    let gate = Event::user();
    let e = q
        .enqueue_host_fn(std::slice::from_ref(&gate), || Ok(()))
        .expect("enqueue");
    gate.set_user_status(-5).expect("fail the gate");
    assert!(e.wait().is_err());
    assert_eq!(e.status(), -14);
}

#[test]
fn barrier_orders_an_out_of_order_queue() {
    let q = Queue::new(QueueProperties {
        out_of_order: true,
        profiling: false,
        ..Default::default()
    })
    .expect("queue");
    let counter = Arc::new(AtomicUsize::new(0));
    let gate = Event::user();
    for _ in 0..5 {
        let c = Arc::clone(&counter);
        q.enqueue_host_fn(std::slice::from_ref(&gate), move || {
            c.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
        .expect("before");
    }
    let barrier = q.enqueue_barrier(&[]).expect("barrier");
    let seen = Arc::new(AtomicUsize::new(usize::MAX));
    let (c, s) = (Arc::clone(&counter), Arc::clone(&seen));
    let after = q
        .enqueue_host_fn(&[], move || {
            s.store(c.load(Ordering::SeqCst), Ordering::SeqCst);
            Ok(())
        })
        .expect("after");
    assert_eq!(
        barrier.status(),
        event::QUEUED,
        "waiting for its dependencies"
    );
    gate.set_user_status(event::COMPLETE).expect("open");
    after.wait().expect("after");
    assert_eq!(
        seen.load(Ordering::SeqCst),
        5,
        "a command after the barrier ran before those before it"
    );
}

#[test]
fn marker_waits_for_everything_before_it() {
    let q = Queue::new(QueueProperties {
        out_of_order: true,
        profiling: false,
        ..Default::default()
    })
    .expect("queue");
    let gate = Event::user();
    q.enqueue_host_fn(std::slice::from_ref(&gate), || Ok(()))
        .expect("gated");
    let marker = q.enqueue_marker(&[]).expect("marker");
    std::thread::sleep(std::time::Duration::from_millis(10));
    assert_ne!(marker.status(), event::COMPLETE);
    gate.set_user_status(event::COMPLETE).expect("open");
    marker.wait().expect("marker completes");
}

#[test]
fn queues_made_and_released_in_turn_run_every_command_on_parked_executors() {
    // Each queue's executor parks when its queue goes and serves a later
    // queue: from several threads at once, each making a queue after
    // another, every command runs once, in order within its queue.
    const THREADS: usize = 6;
    const QUEUES: usize = 40;
    const COMMANDS: usize = 8;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                for q in 0..QUEUES {
                    let queue = Queue::new(QueueProperties {
                        out_of_order: (t + q) % 3 == 0,
                        profiling: false,
                        ..Default::default()
                    })
                    .expect("queue");
                    let seen = Arc::new(Mutex::new(Vec::new()));
                    let mut last = None;
                    for c in 0..COMMANDS {
                        let seen = Arc::clone(&seen);
                        let wait: Vec<Event> = last.iter().cloned().collect();
                        let event = queue
                            .enqueue_host_fn(&wait, move || {
                                seen.lock().expect("lock").push(c);
                                Ok(())
                            })
                            .expect("enqueue");
                        last = Some(event);
                    }
                    if q % 2 == 0 {
                        queue.finish().expect("finish");
                    } else {
                        last.expect("a command").wait().expect("last");
                    }
                    drop(queue);
                    let seen = seen.lock().expect("lock");
                    assert_eq!(
                        *seen,
                        (0..COMMANDS).collect::<Vec<_>>(),
                        "thread {t}, queue {q}"
                    );
                }
            });
        }
    });
}

#[test]
fn many_threads_many_queues_nothing_lost_or_duplicated() {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 200;
    let hits: Arc<Vec<AtomicUsize>> = Arc::new(
        (0..THREADS * PER_THREAD)
            .map(|_| AtomicUsize::new(0))
            .collect(),
    );
    let shared_queue = Queue::new(QueueProperties {
        out_of_order: true,
        profiling: false,
        ..Default::default()
    })
    .expect("queue");
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let hits = Arc::clone(&hits);
            let shared_queue = shared_queue.clone();
            s.spawn(move || {
                let own = in_order();
                let code = Arc::new(VectorAdd::new(None));
                let a = float_buffer((0..1024).map(|i| (i + t) as f32));
                let c = float_buffer((0..1024).map(|_| 0.0));
                let args = add_args(&code, &a, &a, &c);
                for i in 0..PER_THREAD {
                    let id = t * PER_THREAD + i;
                    let hits = Arc::clone(&hits);
                    let queue = if i % 2 == 0 { &own } else { &shared_queue };
                    queue
                        .enqueue_host_fn(&[], move || {
                            hits[id].fetch_add(1, Ordering::SeqCst);
                            Ok(())
                        })
                        .expect("enqueue");
                    if i % 50 == 0 {
                        let range = NdRange::linear(1024).with_local([64, 1, 1]);
                        own.enqueue_kernel(
                            code.clone(),
                            &args,
                            &range,
                            &LaunchRules::default(),
                            &[],
                        )
                        .expect("kernel");
                    }
                }
                own.finish().expect("finish");
                let out = floats(&c);
                assert!(out
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| v == 2.0 * (i + t) as f32));
            });
        }
    });
    shared_queue.finish().expect("finish");
    assert!(
        hits.iter().all(|h| h.load(Ordering::SeqCst) == 1),
        "a command was lost or ran twice"
    );
}

#[test]
fn buffer_commands_move_the_right_bytes() {
    let q = in_order();
    let mem = Mem::new(MemFlags::READ_WRITE, 256).expect("buffer");
    let data: Vec<u8> = (0..=255).collect();
    // SAFETY: blocking commands on live vectors.
    unsafe { q.enqueue_write(&mem, 0, 256, data.as_ptr(), true, &[]) }.expect("write");
    let other = Mem::new(MemFlags::READ_WRITE, 256).expect("buffer");
    q.enqueue_copy(&mem, &other, 16, 32, 64, &[]).expect("copy");
    q.enqueue_fill(&other, &[0xAB, 0xCD], 128, 8, &[])
        .expect("fill");
    let mut out = vec![0u8; 256];
    // SAFETY: as above.
    unsafe { q.enqueue_read(&other, 0, 256, out.as_mut_ptr(), true, &[]) }.expect("read");
    assert_eq!(&out[32..96], &data[16..80]);
    assert_eq!(
        &out[128..136],
        &[0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD]
    );
    assert!(out[..32].iter().all(|&b| b == 0));
    assert!(matches!(
        q.enqueue_copy(&mem, &mem, 0, 32, 64, &[]),
        Err(Error::MemCopyOverlap)
    ));
    assert!(matches!(
        q.enqueue_fill(&mem, &[1, 2, 3], 0, 3, &[]),
        Err(Error::InvalidValue(_))
    ));
    // SAFETY: rejected before anything is read.
    let past_end = unsafe { q.enqueue_read(&mem, 250, 10, out.as_mut_ptr(), true, &[]) };
    assert!(matches!(past_end, Err(Error::InvalidValue(_))));
}

#[test]
fn rect_commands_copy_sub_rectangles() {
    let q = in_order();
    // A 16x8 byte image; copy the 4x3 block at (2, 1) out and back in elsewhere.
    let image: Vec<u8> = (0..128).collect();
    let mem = Mem::from_bytes(MemFlags::READ_WRITE, &image).expect("buffer");
    let region = [4, 3, 1];
    let buffer_rect = Rect {
        origin: [2, 1, 0],
        row_pitch: 16,
        slice_pitch: 0,
    };
    let mut block = vec![0u8; 12];
    // SAFETY: blocking, into a 12-byte packed host rectangle.
    unsafe {
        q.enqueue_read_rect(
            &mem,
            &buffer_rect,
            &Rect::default(),
            region,
            block.as_mut_ptr(),
            true,
            &[],
        )
    }
    .expect("read rect");
    assert_eq!(block, vec![18, 19, 20, 21, 34, 35, 36, 37, 50, 51, 52, 53]);
    let dest = Rect {
        origin: [8, 4, 0],
        row_pitch: 16,
        slice_pitch: 0,
    };
    q.enqueue_copy_rect(&mem, &mem, &buffer_rect, &dest, region, &[])
        .expect("copy rect");
    let zeros = [0u8; 12];
    // SAFETY: blocking write from a 12-byte host rectangle.
    unsafe {
        q.enqueue_write_rect(
            &mem,
            &buffer_rect,
            &Rect::default(),
            region,
            zeros.as_ptr(),
            true,
            &[],
        )
    }
    .expect("write rect");
    q.finish().expect("finish");
    let out = floats_bytes(&mem);
    assert_eq!(&out[4 * 16 + 8..4 * 16 + 12], &[18, 19, 20, 21]);
    assert_eq!(&out[6 * 16 + 8..6 * 16 + 12], &[50, 51, 52, 53]);
    assert_eq!(&out[16 + 2..16 + 6], &[0, 0, 0, 0]);
    assert_eq!(out[16 + 6], 22);
}

fn floats_bytes(mem: &Mem) -> Vec<u8> {
    // SAFETY: the buffer's bytes, read after `finish`.
    unsafe { std::slice::from_raw_parts(mem.as_ptr(), mem.size() as usize) }.to_vec()
}

#[test]
fn maps_hand_out_the_buffer_bytes_and_host_flags_are_enforced() {
    let q = in_order();
    let mem = Mem::new(MemFlags::READ_WRITE, 128).expect("buffer");
    let (event, ptr) = q
        .enqueue_map(&mem, MapFlags::WRITE, 64, 64, true, &[])
        .expect("map");
    assert_eq!(event.status(), event::COMPLETE);
    assert_eq!(ptr, mem.as_ptr().wrapping_add(64));
    assert_eq!(mem.map_count(), 1);
    // SAFETY: the mapping covers 64 bytes.
    unsafe { ptr.write_bytes(9, 64) };
    assert!(matches!(
        q.enqueue_unmap(&mem, mem.as_ptr(), &[]),
        Err(Error::InvalidValue(_))
    ));
    q.enqueue_unmap(&mem, ptr, &[])
        .expect("unmap")
        .wait()
        .expect("unmapped");
    assert_eq!(mem.map_count(), 0);
    assert_eq!(floats_bytes(&mem)[100], 9);

    let no_host = Mem::new(MemFlags::HOST_NO_ACCESS, 64).expect("buffer");
    let mut out = [0u8; 64];
    // SAFETY: rejected before anything is read.
    let read = unsafe { q.enqueue_read(&no_host, 0, 64, out.as_mut_ptr(), true, &[]) };
    assert!(matches!(read, Err(Error::InvalidOperation(_))));
    let write_only = Mem::new(MemFlags::HOST_WRITE_ONLY, 64).expect("buffer");
    assert!(matches!(
        q.enqueue_map(&write_only, MapFlags::READ, 0, 64, true, &[]),
        Err(Error::InvalidOperation(_))
    ));
    assert!(q
        .enqueue_map(
            &write_only,
            MapFlags::WRITE_INVALIDATE_REGION,
            0,
            64,
            true,
            &[]
        )
        .is_ok());
    let read_only = Mem::new(MemFlags::HOST_READ_ONLY, 64).expect("buffer");
    // SAFETY: rejected before anything is written.
    let write = unsafe { q.enqueue_write(&read_only, 0, 64, out.as_ptr(), true, &[]) };
    assert!(matches!(write, Err(Error::InvalidOperation(_))));
}

#[test]
fn use_host_ptr_kernels_write_the_host_memory() {
    let q = in_order();
    let code = Arc::new(VectorAdd::new(None));
    let mut host = vec![0f32; 256];
    let a = float_buffer((0..256).map(|i| i as f32));
    // SAFETY: `host` outlives the buffer and the finished command.
    let c = unsafe { Mem::create(MemFlags::USE_HOST_PTR, 1024, host.as_mut_ptr().cast()) }
        .expect("buffer");
    let args = add_args(&code, &a, &a, &c);
    q.enqueue_kernel(
        code,
        &args,
        &NdRange::linear(256),
        &LaunchRules::default(),
        &[],
    )
    .expect("enqueue");
    q.finish().expect("finish");
    drop(args);
    drop(c);
    assert!(host.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));
}

#[test]
fn profiling_queue_timestamps_commands() {
    let q = Queue::new(QueueProperties {
        out_of_order: false,
        profiling: true,
        ..Default::default()
    })
    .expect("queue");
    let e = q
        .enqueue_host_fn(&[], || {
            std::thread::sleep(std::time::Duration::from_millis(2));
            Ok(())
        })
        .expect("enqueue");
    e.wait().expect("run");
    let t = |i| e.profiling(i).expect("profiling");
    assert!(t(ProfilingInfo::Queued) <= t(ProfilingInfo::Submit));
    assert!(t(ProfilingInfo::Submit) <= t(ProfilingInfo::Start));
    assert!(t(ProfilingInfo::End) - t(ProfilingInfo::Start) >= 2_000_000);
    assert!(t(ProfilingInfo::End) <= t(ProfilingInfo::Complete));
    let plain = in_order().enqueue_marker(&[]).expect("marker");
    plain.wait().expect("marker");
    assert_eq!(
        plain.profiling(ProfilingInfo::Start),
        Err(Error::ProfilingInfoNotAvailable)
    );
}

#[test]
fn callbacks_see_each_status_once() {
    let q = in_order();
    let gate = Event::user();
    let e = q
        .enqueue_host_fn(std::slice::from_ref(&gate), || Ok(()))
        .expect("enqueue");
    let seen = Arc::new(Mutex::new(Vec::new()));
    for trigger in [event::SUBMITTED, event::RUNNING, event::COMPLETE] {
        let seen = Arc::clone(&seen);
        e.on_status(
            trigger,
            Box::new(move |s| seen.lock().map(|mut v| v.push((trigger, s))).unwrap_or(())),
        )
        .expect("callback");
    }
    gate.set_user_status(event::COMPLETE).expect("open");
    e.wait().expect("run");
    // Callbacks run on the thread that completed the event, possibly just
    // after waiters wake: give them a moment.
    for _ in 0..1000 {
        if seen.lock().map(|v| v.len()).unwrap_or(0) == 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let mut got = seen.lock().expect("lock").clone();
    got.sort_unstable();
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], (event::COMPLETE, event::COMPLETE));
    assert_eq!(got[2], (event::SUBMITTED, event::SUBMITTED));
}

#[test]
fn dropping_a_queue_still_runs_its_commands() {
    let done = Arc::new(AtomicUsize::new(0));
    let event = {
        let q = in_order();
        let d = Arc::clone(&done);
        q.enqueue_host_fn(&[], move || {
            std::thread::sleep(std::time::Duration::from_millis(5));
            d.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
        .expect("enqueue")
    };
    event.wait().expect("ran after the queue was dropped");
    assert_eq!(done.load(Ordering::SeqCst), 1);
}

#[test]
fn raw_addresses_and_blocking_runs_outside_queues() {
    let code = Arc::new(VectorAdd::new(None));
    let a: Vec<f32> = (0..500).map(|i| i as f32).collect();
    let mut c = vec![0f32; 500];
    let mut args = KernelArgs::new(code.arg_slots());
    assert!(matches!(
        args.set(0, ArgValue::Address(0)),
        Err(Error::InvalidArgValue(_))
    ));
    // SAFETY: `a` and `c` hold 500 floats and outlive the blocking run.
    unsafe {
        args.set_address(0, a.as_ptr() as u64).expect("a");
        args.set_address(1, a.as_ptr() as u64).expect("b");
        args.set_address(2, c.as_mut_ptr() as u64).expect("c");
    }
    let range = NdRange::linear(500);
    vecl_runtime::ndrange::run_blocking(code, &args, &range, &LaunchRules::default()).expect("run");
    assert!(c.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));
}

#[test]
fn a_ready_command_does_not_wait_behind_a_busy_executor() {
    let q = Queue::new(QueueProperties {
        out_of_order: true,
        profiling: false,
        ..Default::default()
    })
    .expect("queue");
    let busy_on = Arc::new(Mutex::new(None));
    let b = Arc::clone(&busy_on);
    let busy = q
        .enqueue_host_fn(&[], move || {
            *b.lock().expect("lock") = Some(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(100));
            Ok(())
        })
        .expect("busy");
    // Let the executor pick up the long command.
    std::thread::sleep(std::time::Duration::from_millis(10));
    let ran_on = Arc::new(Mutex::new(None));
    let r = Arc::clone(&ran_on);
    let quick = q
        .enqueue_host_fn(&[], move || {
            *r.lock().expect("lock") = Some(std::thread::current().id());
            Ok(())
        })
        .expect("quick");
    quick.wait().expect("quick");
    // It ran on the waiter (which takes a ready command itself) or on
    // another executor (a parked one takes it at once), never after the
    // busy one on its thread.
    let ran_on = ran_on.lock().expect("lock").expect("ran");
    assert_ne!(Some(ran_on), *busy_on.lock().expect("lock"));
    assert_ne!(
        busy.status(),
        event::COMPLETE,
        "the quick command waited for the busy executor"
    );
    busy.wait().expect("busy");
    q.finish().expect("finish");
}

#[test]
fn a_hundred_thousand_commands_behind_one_user_event_complete() {
    for out_of_order in [false, true] {
        let q = Queue::new(QueueProperties {
            out_of_order,
            profiling: false,
            ..Default::default()
        })
        .expect("queue");
        let gate = Event::user();
        let ran = Arc::new(AtomicUsize::new(0));
        for _ in 0..100_000 {
            let r = Arc::clone(&ran);
            q.enqueue_host_fn(std::slice::from_ref(&gate), move || {
                r.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .expect("enqueue");
        }
        assert_eq!(ran.load(Ordering::SeqCst), 0, "ran before the gate opened");
        gate.set_user_status(event::COMPLETE).expect("open");
        q.finish().expect("finish");
        assert_eq!(
            ran.load(Ordering::SeqCst),
            100_000,
            "out of order: {out_of_order}"
        );
    }
}

#[test]
fn a_long_chain_of_dependencies_completes_without_recursion() {
    // Each command waits on the one before: completing the gate releases
    // 200,000 commands one after another. Released by recursion, the chain
    // would overflow the completing thread's stack.
    let q = Queue::new(QueueProperties {
        out_of_order: true,
        profiling: false,
        ..Default::default()
    })
    .expect("queue");
    let gate = Event::user();
    let ran = Arc::new(AtomicUsize::new(0));
    let mut last = gate.clone();
    for _ in 0..200_000 {
        let r = Arc::clone(&ran);
        last = q
            .enqueue_host_fn(std::slice::from_ref(&last), move || {
                r.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .expect("enqueue");
    }
    gate.set_user_status(event::COMPLETE).expect("open");
    last.wait().expect("the chain's end");
    assert_eq!(ran.load(Ordering::SeqCst), 200_000);
}

#[test]
fn a_non_blocking_enqueue_returns_while_its_command_runs() {
    use std::sync::atomic::AtomicBool;
    let q = in_order();
    let release = Arc::new(AtomicBool::new(false));
    let r = Arc::clone(&release);
    let long = q
        .enqueue_host_fn(&[], move || {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while !r.load(Ordering::Acquire) && std::time::Instant::now() < deadline {
                std::thread::yield_now();
            }
            Ok(())
        })
        .expect("enqueue");
    // The enqueue returned although the command cannot finish until this
    // thread says so.
    assert_ne!(long.status(), event::COMPLETE);
    // A second queue runs meanwhile.
    let other = in_order();
    other
        .enqueue_host_fn(&[], || Ok(()))
        .expect("other")
        .wait()
        .expect("another queue's command runs while the first is busy");
    release.store(true, Ordering::Release);
    long.wait().expect("long");
}
