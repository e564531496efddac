//! The plan engine end to end, through `dispatch_json`: a budget pauses a
//! plan and a raise lets it resume, approvals, the safety profile's refusals,
//! exhausted retries, and a budget warning published once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

mod common;

use std::sync::Arc;

use cleveragents::a2a::{A2aEventQueue, EventBusBridge};
use cleveragents::{
    A2aLocalFacade, AutomationProfileService, InMemoryEventBus, InMemoryProfileRepository,
    PlanEngine, PricingTable, SystemClock,
};
use common::{err, ok};
use serde_json::{Value, json};

struct Harness {
    facade: A2aLocalFacade,
    queue: A2aEventQueue,
    _bridge: EventBusBridge,
}

fn harness() -> Harness {
    let bus = InMemoryEventBus::new();
    let queue = A2aEventQueue::new();
    let bridge = EventBusBridge::new(Arc::new(bus.clone()), queue.clone(), Arc::new(SystemClock));
    bridge.start();
    let profiles = AutomationProfileService::builder()
        .repository(Arc::new(InMemoryProfileRepository::new()))
        .build();
    let pricing = PricingTable::from_yaml_str(
        "models:\n  test-model:\n    - effective_from: 2020-01-01\n      input_per_million: 1000.00\n      output_per_million: 2000.00\n      max_output_tokens: 500\n",
    )
    .unwrap();
    let engine = PlanEngine::builder()
        .profiles(profiles)
        .pricing(pricing)
        .event_bus(Arc::new(bus))
        .build();
    let facade = A2aLocalFacade::builder()
        .plan_engine(engine)
        .event_queue(queue.clone())
        .build();
    Harness {
        facade,
        queue,
        _bridge: bridge,
    }
}

/// A plan under `profile` (and optional extra `use` params), executing.
fn executing(f: &A2aLocalFacade, profile: &str, extra: Value) -> Value {
    let mut params =
        json!({"action_name": "refactor-auth", "automation_profile": profile, "confidence": 0.95});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    let plan = ok(f, "_cleveragents/plan/use", params);
    let id = plan["plan_id"].clone();
    let status = ok(
        f,
        "_cleveragents/plan/execute",
        json!({"plan_id": id, "confidence": 0.95}),
    );
    assert_eq!(
        (status["phase"].as_str(), status["state"].as_str()),
        (Some("execute"), Some("running")),
        "{status}"
    );
    id
}

fn tool(f: &A2aLocalFacade, plan: &Value, call: Value) -> Value {
    let mut params = json!({"plan_id": plan});
    for (k, v) in call.as_object().unwrap() {
        params[k] = v.clone();
    }
    ok(f, "_cleveragents/plan/tool/call", params)
}

