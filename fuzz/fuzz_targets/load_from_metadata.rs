//! Arbitrary JSON into `load_from_metadata`: never a panic; what loads
//! verifies and round-trips.
#![no_main]

use cleveragents::{AutonomyGuardrailService, PlanId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(serde_json::Value::Object(metadata)) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let service = AutonomyGuardrailService::new();
    let plan = PlanId::new();
    if service.load_from_metadata(plan, &metadata).is_ok() {
        let trail = service.get_audit_trail(plan).expect("loaded");
        trail.verify().expect("a loaded trail verifies");
        let again = service.get_audit_trail_as_metadata(plan).expect("loaded");
        let other = AutonomyGuardrailService::new();
        other.load_from_metadata(plan, &again).expect("round trip");
        assert_eq!(other.get_audit_trail(plan), Some(trail));
    }
});
