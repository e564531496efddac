//! Devcontainer parsing, tools run inside a devcontainer, and the
//! session-close hook, through the public API.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::path::Path;
use std::sync::Arc;

use cleveragents::config::ConfigError;
use cleveragents::{
    A2aLocalFacade, CleanupMode, ContainerToolError, ContainerToolExecutor, ContainerToolSpec,
    DevcontainerConfig, DevcontainerResource, DomainEvent, DomainEventType, EventBus,
    ExecutorConfig, FakeCall, FakeRuntime, InMemoryEventBus, InMemoryResourceRegistry,
    InMemorySessionService, SessionId, ToolInvocation,
};
use parking_lot::Mutex;
use serde_json::{Value, json};

const DEVCONTAINER: &str = r#"{
  // The project's development environment.
  "name": "Python Dev",
  "image": "mcr.example/devcontainers/python:3.12",
  /* mounts: one string form, one object form */
  "mounts": [
    "source=${localWorkspaceFolder}/data,target=/data,type=bind,readonly",
    { "source": "/var/cache/pip", "target": "/home/vscode/.cache/pip", "type": "bind" },
  ],
  "containerEnv": {
    "PROJECT": "${localWorkspaceFolderBasename}",
    "MODE": "dev", // trailing comment
  },
  "remoteUser": "vscode",
  "workspaceFolder": "/workspaces/app",
  "features": { "ghcr.io/devcontainers/features/node:1": {} },
  "forwardPorts": [8000],
}
"#;

fn root() -> &'static Path {
    Path::new("/home/me/app")
}

#[test]
fn devcontainer_json_with_comments_and_trailing_commas() {
    let dc = DevcontainerConfig::from_jsonc_str(DEVCONTAINER, root()).unwrap();
    assert_eq!(dc.name.as_deref(), Some("Python Dev"));
    assert_eq!(
        dc.image.as_deref(),
        Some("mcr.example/devcontainers/python:3.12")
    );
    assert_eq!(dc.mounts.len(), 2);
    assert_eq!(dc.mounts[0].source.to_str(), Some("/home/me/app/data"));
    assert_eq!(dc.mounts[0].target, "/data");
    assert!(dc.mounts[0].readonly);
    assert!(!dc.mounts[1].readonly);
    assert_eq!(dc.container_env["PROJECT"], "app");
    assert_eq!(dc.container_env["MODE"], "dev");
    assert_eq!(dc.remote_user.as_deref(), Some("vscode"));
    assert_eq!(dc.workspace_folder.as_deref(), Some("/workspaces/app"));
    // Reported, not silently dropped.
    assert_eq!(dc.unsupported_keys, ["features", "forwardPorts"]);
}

