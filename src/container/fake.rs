//! An in-memory container runtime that records every call.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::runtime::{
    ContainerRuntime, ImageBuild, ImageStatus, RunOutcome, RunSpec, RuntimeError,
};

/// One call received by a [`FakeRuntime`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
#[non_exhaustive]
pub enum FakeCall {
    /// `ensure_image(image)`.
    EnsureImage {
        /// The image.
        image: String,
    },
    /// `build_image(build)`.
    BuildImage {
        /// The build as received.
        build: ImageBuild,
    },
    /// `run(spec)`.
    Run {
        /// The spec as received.
        spec: RunSpec,
    },
    /// `remove(name)`.
    Remove {
        /// The container.
        name: String,
    },
}

/// How a fake container behaves when run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct FakeRun {
    /// Exit status reported.
    pub exit_code: i32,
    /// Bytes written to standard output.
    pub stdout: Vec<u8>,
    /// Bytes written to standard error.
    pub stderr: Vec<u8>,
    /// How long the "process" runs; past the spec's timeout it is killed.
    pub duration: Duration,
}

impl FakeRun {
    /// Exits with `code` after printing `stdout`.
    #[must_use]
    pub fn exit(code: i32, stdout: impl Into<Vec<u8>>) -> Self {
        Self {
            exit_code: code,
            stdout: stdout.into(),
            ..Self::default()
        }
    }

    /// Runs for `duration` first.
    #[must_use]
    pub const fn taking(mut self, duration: Duration) -> Self {
        self.duration = duration;
        self
    }
}

type Behaviour = Arc<dyn Fn(&RunSpec) -> FakeRun + Send + Sync>;

#[derive(Debug, Default)]
struct State {
    calls: Vec<FakeCall>,
    cached: BTreeSet<String>,
    missing: BTreeSet<String>,
    live: BTreeSet<String>,
    failing_remove: bool,
}

/// A [`ContainerRuntime`] for tests and examples: nothing is executed; every
/// call is recorded, images are "pulled" on first use, runs follow a
/// behaviour function (default: exit 0 echoing the command line), timeouts and
/// the output cap are honoured like a real runtime.
///
/// ```
/// use cleveragents::{ContainerRuntime, FakeRuntime, RunSpec};
/// let fake = FakeRuntime::new();
/// let out = fake.run(&RunSpec::new("c1", "alpine", vec!["echo".into(), "hi".into()])).unwrap();
/// assert_eq!(out.stdout, b"echo hi\n");
/// assert_eq!(fake.calls().len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct FakeRuntime {
    state: Arc<Mutex<State>>,
    behaviour: Option<Behaviour>,
}

impl fmt::Debug for FakeRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeRuntime")
            .field("calls", &self.state.lock().calls.len())
            .field("custom_behaviour", &self.behaviour.is_some())
            .finish()
    }
}

impl FakeRuntime {
    /// A fake with no cached images and the default behaviour.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `behaviour` to decide what each run does.
    #[must_use]
    pub fn with_behaviour(
        mut self,
        behaviour: impl Fn(&RunSpec) -> FakeRun + Send + Sync + 'static,
    ) -> Self {
        self.behaviour = Some(Arc::new(behaviour));
        self
    }

    /// Marks `image` as already cached.
    #[must_use]
    pub fn with_cached_image(self, image: impl Into<String>) -> Self {
        self.state.lock().cached.insert(image.into());
        self
    }

    /// Makes `image` impossible to pull.
    #[must_use]
    pub fn with_missing_image(self, image: impl Into<String>) -> Self {
        self.state.lock().missing.insert(image.into());
        self
    }

    /// Makes every `remove` fail (the container stays live).
    #[must_use]
    pub fn with_failing_remove(self) -> Self {
        self.state.lock().failing_remove = true;
        self
    }

    /// Every call so far, in order.
    #[must_use]
    pub fn calls(&self) -> Vec<FakeCall> {
        self.state.lock().calls.clone()
    }

    /// Containers run and not yet removed.
    #[must_use]
    pub fn live_containers(&self) -> Vec<String> {
        self.state.lock().live.iter().cloned().collect()
    }
}

fn cap(mut bytes: Vec<u8>, cap: usize) -> (Vec<u8>, bool) {
    let over = bytes.len() > cap;
    bytes.truncate(cap);
    (bytes, over)
}

impl ContainerRuntime for FakeRuntime {
    fn name(&self) -> &str {
        "fake"
    }

    fn ensure_image(&self, image: &str) -> Result<ImageStatus, RuntimeError> {
        let mut state = self.state.lock();
        state.calls.push(FakeCall::EnsureImage {
            image: image.to_owned(),
        });
        if state.missing.contains(image) {
            return Err(RuntimeError::ImageUnavailable {
                image: image.to_owned(),
                reason: "not found in any registry".to_owned(),
            });
        }
        Ok(if state.cached.insert(image.to_owned()) {
            ImageStatus::Pulled
        } else {
            ImageStatus::Cached
        })
    }

    fn build_image(&self, build: &ImageBuild) -> Result<ImageStatus, RuntimeError> {
        let mut state = self.state.lock();
        state.calls.push(FakeCall::BuildImage {
            build: build.clone(),
        });
        state.cached.insert(build.tag.clone());
        Ok(ImageStatus::Pulled)
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutcome, RuntimeError> {
        {
            let mut state = self.state.lock();
            state.calls.push(FakeCall::Run { spec: spec.clone() });
            state.live.insert(spec.name.clone());
        }
        // The behaviour is user code: it runs outside the lock.
        let run = match &self.behaviour {
            Some(b) => b(spec),
            None => FakeRun::exit(0, format!("{}\n", spec.command.join(" "))),
        };
        let timed_out = run.duration > spec.timeout;
        std::thread::sleep(run.duration.min(spec.timeout));
        let (stdout, t1) = cap(run.stdout, spec.output_cap);
        let (stderr, t2) = cap(run.stderr, spec.output_cap);
        Ok(RunOutcome {
            exit_code: (!timed_out).then_some(run.exit_code),
            stdout,
            stderr,
            truncated: t1 || t2,
            timed_out,
        })
    }

    fn remove(&self, name: &str) -> Result<(), RuntimeError> {
        let mut state = self.state.lock();
        state.calls.push(FakeCall::Remove {
            name: name.to_owned(),
        });
        if state.failing_remove {
            return Err(RuntimeError::Runtime {
                runtime: "fake".to_owned(),
                reason: format!("cannot remove `{name}`: device busy"),
            });
        }
        state.live.remove(name);
        Ok(())
    }
}
