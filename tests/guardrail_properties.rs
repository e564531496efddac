//! Property tests of guards and guardrails: a model-based test of the
//! service, monotone guard verdicts, metadata round trips, and the trail's
//! bound and tamper evidence.
#![cfg(feature = "testing")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::sync::Arc;

use chrono::TimeDelta;
use cleveragents::{
    ActorLimits, AutomationGuard, AutonomyGuardrailService, AutonomyGuardrails, CostBudgetService,
    GuardContext, ManualClock, PlanId, SessionId, Usd, Verdict,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Step(u64),
    Budget(i64),
    Hierarchy(i64),
    Calls(u32),
    Retries(u32),
    Advance(i64),
    Clock,
    Confirm(bool),
    Grant,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0_u64..8).prop_map(Op::Step),
        (0_i64..300).prop_map(Op::Budget),
        (0_i64..300).prop_map(Op::Hierarchy),
        (0_u32..6).prop_map(Op::Calls),
        (0_u32..6).prop_map(Op::Retries),
        (0_i64..4000).prop_map(Op::Advance),
        Just(Op::Clock),
        any::<bool>().prop_map(Op::Confirm),
        Just(Op::Grant),
    ]
}

/// The sequential model: plain numbers.
#[derive(Debug, Default)]
struct Model {
    spent: i64,
    session: i64,
    elapsed_ms: i64,
    grants: u32,
    steps: u64,
    entries: u64,
}

