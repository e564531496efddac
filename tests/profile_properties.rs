//! Property tests of profiles: round trips, validation, monotone decisions.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use cleveragents::{
    AutomationDecision, AutomationGuard, AutomationProfile, GateDecision, SafetyProfile,
    SandboxConfig, Threshold, Usd,
};
use proptest::prelude::*;

fn threshold() -> impl Strategy<Value = Threshold> {
    prop_oneof![
        Just(0.0),
        Just(1.0),
        (0_u32..=100).prop_map(|n| f64::from(n) / 100.0),
        0.0..=1.0_f64,
    ]
    .prop_map(|v| Threshold::new(v).unwrap())
}

fn money() -> impl Strategy<Value = Usd> {
    prop_oneof![
        (0_i64..100_000).prop_map(Usd::from_cents),
        (0_i64..i64::MAX).prop_map(Usd::from_nanos)
    ]
}

fn names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-z_*/]{1,12}", 0..4)
}

fn profile() -> impl Strategy<Value = AutomationProfile> {
    (
        "[a-z][a-z0-9-]{0,15}",
        prop::collection::vec(threshold(), 11),
        any::<bool>(),
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            0_u32..=100,
            prop::option::of(money()),
            prop::option::of(money()),
        ),
        prop::option::of((
            prop::option::of(0_u32..1000),
            prop::option::of(money()),
            prop::option::of(names()),
            prop::option::of(names()),
            any::<bool>(),
            any::<bool>(),
        )),
        any::<bool>(),
    )
        .prop_map(
            |(name, thresholds, interactive, safety, guard, sandboxed)| {
                let mut p = AutomationProfile::uniform(name, Threshold::ALWAYS_ASK);
                for (decision, t) in AutomationDecision::ALL.iter().zip(thresholds) {
                    p.set_threshold(*decision, t);
                }
                p.interactive = interactive;
                let (unsafe_tools, approval, read_only, retries, per_plan, total) = safety;
                p.safety.allow_unsafe_tools = unsafe_tools;
                p.safety.require_human_approval = approval;
                p.safety.read_only = read_only;
                p.safety.max_retries_per_step = retries;
                p.safety.max_cost_per_plan = per_plan;
                p.safety.max_total_cost = total;
                if !sandboxed {
                    p.safety.require_sandbox = false;
                    p.safety.require_checkpoints = false;
                    p.sandbox = SandboxConfig::none(false);
                }
                p.guard = guard.map(|(calls, cost, allow, deny, writes, apply)| {
                    let mut g = AutomationGuard::default();
                    g.max_tool_calls_per_step = calls;
                    g.max_total_cost = cost;
                    g.tool_allowlist = allow;
                    g.tool_denylist = deny;
                    g.require_approval_for_writes = writes;
                    g.require_approval_for_apply = apply;
                    g
                });
                p
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn json_round_trip_is_identity(p in profile()) {
        prop_assert_eq!(p.violations(), vec![]);
        let json = serde_json::to_string(&p).unwrap();
        prop_assert_eq!(AutomationProfile::from_json_str(&json).unwrap(), p);
    }

    #[test]
    fn yaml_round_trip_is_identity(p in profile()) {
        let yaml = p.to_yaml_string().unwrap();
        prop_assert_eq!(AutomationProfile::from_yaml_str(&yaml).unwrap(), p);
    }

    #[test]
    fn any_out_of_range_threshold_is_rejected(
        bad in prop_oneof![-1e9..-1e-12_f64, 1.000_000_001..1e9_f64, Just(f64::NAN), Just(f64::INFINITY)],
        decision in proptest::sample::select(AutomationDecision::ALL),
    ) {
        prop_assert!(Threshold::new(bad).is_err());
        let json = format!(r#"{{"name": "x", "{decision}": {}}}"#, if bad.is_finite() { bad.to_string() } else { "1e999".into() });
        let err = AutomationProfile::from_json_str(&json);
        prop_assert!(err.is_err(), "{json}");
    }

    #[test]
    fn decisions_are_monotone_in_confidence(
        t in threshold(),
        lower in 0.0..=1.0_f64,
        raise in 0.0..=1.0_f64,
        human in any::<bool>(),
    ) {
        let higher = (lower + raise).min(1.0);
        let mut p = AutomationProfile::uniform("m", t);
        p.interactive = true;
        let rank = |d: GateDecision| match d { GateDecision::Proceed => 0, GateDecision::AskHuman => 1, _ => 2 };
        let at_lower = p.decide(AutomationDecision::EditCode, Some(lower), human);
        let at_higher = p.decide(AutomationDecision::EditCode, Some(higher), human);
        prop_assert!(rank(at_higher) <= rank(at_lower), "{t:?}: {lower} -> {at_lower:?}, {higher} -> {at_higher:?}");
        // Knowing the confidence never makes the decision stricter than not knowing it.
        let unknown = p.decide(AutomationDecision::EditCode, None, human);
        prop_assert!(rank(at_lower) <= rank(unknown));
    }

    #[test]
    fn safety_round_trips_and_rejects_too_many_retries(retries in 0_u32..1000) {
        let json = format!(r#"{{"max_retries_per_step": {retries}}}"#);
        let parsed = serde_json::from_str::<SafetyProfile>(&json);
        prop_assert_eq!(parsed.is_ok(), retries <= 100);
        if let Ok(p) = parsed {
            prop_assert_eq!(serde_json::from_str::<SafetyProfile>(&serde_json::to_string(&p).unwrap()).unwrap(), p);
        }
    }
}
