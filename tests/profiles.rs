//! Automation and safety profiles through the public API: built-ins against
//! the specification's tables, resolution precedence, custom profiles, loading.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::sync::Arc;

use cleveragents::{
    AutomationDecision, AutomationProfile, AutomationProfileService, BUILTIN_PROFILE_NAMES,
    GateDecision, GuardContext, InMemoryProfileRepository, MapEnvironment, ProfileError,
    ProfileSource, SafetyProfile, SafetyProfileRef, SandboxStrategy, Threshold, Usd,
    builtin_profile,
};

fn thresholds(p: &AutomationProfile) -> Vec<f64> {
    AutomationDecision::ALL
        .iter()
        .map(|d| p.threshold(*d).get())
        .collect()
}

fn builtin(name: &str) -> AutomationProfile {
    (*builtin_profile(name).unwrap()).clone()
}

#[test]
fn manual_all_thresholds_one_sandbox_and_checkpoints_required() {
    let p = builtin("manual");
    assert!(thresholds(&p).iter().all(|t| *t == 1.0));
    assert!(p.safety.require_sandbox && p.safety.require_checkpoints);
}

#[test]
fn review_auto_strategizes_and_reviews_execute_and_apply() {
    let p = builtin("review");
    assert_eq!(p.decompose_task.get(), 0.0);
    // Strategize → Execute and Execute → Apply are the transitions a human reviews.
    assert!(p.create_tool.get() >= 0.9 && p.select_tool.get() >= 0.9);
    assert_eq!(
        p.decide(AutomationDecision::SelectTool, Some(1.0), true),
        GateDecision::AskHuman
    );
}

#[test]
fn supervised_select_tool_one_others_low() {
    let p = builtin("supervised");
    assert_eq!(p.select_tool.get(), 1.0);
    for d in AutomationDecision::ALL
        .iter()
        .filter(|d| **d != AutomationDecision::SelectTool)
    {
        assert!(p.threshold(*d).get() <= 0.3, "{d} is low");
    }
}

#[test]
fn cautious_about_point_seven_with_sandbox() {
    let p = builtin("cautious");
    assert!(thresholds(&p).iter().all(|t| (t - 0.7).abs() < 0.051));
    assert!(p.safety.require_sandbox);
}

#[test]
fn trusted_about_point_three_with_sandbox() {
    let p = builtin("trusted");
    assert!(thresholds(&p).iter().all(|t| (t - 0.3).abs() < 0.051));
    assert!(p.safety.require_sandbox);
}

#[test]
fn auto_and_ci_all_zero_with_sandbox_and_checkpoints() {
    for name in ["auto", "ci"] {
        let p = builtin(name);
        assert!(thresholds(&p).iter().all(|t| *t == 0.0), "{name}");
        assert!(
            p.safety.require_sandbox && p.safety.require_checkpoints,
            "{name}"
        );
    }
    assert!(!builtin("ci").interactive, "nobody answers in CI");
    assert!(builtin("auto").interactive);
}

#[test]
fn full_auto_all_zero_no_sandbox_unsafe_tools_allowed() {
    let p = builtin("full-auto");
    assert!(thresholds(&p).iter().all(|t| *t == 0.0));
    assert!(!p.safety.require_sandbox);
    assert!(p.safety.allow_unsafe_tools);
    assert_eq!(p.sandbox.strategy, SandboxStrategy::None);
}

#[test]
fn only_full_auto_drops_the_sandbox_or_allows_unsafe_tools() {
    for name in BUILTIN_PROFILE_NAMES.iter().filter(|n| **n != "full-auto") {
        let p = builtin(name);
        assert!(p.safety.require_sandbox, "{name}");
        assert!(!p.safety.allow_unsafe_tools, "{name}");
    }
}

