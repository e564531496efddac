//! Guard checks, guardrail checks with audit append (chain off and on), the
//! 3-level budget reservation, and 2-thread contended throughput.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use cleveragents::{
    AutomationGuard, AutonomyGuardrailService, AutonomyGuardrails, CostBudgetService, GuardContext,
    PlanId, SessionId, Usd,
};
use criterion::{Criterion, criterion_main};

fn guard() -> AutomationGuard {
    let mut guard = AutomationGuard::default();
    let mut deny: Vec<String> = [
        "shell_exec",
        "rm_rf",
        "network_request",
        "sudo",
        "curl",
        "wget",
        "ssh",
        "scp",
        "dd",
        "mkfs",
    ]
    .map(String::from)
    .to_vec();
    deny.extend(["docker_*", "*_delete", "git_push*", "*credential*"].map(String::from));
    guard.tool_denylist = Some(deny);
    guard.max_total_cost = Some(Usd::from_dollars(5));
    guard.max_tool_calls_per_step = Some(10);
    guard.require_approval_for_writes = true;
    guard
}

fn service(chained: bool) -> (AutonomyGuardrailService, PlanId) {
    let service = AutonomyGuardrailService::builder()
        .audit_chain(chained)
        .build();
    let plan = PlanId::new();
    service
        .configure_guardrails(plan, AutonomyGuardrails::default())
        .unwrap();
    (service, plan)
}

fn bench(c: &mut Criterion) {
    let guard = guard();
    let ctx = GuardContext::new("read_file")
        .cost_so_far(Usd::from_cents(120))
        .calls_so_far(3);
    c.bench_function("guard_check/allowed_10_names_4_globs", |b| {
        b.iter(|| black_box(&guard).check(black_box(&ctx)));
    });

    for (name, chained) in [
        ("check_tool_budget/chain_off", false),
        ("check_tool_budget/chain_on", true),
    ] {
        let (service, plan) = service(chained);
        c.bench_function(name, |b| {
            b.iter(|| {
                service
                    .check_tool_budget(black_box(plan), black_box(Usd::from_nanos(1)))
                    .unwrap()
            });
        });
    }

    let budgets = CostBudgetService::new();
    let (plan, session) = (PlanId::new(), SessionId::new());
    budgets.set_plan_limit(plan, Some(Usd::MAX));
    budgets.set_session_limit(session, Some(Usd::MAX));
    budgets.set_org_limit("acme", Some(Usd::MAX));
    budgets.assign_session_to_org(session, "acme");
    budgets.assign_plan_to_session(plan, session);
    let handle = budgets.plan(plan);
    c.bench_function("reserve_3_levels/reserve_and_release", |b| {
        b.iter(|| drop(handle.reserve(black_box(Usd::from_nanos(5))).unwrap()));
    });
    c.bench_function("reserve_3_levels/reserve_and_commit", |b| {
        b.iter(|| {
            handle
                .reserve(black_box(Usd::from_nanos(5)))
                .unwrap()
                .commit(black_box(Usd::from_nanos(4)))
        });
    });

    // Two threads, two plans, one shared session and org: time per decision.
    let budgets = CostBudgetService::new();
    budgets.assign_session_to_org(session, "acme");
    let shared = AutonomyGuardrailService::builder()
        .cost_budget_service(budgets)
        .build();
    let plans = [PlanId::new(), PlanId::new()];
    for p in plans {
        shared.associate_plan_with_session(p, session);
    }
    c.bench_function("check_budget_hierarchy/2_threads_contended", |b| {
        b.iter_custom(|iters| {
            let per_thread = iters.div_ceil(2);
            let start = Instant::now();
            std::thread::scope(|s| {
                for p in plans {
                    let shared = &shared;
                    s.spawn(move || {
                        for _ in 0..per_thread {
                            black_box(
                                shared
                                    .check_budget_hierarchy(p, Usd::from_nanos(1))
                                    .unwrap(),
                            );
                        }
                    });
                }
            });
            // Throughput view: wall time for `iters` decisions made by two threads.
            start
                .elapsed()
                .mul_f64(iters as f64 / (per_thread * 2) as f64)
                .max(Duration::from_nanos(1))
        });
    });
}

/// Criterion's generated entry points (kept private, so no docs are required).
mod harness {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
