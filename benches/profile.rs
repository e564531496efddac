//! Threshold decisions and profile resolution over the built-ins.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::hint::black_box;

use cleveragents::{AutomationDecision, AutomationProfileService, builtin_profile};
use criterion::{Criterion, criterion_main};

fn bench(c: &mut Criterion) {
    let profile = builtin_profile("cautious").expect("built-in");
    c.bench_function("threshold_decision", |b| {
        b.iter(|| {
            black_box(&profile).decide(
                black_box(AutomationDecision::EditCode),
                black_box(Some(0.72)),
                black_box(true),
            )
        });
    });

    let service = AutomationProfileService::new();
    c.bench_function("resolve_profile/action_level", |b| {
        b.iter(|| {
            service
                .resolve_profile(
                    black_box(None),
                    black_box(Some("cautious")),
                    black_box(Some("trusted")),
                )
                .expect("known")
        });
    });
    c.bench_function("resolve_profile/default", |b| {
        b.iter(|| {
            service
                .resolve_profile(black_box(None), black_box(None), black_box(None))
                .expect("default")
        });
    });
}

/// Criterion's generated entry points (kept private, so no docs are required).
mod harness {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
