//! A bubblewrap (`bwrap`) runtime: Linux namespaces, no daemon, no images to pull.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use parking_lot::RwLock;

use super::process::run_captured;
use super::runtime::{ContainerRuntime, ImageStatus, RunOutcome, RunSpec, RuntimeError};

/// The image name that means "the host's `/usr`, bound read-only".
pub const HOST_IMAGE: &str = "host";

/// `PATH` given to tools whose environment does not set one (the environment
/// is otherwise cleared).
pub const DEFAULT_SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Runs container tools under [bubblewrap](https://github.com/containers/bubblewrap).
///
/// An image is either [`HOST_IMAGE`] (the host's `/usr` and its `/bin`, `/lib`…
/// links, read-only, on an empty root) or a root filesystem directory, given
/// as an absolute path or registered under a name with [`Self::with_image`].
/// Every run unshares all namespaces (so there is no network), dies with its
/// parent, clears the environment and sets only the tool's variables, mounts a
/// fresh `/proc`, `/dev` and `/tmp`, and sees nothing of the host but its root
/// and its mounts. With a directory root, mount targets must already exist in it.
#[derive(Debug)]
pub struct BwrapRuntime {
    program: PathBuf,
    images: RwLock<BTreeMap<String, PathBuf>>,
}

impl Default for BwrapRuntime {
    fn default() -> Self {
        Self::new()
    }
}

enum Root {
    Host,
    Dir(PathBuf),
}

fn runtime_err(reason: impl Into<String>) -> RuntimeError {
    RuntimeError::Runtime {
        runtime: "bwrap".to_owned(),
        reason: reason.into(),
    }
}

impl BwrapRuntime {
    /// A runtime using `bwrap` from `PATH`.
    #[must_use]
    pub fn new() -> Self {
        Self::with_program("bwrap")
    }

    /// A runtime using the given `bwrap` executable.
    #[must_use]
    pub fn with_program(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            images: RwLock::new(BTreeMap::new()),
        }
    }

    /// Registers `name` as an image whose root filesystem is `root`.
    #[must_use]
    pub fn with_image(self, name: impl Into<String>, root: impl Into<PathBuf>) -> Self {
        self.images.write().insert(name.into(), root.into());
        self
    }

    /// Whether the `bwrap` program answers and can create a sandbox here.
    #[must_use]
    pub fn is_available(&self) -> bool {
        let mut cmd = Command::new(&self.program);
        cmd.args(host_root_args());
        cmd.args(["--unshare-all", "--die-with-parent", "--", "/usr/bin/true"]);
        run_captured(cmd, std::time::Duration::from_secs(10), 4096, || {})
            .is_ok_and(|o| o.exit_code == Some(0))
    }

    fn root(&self, image: &str) -> Option<Root> {
        if image == HOST_IMAGE {
            return Some(Root::Host);
        }
        let path = self
            .images
            .read()
            .get(image)
            .cloned()
            .or_else(|| Path::new(image).is_absolute().then(|| PathBuf::from(image)))?;
        path.is_dir().then_some(Root::Dir(path))
    }

    /// The complete `bwrap` argument list for `spec` (everything after the
    /// program name), or why it cannot be built.
    ///
    /// # Errors
    /// [`RuntimeError::ImageUnavailable`] for an unknown image.
    pub fn command_args(&self, spec: &RunSpec) -> Result<Vec<OsString>, RuntimeError> {
        let root = self
            .root(&spec.image)
            .ok_or_else(|| RuntimeError::ImageUnavailable {
                image: spec.image.clone(),
                reason: "not `host`, a registered image, or an existing root directory".to_owned(),
            })?;
        let mut args: Vec<OsString> = Vec::new();
        match root {
            Root::Host => args.extend(host_root_args()),
            Root::Dir(dir) => {
                args.push("--ro-bind".into());
                args.push(dir.into_os_string());
                args.push("/".into());
            }
        }
        for flag in [
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ] {
            args.push(flag.into());
        }
        for (flag, target) in [("--proc", "/proc"), ("--dev", "/dev"), ("--tmpfs", "/tmp")] {
            args.push(flag.into());
            args.push(target.into());
        }
        for mount in &spec.mounts {
            args.push(
                if mount.readonly {
                    "--ro-bind"
                } else {
                    "--bind"
                }
                .into(),
            );
            args.push(mount.source.clone().into_os_string());
            args.push(mount.target.clone().into());
        }
        if !spec.env.contains_key("PATH") {
            args.extend([
                "--setenv".into(),
                "PATH".into(),
                DEFAULT_SANDBOX_PATH.into(),
            ]);
        }
        for (name, value) in &spec.env {
            args.extend(["--setenv".into(), name.into(), value.into()]);
        }
        if let Some(dir) = &spec.workdir {
            args.extend(["--chdir".into(), dir.into()]);
        }
        args.push("--".into());
        args.extend(spec.command.iter().map(OsString::from));
        Ok(args)
    }
}

