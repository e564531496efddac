//! The facade's routing, through the public API.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

mod common;

use std::sync::Arc;

use cleveragents::a2a::{LEGACY_ALIASES, Method};
use cleveragents::{
    A2aLocalFacade, A2aRequest, CheckStatus, DiagnosticCheck, DiagnosticsRegistry,
    InMemoryPlanLifecycle, InMemoryRegistry, InMemorySync, NamespaceMember, PlanId, RegistryEntry,
    RegistryKind,
};
use common::{call, err, ok};
use serde_json::{Value, json};

/// A facade with every in-memory service, some content, and a plan in execution.
struct World {
    facade: A2aLocalFacade,
    plans: InMemoryPlanLifecycle,
    plan_id: String,
    decision_id: String,
}

fn world() -> World {
    let plans = InMemoryPlanLifecycle::new();
    let tools = InMemoryRegistry::new(RegistryKind::Tool);
    tools
        .register(RegistryEntry::new("my-org/python-linter").description("lints"))
        .unwrap();
    tools.register(RegistryEntry::new("read_file")).unwrap();
    let resources = InMemoryRegistry::new(RegistryKind::Resource);
    resources
        .register(RegistryEntry::new("repo").type_name("git-repo"))
        .unwrap();
    resources
        .register(RegistryEntry::new("db").type_name("postgres"))
        .unwrap();
    let sync = InMemorySync::new();
    sync.add_namespace("team", "the team").unwrap();
    sync.add_member("team", NamespaceMember::new("ada", "owner"))
        .unwrap();
    let diagnostics = DiagnosticsRegistry::new();
    diagnostics
        .add_check("disk", || {
            DiagnosticCheck::new("disk", CheckStatus::Pass, "ok")
        })
        .unwrap();
    let profiles = cleveragents::AutomationProfileService::builder()
        .repository(Arc::new(cleveragents::InMemoryProfileRepository::new()))
        .global_default("auto")
        .build();
    let pricing = cleveragents::PricingTable::from_yaml_str(
        "models:\n  test-model:\n    - effective_from: 2020-01-01\n      input_per_million: 1.00\n      output_per_million: 2.00\n      max_output_tokens: 1000\n",
    )
    .unwrap();
    let engine = cleveragents::PlanEngine::builder()
        .lifecycle(plans.clone())
        .profiles(profiles)
        .pricing(pricing)
        .build();
    let mut builder = A2aLocalFacade::builder()
        .session_service(Arc::new(cleveragents::InMemorySessionService::new()))
        .plan_engine(engine)
        .registry(RegistryKind::Tool, Arc::new(tools))
        .registry(RegistryKind::Resource, Arc::new(resources))
        .context_service(Arc::new(cleveragents::InMemoryContextService::new()))
        .diagnostics_service(Arc::new(diagnostics))
        .sync_service(Arc::new(sync))
        .event_queue(cleveragents::a2a::A2aEventQueue::new())
        .task_store(Arc::new(cleveragents::a2a::InMemoryTaskStore::new()))
        .agent_executor(Arc::new(
            cleveragents::a2a::EchoExecutor::requiring_approval(),
        ))
        .push_notifier(Arc::new(cleveragents::a2a::RecordingPushNotifier::new()))
        .extended_agent_card(cleveragents::a2a::AgentCard::cleveragents(
            "http://127.0.0.1:1/",
        ));
    for kind in [
        RegistryKind::Actor,
        RegistryKind::Skill,
        RegistryKind::Action,
        RegistryKind::Project,
    ] {
        let registry = InMemoryRegistry::new(kind);
        registry
            .register(RegistryEntry::new(format!("{kind}-one")))
            .unwrap();
        builder = builder.registry(kind, Arc::new(registry));
    }
    let facade = builder.build();
    let plan_id = ok(
        &facade,
        "_cleveragents/plan/use",
        json!({"action_name": "refactor-auth"}),
    )["plan_id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok(
        &facade,
        "_cleveragents/plan/execute",
        json!({"plan_id": plan_id}),
    );
    let decision_id = ok(
        &facade,
        "_cleveragents/plan/tree",
        json!({"plan_id": plan_id}),
    )["decisions"][0]["decision_id"]
        .as_str()
        .unwrap()
        .to_owned();
    World {
        facade,
        plans,
        plan_id,
        decision_id,
    }
}

