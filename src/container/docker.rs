//! A docker-compatible CLI runtime (`docker` or `podman`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::process::run_captured;
use super::runtime::{
    ContainerRuntime, ImageBuild, ImageStatus, RunOutcome, RunSpec, RuntimeError,
};

/// Runs container tools with the `docker` (or `podman`) command line.
///
/// Containers run with no network, no TTY, stdin closed, and are started
/// under a unique name so a timeout can `kill` them and cleanup can `rm` them.
/// Nothing passes through a shell: every argument and variable is one argv entry.
#[derive(Debug, Clone)]
pub struct DockerCliRuntime {
    program: PathBuf,
    network: String,
}

fn runtime_err(program: &std::path::Path, reason: impl Into<String>) -> RuntimeError {
    RuntimeError::Runtime {
        runtime: program.to_string_lossy().into_owned(),
        reason: reason.into(),
    }
}

impl DockerCliRuntime {
    /// `docker` from `PATH`.
    #[must_use]
    pub fn docker() -> Self {
        Self::with_program("docker")
    }

    /// `podman` from `PATH`.
    #[must_use]
    pub fn podman() -> Self {
        Self::with_program("podman")
    }

    /// The given docker-compatible executable.
    #[must_use]
    pub fn with_program(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            network: "none".to_owned(),
        }
    }

    /// Uses `network` instead of `none` (for tools that must reach a service).
    #[must_use]
    pub fn with_network(mut self, network: impl Into<String>) -> Self {
        self.network = network.into();
        self
    }

    /// Whether a daemon answers (`<program> version` succeeds within 10 s).
    #[must_use]
    pub fn is_available(&self) -> bool {
        let mut cmd = Command::new(&self.program);
        cmd.args(["version", "--format", "{{.Server.Version}}"]);
        run_captured(cmd, Duration::from_secs(10), 4096, || {})
            .is_ok_and(|o| o.exit_code == Some(0))
    }

    /// The `run` argument list for `spec` (everything after the program name).
    ///
    /// # Errors
    /// [`RuntimeError::Unsupported`] for a mount path containing `,` (which the
    /// `--mount` syntax cannot express) or an image starting with `-`.
    pub fn run_args(&self, spec: &RunSpec) -> Result<Vec<OsString>, RuntimeError> {
        let unsupported = |reason: String| RuntimeError::Unsupported {
            runtime: self.program.to_string_lossy().into_owned(),
            reason,
        };
        if spec.image.starts_with('-') {
            return Err(unsupported(format!(
                "image `{}` starts with `-`",
                spec.image
            )));
        }
        let mut args: Vec<OsString> = vec![
            "run".into(),
            "--name".into(),
            spec.name.clone().into(),
            "--network".into(),
            self.network.clone().into(),
            "--pull".into(),
            "never".into(),
            "--init".into(),
        ];
        for mount in &spec.mounts {
            let source = mount.source.to_string_lossy();
            if source.contains(',') || mount.target.contains(',') {
                return Err(unsupported(format!(
                    "mount `{source}` → `{}` contains `,`",
                    mount.target
                )));
            }
            let mut value = format!("type=bind,source={source},target={}", mount.target);
            if mount.readonly {
                value.push_str(",readonly");
            }
            args.push("--mount".into());
            args.push(value.into());
        }
        for (name, value) in &spec.env {
            args.push("--env".into());
            args.push(format!("{name}={value}").into());
        }
        if let Some(dir) = &spec.workdir {
            args.push("--workdir".into());
            args.push(dir.into());
        }
        if let Some(user) = &spec.user {
            args.push("--user".into());
            args.push(user.into());
        }
        args.push(spec.image.clone().into());
        args.extend(spec.command.iter().map(OsString::from));
        Ok(args)
    }

    fn quick(&self, args: &[&str]) -> Result<std::process::Output, RuntimeError> {
        Command::new(&self.program)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| runtime_err(&self.program, format!("cannot start: {e}")))
    }
}

impl ContainerRuntime for DockerCliRuntime {
    fn name(&self) -> &str {
        "docker"
    }

