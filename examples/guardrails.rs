//! Guardrails in action: a plan with limits, a session and an organisation
//! budget, every decision audited, the trail verified, exported and restored.
//!
//! Run with `cargo run --example guardrails`.

use std::error::Error;
use std::sync::Arc;

use chrono::TimeDelta;
use cleveragents::{
    ActorLimits, AutomationGuard, AutonomyGuardrailService, AutonomyGuardrails, CostBudgetService,
    GuardContext, GuardrailDecision, InMemoryAuditSink, ManualClock, PlanId, SessionId, SinkMode,
    Usd,
};

fn show(what: &str, decision: &GuardrailDecision) {
    match &decision.reason {
        None => println!("  allowed  {what}"),
        Some(reason) => println!("  DENIED   {what}\n           {reason}"),
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    // A per-call guard, as an automation profile's `guard:` block would hold.
    let mut guard = AutomationGuard::default();
    guard.tool_denylist = Some(vec!["shell_exec".into(), "network_*".into()]);
    guard.max_tool_calls_per_step = Some(10);
    println!("Guard checks:");
    for ctx in [
        GuardContext::new("read_file"),
        GuardContext::new("network_request"),
        GuardContext::new("read_file").calls_so_far(10),
    ] {
        let result = guard.check(&ctx);
        println!("  {:<16} {}", ctx.tool_name, result);
    }

    // Budgets: the session may spend $3.00, the organisation $4.00.
    let budgets = CostBudgetService::new();
    let session = SessionId::new();
    budgets.set_session_limit(session, Some(Usd::from_dollars(3)));
    budgets.set_org_limit("acme", Some(Usd::from_dollars(4)));
    budgets.assign_session_to_org(session, "acme");

    let clock = ManualClock::default();
    let sink = InMemoryAuditSink::new();
    let service = AutonomyGuardrailService::builder()
        .clock(Arc::new(clock.clone()))
        .cost_budget_service(budgets.clone())
        .audit_sink(Arc::new(sink.clone()), SinkMode::Strict)
        .build();

    let plan = PlanId::new();
    let mut guardrails = AutonomyGuardrails::default();
    guardrails.max_steps = Some(3);
    guardrails.tool_budget = Some(Usd::from_dollars(2));
    guardrails.max_wall_clock_seconds = Some(600.0);
    guardrails.actor_limits = ActorLimits::new(Some(20), Some(3));
    guardrails.required_confirmations = vec!["deploy_*".into()];
    service.configure_guardrails(plan, guardrails)?;
    service.associate_plan_with_session(plan, session);

    println!("\nGuardrail checks for plan {plan}:");
    for step in 0..4 {
        show(
            &format!("step {step}"),
            &service.check_step_limit(plan, step)?,
        );
    }
    for cost in ["0.75", "0.75", "0.75"] {
        let check = service.check_budget_hierarchy(plan, Usd::parse(cost)?)?;
        match check.exceeded_level {
            None => println!("  allowed  a ${cost} tool call"),
            Some(level) => println!("  DENIED   a ${cost} tool call at the {level} level"),
        }
    }
    show("retry 2", &service.check_retries_per_failure(plan, 2)?);
    show("retry 3", &service.check_retries_per_failure(plan, 3)?);
    show(
        "deploy_to_production",
        &service.check_confirmation_required(plan, "deploy_to_production")?,
    );
    service.grant_confirmation(plan, "deploy_to_production")?;
    show(
        "deploy_to_production (after a human confirmed)",
        &service.check_confirmation_required(plan, "deploy_to_production")?,
    );
    clock.advance(TimeDelta::minutes(11));
    show(
        "wall clock after 11 minutes",
        &service.check_wall_clock(plan)?,
    );

    println!(
        "\nBudgets: session {}, organisation {}.",
        budgets.session_budget(session),
        budgets.org_budget("acme")
    );

    let trail = service
        .get_audit_trail(plan)
        .ok_or("the plan has a trail")?;
    trail.verify()?;
    println!(
        "\nAudit trail: {} entries ({} allowed, {} denied), hash chain verified; the sink holds {}.",
        trail.entries().len(),
        trail.allowed_count(),
        trail.denied_count(),
        sink.entries(plan).len()
    );
    for entry in trail.entries().iter().rev().take(3).rev() {
        println!(
            "  #{:<2} {:<22} {:<8} {}",
            entry.sequence(),
            entry.event_type(),
            entry.result(),
            entry.guard_name()
        );
    }

    // Persist with the plan, restore elsewhere; tampering is caught.
    let metadata = service
        .get_audit_trail_as_metadata(plan)
        .ok_or("known plan")?;
    let restored = AutonomyGuardrailService::new();
    restored.load_from_metadata(plan, &metadata)?;
    println!(
        "\nRestored from metadata: {} entries.",
        restored
            .get_audit_trail(plan)
            .map_or(0, |t| t.entries().len())
    );
    let mut forged = metadata.clone();
    if let Some(entry) = forged
        .get_mut("guardrail_audit_trail")
        .and_then(|t| t.get_mut("entries"))
        .and_then(|e| e.get_mut(3))
    {
        entry["result"] = "allowed".into();
        entry["event_type"] = "step_allowed".into();
        entry["reason"] = serde_json::Value::Null;
    }
    if let Err(error) = restored.load_from_metadata(plan, &forged) {
        println!("A forged trail is refused: {error}");
    }
    Ok(())
}