fn user_message(text: &str) -> Value {
    json!({"kind": "message", "messageId": cleveragents::PlanId::new().to_string(), "role": "user",
           "parts": [{"kind": "text", "text": text}]})
}

/// A task waiting for input (the world's executor asks for approval first).
fn open_task(w: &World) -> Value {
    let task = ok(
        &w.facade,
        "message/send",
        json!({"message": user_message("start")}),
    );
    assert_eq!(task["status"]["state"], "input-required");
    task["id"].clone()
}

/// Valid params for each method against `w` (a fresh plan where the method
/// changes the plan's phase).
fn sample_params(w: &World, method: Method) -> Value {
    let method = &method;
    let fresh_plan = || {
        ok(
            &w.facade,
            "_cleveragents/plan/use",
            json!({"action_name": "x"}),
        )["plan_id"]
            .clone()
    };
    match *method {
        Method::SessionCreate => json!({"actor_name": "openai/gpt-4o"}),
        Method::SessionClose => {
            let s = ok(&w.facade, "session.create", json!({}));
            json!({"session_id": s["session_id"]})
        }
        Method::PlanUse => {
            json!({"action_name": "refactor-auth", "arguments": {"target": "src/auth"}})
        }
        Method::PlanExecute | Method::PlanCancel => json!({"plan_id": fresh_plan()}),
        Method::PlanApply
        | Method::PlanRollback
        | Method::PlanStatus
        | Method::PlanTree
        | Method::PlanDiff
        | Method::PlanArtifacts => json!({"plan_id": w.plan_id}),
        Method::PlanExplain => json!({"plan_id": w.plan_id, "decision_id": w.decision_id}),
        Method::PlanCorrect => {
            json!({"plan_id": w.plan_id, "guidance": "Use dependency injection"})
        }
        Method::PlanPrompt => json!({"plan_id": w.plan_id, "guidance": "prefer small commits"}),
        Method::PlanList => json!({}),
        Method::RegistryToolList => json!({"namespace": "my-org"}),
        Method::RegistryResourceList => json!({"type_name": "git-repo"}),
        Method::RegistryActorList
        | Method::RegistrySkillList
        | Method::RegistryActionList
        | Method::RegistryProjectList => json!({}),
        Method::ContextShow | Method::ContextInspect => json!({"plan_id": w.plan_id}),
        Method::ContextSimulate => json!({"overrides": {"k": 1}}),
        Method::ContextSet => json!({"key": "language", "value": "rust"}),
        Method::HealthCheck | Method::DiagnosticsRun => json!({}),
        Method::SyncPull | Method::SyncPush | Method::SyncStatus => json!({"namespace": "team"}),
        Method::NamespaceList => json!({}),
        Method::NamespaceShow | Method::NamespaceMembers => json!({"namespace": "team"}),
        Method::EventSubscribe => json!({"event_types": ["TaskStatusUpdateEvent"]}),
        Method::MessageSend | Method::MessageStream => json!({"message": user_message("hello")}),
        Method::TasksGet | Method::TasksCancel | Method::TasksResubscribe => {
            json!({"id": open_task(w)})
        }
        Method::TasksList | Method::ExtendedCard => json!({}),
        Method::PushConfigSet => {
            json!({"taskId": open_task(w), "pushNotificationConfig": {"url": "https://example.com/hook"}})
        }
        Method::PushConfigGet | Method::PushConfigList | Method::PushConfigDelete => {
            let task = open_task(w);
            ok(
                &w.facade,
                "tasks/pushNotificationConfig/set",
                json!({"taskId": task, "pushNotificationConfig": {"id": "cfg1", "url": "https://example.com/hook"}}),
            );
            json!({"id": task, "pushNotificationConfigId": "cfg1"})
        }
        Method::PlanApprove => {
            let waiting = ok(
                &w.facade,
                "_cleveragents/plan/use",
                json!({"action_name": "x", "automation_profile": "manual"}),
            );
            assert_eq!(waiting["state"], "input-required");
            json!({"plan_id": waiting["plan_id"]})
        }
        Method::PlanResume => {
            ok(
                &w.facade,
                "_cleveragents/config/set",
                json!({"key": "billing.max_cost_per_plan", "value": 1}),
            );
            let id = fresh_plan();
            ok(
                &w.facade,
                "_cleveragents/plan/execute",
                json!({"plan_id": id}),
            );
            let paused = ok(
                &w.facade,
                "_cleveragents/plan/tool/call",
                json!({"plan_id": id, "tool_name": "t", "cost": 2}),
            );
            assert_eq!(paused["status"]["state"], "paused");
            ok(
                &w.facade,
                "_cleveragents/config/set",
                json!({"key": "billing.max_cost_per_plan", "value": 10}),
            );
            json!({"plan_id": id})
        }
        Method::PlanStep
        | Method::PlanCost
        | Method::PlanGuardShow
        | Method::PlanGuardAudit
        | Method::PlanProfileShow => {
            json!({"plan_id": w.plan_id})
        }
        Method::PlanToolCall => json!({"plan_id": w.plan_id, "tool_name": "read_file"}),
        Method::PlanRetry => json!({"plan_id": w.plan_id, "attempt": 0}),
        Method::PlanLlmReserve => {
            json!({"plan_id": w.plan_id, "model": "test-model", "input_tokens": 100})
        }
        Method::PlanLlmCommit | Method::PlanLlmRelease => {
            let call = ok(
                &w.facade,
                "_cleveragents/plan/llm/reserve",
                json!({"plan_id": w.plan_id, "model": "test-model", "input_tokens": 100}),
            );
            if *method == Method::PlanLlmCommit {
                json!({"call_id": call["call_id"], "usage": {"input_tokens": 100, "output_tokens": 10}})
            } else {
                json!({"call_id": call["call_id"]})
            }
        }
        Method::SessionCost | Method::ProfileList => json!({}),
        Method::ConfigGet => json!({"key": "billing.max_cost_per_plan"}),
        Method::ConfigSet => json!({"key": "billing.warn_at_percent", "value": 90}),
        Method::PlanGuardSet => json!({"plan_id": w.plan_id, "max_cost": 5}),
        Method::PlanGuardDenylistAdd | Method::PlanGuardDenylistRemove => {
            json!({"plan_id": w.plan_id, "tool": "shell_exec"})
        }
        Method::ProfileShow => json!({"name": "auto"}),
        Method::ProfileAdd => {
            json!({"profile": {"name": format!("new-{}", cleveragents::PlanId::new().to_string().to_lowercase()), "edit_code": 0.5}})
        }
        Method::ProfileUpdate | Method::ProfileDelete => {
            let name = format!(
                "team-{}",
                cleveragents::PlanId::new().to_string().to_lowercase()
            );
            ok(
                &w.facade,
                "_cleveragents/automation-profile/add",
                json!({"profile": {"name": name}}),
            );
            if *method == Method::ProfileUpdate {
                json!({"name": name, "profile": {"name": name, "edit_code": 0.1}})
            } else {
                json!({"name": name})
            }
        }
        other => panic!("no sample params for {other}: add the new method to this test"),
    }
}

