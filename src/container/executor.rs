//! `ContainerToolExecutor`: the five steps of running a container tool.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};

use super::devcontainer::DevcontainerConfig;
use super::error::ContainerToolError;
use super::resource::ResourceRegistry;
use super::runtime::{
    ContainerRuntime, DEFAULT_OUTPUT_CAP, ImageBuild, ImageStatus, Mount, RunSpec, RuntimeError,
};
use super::spec::ContainerToolSpec;
use super::template::Template;
use crate::event_bus::{DomainEvent, DomainEventType, EventBus};
use crate::ids::SessionId;
use crate::session::SessionCloseHook;
use crate::tool::{ToolDefinition, ToolError, ToolInvocation, ToolName, ToolResult, ToolRuntime};

/// When the executor removes a container after its run.
///
/// A container that timed out is always removed, whatever the mode: it was
/// killed mid-run and keeping it only holds resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CleanupMode {
    /// After every run (the default).
    #[default]
    Always,
    /// Only after a run that exited 0; failed runs are kept for inspection.
    OnSuccess,
    /// Never: the host removes containers itself.
    Never,
}

impl fmt::Display for CleanupMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Always => "always",
            Self::OnSuccess => "on_success",
            Self::Never => "never",
        })
    }
}

/// A string that is not a [`CleanupMode`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown cleanup mode `{0}`; expected always, on_success or never")]
pub struct CleanupModeError(pub String);

impl FromStr for CleanupMode {
    type Err = CleanupModeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "always" => Ok(Self::Always),
            "on_success" => Ok(Self::OnSuccess),
            "never" => Ok(Self::Never),
            other => Err(CleanupModeError(other.to_owned())),
        }
    }
}

/// The five steps of a container tool execution, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExecutionStep {
    /// Pull the image if not cached.
    ImageResolution,
    /// Map resource paths to container mount points.
    MountBinding,
    /// Run the container with the command and arguments.
    Execution,
    /// Turn the captured streams into the [`ToolResult`].
    OutputCapture,
    /// Remove the container (per [`CleanupMode`]).
    Cleanup,
}

impl fmt::Display for ExecutionStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ImageResolution => "image resolution",
            Self::MountBinding => "mount binding",
            Self::Execution => "execution",
            Self::OutputCapture => "output capture",
            Self::Cleanup => "cleanup",
        })
    }
}

/// Settings of a [`ContainerToolExecutor`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ExecutorConfig {
    /// When containers are removed.
    pub cleanup: CleanupMode,
    /// Most containers run at once by [`ContainerToolExecutor::execute_all`] (at least 1).
    pub max_parallel: usize,
    /// Bytes of output kept per stream.
    pub output_cap: usize,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        Self {
            cleanup: CleanupMode::Always,
            max_parallel: 4,
            output_cap: DEFAULT_OUTPUT_CAP,
        }
    }
}

impl ExecutorConfig {
    /// Sets the cleanup mode.
    #[must_use]
    pub const fn cleanup(mut self, cleanup: CleanupMode) -> Self {
        self.cleanup = cleanup;
        self
    }

    /// Sets the parallelism limit (0 is treated as 1).
    #[must_use]
    pub const fn max_parallel(mut self, n: usize) -> Self {
        self.max_parallel = n;
        self
    }

    /// Sets the output cap per stream.
    #[must_use]
    pub const fn output_cap(mut self, bytes: usize) -> Self {
        self.output_cap = bytes;
        self
    }
}

/// The record of one container tool execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Execution {
    /// What the tool produced.
    pub result: ToolResult,
    /// The container's name.
    pub container: String,
    /// Whether the image was cached or pulled.
    pub image: ImageStatus,
    /// The steps performed, in order.
    pub steps: Vec<ExecutionStep>,
    /// Whether the container was removed.
    pub removed: bool,
    /// Why removal failed, when it did (the tool's result stands regardless).
    pub cleanup_error: Option<String>,
}