#[test]
fn named_safety_profiles_match_their_descriptions() {
    let strict = SafetyProfile::named("strict").unwrap();
    assert!(strict.require_sandbox && strict.require_checkpoints && strict.require_human_approval);
    assert!(!strict.allow_unsafe_tools);
    let standard = SafetyProfile::named("standard").unwrap();
    assert!(standard.require_sandbox && standard.require_checkpoints);
    assert!(!standard.allow_unsafe_tools && !standard.require_human_approval);
    assert_eq!(standard, SafetyProfile::default());
    let permissive = SafetyProfile::named("permissive").unwrap();
    assert!(
        permissive.require_sandbox
            && !permissive.require_checkpoints
            && permissive.allow_unsafe_tools
    );
    let read_only = SafetyProfile::named("read-only").unwrap();
    assert!(!read_only.allows_writes() && !read_only.allow_unsafe_tools);
    for (name, dollars) in [("cost-capped-1usd", 1), ("cost-capped-5usd", 5)] {
        let capped = SafetyProfile::named(name).unwrap();
        assert_eq!(capped.max_cost_per_plan, Some(Usd::from_dollars(dollars)));
        let mut uncapped = capped.clone();
        uncapped.max_cost_per_plan = None;
        assert_eq!(uncapped, standard, "{name} is standard + cap");
    }
    assert!(SafetyProfile::named("lenient").is_none());
}

#[test]
fn safety_defaults_are_the_specified_table() {
    let d = SafetyProfile::default();
    assert!(d.require_sandbox && d.require_checkpoints);
    assert!(!d.allow_unsafe_tools && !d.require_human_approval);
    assert!(d.allowed_skill_categories.is_empty() && d.allows_skill_category("anything"));
    assert_eq!(
        (
            d.max_cost_per_plan,
            d.max_total_cost,
            d.max_retries_per_step
        ),
        (None, None, 3)
    );
}

/// Every combination of set/unset plan, action, project and global levels
/// (global set explicitly or through the environment).
#[test]
fn precedence_over_all_combinations() {
    for mask in 0_u8..16 {
        for global_from_env in [false, true] {
            let plan = (mask & 1 != 0).then_some("supervised");
            let action = (mask & 2 != 0).then_some("cautious");
            let project = (mask & 4 != 0).then_some("trusted");
            let global = mask & 8 != 0;
            let mut builder = AutomationProfileService::builder();
            if global && global_from_env {
                builder = builder.environment(Arc::new(
                    MapEnvironment::new().with("CLEVERAGENTS_AUTOMATION_PROFILE", "auto"),
                ));
            } else if global {
                builder = builder.global_default("auto");
            }
            let resolved = builder
                .build()
                .resolve_profile(plan, action, project)
                .unwrap();
            let expected = if plan.is_some() {
                ("supervised", ProfileSource::Plan)
            } else if action.is_some() {
                ("cautious", ProfileSource::Action)
            } else if project.is_some() {
                ("trusted", ProfileSource::Project)
            } else if global && global_from_env {
                ("auto", ProfileSource::Environment)
            } else if global {
                ("auto", ProfileSource::Global)
            } else {
                ("manual", ProfileSource::Default)
            };
            assert_eq!(
                (resolved.name(), resolved.source),
                expected,
                "mask {mask:04b} env {global_from_env}"
            );
        }
    }
}

#[test]
fn the_explicit_global_beats_the_environment_and_blank_values_are_unset() {
    let env = Arc::new(MapEnvironment::new().with("CLEVERAGENTS_AUTOMATION_PROFILE", "auto"));
    let service = AutomationProfileService::builder()
        .environment(env)
        .global_default("review")
        .build();
    let resolved = service.resolve_profile(None, None, None).unwrap();
    assert_eq!(
        (resolved.name(), resolved.source),
        ("review", ProfileSource::Global)
    );

    let blank = Arc::new(MapEnvironment::new().with("CLEVERAGENTS_AUTOMATION_PROFILE", "  "));
    let service = AutomationProfileService::builder()
        .environment(blank)
        .build();
    assert_eq!(
        service
            .resolve_profile(Some(""), None, None)
            .unwrap()
            .source,
        ProfileSource::Default
    );

    // Without an injected environment nothing is read, whatever the process has.
    assert_eq!(
        AutomationProfileService::new()
            .resolve_profile(None, None, None)
            .unwrap()
            .name(),
        "manual"
    );
}