#[test]
fn a_budget_breach_pauses_the_plan_and_a_raise_lets_it_resume() {
    let h = harness();
    let f = &h.facade;
    ok(
        f,
        "_cleveragents/config/set",
        json!({"key": "billing.max_cost_per_plan", "value": "1.00"}),
    );
    let plan = executing(f, "auto", json!({}));
    assert_eq!(
        tool(f, &plan, json!({"tool_name": "search", "cost": 0.6}))["verdict"],
        "proceed"
    );
    let refused = tool(f, &plan, json!({"tool_name": "search", "cost": 0.6}));
    assert_eq!(refused["verdict"], "deny");
    assert_eq!(refused["status"]["state"], "paused");
    assert_eq!(refused["status"]["pause_reason"], "budget_exceeded");
    assert_eq!(
        refused["reason"],
        "plan budget exceeded: limit $1.00, spent $0.60, reserved $0.00, requested $0.60"
    );
    // The LLM call is not started either: the plan is not executing.
    let e = err(
        f,
        "_cleveragents/plan/llm/reserve",
        json!({"plan_id": plan, "model": "test-model", "input_tokens": 10}),
    );
    assert_eq!(e["code"], -32004);
    // Resuming before the raise is refused with the budget's figures.
    let e = err(f, "_cleveragents/plan/resume", json!({"plan_id": plan}));
    assert_eq!(e["code"], -32006);
    assert_eq!(e["message"], "Budget exceeded");
    assert_eq!(e["data"]["level"], "plan");
    assert_eq!(e["data"]["limit"], 1);
    assert_eq!(e["data"]["requested"], 0.6);
    // `config set billing.max_cost_per_plan`, then `plan resume`.
    ok(
        f,
        "_cleveragents/config/set",
        json!({"key": "billing.max_cost_per_plan", "value": 2}),
    );
    let resumed = ok(f, "_cleveragents/plan/resume", json!({"plan_id": plan}));
    assert_eq!(resumed["state"], "running");
    assert_eq!(
        tool(f, &plan, json!({"tool_name": "search", "cost": 0.6}))["verdict"],
        "proceed"
    );
    let cost = ok(f, "_cleveragents/plan/cost", json!({"plan_id": plan}));
    assert_eq!(
        (cost["spent"].as_f64(), cost["limit"].as_f64()),
        (Some(1.2), Some(2.0))
    );
    let applied = ok(
        f,
        "_cleveragents/plan/apply",
        json!({"plan_id": plan, "confidence": 1.0}),
    );
    assert_eq!(applied["phase"], "apply");
}

#[test]
fn an_llm_call_over_budget_is_not_started() {
    let h = harness();
    let f = &h.facade;
    let plan = executing(f, "auto", json!({"billing": {"max_cost_per_plan": 1}}));
    // 100 input tokens at $1000/M plus at most 500 output at $2000/M = $1.10 > $1.00.
    let e = err(
        f,
        "_cleveragents/plan/llm/reserve",
        json!({"plan_id": plan, "model": "test-model", "input_tokens": 100}),
    );
    assert_eq!(e["code"], -32006);
    assert_eq!(e["data"]["requested"], 1.1);
    assert_eq!(
        ok(f, "_cleveragents/plan/status", json!({"plan_id": plan}))["pause_reason"],
        "budget_exceeded"
    );
    // A smaller call fits after a resume; it is settled at its actual cost.
    let plan2 = executing(f, "auto", json!({"billing": {"max_cost_per_plan": 5}}));
    let call = ok(
        f,
        "_cleveragents/plan/llm/reserve",
        json!({"plan_id": plan2, "model": "test-model", "input_tokens": 100, "max_output_tokens": 50}),
    );
    assert_eq!(call["reserved"], 0.2);
    let settled = ok(
        f,
        "_cleveragents/plan/llm/commit",
        json!({"call_id": call["call_id"], "usage": {"input_tokens": 100, "output_tokens": 20}}),
    );
    assert_eq!(settled["cost"], 0.14);
    let cost = ok(f, "_cleveragents/plan/cost", json!({"plan_id": plan2}));
    assert_eq!(
        cost["models"][0],
        json!({"model": "test-model", "calls": 1, "input_tokens": 100, "output_tokens": 20, "cost": 0.14})
    );
    let e = err(
        f,
        "_cleveragents/plan/llm/commit",
        json!({"call_id": call["call_id"], "usage": {"input_tokens": 1, "output_tokens": 1}}),
    );
    assert_eq!(e["code"], -32001, "a call is settled once");
    let total = ok(
        f,
        "_cleveragents/config/get",
        json!({"key": "billing.total_spent"}),
    );
    assert_eq!(total["value"], 0.14);
}

