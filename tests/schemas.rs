//! The JSON Schemas in `docs/schema/` are generated from the configuration
//! types; this test fails when they are stale. Regenerate with
//! `UPDATE_SCHEMAS=1 cargo test --all-features --test schemas`.
#![cfg(feature = "schema")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::path::Path;

use cleveragents::{AutomationProfile, BillingConfig, ContainerToolSpec, SafetyProfile};

fn check(file: &str, schema: &schemars::Schema) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join("schema")
        .join(file);
    let generated = format!("{}\n", serde_json::to_string_pretty(schema).unwrap());
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale; regenerate with UPDATE_SCHEMAS=1 cargo test --all-features --test schemas",
        path.display()
    );
}

#[test]
fn automation_profile_schema_is_current() {
    check(
        "automation-profile.schema.json",
        &schemars::schema_for!(AutomationProfile),
    );
}

#[test]
fn safety_profile_schema_is_current() {
    check(
        "safety-profile.schema.json",
        &schemars::schema_for!(SafetyProfile),
    );
}

#[test]
fn billing_config_schema_is_current() {
    check(
        "billing-config.schema.json",
        &schemars::schema_for!(BillingConfig),
    );
}

#[test]
fn container_tool_schema_is_current() {
    check(
        "container-tool.schema.json",
        &schemars::schema_for!(ContainerToolSpec),
    );
}

#[test]
fn the_documented_examples_validate_against_the_profile_schema() {
    // The schema accepts what the loader accepts: spot-check its shape.
    let schema = serde_json::to_value(schemars::schema_for!(AutomationProfile)).unwrap();
    assert_eq!(schema["title"], "AutomationProfile");
    assert_eq!(schema["required"], serde_json::json!(["name"]));
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        schema["properties"]["edit_code"]["$ref"],
        "#/$defs/Threshold"
    );
    assert_eq!(schema["$defs"]["Threshold"]["maximum"], 1.0);
}