#[test]
fn unknown_names_are_errors_naming_the_level_and_the_known_names() {
    let env = Arc::new(MapEnvironment::new().with("CLEVERAGENTS_AUTOMATION_PROFILE", "autoo"));
    let service = AutomationProfileService::builder().environment(env).build();
    let err = service.resolve_profile(None, None, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown automation profile `autoo` at the environment level; known profiles: manual, review, supervised, cautious, trusted, auto, ci, full-auto"
    );
    let service = AutomationProfileService::new();
    for (plan, action, project, level) in [
        (Some("x"), None, None, ProfileSource::Plan),
        (None, Some("x"), None, ProfileSource::Action),
        (None, None, Some("x"), ProfileSource::Project),
        // A lower level's typo is reported even when a higher level decides.
        (Some("auto"), None, Some("x"), ProfileSource::Project),
    ] {
        match service.resolve_profile(plan, action, project) {
            Err(ProfileError::UnknownProfile {
                level: got,
                name,
                known,
            }) => {
                assert_eq!((got, name.as_str()), (level, "x"));
                assert_eq!(known.len(), 8);
            }
            other => panic!("expected an unknown-profile error, got {other:?}"),
        }
    }
    let err = AutomationProfileService::builder()
        .global_default("nope")
        .build()
        .resolve_profile(None, None, None);
    assert!(matches!(
        err,
        Err(ProfileError::UnknownProfile {
            level: ProfileSource::Global,
            ..
        })
    ));
}

fn custom(name: &str, threshold: f64) -> AutomationProfile {
    AutomationProfile::uniform(name, Threshold::new(threshold).unwrap())
}

#[test]
fn custom_profiles_crud_and_listing_order() {
    let service = AutomationProfileService::builder()
        .repository(Arc::new(InMemoryProfileRepository::new()))
        .build();
    service.create_profile(custom("zeta", 0.5)).unwrap();
    service.create_profile(custom("alpha", 0.5)).unwrap();
    assert!(
        matches!(service.create_profile(custom("alpha", 0.1)), Err(ProfileError::AlreadyExists(n)) if n == "alpha")
    );
    let names: Vec<String> = service
        .list_profiles()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        names[..8],
        BUILTIN_PROFILE_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .collect::<Vec<_>>()[..]
    );
    assert_eq!(names[8..], ["alpha".to_owned(), "zeta".to_owned()]);
    service
        .update_profile("alpha", custom("alpha", 0.9))
        .unwrap();
    assert_eq!(service.get_profile("alpha").unwrap().edit_code.get(), 0.9);
    assert!(matches!(
        service.update_profile("alpha", custom("beta", 0.9)),
        Err(ProfileError::NameMismatch { .. })
    ));
    assert!(matches!(
        service.update_profile("nope", custom("nope", 0.9)),
        Err(ProfileError::NotFound(_))
    ));
    service.delete_profile("zeta").unwrap();
    assert!(matches!(
        service.delete_profile("zeta"),
        Err(ProfileError::NotFound(_))
    ));
    assert!(matches!(
        service.get_profile("zeta"),
        Err(ProfileError::NotFound(_))
    ));
    let resolved = service.resolve_profile(None, Some("alpha"), None).unwrap();
    assert_eq!(resolved.source, ProfileSource::Action);
}

#[test]
fn built_in_names_are_reserved() {
    let service = AutomationProfileService::builder()
        .repository(Arc::new(InMemoryProfileRepository::new()))
        .build();
    for name in BUILTIN_PROFILE_NAMES {
        assert!(
            matches!(service.create_profile(custom(name, 0.5)), Err(ProfileError::ReservedName(n)) if n == *name)
        );
        assert!(matches!(
            service.update_profile(name, custom(name, 0.5)),
            Err(ProfileError::ReservedName(_))
        ));
        assert!(matches!(
            service.delete_profile(name),
            Err(ProfileError::ReservedName(_))
        ));
    }
    assert_eq!(
        ProfileError::ReservedName("auto".into()).to_string(),
        "`auto` is a built-in profile name and is reserved"
    );
}

