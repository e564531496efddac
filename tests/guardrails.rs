//! Guards and the guardrail service through the public API: exact
//! boundaries, the budget hierarchy, confirmations, audit sinks, metadata.
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
    ActorLimits, AuditSink, AutomationGuard, AutonomyGuardrailService, AutonomyGuardrails,
    BudgetLevel, CostBudgetService, GuardContext, GuardrailAuditEntry, GuardrailError,
    GuardrailEventType, GuardrailResult, InMemoryAuditSink, ManualClock, PlanId, ServiceError,
    SessionId, SinkMode, Usd, Verdict,
};

fn service_with(guardrails: AutonomyGuardrails) -> (AutonomyGuardrailService, PlanId, ManualClock) {
    let clock = ManualClock::default();
    let service = AutonomyGuardrailService::builder()
        .clock(Arc::new(clock.clone()))
        .build();
    let plan = PlanId::new();
    service.configure_guardrails(plan, guardrails).unwrap();
    (service, plan, clock)
}

#[test]
fn step_limit_boundaries() {
    let mut g = AutonomyGuardrails::default();
    g.max_steps = Some(10);
    let (s, plan, _) = service_with(g);
    assert!(s.check_step_limit(plan, 9).unwrap().allowed, "limit - 1");
    let at = s.check_step_limit(plan, 10).unwrap();
    assert!(!at.allowed, "limit");
    assert_eq!(
        at.reason.as_deref(),
        Some("Step limit reached: 10/10. Remediation: raise max_steps or request human approval.")
    );
    assert!(!s.check_step_limit(plan, 11).unwrap().allowed, "limit + 1");
    assert_eq!(s.get_guardrails(plan).unwrap().step_count, 10);
}

#[test]
fn actor_call_and_retry_boundaries() {
    let mut g = AutonomyGuardrails::default();
    g.actor_limits = ActorLimits::new(Some(20), Some(3));
    let (s, plan, _) = service_with(g);
    assert!(s.check_actor_tool_calls(plan, 19).unwrap().allowed);
    assert!(!s.check_actor_tool_calls(plan, 20).unwrap().allowed);
    assert!(!s.check_actor_tool_calls(plan, 21).unwrap().allowed);
    // max_retries_per_failure = 3 allows retries number 0, 1 and 2.
    let allowed: Vec<bool> = (0..5)
        .map(|r| s.check_retries_per_failure(plan, r).unwrap().allowed)
        .collect();
    assert_eq!(allowed, [true, true, true, false, false]);
    assert_eq!(
        s.check_retries_per_failure(plan, 3)
            .unwrap()
            .reason
            .as_deref(),
        Some(
            "Retry limit reached: 3/3. Remediation: raise max_retries_per_failure or request human approval."
        )
    );
}

#[test]
fn tool_budget_boundaries_and_recording() {
    let mut g = AutonomyGuardrails::default();
    g.tool_budget = Some(Usd::from_dollars(5));
    let (s, plan, _) = service_with(g);
    let nano = Usd::from_nanos(1);
    assert!(
        s.check_tool_budget(plan, Usd::from_dollars(5).saturating_sub(nano))
            .unwrap()
            .allowed,
        "to limit - 1"
    );
    assert!(
        s.check_tool_budget(plan, nano).unwrap().allowed,
        "exactly to the limit"
    );
    let over = s.check_tool_budget(plan, nano).unwrap();
    assert!(!over.allowed, "limit + 1");
    assert_eq!(
        over.reason.as_deref(),
        Some(
            "Tool budget exceeded: $5.00 spent + $0.000000001 requested > $5.00 limit. Remediation: raise tool_budget, lower cost, or request human approval."
        )
    );
    assert_eq!(
        s.get_guardrails(plan).unwrap().budget_spent,
        Usd::from_dollars(5),
        "denied costs are not recorded"
    );
    assert!(
        s.check_tool_budget(plan, Usd::ZERO).unwrap().allowed,
        "a free call fits a full budget"
    );
    assert!(matches!(
        s.check_tool_budget(plan, Usd::from_cents(-1)),
        Err(GuardrailError::NegativeCost(_))
    ));
}

#[test]
fn wall_clock_boundaries() {
    let mut g = AutonomyGuardrails::default();
    g.max_wall_clock_seconds = Some(3600.0);
    let (s, plan, clock) = service_with(g);
    clock.advance(TimeDelta::seconds(3600) - TimeDelta::milliseconds(1));
    assert!(s.check_wall_clock(plan).unwrap().allowed, "limit - 1ms");
    clock.advance(TimeDelta::milliseconds(1));
    assert!(
        s.check_wall_clock(plan).unwrap().allowed,
        "exactly the limit"
    );
    clock.advance(TimeDelta::nanoseconds(1));
    let over = s.check_wall_clock(plan).unwrap();
    assert!(!over.allowed, "limit + 1ns");
    assert!(
        over.reason
            .unwrap()
            .starts_with("Wall-clock limit exceeded: 3600.000s > 3600s.")
    );
}