/// Runs container tools on a [`ContainerRuntime`], with mount sources
/// resolved through a [`ResourceRegistry`].
///
/// ```
/// use std::sync::Arc;
/// use cleveragents::{
///     ContainerToolExecutor, ContainerToolSpec, FakeRuntime, InMemoryResourceRegistry,
///     ToolInvocation,
/// };
///
/// let resources = Arc::new(InMemoryResourceRegistry::new());
/// resources.insert("git_dir", "/srv/checkout");
/// let runtime = Arc::new(FakeRuntime::new());
/// let executor = ContainerToolExecutor::new(runtime.clone(), resources);
/// executor.register(ContainerToolSpec::from_yaml_str(r#"
/// name: my-org/lint
/// type: container-tool
/// image: "python:3.12-slim"
/// command: ["python", "-m", "pylint"]
/// mounts: [{ source: "{{resource.git_dir.path}}", target: /workspace }]
/// "#).unwrap()).unwrap();
///
/// let call = ToolInvocation::new("my-org/lint".parse().unwrap()).arg("src");
/// let run = executor.execute(&call).unwrap();
/// assert_eq!(run.result.stdout, "python -m pylint src\n");
/// assert!(run.removed);
/// assert!(runtime.live_containers().is_empty());
/// ```
pub struct ContainerToolExecutor {
    runtime: Arc<dyn ContainerRuntime>,
    resources: Arc<dyn ResourceRegistry>,
    tools: RwLock<BTreeMap<ToolName, Arc<ContainerToolSpec>>>,
    config: ExecutorConfig,
    devcontainer: RwLock<Option<Arc<Devcontainer>>>,
    /// Containers started and not (yet) removed, with the session they belong to.
    live: Mutex<BTreeMap<String, Option<SessionId>>>,
    events: Option<Arc<dyn EventBus>>,
}

/// A devcontainer every tool runs in (`use_for_tools: true`).
#[derive(Debug)]
struct Devcontainer {
    config: DevcontainerConfig,
    /// The folder holding `devcontainer.json` (build paths are relative to it).
    dir: std::path::PathBuf,
    /// The tag of the image built from `build`, once built.
    built: Mutex<Option<String>>,
}

impl Devcontainer {
    fn tag(&self) -> String {
        let name: String = self
            .config
            .name
            .as_deref()
            .unwrap_or("project")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        format!("cleveragents-devcontainer-{}", name.trim_matches('-'))
    }
}

impl fmt::Debug for ContainerToolExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContainerToolExecutor")
            .field("runtime", &self.runtime.name())
            .field("tools", &self.tools.read().len())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn container_name() -> String {
    format!(
        "cleveragents-{}",
        ulid::Ulid::new().to_string().to_ascii_lowercase()
    )
}

impl ContainerToolExecutor {
    /// An executor with the default [`ExecutorConfig`].
    #[must_use]
    pub fn new(runtime: Arc<dyn ContainerRuntime>, resources: Arc<dyn ResourceRegistry>) -> Self {
        Self {
            runtime,
            resources,
            tools: RwLock::new(BTreeMap::new()),
            config: ExecutorConfig::default(),
            devcontainer: RwLock::new(None),
            live: Mutex::new(BTreeMap::new()),
            events: None,
        }
    }

    /// Publishes a [`DomainEventType::ContainerCleanupFailed`] event on `bus`
    /// whenever a container cannot be stopped at session close.
    #[must_use]
    pub fn with_event_bus(mut self, bus: Arc<dyn EventBus>) -> Self {
        self.events = Some(bus);
        self
    }

    /// Runs every tool inside the devcontainer described by `config` (the
    /// `use_for_tools: true` of a `devcontainer-instance` resource):
    /// its image (or the image built from its `build` block, relative to
    /// `devcontainer_dir`), its mounts before the tool's, its `containerEnv`
    /// under the tool's environment, its `workspaceFolder` as the default
    /// working directory and its `remoteUser`.
    pub fn use_devcontainer(
        &self,
        config: DevcontainerConfig,
        devcontainer_dir: impl Into<std::path::PathBuf>,
    ) {
        *self.devcontainer.write() = Some(Arc::new(Devcontainer {
            config,
            dir: devcontainer_dir.into(),
            built: Mutex::new(None),
        }));
    }