const PLAN_LIMIT: i64 = 500;
const SESSION_LIMIT: i64 = 700;
const MAX_STEPS: u64 = 5;
const MAX_CALLS: u32 = 3;
const MAX_RETRIES: u32 = 2;
const WALL_MS: i64 = 5000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_service_agrees_with_a_sequential_model(ops in prop::collection::vec(op(), 1..80)) {
        let clock = ManualClock::default();
        let budgets = CostBudgetService::new();
        let session = SessionId::new();
        budgets.set_session_limit(session, Some(Usd::from_cents(SESSION_LIMIT)));
        let service = AutonomyGuardrailService::builder()
            .clock(Arc::new(clock.clone()))
            .cost_budget_service(budgets.clone())
            .audit_capacity(16)
            .build();
        let plan = PlanId::new();
        let mut g = AutonomyGuardrails::default();
        g.max_steps = Some(MAX_STEPS);
        g.tool_budget = Some(Usd::from_cents(PLAN_LIMIT));
        g.max_wall_clock_seconds = Some(WALL_MS as f64 / 1000.0);
        g.actor_limits = ActorLimits::new(Some(MAX_CALLS), Some(MAX_RETRIES));
        g.required_confirmations = vec!["deploy".into()];
        service.configure_guardrails(plan, g).unwrap();
        service.associate_plan_with_session(plan, session);
        let mut m = Model::default();

        for op in &ops {
            let (real, expected) = match op {
                Op::Step(n) => {
                    let expected = *n < MAX_STEPS;
                    if expected { m.steps = m.steps.max(n + 1); }
                    (service.check_step_limit(plan, *n).unwrap().allowed, expected)
                }
                Op::Budget(c) => {
                    let expected = m.spent + c <= PLAN_LIMIT;
                    if expected { m.spent += c; }
                    (service.check_tool_budget(plan, Usd::from_cents(*c)).unwrap().allowed, expected)
                }
                Op::Hierarchy(c) => {
                    let expected = m.spent + c <= PLAN_LIMIT && m.session + c <= SESSION_LIMIT;
                    if expected { m.spent += c; m.session += c; }
                    (service.check_budget_hierarchy(plan, Usd::from_cents(*c)).unwrap().allowed, expected)
                }
                Op::Calls(n) => (service.check_actor_tool_calls(plan, *n).unwrap().allowed, *n < MAX_CALLS),
                Op::Retries(n) => (service.check_retries_per_failure(plan, *n).unwrap().allowed, *n < MAX_RETRIES),
                Op::Advance(ms) => {
                    clock.advance(TimeDelta::milliseconds(*ms));
                    m.elapsed_ms += ms;
                    continue;
                }
                Op::Clock => (service.check_wall_clock(plan).unwrap().allowed, m.elapsed_ms <= WALL_MS),
                Op::Confirm(listed) => {
                    let operation = if *listed { "deploy" } else { "read" };
                    let expected = !*listed || m.grants > 0;
                    if *listed && m.grants > 0 { m.grants -= 1; }
                    (service.check_confirmation_required(plan, operation).unwrap().allowed, expected)
                }
                Op::Grant => {
                    m.grants += 1;
                    (service.grant_confirmation(plan, "deploy").unwrap().allowed, true)
                }
            };
            m.entries += 1;
            prop_assert_eq!(real, expected, "{:?} with model {:?}", op, m);
            let state = service.get_guardrails(plan).unwrap();
            prop_assert_eq!(state.budget_spent, Usd::from_cents(m.spent));
            prop_assert_eq!(state.step_count, m.steps);
            prop_assert_eq!(budgets.session_budget(session).spent, Usd::from_cents(m.session));
            let trail = service.get_audit_trail(plan).unwrap();
            prop_assert_eq!(trail.next_sequence(), m.entries);
            prop_assert!(trail.entries().len() <= 16);
        }
        service.get_audit_trail(plan).unwrap().verify().unwrap();
    }

    #[test]
    fn guard_verdicts_are_monotone(
        cost in 0_i64..1000,
        more_cost in 0_i64..1000,
        calls in 0_u32..20,
        more_calls in 0_u32..20,
        deny in prop::collection::vec("[a-c]{1,2}\\*?", 0..4),
        extra_deny in "[a-c]{1,2}\\*?",
        tool in "[a-c]{1,3}",
        human in any::<bool>(),
    ) {
        let rank = |v: Verdict| match v { Verdict::Allow => 0, Verdict::RequireApproval => 1, _ => 2 };
        let mut guard = AutomationGuard::default();
        guard.max_total_cost = Some(Usd::from_cents(500));
        guard.max_tool_calls_per_step = Some(10);
        guard.tool_denylist = Some(deny.clone());
        let base = guard.check(&GuardContext::new(&tool).cost_so_far(Usd::from_cents(cost)).calls_so_far(calls).human_available(human));
        let more = guard.check(
            &GuardContext::new(&tool)
                .cost_so_far(Usd::from_cents(cost + more_cost))
                .calls_so_far(calls + more_calls)
                .human_available(human),
        );
        prop_assert!(rank(more.verdict) >= rank(base.verdict), "more cost or calls never loosens");
        let mut wider = guard.clone();
        wider.tool_denylist = Some(deny.into_iter().chain([extra_deny]).collect());
        let wider_result = wider.check(&GuardContext::new(&tool).cost_so_far(Usd::from_cents(cost)).calls_so_far(calls).human_available(human));
        prop_assert!(rank(wider_result.verdict) >= rank(base.verdict), "a longer denylist never loosens");
        prop_assert_eq!(base.allowed, base.verdict == Verdict::Allow);
        prop_assert_eq!(base.allowed, base.objections.is_empty());
    }

    #[test]
    fn trails_stay_bounded_verify_and_detect_any_single_tampering(
        capacity in 1_usize..12,
        steps in prop::collection::vec(0_u64..10, 0..40),
        tamper_at in any::<prop::sample::Index>(),
        tamper_kind in 0_u8..4,
    ) {
        let service = AutonomyGuardrailService::builder().audit_capacity(capacity).build();
        let plan = PlanId::new();
        let mut g = AutonomyGuardrails::default();
        g.max_steps = Some(5);
        service.configure_guardrails(plan, g).unwrap();
        for step in &steps {
            service.check_step_limit(plan, *step).unwrap();
        }
        let trail = service.get_audit_trail(plan).unwrap();
        prop_assert!(trail.entries().len() <= capacity);
        prop_assert_eq!(trail.next_sequence(), steps.len() as u64);
        trail.verify().unwrap();

        // Metadata round trip is the identity.
        let metadata = service.get_audit_trail_as_metadata(plan).unwrap();
        let restored = AutonomyGuardrailService::new();
        restored.load_from_metadata(plan, &metadata).unwrap();
        prop_assert_eq!(restored.get_audit_trail(plan).unwrap(), trail.clone());
        prop_assert_eq!(restored.get_guardrails(plan), service.get_guardrails(plan));

        if trail.entries().is_empty() { return Ok(()); }
        let mut tampered = trail.clone();
        let entries = tampered.entries_mut_for_tamper_tests();
        let i = tamper_at.index(entries.len());
        match tamper_kind {
            0 => {
                let old = entries[i].reason().map(str::to_owned);
                entries[i].set_reason_for_tamper_tests(Some(format!("{}!", old.unwrap_or_default())));
            }
            1 => { entries.remove(i); }
            2 if entries.len() > 1 => {
                let j = (i + 1) % entries.len();
                entries.swap(i, j);
            }
            _ => {
                let mut copy = entries[i].clone();
                copy.set_reason_for_tamper_tests(Some("injected".into()));
                entries.insert(i, copy);
                if entries.len() > capacity { entries.pop_back(); }
            }
        }
        if tampered != trail {
            prop_assert!(tampered.verify().is_err(), "tampering kind {tamper_kind} at {i} went unnoticed");
        }
    }
}
