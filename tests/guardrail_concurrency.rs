//! 8 threads × 50,000 random charges against plan, session and org limits:
//! no level ever exceeds its limit, allowed charges sum exactly to recorded
//! spend at every level, and the audit counts equal the decisions made.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use cleveragents::{
    AutonomyGuardrailService, AutonomyGuardrails, CostBudgetService, PlanId, SessionId, Usd,
};

const THREADS: usize = 8;
const CHARGES: usize = 50_000;

/// A small xorshift generator: deterministic per thread, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn concurrent_charges_never_exceed_any_level() {
    let budgets = CostBudgetService::new();
    let sessions = [SessionId::new(), SessionId::new()];
    let session_limit = Usd::from_dollars(300);
    let org_limit = Usd::from_dollars(500);
    let plan_limit = Usd::from_dollars(90);
    for session in sessions {
        budgets.set_session_limit(session, Some(session_limit));
        budgets.assign_session_to_org(session, "acme");
    }
    budgets.set_org_limit("acme", Some(org_limit));
    let service = AutonomyGuardrailService::builder()
        .cost_budget_service(budgets.clone())
        .build();
    // Two plans per thread; plans spread over both sessions.
    let plans: Vec<PlanId> = (0..THREADS * 2).map(|_| PlanId::new()).collect();
    for (i, plan) in plans.iter().enumerate() {
        let mut g = AutonomyGuardrails::default();
        g.tool_budget = Some(plan_limit);
        service.configure_guardrails(*plan, g).unwrap();
        service.associate_plan_with_session(*plan, sessions[i % 2]);
    }
    let stop = AtomicBool::new(false);
    let allowed_sums: Vec<(Vec<Usd>, u64)> = thread::scope(|s| {
        // A watcher samples every level while charges run.
        let watcher = s.spawn(|| {
            let mut samples = 0_u64;
            while !stop.load(Ordering::Relaxed) {
                for session in sessions {
                    assert!(budgets.session_budget(session).spent <= session_limit);
                }
                assert!(budgets.org_budget("acme").spent <= org_limit);
                samples += 1;
            }
            samples
        });
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let mine = [plans[t * 2], plans[t * 2 + 1]];
                let service = &service;
                s.spawn(move || {
                    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (t as u64 + 1));
                    let mut sums = vec![Usd::ZERO; 2];
                    for _ in 0..CHARGES {
                        let which = (rng.next() % 2) as usize;
                        // Up to $0.05 in nano-dollars, sometimes exactly zero.
                        let cost = Usd::from_nanos((rng.next() % 50_000_001) as i64);
                        let check = service.check_budget_hierarchy(mine[which], cost).unwrap();
                        if check.allowed {
                            sums[which] = sums[which].checked_add(cost).unwrap();
                        }
                    }
                    (sums, 0)
                })
            })
            .collect();
        let results: Vec<_> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        stop.store(true, Ordering::Relaxed);
        assert!(watcher.join().unwrap() > 0);
        results
    });

    let mut per_session = [Usd::ZERO; 2];
    let mut total = Usd::ZERO;
    for (t, (sums, _)) in allowed_sums.iter().enumerate() {
        for (which, sum) in sums.iter().enumerate() {
            let plan_index = t * 2 + which;
            let plan = plans[plan_index];
            let recorded = service.get_guardrails(plan).unwrap().budget_spent;
            assert_eq!(
                recorded, *sum,
                "plan {plan_index}: allowed charges equal recorded spend"
            );
            assert!(recorded <= plan_limit);
            per_session[plan_index % 2] = per_session[plan_index % 2].checked_add(*sum).unwrap();
            total = total.checked_add(*sum).unwrap();
            let trail = service.get_audit_trail(plan).unwrap();
            assert_eq!(
                trail.allowed_count() + trail.denied_count(),
                trail.next_sequence(),
                "every decision is counted"
            );
            trail.verify().unwrap();
        }
    }
    let decisions: u64 = plans
        .iter()
        .map(|p| service.get_audit_trail(*p).unwrap().next_sequence())
        .sum();
    assert_eq!(
        decisions,
        (THREADS * CHARGES) as u64,
        "one audit entry per decision"
    );
    for (i, session) in sessions.iter().enumerate() {
        let snapshot = budgets.session_budget(*session);
        assert_eq!(snapshot.spent, per_session[i]);
        assert!(snapshot.spent <= session_limit);
        assert_eq!(snapshot.reserved, Usd::ZERO);
    }
    let org = budgets.org_budget("acme");
    assert_eq!(org.spent, total);
    assert!(org.spent <= org_limit);
    // The limits were actually reached: the test exercised refusals.
    assert!(
        org_limit.saturating_sub(org.spent) < Usd::from_cents(5)
            || per_session
                .iter()
                .any(|s| session_limit.saturating_sub(*s) < Usd::from_cents(5))
    );
}