fn invalid_field(text: &str) -> String {
    match DevcontainerConfig::from_jsonc_str(text, root()) {
        Err(ContainerToolError::Invalid { field, .. }) => field,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[test]
fn bad_devcontainers_get_their_errors() {
    assert_eq!(invalid_field(r#"{"name": "x"}"#), "image");
    assert_eq!(
        invalid_field(r#"{"image": "i", "mounts": ["source=v,target=/v,type=volume"]}"#),
        "mounts[0]"
    );
    assert_eq!(
        invalid_field(r#"{"image": "i", "mounts": ["source=${env:HOME},target=/h"]}"#),
        "mounts[0]"
    );
    assert_eq!(
        invalid_field(r#"{"image": "i", "mounts": ["source=rel,target=/h"]}"#),
        "mounts[0].source"
    );
    assert_eq!(
        invalid_field(r#"{"image": "i", "mounts": ["target=/h"]}"#),
        "mounts[0]"
    );
    assert_eq!(
        invalid_field(r#"{"image": "i", "workspaceFolder": "ws"}"#),
        "workspaceFolder"
    );
    let err = DevcontainerConfig::from_jsonc_str("{\n  \"image\": \"i\"\n  \"name\": 1\n}", root())
        .unwrap_err();
    assert!(
        matches!(
            err,
            ContainerToolError::Load(ConfigError::Invalid { line: Some(3), .. })
        ),
        "{err}"
    );
    let err = DevcontainerConfig::from_jsonc_str("{\n /* never closed\n}", root()).unwrap_err();
    assert!(
        matches!(
            err,
            ContainerToolError::Load(ConfigError::Invalid { line: Some(2), .. })
        ),
        "{err}"
    );
}

#[test]
fn the_resource_declaration() {
    let r = DevcontainerResource::from_yaml_str(
        "name: dev_env\ntype: devcontainer-instance\ndevcontainer_path: \".devcontainer/devcontainer.json\"\nuse_for_tools: true\n",
    )
    .unwrap();
    assert!(r.use_for_tools);
    for bad in [
        "name: d\ntype: container-tool\ndevcontainer_path: a.json\n",
        "name: d\ntype: devcontainer-instance\ndevcontainer_path: ../a.json\n",
        "name: d\ntype: devcontainer-instance\ndevcontainer_path: /etc/a.json\n",
        "name: d\ntype: devcontainer-instance\ndevcontainer_path: a.json\nextra: 1\n",
    ] {
        assert!(DevcontainerResource::from_yaml_str(bad).is_err(), "{bad}");
    }
    // Loading reads the file relative to the project root.
    let dir = std::env::temp_dir().join(format!("cleveragents-dc-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".devcontainer")).unwrap();
    std::fs::write(dir.join(".devcontainer/devcontainer.json"), DEVCONTAINER).unwrap();
    let loaded = r.load(&dir).unwrap();
    assert_eq!(loaded.remote_user.as_deref(), Some("vscode"));
    // Applied to an executor, every tool then runs in the devcontainer's image.
    let fake = FakeRuntime::new();
    let ex = executor(&fake, CleanupMode::Always);
    let applied = ex.apply_devcontainer_resource(&r, &dir).unwrap();
    assert_eq!(applied.unsupported_keys, ["features", "forwardPorts"]);
    ex.execute(&ToolInvocation::new("my-org/test".parse().unwrap()))
        .unwrap();
    assert_eq!(
        runs(&fake)[0].image,
        "mcr.example/devcontainers/python:3.12"
    );
    let unused = DevcontainerResource::from_yaml_str(
        "name: d\ntype: devcontainer-instance\ndevcontainer_path: .devcontainer/devcontainer.json\n",
    )
    .unwrap();
    let fake = FakeRuntime::new();
    let ex = executor(&fake, CleanupMode::Always);
    ex.apply_devcontainer_resource(&unused, &dir).unwrap();
    ex.execute(&ToolInvocation::new("my-org/test".parse().unwrap()))
        .unwrap();
    assert_eq!(
        runs(&fake)[0].image,
        "python:3.12-slim",
        "use_for_tools is off"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(
        r.load(&dir),
        Err(ContainerToolError::Load(ConfigError::Io { .. }))
    ));
}

const TOOL: &str = r#"
name: my-org/test
type: container-tool
image: "python:3.12-slim"
command: ["pytest"]
mounts:
  - source: "/srv/reports"
    target: "/reports"
    readonly: false
environment:
  MODE: "ci"
"#;

fn executor(fake: &FakeRuntime, cleanup: CleanupMode) -> ContainerToolExecutor {
    let ex = ContainerToolExecutor::new(
        Arc::new(fake.clone()),
        Arc::new(InMemoryResourceRegistry::new()),
    )
    .with_config(ExecutorConfig::default().cleanup(cleanup));
    ex.register(ContainerToolSpec::from_yaml_str(TOOL).unwrap())
        .unwrap();
    ex
}

fn runs(fake: &FakeRuntime) -> Vec<cleveragents::RunSpec> {
    fake.calls()
        .into_iter()
        .filter_map(|c| match c {
            FakeCall::Run { spec } => Some(spec),
            _ => None,
        })
        .collect()
}

#[test]
fn with_use_for_tools_every_tool_runs_inside_the_devcontainer() {
    let fake = FakeRuntime::new();
    let ex = executor(&fake, CleanupMode::Always);
    ex.use_devcontainer(
        DevcontainerConfig::from_jsonc_str(DEVCONTAINER, root()).unwrap(),
        root().join(".devcontainer"),
    );
    ex.execute(&ToolInvocation::new("my-org/test".parse().unwrap()))
        .unwrap();
    let spec = &runs(&fake)[0];
    assert_eq!(spec.image, "mcr.example/devcontainers/python:3.12");
    let targets: Vec<&str> = spec.mounts.iter().map(|m| m.target.as_str()).collect();
    assert_eq!(targets, ["/data", "/home/vscode/.cache/pip", "/reports"]);
    assert_eq!(spec.env["PROJECT"], "app");
    assert_eq!(spec.env["MODE"], "ci", "the tool's variable wins");
    assert_eq!(spec.workdir.as_deref(), Some("/workspaces/app"));
    assert_eq!(spec.user.as_deref(), Some("vscode"));

    ex.clear_devcontainer();
    ex.execute(&ToolInvocation::new("my-org/test".parse().unwrap()))
        .unwrap();
    assert_eq!(runs(&fake)[1].image, "python:3.12-slim");
}

#[test]
fn a_build_only_devcontainer_is_built_once() {
    let fake = FakeRuntime::new();
    let ex = executor(&fake, CleanupMode::Always);
    let dc = DevcontainerConfig::from_jsonc_str(
        r#"{"name": "My App", "build": {"dockerfile": "Dockerfile", "context": "..", "args": {"V": "1"}}}"#,
        root(),
    )
    .unwrap();
    ex.use_devcontainer(dc, root().join(".devcontainer"));
    let call = ToolInvocation::new("my-org/test".parse().unwrap());
    ex.execute(&call).unwrap();
    ex.execute(&call).unwrap();
    let builds: Vec<_> = fake
        .calls()
        .into_iter()
        .filter_map(|c| match c {
            FakeCall::BuildImage { build } => Some(build),
            _ => None,
        })
        .collect();
    assert_eq!(builds.len(), 1);
    assert_eq!(builds[0].tag, "cleveragents-devcontainer-my-app");
    assert_eq!(builds[0].context, root().join(".devcontainer/.."));
    assert_eq!(
        builds[0].dockerfile.as_deref(),
        Some(root().join(".devcontainer/Dockerfile").as_path())
    );
    assert_eq!(builds[0].args["V"], "1");
    assert!(runs(&fake).iter().all(|s| s.image == builds[0].tag));
}

fn facade_with(ex: Arc<ContainerToolExecutor>) -> A2aLocalFacade {
    A2aLocalFacade::builder()
        .session_service(Arc::new(InMemorySessionService::new()))
        .session_close_hook(ex)
        .build()
}

fn call(facade: &A2aLocalFacade, method: &str, params: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = facade
        .dispatch_json(request.to_string().as_bytes())
        .unwrap();
    serde_json::from_slice(&reply).unwrap()
}

fn open_session(facade: &A2aLocalFacade) -> SessionId {
    let created = call(facade, "session.create", json!({}));
    created["result"]["session_id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn session_close_stops_the_sessions_containers() {
    let fake = FakeRuntime::new();
    let ex = Arc::new(executor(&fake, CleanupMode::Never));
    let facade = facade_with(ex.clone());
    let session = open_session(&facade);
    let other = open_session(&facade);
    let tool = "my-org/test".parse().unwrap();
    let mine = ex
        .execute(&ToolInvocation::new(tool).in_session(session))
        .unwrap();
    let theirs = ex
        .execute(&ToolInvocation::new("my-org/test".parse().unwrap()).in_session(other))
        .unwrap();
    assert_eq!(ex.kept_containers().len(), 2);

    let closed = call(&facade, "session.close", json!({"session_id": session}));
    assert_eq!(closed["result"]["status"], "closed");
    assert_eq!(
        ex.kept_containers(),
        [(theirs.container.clone(), Some(other))]
    );
    assert!(fake.calls().contains(&FakeCall::Remove {
        name: mine.container
    }));
    assert_eq!(fake.live_containers(), [theirs.container]);
}

#[test]
fn a_failing_stop_is_published_and_never_fails_the_close() {
    let fake = FakeRuntime::new().with_failing_remove();
    let bus = Arc::new(InMemoryEventBus::new());
    let seen: Arc<Mutex<Vec<DomainEvent>>> = Arc::default();
    let sink = seen.clone();
    let _subscription = bus.subscribe(Arc::new(move |e: &DomainEvent| sink.lock().push(e.clone())));
    let ex = Arc::new(executor(&fake, CleanupMode::Never).with_event_bus(bus));
    let facade = facade_with(ex.clone());
    let session = open_session(&facade);
    let run = ex
        .execute(&ToolInvocation::new("my-org/test".parse().unwrap()).in_session(session))
        .unwrap();

    let closed = call(&facade, "session.close", json!({"session_id": session}));
    assert_eq!(closed["result"]["status"], "closed", "{closed}");
    let events = seen.lock();
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].event_type,
        DomainEventType::ContainerCleanupFailed
    );
    assert_eq!(events[0].data["container"], run.container.as_str());
    assert_eq!(events[0].data["session_id"], session.to_string());
    assert!(
        events[0].data["error"]
            .as_str()
            .unwrap()
            .contains("device busy")
    );
}
