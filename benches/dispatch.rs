//! `dispatch_json` bytes → bytes against the floor of parsing the same bytes
//! into a `serde_json::Value` (figures are read as ratios to that floor).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::hint::black_box;

use cleveragents::A2aLocalFacade;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_main};
use serde_json::Value;

fn setup() -> (A2aLocalFacade, Vec<u8>, Vec<u8>) {
    let facade = A2aLocalFacade::in_memory();
    let reply = facade
        .dispatch_json(br#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/use","params":{"action_name":"refactor-auth"}}"#)
        .expect("reply");
    let reply: Value = serde_json::from_slice(&reply).expect("json");
    let plan_id = reply["result"]["plan_id"]
        .as_str()
        .expect("plan id")
        .to_owned();
    let single = format!(
        r#"{{"jsonrpc":"2.0","id":"01HXRCF1ABCDE12345678901AB","method":"_cleveragents/plan/status","params":{{"plan_id":"{plan_id}"}}}}"#
    )
    .into_bytes();
    let mut batch = b"[".to_vec();
    for i in 0..100 {
        if i > 0 {
            batch.push(b',');
        }
        batch.extend_from_slice(
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"_cleveragents/plan/status","params":{{"plan_id":"{plan_id}"}}}}"#
            )
            .as_bytes(),
        );
    }
    batch.push(b']');
    (facade, single, batch)
}

fn bench(c: &mut Criterion) {
    let (facade, single, batch) = setup();
    for (name, bytes) in [("plan_status", &single), ("batch_100", &batch)] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("floor_from_slice_value", bytes.len()),
            bytes,
            |b, bytes| {
                b.iter(|| serde_json::from_slice::<Value>(black_box(bytes)).expect("valid"));
            },
        );
        group.bench_with_input(
            BenchmarkId::new("dispatch_json", bytes.len()),
            bytes,
            |b, bytes| {
                b.iter(|| facade.dispatch_json(black_box(bytes)).expect("reply"));
            },
        );
        group.finish();
    }
}

/// Criterion's generated entry points (kept private, so no docs are required).
mod harness {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
