//! Budget reservation (reserve + commit, uncontended, three levels) and
//! exact cost computation.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::hint::black_box;

use chrono::{TimeZone, Utc};
use cleveragents::{CostBudgetService, PlanId, PricingTable, SessionId, TokenUsage, Usd};
use criterion::{Criterion, criterion_main};

fn bench(c: &mut Criterion) {
    let budgets = CostBudgetService::new();
    let (plan, session) = (PlanId::new(), SessionId::new());
    budgets.set_plan_limit(plan, Some(Usd::MAX));
    budgets.set_session_limit(session, Some(Usd::MAX));
    budgets.set_org_limit("lifetime", Some(Usd::MAX));
    budgets.assign_session_to_org(session, "lifetime");
    budgets.assign_plan_to_session(plan, session);
    let handle = budgets.plan(plan);
    c.bench_function("reserve_commit/3_levels_uncontended", |b| {
        b.iter(|| {
            handle
                .reserve(black_box(Usd::from_nanos(40)))
                .unwrap()
                .commit(black_box(Usd::from_nanos(31)))
        });
    });
    c.bench_function("reserve_commit/via_service_lookup", |b| {
        b.iter(|| {
            budgets
                .reserve(black_box(plan), black_box(Usd::from_nanos(40)))
                .unwrap()
                .commit(Usd::from_nanos(31))
        });
    });

    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/pricing.yaml"
    ))
    .unwrap();
    let table = PricingTable::from_yaml_str(&text).unwrap();
    let at = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let usage = TokenUsage::new(12_345, 678).cached(2_000);
    c.bench_function("pricing/cost", |b| {
        b.iter(|| {
            table
                .cost(black_box("gpt-4o"), black_box(&usage), black_box(at))
                .unwrap()
        });
    });
    c.bench_function("pricing/estimate", |b| {
        b.iter(|| {
            table
                .estimate(
                    black_box("gpt-4o"),
                    black_box(12_345),
                    black_box(Some(4096)),
                    black_box(at),
                )
                .unwrap()
        });
    });
}

/// Criterion's generated entry points (kept private, so no docs are required).
mod harness {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
