//! Property tests of the wire: any input gets a well-formed answer, never a panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

mod common;

use cleveragents::{A2aLocalFacade, A2aResponse};
use proptest::prelude::*;
use serde_json::{Value, json};

fn facade() -> A2aLocalFacade {
    A2aLocalFacade::in_memory()
}

/// Checks the reply both structurally and through the validating model.
fn check(reply: Option<Vec<u8>>) -> Result<(), TestCaseError> {
    let Some(bytes) = reply else { return Ok(()) };
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    common::assert_reply(&value);
    match value {
        Value::Array(items) => {
            for item in items {
                prop_assert!(serde_json::from_value::<A2aResponse>(item).is_ok());
            }
        }
        single => prop_assert!(serde_json::from_value::<A2aResponse>(single).is_ok()),
    }
    Ok(())
}

fn method() -> impl Strategy<Value = String> {
    let known: Vec<String> = cleveragents::a2a::Method::ALL
        .iter()
        .map(|m| m.name().to_owned())
        .chain(
            cleveragents::a2a::LEGACY_ALIASES
                .iter()
                .map(|(n, _)| (*n).to_owned()),
        )
        .collect();
    prop_oneof![
        3 => proptest::sample::select(known),
        1 => "[a-z./_]{0,20}",
        1 => Just("rpc.x".to_owned()),
    ]
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z0-9 _-]{0,12}".prop_map(Value::String),
        Just(json!("01J00000000000000000000000")),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Request-like objects: mostly valid envelopes with random ids, methods, params.
fn request() -> impl Strategy<Value = Value> {
    (
        prop::option::of(prop_oneof![json_leaf(), json_value()]),
        method(),
        prop::option::of(json_value()),
        prop_oneof![Just(json!("2.0")), json_leaf()],
    )
        .prop_map(|(id, method, params, version)| {
            let mut obj = serde_json::Map::new();
            obj.insert("jsonrpc".into(), version);
            obj.insert("method".into(), Value::String(method));
            if let Some(id) = id {
                obj.insert("id".into(), id);
            }
            if let Some(params) = params {
                obj.insert("params".into(), params);
            }
            Value::Object(obj)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_bytes_get_a_well_formed_answer(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check(facade().dispatch_json(&bytes))?;
    }

    #[test]
    fn any_json_gets_a_well_formed_answer(value in json_value()) {
        check(facade().dispatch_json(&serde_json::to_vec(&value).unwrap()))?;
    }

    #[test]
    fn request_like_objects_get_a_well_formed_answer_with_their_id(req in request()) {
        let f = facade();
        let reply = f.dispatch_json(&serde_json::to_vec(&req).unwrap());
        check(reply.clone())?;
        let valid_id = req.get("id").is_some_and(|id| id.is_string() || id.is_number() || id.is_null());
        match reply {
            None => prop_assert!(req.get("id").is_none(), "only notifications go unanswered"),
            Some(bytes) => {
                let reply: Value = serde_json::from_slice(&bytes).unwrap();
                if valid_id {
                    prop_assert_eq!(&reply["id"], &req["id"]);
                } else {
                    prop_assert_eq!(&reply["id"], &Value::Null);
                }
            }
        }
    }

    #[test]
    fn batches_answer_one_reply_per_non_notification(reqs in prop::collection::vec(request(), 1..8)) {
        let f = facade();
        let reply = f.dispatch_json(&serde_json::to_vec(&reqs).unwrap());
        check(reply.clone())?;
        let answered = reply
            .map(|b| serde_json::from_slice::<Value>(&b).unwrap().as_array().map_or(0, Vec::len))
            .unwrap_or(0);
        let notifications = reqs.iter().filter(|r| {
            r.get("id").is_none()
                && r["jsonrpc"] == "2.0"
                && r["method"].as_str().is_some_and(|m| !m.trim().is_empty())
                && r.get("params").is_none_or(|p| p.is_object() || p.is_array())
        }).count();
        prop_assert_eq!(answered, reqs.len() - notifications);
    }
}