#[test]
fn a_resolved_profile_is_locked() {
    let service = AutomationProfileService::builder()
        .repository(Arc::new(InMemoryProfileRepository::new()))
        .build();
    service.create_profile(custom("team", 0.4)).unwrap();
    let locked = service.resolve_profile(Some("team"), None, None).unwrap();
    service.update_profile("team", custom("team", 0.9)).unwrap();
    assert_eq!(
        locked.profile.edit_code.get(),
        0.4,
        "an update upstream changes nothing resolved"
    );
    service.delete_profile("team").unwrap();
    assert_eq!(locked.profile.name, "team", "nor does a delete");
    // Serialized into plan metadata and back, it is the same value.
    let json = serde_json::to_string(&locked).unwrap();
    assert_eq!(
        serde_json::from_str::<cleveragents::ResolvedProfile>(&json).unwrap(),
        locked
    );
}

#[test]
fn constraint_violations_are_all_reported_at_once() {
    let mut p = custom("broken", 0.5);
    p.name = " ".into();
    p.safety.require_sandbox = false;
    p.safety.require_checkpoints = false;
    p.safety.max_retries_per_step = 101;
    let fields: Vec<String> = p.violations().into_iter().map(|v| v.field).collect();
    assert_eq!(
        fields,
        [
            "name",
            "safety.max_retries_per_step",
            "safety.require_sandbox",
            "safety.require_checkpoints"
        ]
    );
    let err = p.validate().unwrap_err().to_string();
    assert!(err.contains("`safety.require_sandbox`: `false` is only valid with sandbox strategy `none`, but `sandbox.strategy` is `worktree`"), "{err}");
    assert!(err.contains("`safety.require_checkpoints`: `false` is only valid when `sandbox.checkpoint.enabled` is `false`"), "{err}");

    let yaml = "name: broken\nsafety:\n  require_sandbox: false\n  require_checkpoints: false\n";
    let err = AutomationProfile::from_yaml_str(yaml)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("safety.require_sandbox") && err.contains("safety.require_checkpoints"),
        "{err}"
    );
    let fixed = "name: fixed\nsafety:\n  require_sandbox: false\n  require_checkpoints: false\nsandbox:\n  strategy: none\n  checkpoint:\n    enabled: false\n";
    assert!(AutomationProfile::from_yaml_str(fixed).is_ok());
}

const DOC_STRICT_CI: &str = "\
name: strict-ci
decompose_task: 0.0
create_tool: 0.0
select_tool: 0.0
edit_code: 0.0
execute_command: 0.0
create_file: 0.0
delete_content: 0.5
access_network: 0.8
install_dependency: 0.3
modify_config: 0.7
approve_plan: 0.0
safety:
  require_sandbox: true
  require_checkpoints: true
  allow_unsafe_tools: false
  require_human_approval: false
  max_cost_per_plan: 2.00
  max_retries_per_step: 2
";

const DOC_STRICT_REVIEW: &str = "\
name: strict-review
decompose_task: 0.0
create_tool: 0.8
select_tool: 1.0
edit_code: 0.9
execute_command: 1.0
safety:
  require_sandbox: true
  require_checkpoints: true
  allow_unsafe_tools: false
  require_human_approval: false
  max_cost_per_plan: 5.00
  max_retries_per_step: 2
guard:
  max_tool_calls_per_step: 15
  max_total_cost: 5.00
  tool_denylist:
    - shell_exec
    - network_request
  require_approval_for_writes: true
  require_approval_for_apply: true
";

