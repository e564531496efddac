//! Container tools: YAML definitions, the container runtime port, the
//! executor performing the five steps, and the runtimes that ship with the crate.

#[cfg(feature = "bwrap")]
mod bwrap;
mod devcontainer;
#[cfg(feature = "docker")]
mod docker;
mod error;
mod executor;
mod fake;
#[cfg(any(feature = "bwrap", feature = "docker"))]
mod process;
mod resource;
mod runtime;
mod spec;
mod template;

#[cfg(feature = "bwrap")]
pub use bwrap::{BwrapRuntime, DEFAULT_SANDBOX_PATH, HOST_IMAGE};
pub use devcontainer::{
    DEVCONTAINER_RESOURCE_TYPE, DevcontainerBuild, DevcontainerConfig, DevcontainerResource,
    SUPPORTED_DEVCONTAINER_KEYS,
};
#[cfg(feature = "docker")]
pub use docker::DockerCliRuntime;
pub use error::ContainerToolError;
pub use executor::{
    CleanupMode, CleanupModeError, ContainerToolExecutor, Execution, ExecutionStep, ExecutorConfig,
};
pub use fake::{FakeCall, FakeRun, FakeRuntime};
pub use resource::{InMemoryResourceRegistry, ResourceError, ResourceRegistry};
pub use runtime::{
    ContainerRuntime, DEFAULT_OUTPUT_CAP, ImageBuild, ImageStatus, Mount, RunOutcome, RunSpec,
    RuntimeError,
};
pub use spec::{
    CONTAINER_TOOL_TYPE, ContainerToolSpec, DEFAULT_TIMEOUT_SECS, MAX_TIMEOUT_SECS, MountSpec,
};
