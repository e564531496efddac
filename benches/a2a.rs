//! `message/send` with the echo executor, bytes → bytes (against the floor of
//! parsing the same bytes into a `serde_json::Value`), and SSE frame encoding.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::hint::black_box;
use std::sync::Arc;

use cleveragents::A2aLocalFacade;
use cleveragents::a2a::{Dispatch, EchoExecutor, InMemoryTaskStore, SseFrame};
use criterion::{Criterion, criterion_main};
use serde_json::Value;

fn bench(c: &mut Criterion) {
    let facade = A2aLocalFacade::builder()
        .task_store(Arc::new(InMemoryTaskStore::new()))
        .agent_executor(Arc::new(EchoExecutor::new()))
        .build();
    let send = br#"{"jsonrpc":"2.0","id":"01HXRCF1ABCDE12345678901AB","method":"message/send","params":{"message":{"kind":"message","messageId":"01HXRCF1ABCDE12345678901AC","role":"user","parts":[{"kind":"text","text":"Refactor the authentication module to use dependency injection."}]}}}"#;
    let mut group = c.benchmark_group("message_send");
    group.bench_function("floor_from_slice_value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(send)).unwrap());
    });
    group.bench_function("handle_json_echo", |b| {
        b.iter(|| match facade.handle_json(black_box(send), None) {
            Dispatch::Reply(r) => r,
            _ => unreachable!(),
        });
    });
    group.finish();

    let data = r#"{"jsonrpc":"2.0","id":"s1","result":{"kind":"status-update","taskId":"01HXRCF1ABCDE12345678901AB","contextId":"01HXRCF1ABCDE12345678901AC","status":{"state":"working","timestamp":"2025-01-01T00:00:00.000Z"},"final":false}}"#;
    let frame = SseFrame::new("status-update", "01HXRCF1ABCDE12345678901AD", data);
    c.bench_function("sse_frame_encode", |b| {
        b.iter(|| black_box(&frame).encode())
    });
}

/// Criterion's generated entry points (kept private, so no docs are required).
mod harness {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
