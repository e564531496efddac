//! A first tour: build the facade, open a session, carry a plan from `use`
//! through `execute` to `apply`, and look at what it decided and changed.
//!
//! Run with `cargo run --example quickstart`.
#![expect(
    clippy::indexing_slicing,
    reason = "indexing a serde_json::Value by key yields Null when absent; it never panics"
)]

use std::error::Error;
use std::sync::Arc;

use cleveragents::a2a::A2aEventQueue;
use cleveragents::{
    A2aLocalFacade, A2aRequest, A2aResponse, InMemoryPlanLifecycle, InMemorySessionService, PlanId,
};
use serde_json::{Value, json};

/// Sends one request and returns its result, or the error as a Rust error.
fn call(facade: &A2aLocalFacade, method: &str, params: Value) -> Result<Value, Box<dyn Error>> {
    let response: A2aResponse = facade.dispatch(&A2aRequest::new(method, params)?);
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

fn main() -> Result<(), Box<dyn Error>> {
    // The host keeps handles to the services it wires in; the facade shares them.
    let plans = InMemoryPlanLifecycle::new();
    let events = A2aEventQueue::new();
    events.subscribe_local(|event| {
        println!(
            "   event: the plan is now in phase `{}`, {}",
            text(&event.data["phase"]),
            text(&event.data["state"])
        );
    });
    let facade = A2aLocalFacade::builder()
        .session_service(Arc::new(InMemorySessionService::new()))
        .plan_lifecycle_service(Arc::new(plans.clone()))
        .event_queue(events)
        .build();

    let session = call(
        &facade,
        "session.create",
        json!({"actor_name": "openai/gpt-4o"}),
    )?;
    println!(
        "1. Opened session {} for actor openai/gpt-4o.",
        text(&session["session_id"])
    );

    println!("2. Creating a plan from the action `refactor-auth`:");
    let plan = call(
        &facade,
        "_cleveragents/plan/use",
        json!({"action_name": "refactor-auth", "arguments": {"target": "src/auth"}, "session_id": session["session_id"]}),
    )?;
    let plan_id = plan["plan_id"]
        .as_str()
        .ok_or("plan_id is a string")?
        .to_owned();

    println!("3. Executing it:");
    call(
        &facade,
        "_cleveragents/plan/execute",
        json!({"plan_id": plan_id}),
    )?;

    // While executing, the host's agent records what it would change.
    let id = PlanId::parse(&plan_id)?;
    plans.record_change(
        id,
        "src/auth.rs",
        Some("fn login() {}\n".into()),
        Some("fn login(db: &Db) {}\n".into()),
    )?;
    call(
        &facade,
        "_cleveragents/plan/prompt",
        json!({"plan_id": plan_id, "guidance": "inject the database handle"}),
    )?;

    let diff = call(
        &facade,
        "_cleveragents/plan/diff",
        json!({"plan_id": plan_id}),
    )?;
    for change in diff["changes"].as_array().into_iter().flatten() {
        println!(
            "   it proposes to change {} ({}).",
            text(&change["path"]),
            text(&change["kind"])
        );
    }

    // Asking to execute again is refused with a clear reason.
    if let Err(refused) = call(
        &facade,
        "_cleveragents/plan/execute",
        json!({"plan_id": plan_id}),
    ) {
        println!("   executing it again is refused: {refused}");
    }

    println!("4. Applying it:");
    call(
        &facade,
        "_cleveragents/plan/apply",
        json!({"plan_id": plan_id}),
    )?;

    println!("5. What was decided along the way:");
    let tree = call(
        &facade,
        "_cleveragents/plan/tree",
        json!({"plan_id": plan_id}),
    )?;
    for decision in tree["decisions"].as_array().into_iter().flatten() {
        println!(
            "   - {}: {}",
            text(&decision["kind"]),
            text(&decision["summary"])
        );
    }

    let status = call(
        &facade,
        "_cleveragents/plan/status",
        json!({"plan_id": plan_id}),
    )?;
    println!(
        "6. Final status: phase `{}`, {}.",
        text(&status["phase"]),
        text(&status["state"])
    );

    call(
        &facade,
        "session.close",
        json!({"session_id": session["session_id"]}),
    )?;
    println!("7. Session closed.");
    Ok(())
}
