//! The standard A2A operations in both versions, through `handle_json`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use cleveragents::A2aLocalFacade;
use cleveragents::a2a::{
    AgentCard, Dispatch, EchoExecutor, InMemoryTaskStore, RecordingPushNotifier, SseParser,
    StreamNext,
};
use serde_json::{Value, json};

fn facade(executor: EchoExecutor) -> (A2aLocalFacade, RecordingPushNotifier) {
    let push = RecordingPushNotifier::new();
    let facade = A2aLocalFacade::builder()
        .task_store(Arc::new(InMemoryTaskStore::new()))
        .agent_executor(Arc::new(executor))
        .push_notifier(Arc::new(push.clone()))
        .event_queue(cleveragents::a2a::A2aEventQueue::new())
        .agent_card(AgentCard::cleveragents("http://127.0.0.1:1/"))
        .build();
    (facade, push)
}

fn request(method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .unwrap()
}

fn call(f: &A2aLocalFacade, version: Option<&str>, method: &str, params: Value) -> Value {
    match f.handle_json(&request(method, params), version) {
        Dispatch::Reply(bytes) => serde_json::from_slice(&bytes).unwrap(),
        other => panic!("{method}: expected one reply, got {other:?}"),
    }
}

fn ok(f: &A2aLocalFacade, version: Option<&str>, method: &str, params: Value) -> Value {
    let reply = call(f, version, method, params);
    assert!(reply.get("error").is_none(), "{method}: {reply}");
    reply["result"].clone()
}

fn err(f: &A2aLocalFacade, version: Option<&str>, method: &str, params: Value) -> Value {
    let reply = call(f, version, method, params);
    assert!(reply.get("result").is_none(), "{method}: {reply}");
    reply["error"].clone()
}

fn msg03(text: &str) -> Value {
    json!({"kind": "message", "messageId": format!("m-{text}"), "role": "user", "parts": [{"kind": "text", "text": text}]})
}

fn msg10(text: &str) -> Value {
    json!({"messageId": format!("m-{text}"), "role": "ROLE_USER", "parts": [{"text": text}]})
}

#[test]
fn send_and_get_in_0_3() {
    let (f, _) = facade(EchoExecutor::new());
    let task = ok(&f, None, "message/send", json!({"message": msg03("hello")}));
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(
        task["artifacts"][0]["parts"][0],
        json!({"kind": "text", "text": "hello"})
    );
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "echo: hello");
    let history: Vec<&str> = task["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(history, ["user", "agent"]);
    let got = ok(
        &f,
        None,
        "tasks/get",
        json!({"id": task["id"], "historyLength": 1}),
    );
    assert_eq!(got["history"].as_array().unwrap().len(), 1);
    assert_eq!(got["history"][0]["role"], "agent");
    let none = ok(
        &f,
        None,
        "tasks/get",
        json!({"id": task["id"], "historyLength": 0}),
    );
    assert!(none.get("history").is_none());
    let e = err(&f, None, "tasks/get", json!({"id": "nope"}));
    assert_eq!(
        (e["code"].as_i64(), e["message"].as_str()),
        (Some(-32001), Some("Task not found"))
    );
    assert_eq!(e["data"]["id"], "nope");
}