#[test]
fn input_required_until_a_human_approves() {
    let h = harness();
    let f = &h.facade;
    // supervised: `select_tool` is 1.0, so applying always asks.
    let plan = executing(f, "supervised", json!({}));
    let waiting = ok(
        f,
        "_cleveragents/plan/apply",
        json!({"plan_id": plan, "confidence": 1.0}),
    );
    assert_eq!(waiting["state"], "input-required");
    assert_eq!(waiting["pause_reason"], "approval_required: select_tool");
    let e = err(f, "_cleveragents/plan/apply", json!({"plan_id": plan}));
    assert_eq!(e["code"], -32004, "nothing moves until the human answers");
    let approved = ok(f, "_cleveragents/plan/approve", json!({"plan_id": plan}));
    assert_eq!(
        (approved["phase"].as_str(), approved["state"].as_str()),
        (Some("apply"), Some("completed"))
    );
    // Under manual, even strategizing waits.
    let manual = ok(
        f,
        "_cleveragents/plan/use",
        json!({"action_name": "x", "automation_profile": "manual"}),
    );
    assert_eq!(manual["state"], "input-required");
    // The profile is locked to the plan and shown with where it came from.
    let shown = ok(
        f,
        "_cleveragents/plan/profile/show",
        json!({"plan_id": plan}),
    );
    assert_eq!(
        (shown["profile"]["name"].as_str(), shown["source"].as_str()),
        (Some("supervised"), Some("plan"))
    );
    let audit = ok(
        f,
        "_cleveragents/plan/guard/audit",
        json!({"plan_id": plan}),
    );
    assert_eq!(audit["verified"], true);
    let events: Vec<&str> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    assert!(
        events.contains(&"confirmation_required") && events.contains(&"confirmation_granted"),
        "{events:?}"
    );
}

#[test]
fn a_tool_call_asking_for_approval_proceeds_once_approved() {
    let h = harness();
    let f = &h.facade;
    let plan = executing(f, "auto", json!({"safety_profile": "strict"}));
    let asked = tool(f, &plan, json!({"tool_name": "edit_file"}));
    assert_eq!(asked["verdict"], "ask_human");
    assert_eq!(asked["status"]["state"], "input-required");
    ok(f, "_cleveragents/plan/approve", json!({"plan_id": plan}));
    assert_eq!(
        tool(f, &plan, json!({"tool_name": "edit_file"}))["verdict"],
        "proceed"
    );
    assert_eq!(
        tool(f, &plan, json!({"tool_name": "edit_file"}))["verdict"],
        "ask_human",
        "approval is one-shot"
    );
}

#[test]
fn the_safety_profile_refuses_unsafe_tools_and_writes_when_read_only() {
    let h = harness();
    let f = &h.facade;
    let plan = executing(f, "auto", json!({}));
    let unsafe_call = tool(f, &plan, json!({"tool_name": "rm_rf", "unsafe": true}));
    assert_eq!(unsafe_call["verdict"], "deny");
    assert_eq!(
        unsafe_call["reason"],
        "Tool 'rm_rf' is marked unsafe and the safety profile does not allow unsafe tools. Remediation: set allow_unsafe_tools or use another tool."
    );
    let read_only = executing(f, "auto", json!({"safety_profile": "read-only"}));
    let write = tool(
        f,
        &read_only,
        json!({"tool_name": "write_file", "is_write": true}),
    );
    assert_eq!(write["verdict"], "deny");
    assert!(write["reason"].as_str().unwrap().contains("read-only"));
    assert_eq!(
        tool(f, &read_only, json!({"tool_name": "read_file"}))["verdict"],
        "proceed"
    );
    // full-auto allows unsafe tools.
    let free = executing(f, "full-auto", json!({}));
    assert_eq!(
        tool(f, &free, json!({"tool_name": "rm_rf", "unsafe": true}))["verdict"],
        "proceed"
    );
    // The plan's guard can be edited: a denylisted tool asks a human.
    ok(
        f,
        "_cleveragents/plan/guard/denylist/add",
        json!({"plan_id": plan, "tool": "shell_*"}),
    );
    let shell = tool(f, &plan, json!({"tool_name": "shell_exec"}));
    assert_eq!(shell["verdict"], "ask_human");
    assert_eq!(
        shell["reason"],
        "Tool 'shell_exec' is on the denylist. Remediation: remove it from the denylist or request human approval."
    );
    let guard = ok(f, "_cleveragents/plan/guard/show", json!({"plan_id": plan}));
    assert_eq!(guard["guard"]["tool_denylist"], json!(["shell_*"]));
}

