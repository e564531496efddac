//! The examples of the JSON-RPC 2.0 specification (section 7), adapted to the
//! facade's methods, plus the envelope rules around them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

mod common;

use cleveragents::A2aLocalFacade;
use common::{assert_reply, wire, wire_text};
use serde_json::{Value, json};

fn facade() -> A2aLocalFacade {
    A2aLocalFacade::in_memory()
}

fn code(reply: &Value) -> i64 {
    reply["error"]["code"].as_i64().expect("an error reply")
}

#[test]
fn positional_parameters_are_invalid_params() {
    let reply = wire_text(
        &facade(),
        r#"{"jsonrpc": "2.0", "method": "_cleveragents/plan/status", "params": [42, 23], "id": 1}"#,
    )
    .unwrap();
    assert_eq!(code(&reply), -32602);
    assert_eq!(reply["id"], 1);
    assert!(
        reply["error"]["data"]["reason"]
            .as_str()
            .unwrap()
            .contains("named params")
    );
}

#[test]
fn named_parameters_succeed_and_echo_the_id() {
    let f = facade();
    let plan = common::ok(&f, "_cleveragents/plan/use", json!({"action_name": "a"}));
    let reply = wire(
        &f,
        &json!({"jsonrpc": "2.0", "method": "_cleveragents/plan/status", "params": {"plan_id": plan["plan_id"]}, "id": 3}),
    )
    .unwrap();
    assert_eq!(reply["id"], 3);
    assert_eq!(reply["result"]["phase"], "strategize");
    assert_eq!(reply["result"]["state"], "completed");
}

#[test]
fn a_notification_runs_and_gets_no_reply() {
    let f = facade();
    let reply = wire_text(
        &f,
        r#"{"jsonrpc": "2.0", "method": "_cleveragents/plan/use", "params": {"action_name": "silent"}}"#,
    );
    assert!(reply.is_none());
    let plans = common::ok(&f, "_cleveragents/plan/list", json!({}));
    assert_eq!(
        plans["plans"][0]["action_name"], "silent",
        "the notification ran"
    );
    // Failing notifications stay silent too.
    assert!(wire_text(&f, r#"{"jsonrpc": "2.0", "method": "foobar"}"#).is_none());
    assert!(
        wire_text(
            &f,
            r#"{"jsonrpc": "2.0", "method": "_cleveragents/plan/status", "params": [1]}"#
        )
        .is_none()
    );
}

#[test]
fn a_non_existent_method_is_method_not_found() {
    let reply = wire_text(
        &facade(),
        r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
    )
    .unwrap();
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": "1", "error": {"code": -32601, "message": "Method not found",
            "data": {"method": "foobar", "reason": "unknown operation `foobar`"}}})
    );
}

#[test]
fn invalid_json_is_a_parse_error_with_null_id() {
    let reply = wire_text(
        &facade(),
        r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
    )
    .unwrap();
    assert_eq!(code(&reply), -32700);
    assert_eq!(reply["error"]["message"], "Parse error");
    assert_eq!(reply["id"], Value::Null);
}

#[test]
fn an_invalid_request_object_is_invalid_request() {
    let reply = wire_text(
        &facade(),
        r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
    )
    .unwrap();
    assert_eq!(code(&reply), -32600);
    assert_eq!(reply["id"], Value::Null);
}

#[test]
fn a_batch_with_invalid_json_is_one_parse_error() {
    let reply = wire_text(
        &facade(),
        r#"[
          {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
          {"jsonrpc": "2.0", "method"
        ]"#,
    )
    .unwrap();
    assert!(reply.is_object(), "one error, not an array");
    assert_eq!(code(&reply), -32700);
}

#[test]
fn an_empty_batch_is_one_invalid_request() {
    let reply = wire_text(&facade(), "[]").unwrap();
    assert!(reply.is_object());
    assert_eq!(code(&reply), -32600);
    assert_eq!(reply["id"], Value::Null);
}

#[test]
fn an_invalid_batch_answers_each_element() {
    let one = wire_text(&facade(), "[1]").unwrap();
    assert_eq!(one.as_array().unwrap().len(), 1);
    assert_eq!(code(&one[0]), -32600);
    let three = wire_text(&facade(), "[1,2,3]").unwrap();
    let items = three.as_array().unwrap();
    assert_eq!(items.len(), 3);
    for item in items {
        assert_eq!(code(item), -32600);
        assert_eq!(item["id"], Value::Null);
    }
}

#[test]
fn a_mixed_batch_answers_in_order_without_notifications() {
    let reply = wire_text(
        &facade(),
        r#"[
          {"jsonrpc": "2.0", "method": "_cleveragents/plan/list", "params": {}, "id": "1"},
          {"jsonrpc": "2.0", "method": "_cleveragents/health/check", "params": {}},
          {"jsonrpc": "2.0", "method": "_cleveragents/registry/tool/list", "params": {}, "id": "2"},
          {"foo": "boo"},
          {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
          {"jsonrpc": "2.0", "method": "_cleveragents/namespace/list", "id": "9"}
        ]"#,
    )
    .unwrap();
    assert_reply(&reply);
    let items = reply.as_array().unwrap();
    let ids: Vec<&Value> = items.iter().map(|r| &r["id"]).collect();
    assert_eq!(
        ids,
        [
            &json!("1"),
            &json!("2"),
            &Value::Null,
            &json!("5"),
            &json!("9")
        ]
    );
    assert_eq!(items[0]["result"], json!({"plans": []}));
    assert_eq!(items[1]["result"], json!({"tools": []}));
    assert_eq!(code(&items[2]), -32600);
    assert_eq!(code(&items[3]), -32601);
    assert_eq!(items[4]["result"]["namespaces"][0]["name"], "default");
}

#[test]
fn a_batch_of_notifications_gets_no_reply() {
    let reply = wire_text(
        &facade(),
        r#"[{"jsonrpc": "2.0", "method": "_cleveragents/plan/list", "params": {}},
            {"jsonrpc": "2.0", "method": "foobar"}]"#,
    );
    assert!(reply.is_none());
}

