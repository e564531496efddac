//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use cleveragents::A2aLocalFacade;
use serde_json::{Value, json};

/// Sends one JSON value through the wire path and parses the reply.
pub fn wire(facade: &A2aLocalFacade, message: &Value) -> Option<Value> {
    let bytes = serde_json::to_vec(message).unwrap();
    facade
        .dispatch_json(&bytes)
        .map(|reply| serde_json::from_slice(&reply).expect("replies are JSON"))
}

/// Sends raw text through the wire path and parses the reply.
pub fn wire_text(facade: &A2aLocalFacade, text: &str) -> Option<Value> {
    facade
        .dispatch_json(text.as_bytes())
        .map(|reply| serde_json::from_slice(&reply).expect("replies are JSON"))
}

/// Calls `method` with `params` and id 1; returns the whole reply.
pub fn call(facade: &A2aLocalFacade, method: &str, params: Value) -> Value {
    wire(
        facade,
        &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
    )
    .expect("a request with an id gets a reply")
}

/// Calls and expects success; returns `result`.
pub fn ok(facade: &A2aLocalFacade, method: &str, params: Value) -> Value {
    let reply = call(facade, method, params);
    assert!(reply.get("error").is_none(), "{method} failed: {reply}");
    reply["result"].clone()
}

/// Calls and expects failure; returns `error`.
pub fn err(facade: &A2aLocalFacade, method: &str, params: Value) -> Value {
    let reply = call(facade, method, params);
    assert!(
        reply.get("result").is_none(),
        "{method} unexpectedly succeeded: {reply}"
    );
    reply["error"].clone()
}

/// Checks that `reply` is a well-formed JSON-RPC 2.0 response: `jsonrpc` is
/// "2.0", `id` is a string, number or null, and exactly one of result/error,
/// the error having an integer code and a string message.
pub fn assert_response(reply: &Value) {
    let obj = reply.as_object().expect("a response is an object");
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")), "{reply}");
    let id = obj.get("id").expect("a response has an id");
    assert!(id.is_string() || id.is_number() || id.is_null(), "{reply}");
    match (obj.get("result"), obj.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "{reply}");
            assert!(error["message"].is_string(), "{reply}");
        }
        _ => panic!("result xor error violated: {reply}"),
    }
}

/// Checks a reply that may be a single response or a batch array.
pub fn assert_reply(reply: &Value) {
    match reply {
        Value::Array(items) => {
            assert!(!items.is_empty(), "an empty batch reply is never sent");
            items.iter().for_each(assert_response);
        }
        single => assert_response(single),
    }
}