    /// Applies a `devcontainer-instance` resource of the project rooted at
    /// `project_root`: loads its `devcontainer.json` and, when the resource
    /// says `use_for_tools: true`, runs every tool inside it. Returns the
    /// loaded configuration (its `unsupported_keys` are worth reporting).
    ///
    /// # Errors
    /// [`ContainerToolError`] when the resource is invalid or the file cannot
    /// be read or parsed; the executor is then unchanged.
    pub fn apply_devcontainer_resource(
        &self,
        resource: &super::devcontainer::DevcontainerResource,
        project_root: &std::path::Path,
    ) -> Result<DevcontainerConfig, ContainerToolError> {
        resource.validate()?;
        let config = resource.load(project_root)?;
        if resource.use_for_tools {
            let file = project_root.join(&resource.devcontainer_path);
            let dir = file
                .parent()
                .map_or_else(|| project_root.to_path_buf(), std::path::Path::to_path_buf);
            self.use_devcontainer(config.clone(), dir);
        }
        Ok(config)
    }

    /// Stops running tools in a devcontainer.
    pub fn clear_devcontainer(&self) {
        *self.devcontainer.write() = None;
    }

    /// Containers started and not removed (kept by the cleanup mode, or still
    /// running), with their session.
    #[must_use]
    pub fn kept_containers(&self) -> Vec<(String, Option<SessionId>)> {
        self.live
            .lock()
            .iter()
            .map(|(name, session)| (name.clone(), *session))
            .collect()
    }

    /// Removes, best-effort, every container of `session` still known to the
    /// executor. Returns the ones that could not be removed, with why; each
    /// failure is also published as a `CONTAINER_CLEANUP_FAILED` event when
    /// an event bus is attached.
    pub fn stop_session(&self, session: SessionId) -> Vec<(String, RuntimeError)> {
        let names: Vec<String> = self
            .live
            .lock()
            .iter()
            .filter(|(_, s)| **s == Some(session))
            .map(|(name, _)| name.clone())
            .collect();
        let mut failures = Vec::new();
        // The runtime is host code: it runs with no lock held.
        for name in names {
            match self.runtime.remove(&name) {
                Ok(()) => {
                    self.live.lock().remove(&name);
                }
                Err(e) => {
                    if let Some(bus) = &self.events {
                        let mut data = serde_json::Map::new();
                        data.insert("session_id".into(), session.to_string().into());
                        data.insert("container".into(), name.clone().into());
                        data.insert("runtime".into(), self.runtime.name().into());
                        data.insert("error".into(), e.to_string().into());
                        bus.publish(&DomainEvent::new(
                            DomainEventType::ContainerCleanupFailed,
                            None,
                            data,
                        ));
                    }
                    failures.push((name, e));
                }
            }
        }
        failures
    }

    fn remove_container(&self, name: &str) -> Result<(), RuntimeError> {
        self.runtime.remove(name)?;
        self.live.lock().remove(name);
        Ok(())
    }

    fn resolve_image(
        &self,
        spec: &ContainerToolSpec,
        dc: Option<&Devcontainer>,
    ) -> Result<(String, ImageStatus), RuntimeError> {
        let Some(dc) = dc else {
            return Ok((spec.image.clone(), self.runtime.ensure_image(&spec.image)?));
        };
        if let Some(image) = &dc.config.image {
            return Ok((image.clone(), self.runtime.ensure_image(image)?));
        }
        if let Some(tag) = dc.built.lock().clone() {
            return Ok((tag, ImageStatus::Cached));
        }
        let build = dc.config.build.clone().unwrap_or_default();
        let image_build = ImageBuild {
            tag: dc.tag(),
            context: dc.dir.join(build.context.as_deref().unwrap_or(".")),
            dockerfile: build.dockerfile.as_ref().map(|f| dc.dir.join(f)),
            args: build.args,
            target: build.target,
        };
        // Two first calls racing may both build; builds are idempotent, and
        // holding a lock across host code is worse.
        let status = self.runtime.build_image(&image_build)?;
        *dc.built.lock() = Some(image_build.tag.clone());
        Ok((image_build.tag, status))
    }

