//! Replays every fuzz target's seed corpus (and any crash reproducers saved
//! beside it) with the target's own assertions, so CI exercises them without a fuzzer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

mod common;

use std::fs;
use std::path::Path;

use cleveragents::{A2aLocalFacade, A2aResponse};
use serde_json::Value;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join("corpus")
        .join(target);
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {} is missing: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            (path.display().to_string(), fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "corpus {} is empty", dir.display());
    files
}

#[test]
fn dispatch_json_corpus() {
    let facade = A2aLocalFacade::in_memory();
    for (name, bytes) in corpus("dispatch_json") {
        if let Some(reply) = facade.dispatch_json(&bytes) {
            let value: Value =
                serde_json::from_slice(&reply).unwrap_or_else(|e| panic!("{name}: {e}"));
            common::assert_reply(&value);
            let items = match value {
                Value::Array(items) => items,
                single => vec![single],
            };
            for item in items {
                serde_json::from_value::<A2aResponse>(item)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
}

#[test]
fn profile_loader_corpus() {
    use cleveragents::AutomationProfile;
    let mut loaded = 0;
    for (name, bytes) in corpus("profile_loader") {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        for profile in [
            AutomationProfile::from_yaml_str(text),
            AutomationProfile::from_json_str(text),
        ]
        .into_iter()
        .flatten()
        {
            loaded += 1;
            assert!(profile.violations().is_empty(), "{name}");
            let json = serde_json::to_string(&profile).unwrap();
            assert_eq!(
                AutomationProfile::from_json_str(&json).unwrap(),
                profile,
                "{name}"
            );
            let yaml = profile.to_yaml_string().unwrap();
            assert_eq!(
                AutomationProfile::from_yaml_str(&yaml).unwrap(),
                profile,
                "{name}"
            );
        }
    }
    assert!(loaded >= 5, "the corpus holds valid profiles too");
}
