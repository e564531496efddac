//! A first tour of cleveragents: a plan under the `supervised` profile, its
//! tool calls allowed or refused with reasons, costs charged until the plan
//! pauses on its budget, the limit raised, the plan resumed and applied, and
//! the audit trail verified and printed.
//!
//! Everything goes through the A2A facade, as a frontend would drive it.
//! Run with `cargo run --example quickstart`.
#![expect(
    clippy::indexing_slicing,
    reason = "indexing a serde_json::Value by key yields Null when absent; it never panics"
)]

use std::error::Error;
use std::sync::Arc;

use cleveragents::a2a::{A2aEventQueue, EventBusBridge};
use cleveragents::{
    A2aLocalFacade, A2aRequest, AutomationProfileService, InMemoryEventBus, InMemorySessionService,
    PlanEngine, PricingTable, SystemClock,
};
use serde_json::{Value, json};

/// Sends one request; returns its result or the error as a Rust error.
fn call(facade: &A2aLocalFacade, method: &str, params: Value) -> Result<Value, Box<dyn Error>> {
    let response = facade.dispatch(&A2aRequest::new(method, params)?);
    match (response.result(), response.error()) {
        (Some(result), _) => Ok(result.clone()),
        (None, Some(error)) => Err(format!(
            "{} ({}): {}",
            error.message,
            error.code,
            text(&error.data["reason"])
        )
        .into()),
        (None, None) => Err("a response always carries a result or an error".into()),
    }
}

/// A JSON string without its quotes.
fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("?")
}

fn tool(
    facade: &A2aLocalFacade,
    plan: &Value,
    name: &str,
    extra: Value,
) -> Result<Value, Box<dyn Error>> {
    let mut params = json!({"plan_id": plan, "tool_name": name});
    if let (Some(target), Some(source)) = (params.as_object_mut(), extra.as_object()) {
        target.extend(source.clone());
    }
    let decision = call(facade, "_cleveragents/plan/tool/call", params)?;
    let verdict = text(&decision["verdict"]).to_owned();
    match decision["reason"].as_str() {
        None => println!("   {name:<12} {verdict}"),
        Some(reason) => println!("   {name:<12} {verdict}: {reason}"),
    }
    Ok(decision)
}