/// The host's `/usr` read-only, plus `/bin`, `/sbin`, `/lib*` as on the host
/// (links on merged-usr systems, read-only binds otherwise).
fn host_root_args() -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["--ro-bind".into(), "/usr".into(), "/usr".into()];
    for dir in ["/bin", "/sbin", "/lib", "/lib32", "/lib64"] {
        let path = Path::new(dir);
        if let Ok(target) = std::fs::read_link(path) {
            args.extend(["--symlink".into(), target.into_os_string(), dir.into()]);
        } else if path.is_dir() {
            args.extend(["--ro-bind".into(), dir.into(), dir.into()]);
        }
    }
    args
}

impl ContainerRuntime for BwrapRuntime {
    fn name(&self) -> &str {
        "bwrap"
    }

    fn ensure_image(&self, image: &str) -> Result<ImageStatus, RuntimeError> {
        match self.root(image) {
            Some(_) => Ok(ImageStatus::Cached),
            None => Err(RuntimeError::ImageUnavailable {
                image: image.to_owned(),
                reason: "bubblewrap does not pull images: use `host`, a registered image or \
                         an existing root directory"
                    .to_owned(),
            }),
        }
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutcome, RuntimeError> {
        if spec.command.is_empty() {
            return Err(runtime_err("empty command"));
        }
        if let Some(user) = &spec.user {
            return Err(RuntimeError::Unsupported {
                runtime: "bwrap".to_owned(),
                reason: format!("running as user `{user}` (tools run as the calling user)"),
            });
        }
        let mut cmd = Command::new(&self.program);
        cmd.args(self.command_args(spec)?);
        // bwrap kills the sandbox (a PID namespace) when it dies, so killing
        // bwrap on timeout leaves no process behind.
        run_captured(cmd, spec.timeout, spec.output_cap, || {}).map_err(|e| {
            runtime_err(format!(
                "cannot start `{}`: {e}",
                self.program.to_string_lossy()
            ))
        })
    }

    fn remove(&self, _name: &str) -> Result<(), RuntimeError> {
        // Nothing outlives the run: the sandbox is gone when bwrap exits.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::Mount;

    #[test]
    fn arguments_never_go_through_a_shell() {
        let rt = BwrapRuntime::new();
        let mut spec = RunSpec::new(
            "c",
            HOST_IMAGE,
            vec!["echo".into(), "$(rm -rf /); `x`".into()],
        );
        spec.mounts.push(Mount::new("/srv/a b", "/work", true));
        spec.mounts.push(Mount::new("/srv/out", "/out", false));
        spec.env.insert("FOO".into(), "x; y".into());
        spec.workdir = Some("/work".into());
        let args: Vec<String> = rt
            .command_args(&spec)
            .unwrap()
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        let joined = args.join("\u{1}");
        assert!(joined.contains("--ro-bind\u{1}/srv/a b\u{1}/work"));
        assert!(joined.contains("--bind\u{1}/srv/out\u{1}/out"));
        assert!(joined.contains("--setenv\u{1}FOO\u{1}x; y"));
        assert!(joined.contains("--setenv\u{1}PATH\u{1}/usr/local/bin:/usr/bin:/bin"));
        assert!(joined.contains("--chdir\u{1}/work"));
        assert!(joined.ends_with("--\u{1}echo\u{1}$(rm -rf /); `x`"));
        for flag in ["--unshare-all", "--die-with-parent", "--clearenv"] {
            assert!(args.iter().any(|a| a == flag), "{flag}");
        }
    }

    #[test]
    fn unknown_images_are_refused() {
        let rt = BwrapRuntime::new();
        assert!(rt.ensure_image("python:3.12-slim").is_err());
        assert!(rt.ensure_image("/definitely/not/here").is_err());
        assert_eq!(rt.ensure_image(HOST_IMAGE), Ok(ImageStatus::Cached));
    }
}
