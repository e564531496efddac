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

/// The glob oracle of `fuzz/fuzz_targets/glob.rs`, for the corpus replay.
fn glob_oracle(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|skip| glob_oracle(rest, &name[skip..])),
        Some((c, rest)) => name
            .split_first()
            .is_some_and(|(n, tail)| n == c && glob_oracle(rest, tail)),
    }
}

#[test]
fn glob_corpus() {
    for (name, bytes) in corpus("glob") {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let (pattern, subject) = text.split_once('\n').unwrap_or((text, ""));
        let p: Vec<char> = pattern.chars().collect();
        let n: Vec<char> = subject.chars().collect();
        assert_eq!(
            cleveragents::glob_match(pattern, subject),
            glob_oracle(&p, &n),
            "{name}: pattern {pattern:?} name {subject:?}"
        );
    }
}

#[test]
fn load_from_metadata_corpus() {
    use cleveragents::{AutonomyGuardrailService, PlanId};
    let mut loaded = 0;
    for (name, bytes) in corpus("load_from_metadata") {
        let Ok(serde_json::Value::Object(metadata)) =
            serde_json::from_slice::<serde_json::Value>(&bytes)
        else {
            continue;
        };
        let service = AutonomyGuardrailService::new();
        let plan = PlanId::new();
        if service.load_from_metadata(plan, &metadata).is_ok() {
            loaded += 1;
            let trail = service.get_audit_trail(plan).unwrap();
            trail.verify().unwrap_or_else(|e| panic!("{name}: {e}"));
            let again = service.get_audit_trail_as_metadata(plan).unwrap();
            let other = AutonomyGuardrailService::new();
            other.load_from_metadata(plan, &again).unwrap();
            assert_eq!(other.get_audit_trail(plan), Some(trail), "{name}");
        }
    }
    assert!(loaded >= 2, "the corpus holds valid metadata too");
}

/// Regenerates the valid seeds of the metadata corpus (run with
/// `UPDATE_CORPUS=1`); they are committed, so the replay needs no generation.
#[test]
fn metadata_corpus_seeds_are_current() {
    use cleveragents::{AutonomyGuardrailService, AutonomyGuardrails, PlanId, Usd};
    if std::env::var_os("UPDATE_CORPUS").is_none() {
        return;
    }
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/load_from_metadata");
    for (file, chained, capacity) in [("valid_chained", true, 3), ("valid_unchained", false, 10)] {
        let service = AutonomyGuardrailService::builder()
            .audit_chain(chained)
            .audit_capacity(capacity)
            .build();
        let plan = PlanId::new();
        let mut g = AutonomyGuardrails::default();
        g.max_steps = Some(2);
        g.tool_budget = Some(Usd::from_cents(150));
        g.required_confirmations = vec!["deploy".into()];
        service.configure_guardrails(plan, g).unwrap();
        for step in 0..3 {
            service.check_step_limit(plan, step).unwrap();
        }
        service
            .check_tool_budget(plan, Usd::from_cents(100))
            .unwrap();
        service
            .check_tool_budget(plan, Usd::from_cents(100))
            .unwrap();
        service.check_confirmation_required(plan, "deploy").unwrap();
        let metadata = service.get_audit_trail_as_metadata(plan).unwrap();
        std::fs::write(
            dir.join(file),
            serde_json::to_vec_pretty(&metadata).unwrap(),
        )
        .unwrap();
    }
}

#[test]
fn sse_parser_corpus() {
    use cleveragents::a2a::SseParser;
    for (name, bytes) in corpus("sse_parser") {
        let mut parser = SseParser::new();
        for frame in parser.push(&bytes) {
            if frame.data.contains('\r') {
                continue;
            }
            let reparsed = SseParser::new().push(frame.encode().as_bytes());
            assert_eq!(reparsed.len(), 1, "{name}");
            assert_eq!(reparsed[0].data, frame.data, "{name}");
        }
    }
}