#[test]
fn the_documented_examples_load_exactly() {
    let ci = AutomationProfile::from_yaml_str(DOC_STRICT_CI).unwrap();
    assert_eq!(ci.name, "strict-ci");
    assert_eq!(
        thresholds(&ci),
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.8, 0.3, 0.7, 0.0]
    );
    assert_eq!(ci.safety.max_cost_per_plan, Some(Usd::from_dollars(2)));
    assert_eq!(ci.safety.max_retries_per_step, 2);
    assert!(ci.guard.is_none());

    let review = AutomationProfile::from_yaml_str(DOC_STRICT_REVIEW).unwrap();
    assert_eq!(&thresholds(&review)[..5], [0.0, 0.8, 1.0, 0.9, 1.0]);
    assert!(
        thresholds(&review)[5..].iter().all(|t| *t == 1.0),
        "unset thresholds default to 1.0"
    );
    let guard = review.guard.clone().unwrap();
    assert_eq!(guard.max_tool_calls_per_step, Some(15));
    assert_eq!(guard.max_total_cost, Some(Usd::from_dollars(5)));
    assert_eq!(
        guard.tool_denylist.as_deref(),
        Some(&["shell_exec".to_owned(), "network_request".to_owned()][..])
    );
    assert!(guard.require_approval_for_writes && guard.require_approval_for_apply);
    let verdict = review.check_guard(&GuardContext::new("shell_exec"));
    assert!(verdict.requires_approval);
}

#[test]
fn bad_documents_name_the_field_and_the_position() {
    let err = AutomationProfile::from_yaml_str("name: x\nedit_code: 1.5\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "invalid YAML at `edit_code` (line 2, column 12): a threshold must be a number from 0.0 to 1.0, got `1.5`"
    );
    let err = AutomationProfile::from_yaml_str("name: x\nsafety:\n  require_sandbx: true\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("invalid YAML at `safety.require_sandbx` (line 3"),
        "{err}"
    );
    assert!(err.contains("unknown field `require_sandbx`"), "{err}");
    let err = AutomationProfile::from_yaml_str("name: x\nsafety:\n  max_retries_per_step: 500\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`max_retries_per_step`: must be from 0 to 100, got 500"),
        "{err}"
    );
    let err = AutomationProfile::from_json_str("{\"name\": \"x\",\n \"approve_plan\": \"high\"}")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("invalid JSON at `approve_plan` (line 2"),
        "{err}"
    );
    let err = AutomationProfile::from_yaml_str("edit_code: 0.5\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing field `name`"), "{err}");
    let err = AutomationProfile::from_yaml_str("name: x\nedit_code: .nan\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("got `NaN`"), "{err}");
    let err = AutomationProfile::from_json_str("{\"name\": \"x\"} trailing")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("invalid JSON"), "{err}");
}

