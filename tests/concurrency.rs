//! Shared-state services under concurrent use: invariants hold under any
//! interleaving of threads.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use cleveragents::a2a::{A2aEventQueue, EventFilter};
use cleveragents::{
    A2aEvent, A2aLocalFacade, ContextScope, ContextService, CreateSession, InMemoryContextService,
    InMemoryPlanLifecycle, InMemoryRegistry, InMemorySessionService, InMemorySync, ManualClock,
    PlanLifecycle, Registry, RegistryEntry, RegistryFilter, RegistryKind, SessionId,
    SessionService, SyncService, UsePlan,
};
use serde_json::json;

const THREADS: usize = 8;

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn public_types_are_send_and_sync() {
    assert_send_sync::<A2aLocalFacade>();
    assert_send_sync::<A2aEventQueue>();
    assert_send_sync::<InMemorySessionService>();
    assert_send_sync::<InMemoryPlanLifecycle>();
    assert_send_sync::<InMemoryRegistry>();
    assert_send_sync::<InMemoryContextService>();
    assert_send_sync::<InMemorySync>();
    assert_send_sync::<cleveragents::DiagnosticsRegistry>();
    assert_send_sync::<ManualClock>();
    assert_send_sync::<cleveragents::A2aRequest>();
    assert_send_sync::<cleveragents::A2aResponse>();
    assert_send_sync::<cleveragents::A2aError>();
    assert_send_sync::<cleveragents::ServiceError>();
    assert_send_sync::<cleveragents::Usd>();
}

#[test]
fn idempotent_session_create_makes_exactly_one_session() {
    let sessions = InMemorySessionService::new();
    let id = SessionId::new();
    let created = AtomicUsize::new(0);
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for _ in 0..500 {
                    if sessions
                        .create(CreateSession::new().session_id(id))
                        .unwrap()
                        .created
                    {
                        created.fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
        }
    });
    assert_eq!(created.load(Ordering::SeqCst), 1);
    assert_eq!(sessions.list().unwrap().len(), 1);
}

#[test]
fn a_transition_raced_by_many_threads_happens_once() {
    let plans = InMemoryPlanLifecycle::new();
    for _ in 0..50 {
        let id = plans.use_action(UsePlan::new("race")).unwrap().plan_id;
        let wins = AtomicUsize::new(0);
        thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    if plans.execute(id).is_ok() {
                        wins.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(wins.load(Ordering::SeqCst), 1);
        assert_eq!(
            plans.tree(id).unwrap().len(),
            2,
            "one strategy, one execution decision"
        );
    }
}

#[test]
fn registry_names_are_taken_once() {
    let registry = InMemoryRegistry::new(RegistryKind::Tool);
    let wins = AtomicUsize::new(0);
    thread::scope(|s| {
        for t in 0..THREADS {
            let registry = &registry;
            let wins = &wins;
            s.spawn(move || {
                for i in 0..200 {
                    if registry
                        .register(RegistryEntry::new(format!("tool-{i}")))
                        .is_ok()
                    {
                        wins.fetch_add(1, Ordering::SeqCst);
                    }
                    let _ = registry.register(RegistryEntry::new(format!("own-{t}-{i}")));
                }
            });
        }
    });
    assert_eq!(wins.load(Ordering::SeqCst), 200);
    assert_eq!(
        registry.list(&RegistryFilter::default()).unwrap().len(),
        200 + THREADS * 200
    );
}

#[test]
fn context_and_sync_stay_consistent() {
    let context = InMemoryContextService::new();
    let sync = InMemorySync::new();
    thread::scope(|s| {
        for t in 0..THREADS {
            let context = &context;
            let sync = &sync;
            s.spawn(move || {
                for i in 0..250 {
                    context
                        .set(&ContextScope::default(), &format!("k{t}-{i}"), json!(i))
                        .unwrap();
                    sync.record_local_change(None).unwrap();
                }
            });
        }
    });
    assert_eq!(
        context.show(&ContextScope::default()).unwrap().len(),
        THREADS * 250
    );
    assert_eq!(sync.status(None).unwrap().ahead, (THREADS * 250) as u64);
}

#[test]
fn the_facade_serves_many_threads() {
    let facade = A2aLocalFacade::in_memory();
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for _ in 0..100 {
                    let reply = facade
                        .dispatch_json(br#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/use","params":{"action_name":"a"}}"#)
                        .unwrap();
                    let reply: serde_json::Value = serde_json::from_slice(&reply).unwrap();
                    let id = reply["result"]["plan_id"].clone();
                    let exec = json!({"jsonrpc": "2.0", "id": 2, "method": "_cleveragents/plan/execute", "params": {"plan_id": id}});
                    let reply = facade.dispatch_json(exec.to_string().as_bytes()).unwrap();
                    assert!(!String::from_utf8(reply).unwrap().contains("error"));
                }
            });
        }
    });
    let list = facade
        .dispatch_json(br#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/list","params":{"state":"running"}}"#)
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list).unwrap();
    assert_eq!(
        list["result"]["plans"].as_array().unwrap().len(),
        THREADS * 100
    );
    // Every transition was published: one creation and one execution per plan.
    assert_eq!(
        facade.event_queue().unwrap().get_events(usize::MAX).len(),
        1000.min(THREADS * 200)
    );
}