#[test]
fn send_and_get_in_1_0() {
    let (f, _) = facade(EchoExecutor::new());
    let v = Some("1.0");
    let reply = ok(&f, v, "SendMessage", json!({"message": msg10("hello")}));
    let task = &reply["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(task.get("kind").is_none());
    assert_eq!(task["artifacts"][0]["parts"][0], json!({"text": "hello"}));
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    let got = ok(&f, v, "GetTask", json!({"id": task["id"]}));
    assert_eq!(got["id"], task["id"]);
    // The same task, read in 0.3.
    let old = ok(&f, None, "tasks/get", json!({"id": task["id"]}));
    assert_eq!(old["status"]["state"], "completed");
    // 1.0 shapes are required under 1.0.
    let e = err(&f, v, "SendMessage", json!({"message": msg03("x")}));
    assert_eq!(e["code"], -32602);
}

#[test]
fn every_spelling_reaches_the_same_operation() {
    let (f, _) = facade(EchoExecutor::new());
    let task = ok(&f, None, "message/send", json!({"message": msg03("a")}));
    for method in ["tasks/list", "ListTasks"] {
        assert_eq!(ok(&f, None, method, json!({}))["totalSize"], 1, "{method}");
    }
    for method in ["tasks/get", "GetTask"] {
        assert_eq!(
            ok(&f, None, method, json!({"id": task["id"]}))["id"],
            task["id"]
        );
    }
}

#[test]
fn unsupported_versions_are_refused_with_the_right_family() {
    let (f, _) = facade(EchoExecutor::new());
    let e = err(
        &f,
        Some("2.0"),
        "message/send",
        json!({"message": msg03("a")}),
    );
    assert_eq!(e["code"], -32009);
    assert_eq!(e["message"], "Version not supported");
    assert_eq!(
        e["data"],
        json!({"requested": "2.0", "supported": ["1.0", "0.3"]})
    );
    let e = err(&f, Some("0.2"), "_cleveragents/plan/list", json!({}));
    assert_eq!(e["code"], -32007, "vendor methods use the vendor table");
    // Streams too.
    let e = err(
        &f,
        Some("9"),
        "message/stream",
        json!({"message": msg03("a")}),
    );
    assert_eq!(e["code"], -32009);
}

#[test]
fn multi_turn_input_required_continues_by_context() {
    let (f, _) = facade(EchoExecutor::requiring_approval());
    let task = ok(
        &f,
        None,
        "message/send",
        json!({"message": msg03("deploy")}),
    );
    assert_eq!(task["status"]["state"], "input-required");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "Approval required: reply to proceed."
    );
    // The client answers with the task's context id only, as in the specification's example.
    let mut answer = msg03("Approved — proceed with the apply phase.");
    answer["contextId"] = task["contextId"].clone();
    let resumed = ok(&f, None, "message/send", json!({"message": answer}));
    assert_eq!(resumed["id"], task["id"], "the same task continued");
    assert_eq!(resumed["status"]["state"], "completed");
    assert_eq!(resumed["history"].as_array().unwrap().len(), 4);
    // A finished task takes no more messages.
    let mut late = msg03("more");
    late["taskId"] = task["id"].clone();
    let e = err(&f, None, "message/send", json!({"message": late}));
    assert_eq!(e["code"], -32004);
    // A new message in the same context starts a new task.
    let mut again = msg03("again");
    again["contextId"] = task["contextId"].clone();
    let next = ok(&f, None, "message/send", json!({"message": again}));
    assert_ne!(next["id"], task["id"]);
    assert_eq!(next["contextId"], task["contextId"]);
}

#[test]
fn cancel_refuses_terminal_tasks() {
    let (f, _) = facade(EchoExecutor::requiring_approval());
    let open = ok(&f, None, "message/send", json!({"message": msg03("x")}));
    let canceled = ok(&f, None, "tasks/cancel", json!({"id": open["id"]}));
    assert_eq!(canceled["status"]["state"], "canceled");
    let e = err(&f, None, "tasks/cancel", json!({"id": open["id"]}));
    assert_eq!(
        (e["code"].as_i64(), e["message"].as_str()),
        (Some(-32002), Some("Task cannot be canceled"))
    );
    let e = err(&f, Some("1.0"), "CancelTask", json!({"id": open["id"]}));
    assert_eq!(e["code"], -32002);
    let e = err(&f, None, "tasks/cancel", json!({"id": "missing"}));
    assert_eq!(e["code"], -32001);
}