    fn ensure_image(&self, image: &str) -> Result<ImageStatus, RuntimeError> {
        if image.starts_with('-') {
            return Err(RuntimeError::ImageUnavailable {
                image: image.to_owned(),
                reason: "an image cannot start with `-`".to_owned(),
            });
        }
        if self.quick(&["image", "inspect", image])?.status.success() {
            return Ok(ImageStatus::Cached);
        }
        let pull = self.quick(&["pull", image])?;
        if pull.status.success() {
            Ok(ImageStatus::Pulled)
        } else {
            Err(RuntimeError::ImageUnavailable {
                image: image.to_owned(),
                reason: String::from_utf8_lossy(&pull.stderr).trim().to_owned(),
            })
        }
    }

    fn build_image(&self, build: &ImageBuild) -> Result<ImageStatus, RuntimeError> {
        let mut cmd = Command::new(&self.program);
        cmd.args(build_args(build));
        // Builds are slow but bounded: an hour covers any sane devcontainer.
        let out = run_captured(cmd, Duration::from_secs(3600), 64 * 1024, || {})
            .map_err(|e| runtime_err(&self.program, format!("cannot start: {e}")))?;
        if out.exit_code == Some(0) {
            Ok(ImageStatus::Pulled)
        } else {
            Err(RuntimeError::ImageUnavailable {
                image: build.tag.clone(),
                reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            })
        }
    }

    fn run(&self, spec: &RunSpec) -> Result<RunOutcome, RuntimeError> {
        let mut cmd = Command::new(&self.program);
        cmd.args(self.run_args(spec)?);
        let kill = || {
            // Killing the CLI client would leave the container running.
            let _ = self.quick(&["kill", &spec.name]);
        };
        run_captured(cmd, spec.timeout, spec.output_cap, kill)
            .map_err(|e| runtime_err(&self.program, format!("cannot start: {e}")))
    }

    fn remove(&self, name: &str) -> Result<(), RuntimeError> {
        let out = self.quick(&["rm", "--force", name])?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || stderr.contains("No such container") {
            Ok(())
        } else {
            Err(runtime_err(&self.program, stderr.trim().to_owned()))
        }
    }
}

/// The `build` argument list for `build`.
fn build_args(build: &ImageBuild) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["build".into(), "--tag".into(), build.tag.clone().into()];
    if let Some(file) = &build.dockerfile {
        args.push("--file".into());
        args.push(file.clone().into_os_string());
    }
    for (name, value) in &build.args {
        args.push("--build-arg".into());
        args.push(format!("{name}={value}").into());
    }
    if let Some(target) = &build.target {
        args.push("--target".into());
        args.push(target.into());
    }
    args.push("--".into());
    args.push(build.context.clone().into_os_string());
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::Mount;

    #[test]
    fn run_arguments() {
        let rt = DockerCliRuntime::podman();
        let mut spec = RunSpec::new(
            "cleveragents-x",
            "python:3.12-slim",
            vec!["python".into(), "-c".into(), "print('a b')".into()],
        );
        spec.mounts
            .push(Mount::new("/srv/repo", "/workspace", true));
        spec.mounts.push(Mount::new("/srv/out", "/out", false));
        spec.env
            .insert("PYTHONPATH".into(), "/workspace/src".into());
        spec.workdir = Some("/workspace".into());
        let args: Vec<String> = rt
            .run_args(&spec)
            .unwrap()
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert_eq!(
            args,
            [
                "run",
                "--name",
                "cleveragents-x",
                "--network",
                "none",
                "--pull",
                "never",
                "--init",
                "--mount",
                "type=bind,source=/srv/repo,target=/workspace,readonly",
                "--mount",
                "type=bind,source=/srv/out,target=/out",
                "--env",
                "PYTHONPATH=/workspace/src",
                "--workdir",
                "/workspace",
                "python:3.12-slim",
                "python",
                "-c",
                "print('a b')",
            ]
        );
    }

    #[test]
    fn unexpressible_specs_are_refused() {
        let rt = DockerCliRuntime::docker();
        let mut spec = RunSpec::new("c", "alpine", vec!["true".into()]);
        spec.mounts.push(Mount::new("/a,b", "/x", true));
        assert!(matches!(
            rt.run_args(&spec),
            Err(RuntimeError::Unsupported { .. })
        ));
        let spec = RunSpec::new("c", "--privileged", vec!["true".into()]);
        assert!(rt.run_args(&spec).is_err());
    }
}
