//! Container tool execution through the public API, on the fake runtime.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use cleveragents::{
    CleanupMode, ContainerToolError, ContainerToolExecutor, ContainerToolSpec, ExecutionStep,
    ExecutorConfig, FakeCall, FakeRun, FakeRuntime, ImageStatus, InMemoryResourceRegistry,
    ToolError, ToolInvocation, ToolName, ToolRuntime,
};

const LINTER: &str = r#"
name: my-org/python-linter
type: container-tool
image: "python:3.12-slim"
command: ["python", "-m", "pylint"]
mounts:
  - source: "{{resource.git_dir.path}}"
    target: "/workspace"
    readonly: true
  - source: "{{resource.out.path}}/reports"
    target: "/reports"
    readonly: false
environment:
  PYTHONPATH: "/workspace/src"
timeout: 60
"#;

fn name(s: &str) -> ToolName {
    s.parse().unwrap()
}

fn resources() -> Arc<InMemoryResourceRegistry> {
    let r = Arc::new(InMemoryResourceRegistry::new());
    r.insert("git_dir", "/srv/checkout");
    r.insert("out", "/srv/out");
    r
}

fn executor(fake: &FakeRuntime, config: ExecutorConfig) -> ContainerToolExecutor {
    let ex = ContainerToolExecutor::new(Arc::new(fake.clone()), resources()).with_config(config);
    ex.register(ContainerToolSpec::from_yaml_str(LINTER).unwrap())
        .unwrap();
    ex
}

fn tool_yaml(tool: &str, timeout: u64) -> ContainerToolSpec {
    ContainerToolSpec::from_yaml_str(&format!(
        "name: {tool}\ntype: container-tool\nimage: alpine\ncommand: [work]\ntimeout: {timeout}\n"
    ))
    .unwrap()
}

#[test]
fn the_five_steps_run_in_order() {
    let fake = FakeRuntime::new();
    let ex = executor(&fake, ExecutorConfig::default());
    let call = ToolInvocation::new(name("my-org/python-linter"))
        .arg("src/")
        .arg("--score=n; rm -rf /");
    let run = ex.execute(&call).unwrap();

    assert_eq!(
        run.steps,
        [
            ExecutionStep::ImageResolution,
            ExecutionStep::MountBinding,
            ExecutionStep::Execution,
            ExecutionStep::OutputCapture,
            ExecutionStep::Cleanup,
        ]
    );
    assert_eq!(run.image, ImageStatus::Pulled);
    assert!(run.removed);
    assert!(run.result.succeeded());

    let calls = fake.calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(
        calls[0],
        FakeCall::EnsureImage {
            image: "python:3.12-slim".into()
        }
    );
    let FakeCall::Run { spec } = &calls[1] else {
        panic!("{calls:?}")
    };
    assert_eq!(
        calls[2],
        FakeCall::Remove {
            name: spec.name.clone()
        }
    );
    assert!(spec.name.starts_with("cleveragents-"));
    // The arguments arrive as separate argv entries, untouched.
    assert_eq!(
        spec.command,
        ["python", "-m", "pylint", "src/", "--score=n; rm -rf /"]
    );
    assert_eq!(spec.mounts[0].source.to_str(), Some("/srv/checkout"));
    assert_eq!(spec.mounts[0].target, "/workspace");
    assert!(spec.mounts[0].readonly);
    assert_eq!(spec.mounts[1].source.to_str(), Some("/srv/out/reports"));
    assert!(!spec.mounts[1].readonly);
    assert_eq!(spec.env["PYTHONPATH"], "/workspace/src");
    assert_eq!(spec.timeout, Duration::from_secs(60));

    // The second run finds the image cached.
    assert_eq!(ex.execute(&call).unwrap().image, ImageStatus::Cached);
}

#[test]
fn unknown_resources_and_tools_are_errors() {
    let fake = FakeRuntime::new();
    let ex = ContainerToolExecutor::new(
        Arc::new(fake.clone()),
        Arc::new(InMemoryResourceRegistry::new()),
    );
    ex.register(ContainerToolSpec::from_yaml_str(LINTER).unwrap())
        .unwrap();
    let err = ex
        .execute(&ToolInvocation::new(name("my-org/python-linter")))
        .unwrap_err();
    assert!(
        matches!(&err, ContainerToolError::UnknownResource { field, name }
            if field == "mounts[0].source" && name == "git_dir"),
        "{err}"
    );
    assert!(fake.live_containers().is_empty());
    assert!(matches!(
        ex.execute(&ToolInvocation::new(name("nope/x"))),
        Err(ContainerToolError::UnknownTool(_))
    ));
    assert!(matches!(
        ex.run_tool(&ToolInvocation::new(name("nope/x"))),
        Err(ToolError::UnknownTool(_))
    ));
    assert!(matches!(
        ex.register(ContainerToolSpec::from_yaml_str(LINTER).unwrap()),
        Err(ContainerToolError::Duplicate(_))
    ));
}

