//! Everything the crate emits in A2A 0.3 shape validates against the
//! standard's JSON Schema. The schema is not part of this repository: the test
//! reads it from `A2A_SCHEMA_0_3`, or else from `../shared/a2a-spec/` beside
//! the repository, and says plainly when it found neither.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use cleveragents::A2aLocalFacade;
use cleveragents::a2a::{
    A2aVersion, AgentCard, Dispatch, EchoExecutor, InMemoryTaskStore, RecordingPushNotifier,
};
use serde_json::{Value, json};

fn schema() -> Option<Value> {
    let path = std::env::var_os("A2A_SCHEMA_0_3")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/a2a-spec/a2a-v0.3.0.schema.json")
        });
    match std::fs::read(&path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).expect("the schema is JSON")),
        Err(_) => {
            eprintln!(
                "A2A 0.3 JSON Schema not found at {} (set A2A_SCHEMA_0_3); schema validation DID NOT RUN",
                path.display()
            );
            None
        }
    }
}

struct Schemas(Value);

impl Schemas {
    /// Validates `instance` against `definitions/<name>`, listing every error.
    fn check(&self, name: &str, instance: &Value) -> Vec<String> {
        let mut root = self.0.clone();
        let defs = root["definitions"].take();
        assert!(defs.get(name).is_some(), "no definition {name}");
        let wrapper = json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": defs, "$ref": format!("#/definitions/{name}")});
        let validator = jsonschema::draft7::new(&wrapper).expect("the schema compiles");
        validator
            .iter_errors(instance)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect()
    }

    fn valid(&self, name: &str, instance: &Value) {
        let errors = self.check(name, instance);
        assert!(
            errors.is_empty(),
            "{name} rejected {instance}:\n{}",
            errors.join("\n")
        );
    }

    fn invalid(&self, name: &str, instance: &Value) {
        assert!(
            !self.check(name, instance).is_empty(),
            "{name} accepted {instance}"
        );
    }
}

fn facade() -> A2aLocalFacade {
    A2aLocalFacade::builder()
        .task_store(Arc::new(InMemoryTaskStore::new()))
        .agent_executor(Arc::new(EchoExecutor::requiring_approval()))
        .push_notifier(Arc::new(RecordingPushNotifier::new()))
        .event_queue(cleveragents::a2a::A2aEventQueue::new())
        .extended_agent_card(AgentCard::cleveragents("http://127.0.0.1:1/"))
        .build()
}

fn reply(f: &A2aLocalFacade, method: &str, params: Value) -> Value {
    let bytes =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
            .unwrap();
    match f.handle_json(&bytes, None) {
        Dispatch::Reply(r) => serde_json::from_slice(&r).unwrap(),
        other => panic!("{other:?}"),
    }
}

fn message(text: &str) -> Value {
    json!({"kind": "message", "messageId": format!("m-{text}"), "role": "user", "parts": [
        {"kind": "text", "text": text},
        {"kind": "data", "data": {"k": 1}},
        {"kind": "file", "file": {"uri": "https://example.com/f.txt", "mimeType": "text/plain"}}
    ]})
}

