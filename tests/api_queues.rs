//! Queues and events through the safe API: many threads, many queues,
//! out-of-order graphs with user events, failures that stop dependants.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use vecl::{event, Context, Error, Event};

#[test]
fn several_threads_enqueue_into_several_queues_at_once() {
    let ctx = Context::new().expect("context");
    let shared = ctx.queue_builder().out_of_order().build().expect("queue");
    let total = Arc::new(AtomicUsize::new(0));
    std::thread::scope(|s| {
        for t in 0..6u32 {
            let (ctx, shared, total) = (ctx.clone(), shared.clone(), Arc::clone(&total));
            s.spawn(move || {
                let own = ctx.queue().expect("queue");
                let buf = ctx.buffer::<u32>(1024).expect("buffer");
                for round in 0..50u32 {
                    own.fill(&buf, t * 1000 + round, 0, 1024, &[])
                        .expect("fill");
                    let total = Arc::clone(&total);
                    shared
                        .host_fn(&[], move || {
                            total.fetch_add(1, Ordering::SeqCst);
                            Ok(())
                        })
                        .expect("host fn");
                }
                let out = own.read_vec(&buf, &[]).expect("read");
                assert!(
                    out.iter().all(|&v| v == t * 1000 + 49),
                    "in-order fills must land in order"
                );
            });
        }
    });
    shared.finish().expect("finish");
    assert_eq!(
        total.load(Ordering::SeqCst),
        300,
        "commands lost or duplicated"
    );
}

#[test]
fn out_of_order_graph_waits_for_user_events() {
    let ctx = Context::new().expect("context");
    let q = ctx
        .queue_builder()
        .out_of_order()
        .profiling()
        .build()
        .expect("queue");
    let order = Arc::new(Mutex::new(Vec::new()));
    let step = |n: u32| {
        let order = Arc::clone(&order);
        move || {
            order.lock().map(|mut o| o.push(n)).ok();
            Ok(())
        }
    };
    let (left, right) = (Event::user(), Event::user());
    let a = q.host_fn(std::slice::from_ref(&left), step(1)).expect("a");
    let b = q.host_fn(std::slice::from_ref(&right), step(2)).expect("b");
    let joined = q.host_fn(&[a.clone(), b.clone()], step(3)).expect("join");
    right.set_user_status(event::COMPLETE).expect("right");
    b.wait().expect("b");
    assert_eq!(*order.lock().expect("lock"), vec![2]);
    assert_ne!(joined.status(), event::COMPLETE);
    left.set_user_status(event::COMPLETE).expect("left");
    joined.wait().expect("join");
    assert_eq!(*order.lock().expect("lock"), vec![2, 1, 3]);
    assert!(
        joined.profiling(vecl::ProfilingInfo::Start).expect("start")
            >= b.profiling(vecl::ProfilingInfo::End).expect("end")
    );
}

#[test]
fn a_failing_command_stops_its_dependants_and_nothing_else() {
    let ctx = Context::new().expect("context");
    let q = ctx.queue_builder().out_of_order().build().expect("queue");
    let ran = Arc::new(AtomicUsize::new(0));
    let count = || {
        let ran = Arc::clone(&ran);
        move || {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    };
    let failing = q
        .host_fn(&[], || Err(Error::OutOfResources("deliberate".into())))
        .expect("enqueue");
    let dependant = q
        .host_fn(std::slice::from_ref(&failing), count())
        .expect("dependant");
    let marker = q.marker(std::slice::from_ref(&dependant)).expect("marker");
    let bystander = q.host_fn(&[], count()).expect("bystander");
    bystander.wait().expect("bystander runs");
    assert!(marker.wait().is_err());
    assert_eq!(failing.status(), -5);
    assert_eq!(dependant.status(), -14);
    assert_eq!(marker.status(), -14);
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    // A blocking read waiting on a failed event reports the wait-list error.
    let buf = ctx.buffer::<u8>(16).expect("buffer");
    let read = q.read_vec(&buf, std::slice::from_ref(&failing));
    assert_eq!(read.map_err(|e| e.cl_code()).err(), Some(-14));
    // Waiting on a dependant tells what failed upstream, not only that
    // something did.
    let told = dependant.wait().expect_err("failed").to_string();
    assert!(told.contains("deliberate"), "{told}");
    // The queue's next finish reports the failed command once.
    assert_eq!(q.finish().map_err(|e| e.cl_code()), Err(-5));
    q.finish().expect("a second finish has nothing to report");
}