#[test]
fn a_missing_image_stops_before_running() {
    let fake = FakeRuntime::new().with_missing_image("python:3.12-slim");
    let ex = executor(&fake, ExecutorConfig::default());
    let err = ex
        .execute(&ToolInvocation::new(name("my-org/python-linter")))
        .unwrap_err();
    assert!(
        matches!(
            err,
            ContainerToolError::Runtime {
                step: ExecutionStep::ImageResolution,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(fake.calls().len(), 1);
}

#[test]
fn cleanup_modes() {
    let failing = |spec: &cleveragents::RunSpec| {
        if spec.command.iter().any(|a| a == "fail") {
            FakeRun::exit(3, "boom")
        } else {
            FakeRun::exit(0, "ok")
        }
    };
    let cases = [
        (CleanupMode::Always, true, true),
        (CleanupMode::OnSuccess, true, false),
        (CleanupMode::Never, false, false),
    ];
    for (mode, removed_on_success, removed_on_failure) in cases {
        let fake = FakeRuntime::new().with_behaviour(failing);
        let ex = executor(&fake, ExecutorConfig::default().cleanup(mode));
        let ok = ex
            .execute(&ToolInvocation::new(name("my-org/python-linter")))
            .unwrap();
        let bad = ex
            .execute(&ToolInvocation::new(name("my-org/python-linter")).arg("fail"))
            .unwrap();
        assert_eq!(ok.removed, removed_on_success, "{mode}");
        assert_eq!(bad.removed, removed_on_failure, "{mode}");
        assert_eq!(bad.result.exit_code, Some(3));
        assert!(!bad.result.succeeded());
        assert_eq!(
            bad.steps.contains(&ExecutionStep::Cleanup),
            removed_on_failure
        );
        let live = fake.live_containers();
        assert_eq!(live.contains(&ok.container), !removed_on_success, "{mode}");
        assert_eq!(live.contains(&bad.container), !removed_on_failure, "{mode}");
    }
    assert_eq!(
        "on_success".parse::<CleanupMode>(),
        Ok(CleanupMode::OnSuccess)
    );
    assert!("sometimes".parse::<CleanupMode>().is_err());
}

#[test]
fn timeouts_kill_and_always_clean_up() {
    let fake = FakeRuntime::new()
        .with_behaviour(|_| FakeRun::exit(0, "late").taking(Duration::from_secs(5)));
    let ex = ContainerToolExecutor::new(Arc::new(fake.clone()), resources())
        .with_config(ExecutorConfig::default().cleanup(CleanupMode::Never));
    // One second is the shortest timeout a definition can declare.
    ex.register(tool_yaml("t/slow", 1)).unwrap();
    let started = Instant::now();
    let run = ex.execute(&ToolInvocation::new(name("t/slow"))).unwrap();
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(run.result.timed_out);
    assert_eq!(run.result.exit_code, None);
    assert!(!run.result.succeeded());
    assert!(
        run.removed,
        "a timed-out container is removed even in `never` mode"
    );
    assert!(fake.live_containers().is_empty());
}

#[test]
fn output_over_the_cap_is_truncated_and_flagged() {
    let fake = FakeRuntime::new().with_behaviour(|_| FakeRun::exit(0, vec![b'x'; 10_000]));
    let ex = executor(&fake, ExecutorConfig::default().output_cap(100));
    let run = ex
        .execute(&ToolInvocation::new(name("my-org/python-linter")))
        .unwrap();
    assert_eq!(run.result.stdout.len(), 100);
    assert!(run.result.truncated);
}

#[test]
fn independent_calls_run_in_parallel() {
    const N: usize = 8;
    let each = Duration::from_millis(300);
    let fake = FakeRuntime::new().with_behaviour(move |_| FakeRun::exit(0, "done").taking(each));
    let ex = ContainerToolExecutor::new(Arc::new(fake.clone()), resources())
        .with_config(ExecutorConfig::default().max_parallel(N));
    for i in 0..N {
        ex.register(tool_yaml(&format!("t/tool-{i}"), 10)).unwrap();
    }
    let calls: Vec<_> = (0..N)
        .map(|i| ToolInvocation::new(name(&format!("t/tool-{i}"))))
        .collect();
    let started = Instant::now();
    let results = ex.execute_all(&calls);
    let elapsed = started.elapsed();
    assert_eq!(results.len(), N);
    for (i, r) in results.iter().enumerate() {
        let run = r.as_ref().unwrap();
        assert!(run.result.succeeded(), "call {i}");
    }
    // Sequential would take N × 300 ms = 2.4 s; parallel about one call's time.
    assert!(
        elapsed < each * 3,
        "{N} calls took {elapsed:?}; one takes {each:?}"
    );
    assert_eq!(fake.calls().len(), 3 * N);
}

#[test]
fn parallelism_is_bounded() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (r, p) = (running.clone(), peak.clone());
    let fake = FakeRuntime::new().with_behaviour(move |_| {
        let now = r.fetch_add(1, Ordering::SeqCst) + 1;
        p.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(40));
        r.fetch_sub(1, Ordering::SeqCst);
        FakeRun::exit(0, "")
    });
    let ex = executor(&fake, ExecutorConfig::default().max_parallel(2));
    let calls = vec![ToolInvocation::new(name("my-org/python-linter")); 6];
    let results = ex.execute_all(&calls);
    assert!(results.iter().all(Result::is_ok));
    assert!(peak.load(Ordering::SeqCst) <= 2, "peak {peak:?}");
    assert_eq!(running.load(Ordering::SeqCst), 0);
}

#[test]
fn the_executor_is_a_tool_runtime() {
    let fake = FakeRuntime::new();
    let ex = executor(&fake, ExecutorConfig::default());
    let runtime: &dyn ToolRuntime = &ex;
    let result = runtime
        .run_tool(&ToolInvocation::new(name("my-org/python-linter")).arg("x"))
        .unwrap();
    assert_eq!(result.stdout, "python -m pylint x\n");
    let defs = ex.definitions();
    assert_eq!(defs.len(), 1);
    assert_eq!(defs[0].name.as_str(), "my-org/python-linter");
}

#[test]
fn concurrent_registration_execution_and_session_stops_stay_consistent() {
    use cleveragents::SessionId;
    let fake = FakeRuntime::new();
    let ex = Arc::new(executor(
        &fake,
        ExecutorConfig::default().cleanup(CleanupMode::Never),
    ));
    let sessions: Vec<SessionId> = (0..4).map(|_| SessionId::new()).collect();
    std::thread::scope(|scope| {
        for (t, session) in sessions.iter().enumerate() {
            let ex = ex.clone();
            scope.spawn(move || {
                for i in 0..25 {
                    ex.register(tool_yaml(&format!("t{t}/tool-{i}"), 10))
                        .unwrap();
                    let run = ex
                        .execute(
                            &ToolInvocation::new(name(&format!("t{t}/tool-{i}")))
                                .in_session(*session),
                        )
                        .unwrap();
                    assert!(!run.removed);
                    if i % 5 == 4 {
                        assert!(ex.stop_session(*session).is_empty());
                    }
                }
            });
        }
    });
    // Every session stopped after its last call: nothing is kept anywhere.
    assert!(ex.kept_containers().is_empty());
    assert!(fake.live_containers().is_empty());
    assert_eq!(ex.definitions().len(), 1 + 4 * 25);
}

#[test]
fn tool_definitions_reach_the_engine_with_their_unsafe_flag() {
    let spec = ContainerToolSpec::from_yaml_str(
        "name: a/rm\ntype: container-tool\nimage: alpine\ncommand: [rm]\nunsafe: true\n",
    )
    .unwrap();
    let call = cleveragents::ToolCall::for_tool(&spec.definition());
    assert_eq!(call.tool_name, "a/rm");
    assert!(call.is_unsafe);
}

#[test]
fn a_nul_in_an_argument_is_refused_before_anything_runs() {
    let fake = FakeRuntime::new();
    let ex = executor(&fake, ExecutorConfig::default());
    let err = ex
        .execute(
            &ToolInvocation::new(name("my-org/python-linter"))
                .arg("ok")
                .arg("a\0b"),
        )
        .unwrap_err();
    assert!(
        matches!(&err, ContainerToolError::Invalid { field, .. } if field == "args[1]"),
        "{err}"
    );
    assert!(fake.calls().is_empty());
}