#[test]
fn list_filters_and_pages() {
    let (f, _) = facade(EchoExecutor::requiring_approval());
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            ok(
                &f,
                None,
                "message/send",
                json!({"message": msg03(&format!("t{i}"))}),
            )["id"]
                .clone(),
        );
    }
    ok(&f, None, "tasks/cancel", json!({"id": ids[0]}));
    let page = ok(&f, None, "tasks/list", json!({"pageSize": 2}));
    assert_eq!(
        (page["totalSize"].as_u64(), page["pageSize"].as_u64()),
        (Some(5), Some(2))
    );
    assert_eq!(page["tasks"][0]["id"], ids[4], "newest first");
    let token = page["nextPageToken"].as_str().unwrap().to_owned();
    let next = ok(
        &f,
        None,
        "tasks/list",
        json!({"pageSize": 2, "pageToken": token}),
    );
    assert_eq!(next["tasks"][0]["id"], ids[2]);
    let last = ok(
        &f,
        None,
        "tasks/list",
        json!({"pageSize": 2, "pageToken": next["nextPageToken"]}),
    );
    assert_eq!(last["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(last["nextPageToken"], "");
    let canceled = ok(&f, None, "tasks/list", json!({"status": "canceled"}));
    assert_eq!(canceled["totalSize"], 1);
    let canceled = ok(
        &f,
        Some("1.0"),
        "ListTasks",
        json!({"status": "TASK_STATE_CANCELED"}),
    );
    assert_eq!(
        canceled["tasks"][0]["status"]["state"],
        "TASK_STATE_CANCELED"
    );
    assert_eq!(
        err(&f, None, "tasks/list", json!({"pageSize": 0}))["data"]["param"],
        "pageSize"
    );
    assert_eq!(
        err(&f, None, "tasks/list", json!({"pageSize": 101}))["code"],
        -32602
    );
    assert_eq!(
        err(
            &f,
            None,
            "tasks/list",
            json!({"status": "TASK_STATE_CANCELED"})
        )["code"],
        -32602
    );
    assert_eq!(
        err(&f, None, "tasks/list", json!({"pageToken": "bogus"}))["code"],
        -32602
    );
    let context = ok(&f, None, "tasks/get", json!({"id": ids[3]}))["contextId"].clone();
    assert_eq!(
        ok(&f, None, "tasks/list", json!({"contextId": context}))["totalSize"],
        1
    );
}

#[test]
fn push_config_crud_in_both_versions() {
    let (f, push) = facade(EchoExecutor::requiring_approval());
    let task = ok(&f, None, "message/send", json!({"message": msg03("x")}));
    let set = ok(
        &f,
        None,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": task["id"], "pushNotificationConfig": {"url": "https://example.com/hook", "token": "t"}}),
    );
    let config_id = set["pushNotificationConfig"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let got = ok(
        &f,
        None,
        "tasks/pushNotificationConfig/get",
        json!({"id": task["id"], "pushNotificationConfigId": config_id}),
    );
    assert_eq!(
        got["pushNotificationConfig"]["url"],
        "https://example.com/hook"
    );
    // 1.0 view of the same configuration, flat.
    let list = ok(
        &f,
        Some("1.0"),
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task["id"]}),
    );
    assert_eq!(list["configs"][0]["url"], "https://example.com/hook");
    assert_eq!(list["configs"][0]["taskId"], task["id"]);
    let created = ok(
        &f,
        Some("1.0"),
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task["id"], "url": "https://example.com/other", "authentication": {"scheme": "Bearer", "credentials": "c"}}),
    );
    assert_eq!(created["authentication"]["scheme"], "Bearer");
    assert_eq!(
        ok(
            &f,
            None,
            "tasks/pushNotificationConfig/list",
            json!({"id": task["id"]})
        )
        .as_array()
        .unwrap()
        .len(),
        2
    );
    // Changes to the task are delivered to both.
    ok(&f, None, "tasks/cancel", json!({"id": task["id"]}));
    let sent = push.sent();
    assert_eq!(sent.len(), 2);
    assert!(
        sent.iter()
            .all(|(_, t)| t.status.state == cleveragents::a2a::TaskState::Canceled)
    );
    // Delete, in both spellings.
    assert_eq!(
        ok(
            &f,
            None,
            "tasks/pushNotificationConfig/delete",
            json!({"id": task["id"], "pushNotificationConfigId": config_id})
        ),
        Value::Null
    );
    let other_id = created["id"].clone();
    assert_eq!(
        ok(
            &f,
            Some("1.0"),
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": task["id"], "id": other_id})
        ),
        json!({})
    );
    let e = err(
        &f,
        None,
        "pushNotificationConfig/delete",
        json!({"id": task["id"], "pushNotificationConfigId": config_id}),
    );
    assert_eq!(e["code"], -32001);
    let e = err(
        &f,
        None,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": "nope", "pushNotificationConfig": {"url": "u"}}),
    );
    assert_eq!(e["code"], -32001);
    // Without a notifier, push is not supported.
    let bare = A2aLocalFacade::builder()
        .task_store(Arc::new(InMemoryTaskStore::new()))
        .build();
    let e = err(
        &bare,
        None,
        "tasks/pushNotificationConfig/get",
        json!({"id": "x"}),
    );
    assert_eq!(
        (e["code"].as_i64(), e["message"].as_str()),
        (Some(-32003), Some("Push Notification is not supported"))
    );
}

#[test]
fn extended_card_errors_until_configured() {
    let (f, _) = facade(EchoExecutor::new());
    let e = err(&f, None, "agent/getAuthenticatedExtendedCard", json!({}));
    assert_eq!(e["code"], -32007);
    let with_card = A2aLocalFacade::builder()
        .extended_agent_card(AgentCard::cleveragents("http://127.0.0.1:1/"))
        .build();
    let card = ok(&with_card, Some("1.0"), "GetExtendedAgentCard", json!({}));
    assert_eq!(card["name"], "CleverAgents");
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
    let card = ok(&with_card, None, "getExtendedAgentCard", json!({}));
    assert_eq!(card["protocolVersion"], "0.3.0");
}