#[test]
fn ids_are_echoed_with_their_exact_type_and_spelling() {
    let f = facade();
    for id in [
        r#""abc""#,
        r#""""#,
        "7",
        "-1",
        "1.5",
        "1e3",
        "1.0",
        "null",
        "18446744073709551616",
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"_cleveragents/plan/list"}}"#);
        let reply = f.dispatch_json(text.as_bytes()).unwrap();
        let reply = String::from_utf8(reply).unwrap();
        assert!(
            reply.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#)),
            "id {id} echoed as sent: {reply}"
        );
    }
    for bad in ["{}", "[1]", "true", "1e400", "-1e400"] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{bad},"method":"_cleveragents/plan/list"}}"#);
        let reply = wire_text(&f, &text).unwrap();
        assert_eq!(code(&reply), -32600, "id {bad}");
        assert_eq!(reply["id"], Value::Null);
    }
}

#[test]
fn envelope_violations_are_invalid_requests() {
    let f = facade();
    let cases = [
        r#"{"jsonrpc":"1.0","id":1,"method":"_cleveragents/plan/list"}"#,
        r#"{"jsonrpc":2.0,"id":1,"method":"_cleveragents/plan/list"}"#,
        r#"{"id":1,"method":"_cleveragents/plan/list"}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":""}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"  "}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":["x"]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/list","params":null}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/list","params":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/list","params":3}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/list"}"#,
        r#""just a string""#,
        "42",
    ];
    for case in cases {
        let reply = wire_text(&f, case).unwrap();
        assert_eq!(code(&reply), -32600, "{case} -> {reply}");
    }
    // When the id itself is valid it is echoed even though the request is not.
    let reply = wire_text(&f, r#"{"jsonrpc":"1.0","id":"k","method":"x"}"#).unwrap();
    assert_eq!(reply["id"], "k");
    assert_eq!(
        reply["error"]["data"]["reason"],
        "`jsonrpc` must be \"2.0\", got \"1.0\""
    );
}

#[test]
fn trailing_garbage_after_a_non_object_is_still_a_parse_error() {
    let reply = wire_text(&facade(), "5 garbage").unwrap();
    assert_eq!(code(&reply), -32700);
}

#[test]
fn escaped_method_names_are_understood() {
    let reply = wire_text(
        &facade(),
        r#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents\/plan\u002flist"}"#,
    )
    .unwrap();
    assert_eq!(reply["result"], json!({"plans": []}));
}

#[test]
fn rpc_names_are_reserved() {
    let reply = wire_text(
        &facade(),
        r#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#,
    )
    .unwrap();
    assert_eq!(code(&reply), -32601);
    assert_eq!(
        reply["error"]["data"]["reason"],
        "method names starting with `rpc.` are reserved"
    );
}

#[test]
fn hostile_input_is_rejected_without_crashing() {
    let f = facade();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let reply = wire_text(&f, &deep).unwrap();
    assert_eq!(code(&reply), -32600);
    let deep_params = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"_cleveragents/context/set","params":{{"key":"k","value":{}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(code(&wire_text(&f, &deep_params).unwrap()), -32600);
    let unclosed = "{".repeat(100_000);
    assert!(f.dispatch_json(unclosed.as_bytes()).is_some());

    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"_cleveragents/plan/use","params":{{"action_name":"{}"}}}}"#,
        "a".repeat(5 * 1024 * 1024)
    );
    let reply = wire_text(&f, &huge).unwrap();
    assert_eq!(code(&reply), -32600);
    assert!(
        reply["error"]["data"]["reason"]
            .as_str()
            .unwrap()
            .contains("exceeds the limit")
    );

    let reply = f
        .dispatch_json(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}")
        .unwrap();
    let reply: Value = serde_json::from_slice(&reply).unwrap();
    assert_eq!(code(&reply), -32700);
    assert!(
        reply["error"]["data"]["reason"]
            .as_str()
            .unwrap()
            .contains("invalid UTF-8 at byte 34")
    );

    let batch = format!("[{}]", vec!["1"; 1001].join(","));
    let reply = wire_text(&f, &batch).unwrap();
    assert!(reply.is_object());
    assert_eq!(code(&reply), -32600);

    for empty in ["", "   ", "\n"] {
        assert_eq!(code(&wire_text(&f, empty).unwrap()), -32700);
    }
}

#[test]
fn limits_are_configurable() {
    let f = A2aLocalFacade::builder()
        .limits(
            cleveragents::a2a::WireLimits::default()
                .max_depth(2)
                .max_batch(1)
                .max_request_bytes(200),
        )
        .build();
    let nested = r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":{"b":1}}}"#;
    assert_eq!(code(&wire_text(&f, nested).unwrap()), -32600);
    let two = r#"[{"jsonrpc":"2.0","id":1,"method":"x"},{"jsonrpc":"2.0","id":2,"method":"x"}]"#;
    assert_eq!(code(&wire_text(&f, two).unwrap()), -32600);
}