    /// Replaces the configuration.
    #[must_use]
    pub const fn with_config(mut self, config: ExecutorConfig) -> Self {
        self.config = config;
        self
    }

    /// The configuration.
    #[must_use]
    pub const fn config(&self) -> &ExecutorConfig {
        &self.config
    }

    /// Registers a tool after validating it.
    ///
    /// # Errors
    /// [`ContainerToolError::Invalid`] for an invalid spec,
    /// [`ContainerToolError::Duplicate`] when the name is taken.
    pub fn register(&self, spec: ContainerToolSpec) -> Result<(), ContainerToolError> {
        spec.validate()?;
        let mut tools = self.tools.write();
        if tools.contains_key(&spec.name) {
            return Err(ContainerToolError::Duplicate(spec.name));
        }
        tools.insert(spec.name.clone(), Arc::new(spec));
        Ok(())
    }

    /// The registered tool named `name`.
    #[must_use]
    pub fn tool(&self, name: &ToolName) -> Option<Arc<ContainerToolSpec>> {
        self.tools.read().get(name).cloned()
    }

    /// The definitions of every registered tool, by name.
    #[must_use]
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.read().values().map(|s| s.definition()).collect()
    }

    /// Runs one call through the five steps.
    ///
    /// # Errors
    /// [`ContainerToolError::UnknownTool`], a mount that cannot be bound, or
    /// the runtime failing at a step ([`ContainerToolError::Runtime`] names it).
    /// A tool that runs and fails, or times out, is an `Ok` with that result.
    pub fn execute(&self, call: &ToolInvocation) -> Result<Execution, ContainerToolError> {
        let spec = self
            .tool(&call.tool)
            .ok_or_else(|| ContainerToolError::UnknownTool(call.tool.clone()))?;
        let runtime_err = |step, source: RuntimeError| ContainerToolError::Runtime {
            tool: spec.name.clone(),
            step,
            source,
        };
        // A bad call is refused before anything is pulled or built.
        if let Some((i, _)) = call.args.iter().enumerate().find(|(_, a)| a.contains('\0')) {
            return Err(ContainerToolError::Invalid {
                field: format!("args[{i}]"),
                message: "contains a NUL byte".to_owned(),
            });
        }
        let mut steps = Vec::with_capacity(5);
        let dc = self.devcontainer.read().clone();

        steps.push(ExecutionStep::ImageResolution);
        let (image_name, image) = self
            .resolve_image(&spec, dc.as_deref())
            .map_err(|e| runtime_err(ExecutionStep::ImageResolution, e))?;

        steps.push(ExecutionStep::MountBinding);
        let mut mounts = dc
            .as_ref()
            .map(|d| d.config.mounts.clone())
            .unwrap_or_default();
        for (i, m) in spec.mounts.iter().enumerate() {
            let field = format!("mounts[{i}].source");
            let template =
                Template::parse(&m.source).map_err(|message| ContainerToolError::Invalid {
                    field: field.clone(),
                    message,
                })?;
            let source = template.resolve(&field, self.resources.as_ref())?;
            mounts.push(Mount::new(source, m.target.clone(), m.readonly));
        }
        let mut command = spec.command.clone();
        command.extend(call.args.iter().cloned());
        let mut env = dc
            .as_ref()
            .map(|d| d.config.container_env.clone())
            .unwrap_or_default();
        env.extend(spec.environment.clone());
        let run_spec = RunSpec {
            name: container_name(),
            image: image_name,
            command,
            mounts,
            env,
            workdir: spec
                .workdir
                .clone()
                .or_else(|| dc.as_ref().and_then(|d| d.config.workspace_folder.clone())),
            user: dc.as_ref().and_then(|d| d.config.remote_user.clone()),
            timeout: Duration::from_secs(spec.timeout),
            output_cap: self.config.output_cap,
        };

        steps.push(ExecutionStep::Execution);
        self.live
            .lock()
            .insert(run_spec.name.clone(), call.session_id);
        let started = Instant::now();
        let outcome = match self.runtime.run(&run_spec) {
            Ok(outcome) => outcome,
            Err(e) => {
                // The runtime may have created the container before failing.
                if self.config.cleanup != CleanupMode::Never {
                    let _ = self.remove_container(&run_spec.name);
                }
                return Err(runtime_err(ExecutionStep::Execution, e));
            }
        };
        let duration = started.elapsed();

        steps.push(ExecutionStep::OutputCapture);
        let result = ToolResult {
            exit_code: outcome.exit_code,
            stdout: String::from_utf8_lossy(&outcome.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&outcome.stderr).into_owned(),
            duration,
            truncated: outcome.truncated,
            timed_out: outcome.timed_out,
        };

        let remove = result.timed_out
            || match self.config.cleanup {
                CleanupMode::Always => true,
                CleanupMode::OnSuccess => result.succeeded(),
                CleanupMode::Never => false,
            };
        let (removed, cleanup_error) = if remove {
            steps.push(ExecutionStep::Cleanup);
            match self.remove_container(&run_spec.name) {
                Ok(()) => (true, None),
                Err(e) => (false, Some(e.to_string())),
            }
        } else {
            (false, None)
        };

        Ok(Execution {
            result,
            container: run_spec.name,
            image,
            steps,
            removed,
            cleanup_error,
        })
    }

    /// Runs independent calls in parallel, at most
    /// [`ExecutorConfig::max_parallel`] at a time, on scoped OS threads.
    /// Results come back in the order of `calls`.
    #[must_use]
    pub fn execute_all(
        &self,
        calls: &[ToolInvocation],
    ) -> Vec<Result<Execution, ContainerToolError>> {
        let workers = self.config.max_parallel.max(1).min(calls.len());
        if workers <= 1 {
            return calls.iter().map(|c| self.execute(c)).collect();
        }
        let next = AtomicUsize::new(0);
        let mut slots: Vec<Option<Result<Execution, ContainerToolError>>> =
            std::iter::repeat_with(|| None).take(calls.len()).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(call) = calls.get(i) else { break };
                            done.push((i, self.execute(call)));
                        }
                        done
                    })
                })
                .collect();
            for handle in handles {
                // A worker only panics if a runtime implementation panicked;
                // its calls then stay unanswered and are reported below.
                if let Ok(done) = handle.join() {
                    for (i, r) in done {
                        if let Some(slot) = slots.get_mut(i) {
                            *slot = Some(r);
                        }
                    }
                }
            }
        });
        slots
            .into_iter()
            .zip(calls)
            .map(|(slot, call)| {
                slot.unwrap_or_else(|| {
                    Err(ContainerToolError::Runtime {
                        tool: call.tool.clone(),
                        step: ExecutionStep::Execution,
                        source: RuntimeError::Runtime {
                            runtime: self.runtime.name().to_owned(),
                            reason: "the runtime panicked".to_owned(),
                        },
                    })
                })
            })
            .collect()
    }
}

impl ToolRuntime for ContainerToolExecutor {
    fn run_tool(&self, call: &ToolInvocation) -> Result<ToolResult, ToolError> {
        match self.execute(call) {
            Ok(execution) => Ok(execution.result),
            Err(ContainerToolError::UnknownTool(name)) => Err(ToolError::UnknownTool(name)),
            Err(e) => Err(ToolError::Failed {
                tool: call.tool.clone(),
                reason: e.to_string(),
            }),
        }
    }
}

impl SessionCloseHook for ContainerToolExecutor {
    fn session_closed(&self, session: SessionId) {
        // Failures are published as events by `stop_session`; a close never fails.
        let _ = self.stop_session(session);
    }
}