#[test]
fn guard_boundaries() {
    let mut guard = AutomationGuard::default();
    guard.max_total_cost = Some(Usd::from_dollars(5));
    guard.max_tool_calls_per_step = Some(10);
    let nano = Usd::from_nanos(1);
    let at = |cost: Usd, calls: u32| {
        guard
            .check(&GuardContext::new("t").cost_so_far(cost).calls_so_far(calls))
            .allowed
    };
    assert!(at(Usd::from_dollars(5).saturating_sub(nano), 0));
    assert!(at(Usd::from_dollars(5), 0), "cost_so_far == max is allowed");
    assert!(
        !at(Usd::from_dollars(5).saturating_add(nano), 0),
        "cost_so_far > max is not"
    );
    assert!(at(Usd::ZERO, 9));
    assert!(!at(Usd::ZERO, 10), "10/10 is denied");
    assert!(!at(Usd::ZERO, 11));
}

#[test]
fn unconfigured_plans_have_no_limits_but_are_audited() {
    let s = AutonomyGuardrailService::new();
    let plan = PlanId::new();
    assert!(s.check_step_limit(plan, u64::MAX).unwrap().allowed);
    assert!(
        s.check_tool_budget(plan, Usd::from_dollars(1_000_000))
            .unwrap()
            .allowed
    );
    assert!(s.check_wall_clock(plan).unwrap().allowed);
    assert_eq!(s.get_audit_trail(plan).unwrap().next_sequence(), 3);
}

#[test]
fn invalid_guardrails_are_rejected_with_every_problem() {
    let s = AutonomyGuardrailService::new();
    let mut g = AutonomyGuardrails::default();
    g.max_wall_clock_seconds = Some(f64::NAN);
    g.tool_budget = Some(Usd::from_cents(-1));
    let err = s
        .configure_guardrails(PlanId::new(), g)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`max_wall_clock_seconds`") && err.contains("`tool_budget`"),
        "{err}"
    );
}

#[test]
fn the_budget_hierarchy_names_the_level_that_refused() {
    let budgets = CostBudgetService::new();
    let session = SessionId::new();
    budgets.set_session_limit(session, Some(Usd::from_dollars(3)));
    budgets.set_org_limit("acme", Some(Usd::from_dollars(4)));
    budgets.assign_session_to_org(session, "acme");
    let s = AutonomyGuardrailService::builder()
        .cost_budget_service(budgets.clone())
        .build();
    let (a, b) = (PlanId::new(), PlanId::new());
    for plan in [a, b] {
        let mut g = AutonomyGuardrails::default();
        g.tool_budget = Some(Usd::from_dollars(2));
        s.configure_guardrails(plan, g).unwrap();
        s.associate_plan_with_session(plan, session);
    }
    assert!(
        s.check_budget_hierarchy(a, Usd::from_dollars(2))
            .unwrap()
            .allowed
    );
    let plan_level = s.check_budget_hierarchy(a, Usd::from_cents(1)).unwrap();
    assert_eq!(plan_level.exceeded_level, Some(BudgetLevel::Plan));
    let session_level = s.check_budget_hierarchy(b, Usd::from_dollars(2)).unwrap();
    assert_eq!(session_level.exceeded_level, Some(BudgetLevel::Session));
    let refusal = session_level.exceeded.unwrap();
    assert_eq!(
        (refusal.limit, refusal.spent, refusal.requested),
        (
            Usd::from_dollars(3),
            Usd::from_dollars(2),
            Usd::from_dollars(2)
        )
    );
    assert_eq!(
        session_level.reason.as_deref(),
        Some(
            "Budget exceeded at the session level: $2.00 spent + $0.00 reserved + $2.00 requested > $3.00 limit. Remediation: raise the session budget, lower cost, or request human approval."
        )
    );
    // Nothing was taken anywhere by the refused charges.
    assert_eq!(budgets.session_budget(session).spent, Usd::from_dollars(2));
    assert_eq!(s.get_guardrails(b).unwrap().budget_spent, Usd::ZERO);
    // Org level: a second session of the same org.
    let other = SessionId::new();
    budgets.assign_session_to_org(other, "acme");
    let c = PlanId::new();
    s.associate_plan_with_session(c, other);
    assert!(
        s.check_budget_hierarchy(c, Usd::from_dollars(2))
            .unwrap()
            .allowed
    );
    let org_level = s.check_budget_hierarchy(c, Usd::from_cents(1)).unwrap();
    assert_eq!(org_level.exceeded_level, Some(BudgetLevel::Org));
    assert_eq!(budgets.org_budget("acme").spent, Usd::from_dollars(4));
    assert_eq!(budgets.session_budget(other).spent, Usd::from_dollars(2));
    // Raising the limit lets the next charge through.
    budgets.set_org_limit("acme", Some(Usd::from_dollars(5)));
    assert!(
        s.check_budget_hierarchy(c, Usd::from_cents(1))
            .unwrap()
            .allowed
    );
}