#[test]
fn safety_profiles_resolve_with_the_same_precedence() {
    let service = AutomationProfileService::new();
    let fallback = builtin("auto").safety;
    let strict = SafetyProfileRef::Named("strict".into());
    let mut capped = SafetyProfile::default();
    capped.max_cost_per_plan = Some(Usd::from_dollars(2));
    let inline = SafetyProfileRef::Inline(capped);
    let r = service
        .resolve_safety_profile(None, Some(&inline), None, Some(&strict), &fallback)
        .unwrap();
    assert_eq!(
        (r.value.max_cost_per_plan, r.source),
        (Some(Usd::from_dollars(2)), ProfileSource::Action)
    );
    let r = service
        .resolve_safety_profile(None, None, None, Some(&strict), &fallback)
        .unwrap();
    assert_eq!(r.source, ProfileSource::Global);
    assert!(r.value.require_human_approval);
    let r = service
        .resolve_safety_profile(None, None, None, None, &fallback)
        .unwrap();
    assert_eq!(r.source, ProfileSource::AutomationProfile);
    let bad = SafetyProfileRef::Named("lenient".into());
    let err = service
        .resolve_safety_profile(Some(&bad), None, None, None, &fallback)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown safety profile `lenient` at the plan level; known safety profiles: strict, standard, permissive, read-only, cost-capped-1usd, cost-capped-5usd"
    );
    // An action's inline `safety_profile:` block parses as a reference.
    let parsed: SafetyProfileRef =
        serde_json::from_str(r#"{"require_sandbox": true, "max_cost_per_plan": 2.00}"#).unwrap();
    assert!(matches!(parsed, SafetyProfileRef::Inline(_)));
    let parsed: SafetyProfileRef = serde_json::from_str(r#""read-only""#).unwrap();
    assert_eq!(parsed, SafetyProfileRef::Named("read-only".into()));
}

#[test]
fn evaluate_guard_uses_the_named_profile() {
    let service = AutomationProfileService::builder()
        .repository(Arc::new(InMemoryProfileRepository::new()))
        .build();
    service
        .create_profile(
            AutomationProfile::from_yaml_str(
                &DOC_STRICT_REVIEW.replace("strict-review", "guarded"),
            )
            .unwrap(),
        )
        .unwrap();
    let result = service
        .evaluate_guard(
            "guarded",
            &GuardContext::new("read_file").cost_so_far(Usd::from_cents(523)),
        )
        .unwrap();
    assert_eq!(
        result.reason.as_deref(),
        Some(
            "Budget cap exceeded: $5.23 > $5.00. Remediation: raise max_total_cost, lower cost, or request human approval."
        )
    );
    assert!(
        service
            .evaluate_guard("supervised", &GuardContext::new("shell_exec"))
            .unwrap()
            .allowed
    );
    assert!(matches!(
        service.evaluate_guard("nope", &GuardContext::new("x")),
        Err(ProfileError::NotFound(_))
    ));
}

#[test]
fn unattended_profiles_turn_asks_into_denials() {
    let mut ci = builtin("ci");
    ci.set_threshold(
        AutomationDecision::ApprovePlan,
        Threshold::new(0.5).unwrap(),
    );
    assert_eq!(
        ci.decide(AutomationDecision::ApprovePlan, Some(0.4), true),
        GateDecision::Deny
    );
    assert_eq!(
        ci.decide(AutomationDecision::ApprovePlan, Some(0.6), true),
        GateDecision::Proceed
    );
}

#[test]
fn profiles_load_from_files() {
    let dir = std::env::temp_dir().join(format!("cleveragents-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let yaml = dir.join("p.yaml");
    std::fs::write(&yaml, DOC_STRICT_CI).unwrap();
    assert_eq!(
        AutomationProfileService::from_yaml(&yaml).unwrap().name,
        "strict-ci"
    );
    let json = dir.join("p.json");
    std::fs::write(&json, r#"{"name": "j", "edit_code": 0.25}"#).unwrap();
    assert_eq!(
        AutomationProfile::from_path(&json).unwrap().edit_code.get(),
        0.25
    );
    let missing = AutomationProfile::from_path(&dir.join("missing.yaml")).unwrap_err();
    assert!(
        missing.to_string().starts_with("cannot read `"),
        "{missing}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The built-in table in `docs/automation-profiles.md` is what the code ships.
#[test]
fn the_documented_built_in_table_matches_the_code() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/automation-profiles.md"
    ))
    .unwrap();
    let rows: Vec<Vec<&str>> = doc
        .lines()
        .filter(|l| {
            BUILTIN_PROFILE_NAMES
                .iter()
                .any(|n| l.starts_with(&format!("| {n} |")))
        })
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), BUILTIN_PROFILE_NAMES.len());
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    for row in rows {
        let p = builtin(row[0]);
        let documented: Vec<f64> = row[1..12].iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(documented, thresholds(&p), "{}", p.name);
        assert_eq!(row[12], yes_no(p.interactive), "{}", p.name);
        assert_eq!(row[13], yes_no(p.safety.require_sandbox), "{}", p.name);
        assert_eq!(row[14], yes_no(p.safety.require_checkpoints), "{}", p.name);
        assert_eq!(row[15], yes_no(p.safety.allow_unsafe_tools), "{}", p.name);
        assert_eq!(row[16], p.sandbox.strategy.as_str(), "{}", p.name);
    }
}