fn stream(
    f: &A2aLocalFacade,
    version: Option<&str>,
    method: &str,
    params: Value,
) -> cleveragents::a2a::ResponseStream {
    match f.handle_json(&request(method, params), version) {
        Dispatch::Stream(s) => s,
        other => panic!("{method}: expected a stream, got {other:?}"),
    }
}

#[test]
fn message_stream_yields_responses_with_the_request_id() {
    let (f, _) = facade(EchoExecutor::new());
    let items = stream(&f, None, "message/stream", json!({"message": msg03("hi")}))
        .collect_until_idle(Duration::ZERO);
    let kinds: Vec<&str> = items.iter().map(|i| i.event).collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "status-update"]
    );
    let last: Value = serde_json::from_slice(&items[3].response).unwrap();
    assert_eq!(last["id"], 1);
    assert_eq!(last["result"]["kind"], "status-update");
    assert_eq!(last["result"]["final"], true);
    assert_eq!(last["result"]["status"]["state"], "completed");
    // SSE round trip of every frame.
    let mut parser = SseParser::new();
    let text: String = items.iter().map(|i| i.to_sse().encode()).collect();
    let frames = parser.push(text.as_bytes());
    assert_eq!(frames.len(), 4);
    for (frame, item) in frames.iter().zip(&items) {
        assert_eq!(frame.data.as_bytes(), item.response.as_slice());
        assert_eq!(frame.event.as_deref(), Some(item.event));
    }
    // 1.0 stream responses are the StreamResponse oneof.
    let items = stream(
        &f,
        Some("1.0"),
        "SendStreamingMessage",
        json!({"message": msg10("hi")}),
    )
    .collect_until_idle(Duration::ZERO);
    let first: Value = serde_json::from_slice(&items[0].response).unwrap();
    assert!(first["result"]["task"]["id"].is_string());
    let last: Value = serde_json::from_slice(&items.last().unwrap().response).unwrap();
    assert_eq!(
        last["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // Through dispatch_json (no stream consumer), the first response is the answer.
    let reply: Value = serde_json::from_slice(
        &f.dispatch_json(&request("message/stream", json!({"message": msg03("x")})))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(reply["result"]["kind"], "task");
}

#[test]
fn resubscribe_streams_live_events_until_the_task_finishes() {
    let (f, _) = facade(EchoExecutor::requiring_approval());
    let task = ok(&f, None, "message/send", json!({"message": msg03("x")}));
    let mut sub = stream(&f, None, "tasks/resubscribe", json!({"id": task["id"]}));
    let StreamNext::Item(first) = sub.next_item(Duration::ZERO) else {
        panic!("the snapshot comes first")
    };
    assert_eq!(first.event, "task");
    assert!(matches!(
        sub.next_item(Duration::from_millis(10)),
        StreamNext::Idle
    ));
    // Another client approves; the subscriber sees the task finish.
    let mut answer = msg03("ok");
    answer["taskId"] = task["id"].clone();
    let f2 = f.clone();
    std::thread::spawn(move || ok(&f2, None, "message/send", json!({"message": answer})))
        .join()
        .unwrap();
    let mut kinds = Vec::new();
    while let StreamNext::Item(item) = sub.next_item(Duration::from_secs(5)) {
        kinds.push(item.event);
    }
    assert_eq!(kinds, ["status-update", "artifact-update", "status-update"]);
    assert!(matches!(sub.next_item(Duration::ZERO), StreamNext::End));
    // A finished task cannot be subscribed to.
    let e = err(
        &f,
        Some("1.0"),
        "SubscribeToTask",
        json!({"id": task["id"]}),
    );
    assert_eq!(e["code"], -32004);
    let e = err(&f, None, "tasks/subscribe", json!({"id": "missing"}));
    assert_eq!(e["code"], -32001);
}

#[test]
fn bad_standard_params_name_the_field() {
    let (f, _) = facade(EchoExecutor::new());
    let e = err(&f, None, "message/send", json!({}));
    assert_eq!(
        (e["code"].as_i64(), e["data"]["param"].as_str()),
        (Some(-32602), Some("message"))
    );
    let e = err(
        &f,
        None,
        "message/send",
        json!({"message": {"kind": "message", "messageId": "m", "role": "robot", "parts": []}}),
    );
    assert_eq!(e["code"], -32602);
    let mut empty = msg03("x");
    empty["parts"] = json!([]);
    let e = err(&f, None, "message/send", json!({"message": empty}));
    assert_eq!(e["data"]["param"], "message.parts");
    let e = err(
        &f,
        None,
        "tasks/get",
        json!({"id": "x", "historyLength": -1}),
    );
    assert_eq!(e["data"]["param"], "historyLength");
}