#[test]
fn a2a_models_corpus() {
    use cleveragents::a2a::{Message, StreamEvent, Task, v1};
    let mut read = 0;
    for (name, bytes) in corpus("a2a_models") {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        if let Ok(task) = serde_json::from_value::<Task>(value.clone()) {
            read += 1;
            assert_eq!(
                v1::task_from_v1(&v1::task_to_v1(&task)).unwrap(),
                task,
                "{name}"
            );
        }
        if let Ok(message) = serde_json::from_value::<Message>(value.clone()) {
            read += 1;
            assert_eq!(
                v1::message_from_v1(&v1::message_to_v1(&message)).unwrap(),
                message,
                "{name}"
            );
        }
        if let Ok(event) = serde_json::from_value::<StreamEvent>(value.clone()) {
            read += 1;
            let back = v1::stream_event_from_v1(&v1::stream_event_to_v1(&event)).unwrap();
            assert_eq!(back.kind(), event.kind(), "{name}");
        }
        let v1_task = v1::task_from_v1(&value);
        if let Ok(task) = v1_task {
            read += 1;
            assert_eq!(
                v1::task_from_v1(&v1::task_to_v1(&task)).unwrap(),
                task,
                "{name}"
            );
        }
        let _ = v1::message_from_v1(&value);
        let _ = v1::stream_event_from_v1(&value);
        let _ = v1::push_config_from_v1(&value);
    }
    assert!(read >= 5, "the corpus holds readable documents too");
}

#[test]
fn references_corpus() {
    use cleveragents::{Reference, parse_references};
    let mut found = 0;
    for (name, bytes) in corpus("references") {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        for reference in parse_references(text) {
            found += 1;
            match reference {
                Reference::Project { name: project } => {
                    assert!(text.contains(&format!("@{project}")), "{name}")
                }
                Reference::File { path } => {
                    assert!(
                        text.contains(&format!("@{path}"))
                            || text.contains(&format!("@\"{path}\"")),
                        "{name}"
                    );
                }
                _ => {}
            }
        }
    }
    assert!(found >= 8);
}

#[test]
fn container_specs_corpus() {
    use std::path::Component;
    use std::sync::Arc;

    use cleveragents::{
        ContainerToolExecutor, ContainerToolSpec, DevcontainerConfig, DevcontainerResource,
        FakeCall, FakeRuntime, InMemoryResourceRegistry, ToolInvocation,
    };

    fn safe(path: &Path) -> bool {
        path.is_absolute() && !path.components().any(|c| matches!(c, Component::ParentDir))
    }

    let (mut tools, mut devcontainers, mut resources_loaded) = (0, 0, 0);
    for (name, bytes) in corpus("container_specs") {
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        for loaded in [
            ContainerToolSpec::from_yaml_str(text),
            ContainerToolSpec::from_json_str(text),
        ] {
            let Ok(spec) = loaded else { continue };
            tools += 1;
            assert!(spec.validate().is_ok(), "{name}");
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(
                ContainerToolSpec::from_json_str(&json).unwrap(),
                spec,
                "{name}"
            );
            let resources = Arc::new(InMemoryResourceRegistry::new());
            for resource in spec.referenced_resources() {
                resources.insert(resource, "/r");
            }
            let fake = FakeRuntime::new();
            let executor = ContainerToolExecutor::new(Arc::new(fake.clone()), resources);
            let tool = spec.name.clone();
            executor.register(spec).unwrap();
            executor.execute(&ToolInvocation::new(tool)).unwrap();
            for call in fake.calls() {
                if let FakeCall::Run { spec } = call {
                    assert!(spec.mounts.iter().all(|m| safe(&m.source)), "{name}");
                }
            }
        }
        if let Ok(dc) = DevcontainerConfig::from_jsonc_str(text, Path::new("/project")) {
            devcontainers += 1;
            assert!(dc.image.is_some() || dc.build.is_some(), "{name}");
            assert!(
                dc.mounts
                    .iter()
                    .all(|m| safe(&m.source) && safe(Path::new(&m.target))),
                "{name}"
            );
        }
        if let Ok(resource) = DevcontainerResource::from_yaml_str(text) {
            resources_loaded += 1;
            assert!(resource.validate().is_ok(), "{name}");
        }
    }
    assert!(tools >= 2 && devcontainers >= 2 && resources_loaded >= 1);
}