#[test]
fn every_method_is_routed_and_succeeds() {
    for method in Method::ALL {
        let w = world();
        let params = sample_params(&w, *method);
        let result = ok(&w.facade, method.name(), params);
        match method {
            Method::PushConfigList => assert!(result.is_array(), "{method}: {result}"),
            Method::PushConfigDelete => assert!(result.is_null(), "{method}: {result}"),
            _ => assert!(result.is_object(), "{method} answers an object: {result}"),
        }
    }
}

#[test]
fn results_have_the_documented_shapes() {
    let w = world();
    let f = &w.facade;
    let status = ok(
        f,
        "_cleveragents/plan/status",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(
        status,
        json!({"plan_id": w.plan_id, "action_name": "refactor-auth", "phase": "execute", "state": "running"})
    );
    let tools = ok(
        f,
        "_cleveragents/registry/tool/list",
        json!({"namespace": "my-org"}),
    );
    assert_eq!(
        tools,
        json!({"tools": [{"name": "my-org/python-linter", "description": "lints"}]})
    );
    let resources = ok(
        f,
        "_cleveragents/registry/resource/list",
        json!({"type_name": "git-repo"}),
    );
    assert_eq!(resources["resources"].as_array().unwrap().len(), 1);
    let members = ok(
        f,
        "_cleveragents/namespace/members",
        json!({"namespace": "team"}),
    );
    assert_eq!(
        members,
        json!({"namespace": "team", "members": [{"name": "ada", "role": "owner"}]})
    );
    let health = ok(f, "_cleveragents/health/check", json!({}));
    assert_eq!(health["status"], "ok");
    let diagnostics = ok(f, "_cleveragents/diagnostics/run", json!({}));
    assert_eq!(
        diagnostics,
        json!({"status": "pass", "checks": [{"name": "disk", "status": "pass", "detail": "ok"}]})
    );
    ok(
        f,
        "_cleveragents/context/set",
        json!({"key": "style", "value": "terse"}),
    );
    ok(
        f,
        "_cleveragents/context/set",
        json!({"plan_id": w.plan_id, "key": "style", "value": "verbose"}),
    );
    let shown = ok(
        f,
        "_cleveragents/context/show",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(
        shown,
        json!({"entries": [{"key": "style", "value": "verbose", "tier": "plan"}]})
    );
    let tiers = ok(
        f,
        "_cleveragents/context/inspect",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(
        tiers["tiers"][0],
        json!({"tier": "global", "values": {"style": "terse"}})
    );
    let simulated = ok(
        f,
        "_cleveragents/context/simulate",
        json!({"overrides": {"style": "none"}}),
    );
    assert_eq!(
        simulated,
        json!({"entries": [{"key": "style", "value": "none", "tier": null}]})
    );
    let shown = ok(f, "_cleveragents/context/show", json!({}));
    assert_eq!(
        shown["entries"][0]["value"], "terse",
        "simulate stored nothing"
    );
}

#[test]
fn the_plan_lifecycle_through_the_facade() {
    let w = world();
    let f = &w.facade;
    let id = PlanId::parse(&w.plan_id).unwrap();
    w.plans
        .record_change(id, "src/auth.rs", Some("old".into()), Some("new".into()))
        .unwrap();
    w.plans
        .record_artifact(
            id,
            cleveragents::Artifact::new("report", "text/markdown", "# done"),
        )
        .unwrap();
    let corrected = ok(
        f,
        "_cleveragents/plan/correct",
        json!({"plan_id": w.plan_id, "guidance": "Use DI", "decision_id": w.decision_id}),
    );
    assert_eq!(corrected["decision"]["kind"], "correction");
    assert_eq!(corrected["decision"]["parent_id"], w.decision_id.as_str());
    let explained = ok(
        f,
        "_cleveragents/plan/explain",
        json!({"plan_id": w.plan_id, "decision_id": corrected["decision"]["decision_id"]}),
    );
    assert_eq!(explained["decision"]["summary"], "Use DI");
    ok(
        f,
        "_cleveragents/plan/prompt",
        json!({"plan_id": w.plan_id, "guidance": "go on"}),
    );
    let diff = ok(f, "_cleveragents/plan/diff", json!({"plan_id": w.plan_id}));
    assert_eq!(
        diff["changes"],
        json!([{"path": "src/auth.rs", "kind": "modified", "before": "old", "after": "new"}])
    );
    let artifacts = ok(
        f,
        "_cleveragents/plan/artifacts",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(artifacts["artifacts"][0]["name"], "report");
    let applied = ok(f, "_cleveragents/plan/apply", json!({"plan_id": w.plan_id}));
    assert_eq!(
        (applied["phase"].as_str(), applied["state"].as_str()),
        (Some("apply"), Some("completed"))
    );
    let error = err(
        f,
        "_cleveragents/plan/cancel",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(error["code"], -32004);
    assert_eq!(error["data"]["plan_id"], w.plan_id.as_str());
    assert_eq!(error["data"]["operation"], "cancel");
    let rolled = ok(
        f,
        "_cleveragents/plan/rollback",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(rolled["phase"], "execute");
    let rolled = ok(
        f,
        "_cleveragents/plan/rollback",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(
        (rolled["phase"].as_str(), rolled["state"].as_str()),
        (Some("strategize"), Some("completed"))
    );
    assert_eq!(
        ok(f, "_cleveragents/plan/diff", json!({"plan_id": w.plan_id}))["changes"],
        json!([])
    );
    let error = err(
        f,
        "_cleveragents/plan/rollback",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(error["code"], -32004);
    let listed = ok(f, "_cleveragents/plan/list", json!({"state": "completed"}));
    assert_eq!(listed["plans"].as_array().unwrap().len(), 1);
    let kinds: Vec<String> =
        ok(f, "_cleveragents/plan/tree", json!({"plan_id": w.plan_id}))["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["kind"].as_str().unwrap().to_owned())
            .collect();
    assert_eq!(
        kinds,
        [
            "strategy",
            "execution",
            "correction",
            "guidance",
            "application",
            "rollback",
            "rollback"
        ]
    );
}

/// Replaces generated ids and timestamps so results about different (but
/// equally built) worlds compare.
fn normalized(value: Value) -> Value {
    match value {
        Value::String(s) if cleveragents::PlanId::parse(&s).is_ok() => json!("<id>"),
        Value::String(s) if chrono::DateTime::parse_from_rfc3339(&s).is_ok() => json!("<time>"),
        Value::Array(items) => Value::Array(items.into_iter().map(normalized).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, normalized(v))).collect())
        }
        other => other,
    }
}

#[test]
fn every_legacy_name_answers_exactly_what_its_replacement_answers() {
    for (legacy, replacement) in LEGACY_ALIASES {
        // Success: same params against the same kind of state.
        let a = world();
        let b = world();
        let params_a = sample_params(&a, *replacement);
        let params_b = sample_params(&b, *replacement);
        let via_legacy = call(&a.facade, legacy, params_a);
        let via_replacement = call(&b.facade, replacement.name(), params_b);
        assert_eq!(
            normalized(via_legacy["result"].clone()),
            normalized(via_replacement["result"].clone()),
            "{legacy} vs {replacement}"
        );
        // Failure: the identical bad request gets the identical error.
        let bad = json!({"plan_id": PlanId::new().to_string(), "unexpected": true});
        assert_eq!(
            call(&a.facade, legacy, bad.clone())["error"],
            call(&a.facade, replacement.name(), bad)["error"],
            "{legacy} errors like {replacement}"
        );
    }
}

#[test]
fn legacy_plan_create_creates_a_plan() {
    let w = world();
    let created = ok(&w.facade, "plan.create", json!({"action_name": "legacy"}));
    let status = ok(
        &w.facade,
        "plan.status",
        json!({"plan_id": created["plan_id"]}),
    );
    assert_eq!(status["action_name"], "legacy");
}

#[test]
fn missing_services_never_crash() {
    let bare = A2aLocalFacade::builder().build();
    let w = world();
    for method in Method::ALL {
        let params = sample_params(&w, *method);
        let reply = call(&bare, method.name(), params);
        common::assert_response(&reply);
        match method {
            Method::PlanList => assert_eq!(reply["result"], json!({"plans": []})),
            Method::RegistryToolList => assert_eq!(reply["result"], json!({"tools": []})),
            Method::RegistryResourceList => assert_eq!(reply["result"], json!({"resources": []})),
            Method::RegistryActorList => assert_eq!(reply["result"], json!({"actors": []})),
            Method::RegistrySkillList => assert_eq!(reply["result"], json!({"skills": []})),
            Method::RegistryActionList => assert_eq!(reply["result"], json!({"actions": []})),
            Method::RegistryProjectList => assert_eq!(reply["result"], json!({"projects": []})),
            Method::NamespaceList => assert_eq!(reply["result"], json!({"namespaces": []})),
            Method::TasksList => assert_eq!(
                reply["result"],
                json!({"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0})
            ),
            Method::ExtendedCard => assert_eq!(reply["error"]["code"], -32007, "{reply}"),
            Method::PushConfigSet
            | Method::PushConfigGet
            | Method::PushConfigList
            | Method::PushConfigDelete => {
                assert_eq!(reply["error"]["code"], -32003, "{method}: {reply}");
            }
            Method::HealthCheck => {
                assert_eq!(reply["result"]["status"], "degraded");
                let services = reply["result"]["services"].as_object().unwrap();
                assert!(services.values().all(|v| v == &json!(false)));
                assert_eq!(services.len(), 12);
            }
            _ => {
                assert_eq!(reply["error"]["code"], -32004, "{method}: {reply}");
                assert_eq!(
                    reply["error"]["data"]["service"],
                    method.service(),
                    "{method}"
                );
                assert_eq!(reply["error"]["data"]["method"], method.name());
            }
        }
    }
}

#[test]
fn session_create_is_idempotent_when_an_id_is_given() {
    let f = A2aLocalFacade::in_memory();
    let first = ok(&f, "session.create", json!({"actor_name": "openai/gpt-4o"}));
    assert_eq!(first["status"], "created");
    let again = ok(
        &f,
        "session.create",
        json!({"session_id": first["session_id"]}),
    );
    assert_eq!(
        again,
        json!({"session_id": first["session_id"], "status": "existing"})
    );
    let chosen = cleveragents::SessionId::new().to_string();
    let made = ok(&f, "session.create", json!({"session_id": chosen}));
    assert_eq!(made, json!({"session_id": chosen, "status": "created"}));
    let again = ok(&f, "session.create", json!({"session_id": chosen}));
    assert_eq!(again["status"], "existing");
    let closed = ok(&f, "session.close", json!({"session_id": chosen}));
    assert_eq!(closed, json!({"session_id": chosen, "status": "closed"}));
    let closed_again = ok(&f, "session.close", json!({"session_id": chosen}));
    assert_eq!(closed_again["status"], "closed");
    let error = err(
        &f,
        "session.close",
        json!({"session_id": cleveragents::SessionId::new()}),
    );
    assert_eq!(error["code"], -32001);
    assert_eq!(error["message"], "Session not found");
}

#[test]
fn errors_carry_exact_codes_and_name_what_is_at_fault() {
    let w = world();
    let f = &w.facade;
    let unknown = PlanId::new().to_string();
    let e = err(f, "_cleveragents/plan/status", json!({"plan_id": unknown}));
    assert_eq!(e["code"], -32001);
    assert_eq!(e["message"], "Plan not found");
    assert_eq!(e["data"]["plan_id"], unknown.as_str());

    let e = err(
        f,
        "_cleveragents/plan/status",
        json!({"plan_id": "not-a-ulid"}),
    );
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"]["param"], "plan_id");
    assert_eq!(
        e["data"]["reason"],
        "invalid plan id `not-a-ulid`: expected a 26-character ULID"
    );

    let e = err(f, "_cleveragents/plan/status", json!({}));
    assert_eq!(
        (e["code"].as_i64(), e["data"]["param"].as_str()),
        (Some(-32602), Some("plan_id"))
    );
    assert_eq!(e["data"]["reason"], "missing field `plan_id`");

    let e = err(
        f,
        "_cleveragents/plan/status",
        json!({"plan_id": w.plan_id, "planid": 1}),
    );
    assert_eq!(e["data"]["param"], "planid");

    let e = err(
        f,
        "_cleveragents/plan/use",
        json!({"action_name": "a", "arguments": 5}),
    );
    assert_eq!(e["data"]["param"], "arguments");

    let e = err(f, "_cleveragents/plan/use", json!({"action_name": "  "}));
    assert_eq!(
        (e["code"].as_i64(), e["data"]["param"].as_str()),
        (Some(-32602), Some("action_name"))
    );

    let e = err(
        f,
        "_cleveragents/plan/explain",
        json!({"plan_id": w.plan_id, "decision_id": cleveragents::DecisionId::new()}),
    );
    assert_eq!(
        (e["code"].as_i64(), e["message"].as_str()),
        (Some(-32001), Some("Decision not found"))
    );
    assert!(e["data"]["decision_id"].is_string());

    let e = err(
        f,
        "_cleveragents/plan/execute",
        json!({"plan_id": w.plan_id}),
    );
    assert_eq!(e["code"], -32004);
    assert_eq!(
        e["data"]["reason"],
        format!(
            "cannot execute plan `{}`: it is in phase `execute` with state `running`; execute needs phase `strategize` with state `completed`",
            w.plan_id
        )
    );

    let e = err(
        f,
        "_cleveragents/namespace/show",
        json!({"namespace": "nope"}),
    );
    assert_eq!(
        (e["code"].as_i64(), e["data"]["namespace"].as_str()),
        (Some(-32001), Some("nope"))
    );

    let e = err(f, "_cleveragents/health/check", json!({"verbose": true}));
    assert_eq!(e["data"]["param"], "verbose");
}

#[test]
fn in_process_dispatch_matches_the_wire() {
    let f = A2aLocalFacade::in_memory();
    let request =
        A2aRequest::with_id(9, "_cleveragents/plan/use", json!({"action_name": "a"})).unwrap();
    let response = f.dispatch(&request);
    assert_eq!(response.id(), &cleveragents::RequestId::from(9));
    assert_eq!(response.result().unwrap()["phase"], "strategize");
    let missing = f.dispatch(&A2aRequest::new("nope", Value::Null).unwrap());
    assert_eq!(missing.error().unwrap().code, -32601);
    assert_eq!(missing.error().unwrap().data["method"], "nope");
}

#[test]
fn subscribers_receive_plan_transitions() {
    let f = A2aLocalFacade::in_memory();
    let sub = ok(&f, "_cleveragents/event/subscribe", json!({}));
    let sub_id =
        cleveragents::a2a::SubscriptionId::from_u64(sub["subscription_id"].as_u64().unwrap());
    let plan = ok(&f, "_cleveragents/plan/use", json!({"action_name": "a"}));
    ok(
        &f,
        "_cleveragents/plan/execute",
        json!({"plan_id": plan["plan_id"]}),
    );
    let queue = f.event_queue().unwrap();
    let events = queue.drain(sub_id);
    let states: Vec<(&str, &str)> = events
        .iter()
        .map(|e| {
            (
                e.data["phase"].as_str().unwrap(),
                e.data["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("strategize", "completed"), ("execute", "running")]
    );
    // A late subscriber gets the history replayed after the event it names.
    let replay = ok(
        &f,
        "_cleveragents/event/subscribe",
        json!({"after_event_id": events[0].event_id}),
    );
    assert_eq!(replay["events"].as_array().unwrap().len(), 1);
}
