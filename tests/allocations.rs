//! The hot paths promise not to allocate; this counts allocations to hold
//! them to it (a counting global allocator, thread-local counts).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::hint::black_box;

use cleveragents::{
    AutomationDecision, AutomationGuard, AutomationProfileService, GateDecision, GuardContext, Usd,
    builtin_profile, glob_match,
};

#[test]
fn the_counter_counts() {
    let counts = allocation_counter::measure(|| {
        black_box(Box::new(black_box(1_u64)));
    });
    assert_eq!(counts.count_total, 1);
}

#[test]
fn threshold_decisions_do_not_allocate() {
    let profile = builtin_profile("cautious").unwrap();
    // Warm up lazily initialised statics outside the measurement.
    let _ = black_box(profile.decide(AutomationDecision::EditCode, Some(0.5), true));
    let counts = allocation_counter::measure(|| {
        for decision in AutomationDecision::ALL {
            for confidence in [
                None,
                Some(0.0),
                Some(0.69),
                Some(0.7),
                Some(1.0),
                Some(f64::NAN),
            ] {
                for human in [true, false] {
                    black_box(profile.decide(*decision, black_box(confidence), human));
                }
            }
        }
    });
    assert_eq!(counts.count_total, 0);
    assert_eq!(
        profile.decide(AutomationDecision::EditCode, Some(0.7), true),
        GateDecision::Proceed
    );
}

#[test]
fn the_allowed_guard_path_does_not_allocate() {
    let mut guard = AutomationGuard::default();
    guard.tool_denylist = Some(
        [
            "shell_exec",
            "rm_rf",
            "network_request",
            "sudo",
            "curl",
            "wget",
            "ssh",
            "scp",
            "dd",
            "mkfs",
        ]
        .map(String::from)
        .to_vec(),
    );
    guard.tool_allowlist = Some(
        ["read_*", "search_*", "list_*", "*_readonly"]
            .map(String::from)
            .to_vec(),
    );
    guard.max_total_cost = Some(Usd::from_dollars(5));
    guard.max_tool_calls_per_step = Some(10);
    guard.require_approval_for_writes = true;
    let ctx = GuardContext::new("read_file")
        .cost_so_far(Usd::from_cents(250))
        .calls_so_far(3);
    let counts = allocation_counter::measure(|| {
        for _ in 0..100 {
            let result = black_box(&guard).check(black_box(&ctx));
            assert!(result.allowed);
        }
        assert!(glob_match(black_box("a*b*c*d"), black_box("aXbYcZd")));
    });
    assert_eq!(counts.count_total, 0);
    // The denied path allocates its reasons, which is fine: it is not hot.
    assert!(!guard.check(&GuardContext::new("shell_exec")).allowed);
}

#[test]
fn resolving_a_built_in_profile_does_not_allocate() {
    let service = AutomationProfileService::new();
    let _ = service
        .resolve_profile(Some("supervised"), None, None)
        .unwrap();
    let counts = allocation_counter::measure(|| {
        let resolved = service.resolve_profile(
            black_box(None),
            black_box(Some("cautious")),
            black_box(Some("trusted")),
        );
        black_box(resolved.unwrap());
    });
    assert_eq!(counts.count_total, 0, "built-ins are shared, not copied");
}