#[test]
fn emitted_0_3_documents_validate() {
    let Some(schema) = schema() else { return };
    let s = Schemas(schema);
    let f = facade();

    let sent = reply(&f, "message/send", json!({"message": message("go")}));
    s.valid("SendMessageSuccessResponse", &sent);
    s.valid("Task", &sent["result"]);
    s.valid("Message", &sent["result"]["history"][0]);
    let task_id = sent["result"]["id"].clone();
    let mut answer = message("yes");
    answer["taskId"] = task_id.clone();
    let done = reply(&f, "message/send", json!({"message": answer}));
    s.valid("SendMessageSuccessResponse", &done);
    s.valid("Artifact", &done["result"]["artifacts"][0]);

    s.valid(
        "GetTaskSuccessResponse",
        &reply(&f, "tasks/get", json!({"id": task_id, "historyLength": 1})),
    );
    let open =
        reply(&f, "message/send", json!({"message": message("again")}))["result"]["id"].clone();
    let set = reply(
        &f,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": open, "pushNotificationConfig": {"url": "https://example.com/hook", "authentication": {"schemes": ["Bearer"], "credentials": "c"}}}),
    );
    s.valid("SetTaskPushNotificationConfigSuccessResponse", &set);
    let config_id = set["result"]["pushNotificationConfig"]["id"].clone();
    s.valid(
        "GetTaskPushNotificationConfigSuccessResponse",
        &reply(&f, "tasks/pushNotificationConfig/get", json!({"id": open})),
    );
    s.valid(
        "ListTaskPushNotificationConfigSuccessResponse",
        &reply(&f, "tasks/pushNotificationConfig/list", json!({"id": open})),
    );
    s.valid(
        "DeleteTaskPushNotificationConfigSuccessResponse",
        &reply(
            &f,
            "tasks/pushNotificationConfig/delete",
            json!({"id": open, "pushNotificationConfigId": config_id}),
        ),
    );
    s.valid(
        "CancelTaskSuccessResponse",
        &reply(&f, "tasks/cancel", json!({"id": open})),
    );
    s.valid(
        "GetAuthenticatedExtendedCardSuccessResponse",
        &reply(&f, "agent/getAuthenticatedExtendedCard", json!({})),
    );
    s.valid(
        "AgentCard",
        &AgentCard::cleveragents("https://agent.example.com/a2a").to_json(A2aVersion::V0_3),
    );

    // Streamed responses: every item is a streaming success response with a
    // task, a status update or an artifact update.
    let bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": "s", "method": "message/stream", "params": {"message": message("stream")}})).unwrap();
    let Dispatch::Stream(stream) = f.handle_json(&bytes, None) else {
        panic!("a stream")
    };
    for item in stream.collect_until_idle(Duration::ZERO) {
        let response: Value = serde_json::from_slice(&item.response).unwrap();
        s.valid("SendStreamingMessageSuccessResponse", &response);
        let definition = match item.event {
            "task" => "Task",
            "status-update" => "TaskStatusUpdateEvent",
            "artifact-update" => "TaskArtifactUpdateEvent",
            other => panic!("unexpected {other}"),
        };
        s.valid(definition, &response["result"]);
    }
}

#[test]
fn emitted_errors_validate_with_the_standard_codes() {
    let Some(schema) = schema() else { return };
    let s = Schemas(schema);
    let f = facade();
    let cases = [
        ("tasks/get", json!({"id": "missing"}), "TaskNotFoundError"),
        ("tasks/get", json!({}), "InvalidParamsError"),
        ("no/such/method", json!({}), "MethodNotFoundError"),
        ("tasks/cancel", json!({"id": 5}), "InvalidParamsError"),
    ];
    for (method, params, definition) in cases {
        let r = reply(&f, method, params);
        s.valid("JSONRPCErrorResponse", &r);
        s.valid(definition, &r["error"]);
    }
    let done = reply(&f, "message/send", json!({"message": message("x")}))["result"]["id"].clone();
    reply(&f, "tasks/cancel", json!({"id": done}));
    let r = reply(&f, "tasks/cancel", json!({"id": done}));
    s.valid("TaskNotCancelableError", &r["error"]);
    let bare = A2aLocalFacade::builder()
        .task_store(Arc::new(InMemoryTaskStore::new()))
        .build();
    let r = reply(
        &bare,
        "tasks/pushNotificationConfig/list",
        json!({"id": "t"}),
    );
    s.valid("PushNotificationNotSupportedError", &r["error"]);
    let r = reply(&bare, "agent/getAuthenticatedExtendedCard", json!({}));
    s.valid("AuthenticatedExtendedCardNotConfiguredError", &r["error"]);
    let parse: Value = serde_json::from_slice(&f.dispatch_json(b"{oops").unwrap()).unwrap();
    s.valid("JSONRPCErrorResponse", &parse);
    s.valid("JSONParseError", &parse["error"]);
}

#[test]
fn the_schema_rejects_what_it_should() {
    let Some(schema) = schema() else { return };
    let s = Schemas(schema);
    s.invalid(
        "Task",
        &json!({"id": "t", "contextId": "c", "status": {"state": "working"}}),
    );
    s.invalid("Task", &json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}));
    s.invalid(
        "Message",
        &json!({"kind": "message", "messageId": "m", "role": "robot", "parts": []}),
    );
    s.invalid(
        "TaskNotFoundError",
        &json!({"code": -32004, "message": "x"}),
    );
    s.invalid("AgentCard", &json!({"name": "x"}));
}