#[test]
fn live_subscribers_see_every_event_exactly_once() {
    let queue = A2aEventQueue::with_capacity(100_000);
    let clock = ManualClock::default();
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    queue.subscribe_local(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let buffered = queue.subscribe_buffered(EventFilter::default());
    thread::scope(|s| {
        for t in 0..THREADS {
            let queue = &queue;
            let clock = &clock;
            s.spawn(move || {
                for i in 0..1000 {
                    let event = A2aEvent::new("E", None, json!({"t": t, "i": i}), clock).unwrap();
                    queue.publish(event).unwrap();
                }
            });
        }
    });
    assert_eq!(seen.load(Ordering::SeqCst), THREADS * 1000);
    let drained = queue.drain(buffered);
    assert_eq!(drained.len(), THREADS * 1000);
    let mut ids: Vec<_> = drained.iter().map(|e| e.event_id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), THREADS * 1000, "no duplicates");
    // Each publisher's events arrive in its own order.
    for t in 0..THREADS {
        let mine: Vec<i64> = drained
            .iter()
            .filter(|e| e.data["t"] == t)
            .map(|e| e.data["i"].as_i64().unwrap())
            .collect();
        assert!(mine.windows(2).all(|w| w[0] < w[1]));
    }
}

#[test]
fn pull_subscribers_on_many_threads_lose_nothing_and_history_stays_bounded() {
    use std::time::Duration;
    let queue = A2aEventQueue::with_capacity(500);
    let clock = ManualClock::default();
    let receivers: Vec<_> = (0..3)
        .map(|_| queue.subscribe_channel(EventFilter::default(), 100_000))
        .collect();
    let per_thread = 2_000;
    thread::scope(|s| {
        let readers: Vec<_> = receivers
            .into_iter()
            .map(|rx| {
                s.spawn(move || {
                    let mut seen = Vec::new();
                    while seen.len() < THREADS * per_thread {
                        match rx.recv_timeout(Duration::from_secs(10)) {
                            Some(event) => seen.push(event.event_id),
                            None => break,
                        }
                    }
                    seen
                })
            })
            .collect();
        for t in 0..THREADS {
            let queue = &queue;
            let clock = &clock;
            s.spawn(move || {
                for i in 0..per_thread {
                    queue
                        .publish(A2aEvent::new("E", None, json!({"t": t, "i": i}), clock).unwrap())
                        .unwrap();
                }
            });
        }
        for reader in readers {
            let mut seen = reader.join().unwrap();
            assert_eq!(seen.len(), THREADS * per_thread, "nothing lost");
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), THREADS * per_thread, "nothing duplicated");
        }
    });
    assert_eq!(queue.get_events(usize::MAX).len(), 500, "history bounded");
    assert_eq!(queue.buffer_dropped(), 0);
}
