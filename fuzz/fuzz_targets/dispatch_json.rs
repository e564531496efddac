//! Any bytes into `dispatch_json`: never a panic, and every reply is JSON-RPC 2.0.
#![no_main]

use cleveragents::{A2aLocalFacade, A2aResponse};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let facade = A2aLocalFacade::in_memory();
    if let Some(reply) = facade.dispatch_json(data) {
        let value: Value = serde_json::from_slice(&reply).expect("replies are JSON");
        let items = match value {
            Value::Array(items) => {
                assert!(!items.is_empty(), "an empty batch reply is never sent");
                items
            }
            single => vec![single],
        };
        for item in items {
            serde_json::from_value::<A2aResponse>(item).expect("a valid JSON-RPC 2.0 response");
        }
    }
});
