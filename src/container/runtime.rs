//! The container runtime port: what the executor needs from docker,
//! podman, bubblewrap or a fake.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Default cap on captured output, per stream, in bytes (1 MiB).
pub const DEFAULT_OUTPUT_CAP: usize = 1024 * 1024;

/// A bind mount with its host path already resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Mount {
    /// Absolute host path.
    pub source: PathBuf,
    /// Absolute path inside the container.
    pub target: String,
    /// Bound read-only.
    pub readonly: bool,
}

impl Mount {
    /// A mount of `source` at `target`.
    #[must_use]
    pub fn new(source: impl Into<PathBuf>, target: impl Into<String>, readonly: bool) -> Self {
        Self {
            source: source.into(),
            target: target.into(),
            readonly,
        }
    }
}

/// Everything a runtime needs to run one container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunSpec {
    /// Unique container name (`cleveragents-<ulid>`), used to kill and remove it.
    pub name: String,
    /// The image.
    pub image: String,
    /// Program and arguments, passed as argv (never through a shell).
    pub command: Vec<String>,
    /// Bind mounts.
    pub mounts: Vec<Mount>,
    /// The complete environment of the tool.
    pub env: BTreeMap<String, String>,
    /// Working directory inside the container.
    pub workdir: Option<String>,
    /// The user to run as (a devcontainer's `remoteUser`); `None` keeps the image's.
    #[serde(default)]
    pub user: Option<String>,
    /// Wall-clock limit; the runtime kills the container when it is reached.
    pub timeout: Duration,
    /// Bytes kept per stream; the rest is read and discarded.
    pub output_cap: usize,
}

impl RunSpec {
    /// A spec with no mounts, an empty environment, a 60 s timeout and the
    /// default output cap.
    #[must_use]
    pub fn new(name: impl Into<String>, image: impl Into<String>, command: Vec<String>) -> Self {
        Self {
            name: name.into(),
            image: image.into(),
            command,
            mounts: Vec::new(),
            env: BTreeMap::new(),
            workdir: None,
            user: None,
            timeout: Duration::from_secs(60),
            output_cap: DEFAULT_OUTPUT_CAP,
        }
    }
}

/// What running a container produced.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunOutcome {
    /// Exit status; `None` when killed by a signal.
    pub exit_code: Option<i32>,
    /// Captured standard output (at most the cap).
    pub stdout: Vec<u8>,
    /// Captured standard error (at most the cap).
    pub stderr: Vec<u8>,
    /// Either stream went over the cap.
    pub truncated: bool,
    /// The timeout was reached and the container killed.
    pub timed_out: bool,
}

/// An image to build from a Dockerfile (a devcontainer's `build` block).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ImageBuild {
    /// The tag to give the image.
    pub tag: String,
    /// The build context directory.
    pub context: PathBuf,
    /// The Dockerfile; `None` means `Dockerfile` in the context.
    pub dockerfile: Option<PathBuf>,
    /// Build arguments.
    pub args: BTreeMap<String, String>,
    /// Target stage.
    pub target: Option<String>,
}

/// Whether an image had to be fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ImageStatus {
    /// Already available locally.
    Cached,
    /// Pulled (or built) just now.
    Pulled,
}

/// A container runtime that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// The image does not exist and could not be fetched.
    #[error("image `{image}` unavailable: {reason}")]
    ImageUnavailable {
        /// The image.
        image: String,
        /// Why.
        reason: String,
    },
    /// The runtime program could not be started or misbehaved.
    #[error("runtime `{runtime}`: {reason}")]
    Runtime {
        /// The runtime (`docker`, `bwrap`, …).
        runtime: String,
        /// What went wrong.
        reason: String,
    },
    /// The spec asks for something this runtime cannot do.
    #[error("unsupported by `{runtime}`: {reason}")]
    Unsupported {
        /// The runtime.
        runtime: String,
        /// What is unsupported.
        reason: String,
    },
}

/// The port a container runtime implements.
///
/// Implementations must enforce `spec.timeout` themselves (kill, then report
/// `timed_out`), cap captured output at `spec.output_cap` per stream while
/// still draining the rest, and never pass arguments or environment through a
/// shell. `remove` must be idempotent: removing a container that is already
/// gone succeeds.
pub trait ContainerRuntime: Send + Sync + fmt::Debug {
    /// A short name for messages and events (`docker`, `bwrap`, `fake`).
    fn name(&self) -> &str;

    /// Makes `image` available, pulling it when not cached.
    ///
    /// # Errors
    /// [`RuntimeError::ImageUnavailable`] when it cannot be had.
    fn ensure_image(&self, image: &str) -> Result<ImageStatus, RuntimeError>;

    /// Builds an image (used for devcontainers declared with `build`).
    /// Runtimes that cannot build keep this default, which refuses.
    ///
    /// # Errors
    /// [`RuntimeError::Unsupported`] by default; the build's failure otherwise.
    fn build_image(&self, build: &ImageBuild) -> Result<ImageStatus, RuntimeError> {
        Err(RuntimeError::Unsupported {
            runtime: self.name().to_owned(),
            reason: format!("building images (`{}`)", build.tag),
        })
    }

    /// Runs a container to completion or to its timeout.
    ///
    /// # Errors
    /// [`RuntimeError`] when the container could not be run at all.
    fn run(&self, spec: &RunSpec) -> Result<RunOutcome, RuntimeError>;

    /// Removes the container named `name` (stopping it first if needed).
    ///
    /// # Errors
    /// [`RuntimeError`] when it exists and could not be removed.
    fn remove(&self, name: &str) -> Result<(), RuntimeError>;
}