#[test]
fn confirmations_are_required_until_granted_and_grants_are_one_shot() {
    let mut g = AutonomyGuardrails::default();
    g.required_confirmations = vec!["delete_database".into(), "deploy_*".into()];
    let (s, plan, _) = service_with(g);
    let first = s
        .check_confirmation_required(plan, "deploy_to_production")
        .unwrap();
    assert!(!first.allowed);
    assert_eq!(first.event_type, GuardrailEventType::ConfirmationRequired);
    s.grant_confirmation(plan, "deploy_to_production").unwrap();
    let granted = s
        .check_confirmation_required(plan, "deploy_to_production")
        .unwrap();
    assert!(granted.allowed);
    assert_eq!(granted.event_type, GuardrailEventType::ConfirmationGranted);
    assert!(
        !s.check_confirmation_required(plan, "deploy_to_production")
            .unwrap()
            .allowed,
        "used up"
    );
    assert!(
        s.check_confirmation_required(plan, "read_file")
            .unwrap()
            .allowed,
        "not listed"
    );
}

#[test]
fn the_trail_records_every_decision_with_its_context() {
    let mut g = AutonomyGuardrails::default();
    g.max_steps = Some(1);
    g.tool_budget = Some(Usd::from_dollars(1));
    let (s, plan, _) = service_with(g);
    s.check_step_limit(plan, 0).unwrap();
    s.check_step_limit(plan, 1).unwrap();
    s.check_tool_budget(plan, Usd::from_cents(50)).unwrap();
    let trail = s.get_audit_trail(plan).unwrap();
    let events: Vec<(GuardrailEventType, GuardrailResult)> = trail
        .entries()
        .iter()
        .map(|e| (e.event_type(), e.result()))
        .collect();
    assert_eq!(
        events,
        [
            (GuardrailEventType::StepAllowed, GuardrailResult::Allowed),
            (GuardrailEventType::StepBlocked, GuardrailResult::Denied),
            (GuardrailEventType::BudgetAllowed, GuardrailResult::Allowed),
        ]
    );
    let budget = &trail.entries()[2];
    assert_eq!(budget.guard_name(), "tool_budget");
    assert_eq!(budget.context().amount, Some(Usd::from_cents(50)));
    assert_eq!(budget.context().limit, Some(Usd::from_dollars(1)));
    assert_eq!(budget.prev_hash(), trail.entries()[1].hash());
    let json = serde_json::to_value(budget).unwrap();
    assert_eq!(json["event_type"], "budget_allowed");
    assert_eq!(json["result"], "allowed");
    assert_eq!(
        json["context"],
        serde_json::json!({"amount": 0.5, "spent": 0.5, "limit": 1, "level": "plan"})
    );
    assert!(json["timestamp"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn bounded_trails_evict_the_oldest_and_still_verify() {
    let s = AutonomyGuardrailService::builder()
        .audit_capacity(5)
        .build();
    let plan = PlanId::new();
    for step in 0..12 {
        s.check_step_limit(plan, step).unwrap();
    }
    let trail = s.get_audit_trail(plan).unwrap();
    assert_eq!(trail.entries().len(), 5);
    assert_eq!(
        (
            trail.evicted_count(),
            trail.next_sequence(),
            trail.allowed_count()
        ),
        (7, 12, 12)
    );
    assert_eq!(trail.entries()[0].sequence(), 7);
    assert_eq!(trail.anchor(), trail.entries()[0].prev_hash());
    trail.verify().unwrap();
}

#[derive(Debug)]
struct FailingSink;

impl AuditSink for FailingSink {
    fn record(&self, _: PlanId, _: &GuardrailAuditEntry) -> Result<(), ServiceError> {
        Err(ServiceError::Host("disk full".into()))
    }
}

#[test]
fn sinks_see_every_entry_and_failures_follow_the_mode() {
    let sink = InMemoryAuditSink::new();
    let s = AutonomyGuardrailService::builder()
        .audit_capacity(2)
        .audit_sink(Arc::new(sink.clone()), SinkMode::Strict)
        .build();
    let plan = PlanId::new();
    for step in 0..5 {
        s.check_step_limit(plan, step).unwrap();
    }
    let seen: Vec<u64> = sink
        .entries(plan)
        .iter()
        .map(GuardrailAuditEntry::sequence)
        .collect();
    assert_eq!(
        seen,
        [0, 1, 2, 3, 4],
        "the sink saw entries the trail has since evicted"
    );

    let best_effort = AutonomyGuardrailService::builder()
        .audit_sink(Arc::new(FailingSink), SinkMode::BestEffort)
        .build();
    assert!(
        best_effort
            .check_tool_budget(plan, Usd::from_dollars(1))
            .unwrap()
            .allowed
    );
    assert_eq!(best_effort.sink_failures(), 1);
    assert_eq!(
        best_effort.get_guardrails(plan).unwrap().budget_spent,
        Usd::from_dollars(1)
    );

    let strict = AutonomyGuardrailService::builder()
        .audit_sink(Arc::new(FailingSink), SinkMode::Strict)
        .build();
    let err = strict
        .check_tool_budget(plan, Usd::from_dollars(1))
        .unwrap_err();
    assert!(matches!(err, GuardrailError::AuditSink { sequence: 0, .. }));
    assert_eq!(
        err.to_string(),
        "audit sink failed to record entry 0; the decision was reverted"
    );
    assert_eq!(
        strict.get_guardrails(plan).unwrap().budget_spent,
        Usd::ZERO,
        "the charge was given back"
    );
    let trail = strict.get_audit_trail(plan).unwrap();
    assert_eq!(trail.entries().len(), 2, "the decision and its reversal");
    assert_eq!(
        trail.entries()[1].event_type(),
        GuardrailEventType::BudgetBlocked
    );
    assert_eq!(trail.entries()[1].guard_name(), "audit_sink");
    trail.verify().unwrap();
}

#[test]
fn metadata_round_trips_and_bad_metadata_changes_nothing() {
    let mut g = AutonomyGuardrails::default();
    g.tool_budget = Some(Usd::from_dollars(3));
    let (s, plan, _) = service_with(g);
    s.check_tool_budget(plan, Usd::from_dollars(1)).unwrap();
    s.check_tool_budget(plan, Usd::from_dollars(5)).unwrap();
    let metadata = s.get_audit_trail_as_metadata(plan).unwrap();
    assert!(
        metadata.contains_key("guardrail_audit_trail")
            && metadata.contains_key("autonomy_guardrails")
    );

    let restored = AutonomyGuardrailService::new();
    let other = PlanId::new();
    restored.load_from_metadata(other, &metadata).unwrap();
    assert_eq!(restored.get_audit_trail(other), s.get_audit_trail(plan));
    assert_eq!(restored.get_guardrails(other), s.get_guardrails(plan));
    assert_eq!(
        restored.get_audit_trail_as_metadata(other).unwrap(),
        metadata
    );

    // Tampered: the denial rewritten as an allowance.
    let mut tampered = metadata.clone();
    tampered["guardrail_audit_trail"]["entries"][1]["reason"] = serde_json::Value::Null;
    let err = restored
        .load_from_metadata(other, &tampered)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "cannot restore guardrails from metadata: `guardrail_audit_trail`: audit trail verification failed at sequence 1: the entry's content does not match its hash"
    );
    let mut missing = metadata.clone();
    missing.remove("autonomy_guardrails");
    assert!(
        restored
            .load_from_metadata(other, &missing)
            .unwrap_err()
            .to_string()
            .contains("`autonomy_guardrails`: missing")
    );
    let mut wrong = metadata.clone();
    wrong["autonomy_guardrails"]["tool_budget"] = serde_json::json!("lots");
    let err = restored
        .load_from_metadata(other, &wrong)
        .unwrap_err()
        .to_string();
    assert!(err.contains("at `tool_budget`"), "{err}");
    assert_eq!(
        restored.get_audit_trail(other),
        s.get_audit_trail(plan),
        "nothing changed"
    );
}

#[test]
fn guard_denials_become_deny_without_a_human() {
    let mut guard = AutomationGuard::default();
    guard.tool_denylist = Some(vec!["shell_exec".into()]);
    let with_human = guard.check(&GuardContext::new("shell_exec"));
    assert_eq!(
        (with_human.verdict, with_human.requires_approval),
        (Verdict::RequireApproval, true)
    );
    let alone = guard.check(&GuardContext::new("shell_exec").human_available(false));
    assert_eq!(
        (alone.verdict, alone.requires_approval, alone.allowed),
        (Verdict::Deny, false, false)
    );
}