fn main() -> Result<(), Box<dyn Error>> {
    // The engine decides every step; its domain events reach the A2A queue.
    let bus = InMemoryEventBus::new();
    let events = A2aEventQueue::new();
    let bridge = EventBusBridge::new(Arc::new(bus.clone()), events.clone(), Arc::new(SystemClock));
    bridge.start();
    let pricing = PricingTable::from_yaml_str(include_str!("pricing.yaml"))?;
    let engine = PlanEngine::builder()
        .profiles(AutomationProfileService::new())
        .pricing(pricing)
        .event_bus(Arc::new(bus))
        .build();
    let facade = A2aLocalFacade::builder()
        .session_service(Arc::new(InMemorySessionService::new()))
        .plan_engine(engine)
        .event_queue(events.clone())
        .build();

    let session = call(
        &facade,
        "session.create",
        json!({"actor_name": "openai/gpt-4o"}),
    )?;
    call(
        &facade,
        "_cleveragents/config/set",
        json!({"key": "billing.max_cost_per_plan", "value": "0.05"}),
    )?;
    println!(
        "1. Session {} opened; plans may spend at most $0.05 each.",
        text(&session["session_id"])
    );

    let plan = call(
        &facade,
        "_cleveragents/plan/use",
        json!({"action_name": "refactor-auth", "automation_profile": "supervised", "session_id": session["session_id"], "confidence": 0.9}),
    )?;
    let id = plan["plan_id"].clone();
    let shown = call(
        &facade,
        "_cleveragents/plan/profile/show",
        json!({"plan_id": id}),
    )?;
    println!(
        "2. Plan created under the `{}` profile (chosen at the {} level); it is locked to the plan.",
        text(&shown["profile"]["name"]),
        text(&shown["source"])
    );
    call(
        &facade,
        "_cleveragents/plan/execute",
        json!({"plan_id": id, "confidence": 0.9}),
    )?;
    call(
        &facade,
        "_cleveragents/plan/guard/denylist/add",
        json!({"plan_id": id, "tool": "shell_*"}),
    )?;
    println!("3. Executing (with `shell_*` on the plan's denylist). Tool calls:");
    tool(&facade, &id, "read_file", json!({"confidence": 0.9}))?;
    tool(
        &facade,
        &id,
        "rm_tree",
        json!({"unsafe": true, "confidence": 0.9}),
    )?;
    tool(&facade, &id, "shell_exec", json!({"confidence": 0.9}))?;
    println!("   (a human approves the shell command)");
    call(
        &facade,
        "_cleveragents/plan/approve",
        json!({"plan_id": id}),
    )?;
    tool(&facade, &id, "shell_exec", json!({"confidence": 0.9}))?;

    println!("4. LLM calls, each reserved before it starts and settled at its real cost:");
    loop {
        let reserved = call(
            &facade,
            "_cleveragents/plan/llm/reserve",
            json!({"plan_id": id, "model": "gpt-4o", "input_tokens": 5000, "max_output_tokens": 1000}),
        );
        match reserved {
            Ok(reservation) => {
                let settled = call(
                    &facade,
                    "_cleveragents/plan/llm/commit",
                    json!({"call_id": reservation["call_id"], "usage": {"input_tokens": 5000, "output_tokens": 800}}),
                )?;
                let cost = call(&facade, "_cleveragents/plan/cost", json!({"plan_id": id}))?;
                println!(
                    "   reserved ${}, spent ${}; the plan has spent ${} of ${}",
                    reservation["reserved"], settled["cost"], cost["spent"], cost["limit"]
                );
            }
            Err(refused) => {
                println!("   refused before the call: {refused}");
                break;
            }
        }
    }
    let status = call(&facade, "_cleveragents/plan/status", json!({"plan_id": id}))?;
    println!(
        "5. The plan is {} ({}).",
        text(&status["state"]),
        text(&status["pause_reason"])
    );
    let warnings = events
        .get_events(1000)
        .iter()
        .filter(|e| e.data.get("domain_event") == Some(&json!("BUDGET_WARNING")))
        .count();
    println!("   Budget warnings published on the way (at 80 % of a budget): {warnings}.");

    call(
        &facade,
        "_cleveragents/config/set",
        json!({"key": "billing.max_cost_per_plan", "value": "0.10"}),
    )?;
    let resumed = call(&facade, "_cleveragents/plan/resume", json!({"plan_id": id}))?;
    println!(
        "6. Limit raised to $0.10; the plan is {} again.",
        text(&resumed["state"])
    );

    let asked = call(
        &facade,
        "_cleveragents/plan/apply",
        json!({"plan_id": id, "confidence": 0.99}),
    )?;
    println!(
        "7. Applying under `supervised` waits for a human: {}.",
        text(&asked["state"])
    );
    let applied = call(
        &facade,
        "_cleveragents/plan/approve",
        json!({"plan_id": id}),
    )?;
    println!(
        "   Approved: phase `{}`, {}.",
        text(&applied["phase"]),
        text(&applied["state"])
    );

    let audit = call(
        &facade,
        "_cleveragents/plan/guard/audit",
        json!({"plan_id": id}),
    )?;
    println!(
        "8. Audit trail: {} allowed, {} denied, hash chain verified: {}.",
        audit["allowed_count"], audit["denied_count"], audit["verified"]
    );
    for entry in audit["entries"].as_array().into_iter().flatten() {
        let detail = entry["reason"]
            .as_str()
            .or_else(|| entry["context"]["operation"].as_str())
            .unwrap_or("");
        let detail: String = detail.chars().take(70).collect();
        println!(
            "   #{:<2} {:<21} {:<7} {}",
            entry["sequence"],
            text(&entry["event_type"]),
            text(&entry["result"]),
            detail
        );
    }
    let session_cost = call(
        &facade,
        "_cleveragents/session/cost",
        json!({"session_id": session["session_id"]}),
    )?;
    println!(
        "9. The session cost ${} in LLM calls.",
        session_cost["cost"]
    );
    Ok(())
}