#[test]
fn retries_run_out_at_the_safety_profile_limit() {
    let h = harness();
    let f = &h.facade;
    let plan = executing(f, "auto", json!({}));
    let verdicts: Vec<String> = (0..4)
        .map(|attempt| {
            ok(
                f,
                "_cleveragents/plan/retry",
                json!({"plan_id": plan, "attempt": attempt}),
            )["verdict"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        verdicts,
        ["proceed", "proceed", "proceed", "deny"],
        "max_retries_per_step = 3"
    );
    let mut custom = json!({"name": "x", "safety": {"max_retries_per_step": 1}});
    custom["safety"]["max_retries_per_step"] = json!(1);
    let strict = executing(
        f,
        "auto",
        json!({"safety_profile": {"max_retries_per_step": 1}}),
    );
    assert_eq!(
        ok(
            f,
            "_cleveragents/plan/retry",
            json!({"plan_id": strict, "attempt": 1})
        )["verdict"],
        "deny"
    );
}

#[test]
fn the_budget_warning_fires_once_per_crossing() {
    let h = harness();
    let f = &h.facade;
    let plan = executing(
        f,
        "auto",
        json!({"billing": {"max_cost_per_plan": 1, "warn_at_percent": 80}}),
    );
    let warnings = |q: &A2aEventQueue| {
        q.get_events(1000)
            .iter()
            .filter(|e| e.data.get("domain_event") == Some(&json!("BUDGET_WARNING")))
            .count()
    };
    tool(f, &plan, json!({"tool_name": "t", "cost": 0.5}));
    assert_eq!(warnings(&h.queue), 0);
    tool(f, &plan, json!({"tool_name": "t", "cost": 0.35}));
    assert_eq!(warnings(&h.queue), 1, "crossed 80 %");
    tool(f, &plan, json!({"tool_name": "t", "cost": 0.05}));
    assert_eq!(warnings(&h.queue), 1, "still above: no second warning");
    let warning = h
        .queue
        .get_events(1000)
        .into_iter()
        .find(|e| e.data.get("domain_event") == Some(&json!("BUDGET_WARNING")))
        .unwrap();
    assert_eq!(warning.data["level"], "plan");
    assert_eq!(warning.data["limit"], 1);
    // Lifecycle events reach the A2A queue through the bridge.
    assert!(
        h.queue
            .get_events(1000)
            .iter()
            .any(|e| e.data.get("domain_event") == Some(&json!("PLAN_CREATED")))
    );
}

#[test]
fn unknown_profiles_and_keys_are_clear_errors() {
    let h = harness();
    let f = &h.facade;
    let e = err(
        f,
        "_cleveragents/plan/use",
        json!({"action_name": "x", "automation_profile": "autoo"}),
    );
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"]["plan"], "autoo");
    let e = err(
        f,
        "_cleveragents/config/get",
        json!({"key": "billing.nope"}),
    );
    assert_eq!(e["code"], -32001);
    let e = err(
        f,
        "_cleveragents/config/set",
        json!({"key": "billing.warn_at_percent", "value": 0}),
    );
    assert_eq!(
        (e["code"].as_i64(), e["data"]["key"].as_str()),
        (Some(-32602), Some("billing.warn_at_percent"))
    );
    let e = err(
        f,
        "_cleveragents/automation-profile/add",
        json!({"profile": {"name": "auto"}}),
    );
    assert_eq!(e["code"], -32003, "built-in names are reserved");
    let listed = ok(f, "_cleveragents/automation-profile/list", json!({}));
    assert_eq!(listed["profiles"].as_array().unwrap().len(), 8);
}
