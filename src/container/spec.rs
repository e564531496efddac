//! Container tool definitions (`type: container-tool`) and their validation.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ContainerToolError;
use super::template::Template;
use crate::tool::{ToolDefinition, ToolKind, ToolName};

/// Longest timeout a tool may declare, in seconds (one day).
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// Timeout used when a definition gives none, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// The only accepted value of the `type` field.
pub const CONTAINER_TOOL_TYPE: &str = "container-tool";

/// One mount of a container tool: a host path (literal or a resource
/// template) bound at `target` inside the container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct MountSpec {
    /// Absolute host path, or a template such as `{{resource.git_dir.path}}`
    /// optionally followed by `/sub/dir`.
    pub source: String,
    /// Absolute path inside the container.
    pub target: String,
    /// Bound read-only (the default: a tool writes only where it is allowed to).
    #[serde(default = "yes")]
    pub readonly: bool,
}

const fn yes() -> bool {
    true
}

const fn default_timeout() -> u64 {
    DEFAULT_TIMEOUT_SECS
}

/// A tool that runs in a container, as declared in YAML:
///
/// ```yaml
/// name: my-org/python-linter
/// type: container-tool
/// image: "python:3.12-slim"
/// command: ["python", "-m", "pylint"]
/// mounts:
///   - source: "{{resource.git_dir.path}}"
///     target: "/workspace"
///     readonly: true
/// environment:
///   PYTHONPATH: "/workspace/src"
/// timeout: 60
/// ```
///
/// Build one with [`ContainerToolSpec::from_yaml_str`] (or deserialize and call
/// [`ContainerToolSpec::validate`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ContainerToolSpec {
    /// Namespaced tool name (`my-org/python-linter`).
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub name: ToolName,
    /// Always `container-tool`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The image (runtime-specific: a registry reference for docker, a root
    /// filesystem directory or `host` for bubblewrap).
    pub image: String,
    /// The program and its fixed arguments; call arguments are appended.
    pub command: Vec<String>,
    /// Host paths bound into the container.
    #[serde(default)]
    pub mounts: Vec<MountSpec>,
    /// Environment of the tool: the only variables it sees.
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// Working directory inside the container.
    #[serde(default)]
    pub workdir: Option<String>,
    /// Seconds before the tool is killed (1 to 86 400; default 60).
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// Declared unsafe: only profiles that allow unsafe tools may call it.
    #[serde(default, rename = "unsafe")]
    pub is_unsafe: bool,
    /// Human-readable description.
    #[serde(default)]
    pub description: Option<String>,
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> ContainerToolError {
    ContainerToolError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// A path is acceptable when absolute, free of `..`, and free of NUL.
pub(crate) fn check_absolute(path: &str) -> Result<(), &'static str> {
    if path.contains('\0') {
        return Err("contains a NUL byte");
    }
    let p = Path::new(path);
    if !p.is_absolute() {
        return Err("must be an absolute path");
    }
    if p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err("must not contain `..`");
    }
    Ok(())
}

fn valid_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl ContainerToolSpec {
    /// Loads and validates a definition from YAML.
    ///
    /// # Errors
    /// [`ContainerToolError::Load`] with the line and column for malformed YAML
    /// or unknown fields; [`ContainerToolError::Invalid`] naming the field for
    /// values that break the rules of [`Self::validate`].
    pub fn from_yaml_str(text: &str) -> Result<Self, ContainerToolError> {
        let spec: Self = crate::config::from_yaml_str(text)?;
        spec.validate()?;
        Ok(spec)
    }

    /// Loads and validates a definition from JSON.
    ///
    /// # Errors
    /// As [`Self::from_yaml_str`].
    pub fn from_json_str(text: &str) -> Result<Self, ContainerToolError> {
        let spec: Self = crate::config::from_json_str(text)?;
        spec.validate()?;
        Ok(spec)
    }

    /// Checks every rule a definition must satisfy: `type` is
    /// `container-tool`; the image and command are non-empty and free of
    /// control characters; mount sources are absolute paths without `..` or a
    /// `{{resource.<name>.path}}` template (optionally followed by an
    /// absolute-style suffix); mount targets and the workdir are absolute
    /// without `..`; targets are distinct; environment names are
    /// `[A-Za-z_][A-Za-z0-9_]*` and values free of NUL; the timeout is 1 to
    /// [`MAX_TIMEOUT_SECS`].
    ///
    /// # Errors
    /// The first broken rule, as [`ContainerToolError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<(), ContainerToolError> {
        if self.kind != CONTAINER_TOOL_TYPE {
            return Err(invalid(
                "type",
                format!("expected `{CONTAINER_TOOL_TYPE}`, found `{}`", self.kind),
            ));
        }
        if self.image.trim().is_empty() {
            return Err(invalid("image", "must not be empty"));
        }
        if self
            .image
            .chars()
            .any(|c| c.is_control() || c.is_whitespace())
        {
            return Err(invalid(
                "image",
                "must not contain whitespace or control characters",
            ));
        }
        if self.command.is_empty() {
            return Err(invalid("command", "must name a program"));
        }
        if self.command.first().is_some_and(String::is_empty) {
            return Err(invalid("command[0]", "the program must not be empty"));
        }
        for (i, arg) in self.command.iter().enumerate() {
            if arg.contains('\0') {
                return Err(invalid(format!("command[{i}]"), "contains a NUL byte"));
            }
        }
        let mut targets = std::collections::BTreeSet::new();
        for (i, mount) in self.mounts.iter().enumerate() {
            let template = Template::parse(&mount.source)
                .map_err(|m| invalid(format!("mounts[{i}].source"), m))?;
            if !template.has_reference() {
                check_absolute(&mount.source)
                    .map_err(|m| invalid(format!("mounts[{i}].source"), m))?;
            }
            check_absolute(&mount.target).map_err(|m| invalid(format!("mounts[{i}].target"), m))?;
            if !targets.insert(normalize(&mount.target)) {
                return Err(invalid(
                    format!("mounts[{i}].target"),
                    format!("`{}` is mounted twice", mount.target),
                ));
            }
        }
        for (name, value) in &self.environment {
            if !valid_env_name(name) {
                return Err(invalid(
                    format!("environment.{name}"),
                    "names are letters, digits and `_`, not starting with a digit",
                ));
            }
            if value.contains('\0') {
                return Err(invalid(
                    format!("environment.{name}"),
                    "contains a NUL byte",
                ));
            }
        }
        if let Some(workdir) = &self.workdir {
            check_absolute(workdir).map_err(|m| invalid("workdir", m))?;
        }
        if self.timeout == 0 || self.timeout > MAX_TIMEOUT_SECS {
            return Err(invalid(
                "timeout",
                format!(
                    "must be 1 to {MAX_TIMEOUT_SECS} seconds, found {}",
                    self.timeout
                ),
            ));
        }
        if self.description.as_ref().is_some_and(|d| d.contains('\0')) {
            return Err(invalid("description", "contains a NUL byte"));
        }
        Ok(())
    }

    /// The resources the mounts refer to, in order of first use.
    #[must_use]
    pub fn referenced_resources(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for mount in &self.mounts {
            if let Ok(t) = Template::parse(&mount.source) {
                if let Some(r) = t.reference() {
                    if !out.iter().any(|o| o == r) {
                        out.push(r.to_owned());
                    }
                }
            }
        }
        out
    }

    /// The definition guards and safety profiles see.
    #[must_use]
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition::new(self.name.clone(), ToolKind::ContainerTool).unsafe_tool(self.is_unsafe)
    }
}

fn normalize(path: &str) -> PathBuf {
    Path::new(path).components().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = r#"
name: my-org/python-linter
type: container-tool
image: "python:3.12-slim"
command: ["python", "-m", "pylint"]
mounts:
  - source: "{{resource.git_dir.path}}"
    target: "/workspace"
    readonly: true
environment:
  PYTHONPATH: "/workspace/src"
timeout: 60
"#;

    #[test]
    fn seed_example_loads() {
        let spec = ContainerToolSpec::from_yaml_str(SEED).unwrap();
        assert_eq!(spec.name.as_str(), "my-org/python-linter");
        assert_eq!(spec.command, ["python", "-m", "pylint"]);
        assert_eq!(spec.mounts.len(), 1);
        assert!(spec.mounts[0].readonly);
        assert_eq!(spec.environment["PYTHONPATH"], "/workspace/src");
        assert_eq!(spec.timeout, 60);
        assert_eq!(spec.referenced_resources(), ["git_dir"]);
        assert!(!spec.definition().is_unsafe);
    }

    fn field_of(text: &str) -> String {
        match ContainerToolSpec::from_yaml_str(text) {
            Err(ContainerToolError::Invalid { field, .. }) => field,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn bad_values_name_their_field() {
        let cases = [
            ("type: container-tool", "type: host-tool", "type"),
            ("\"python:3.12-slim\"", "\"\"", "image"),
            ("[\"python\", \"-m\", \"pylint\"]", "[]", "command"),
            (
                "\"{{resource.git_dir.path}}\"",
                "\"relative/dir\"",
                "mounts[0].source",
            ),
            (
                "\"{{resource.git_dir.path}}\"",
                "\"/srv/../etc\"",
                "mounts[0].source",
            ),
            (
                "\"{{resource.git_dir.path}}\"",
                "\"{{env.HOME}}\"",
                "mounts[0].source",
            ),
            (
                "\"{{resource.git_dir.path}}\"",
                "\"{{resource.git_dir.path\"",
                "mounts[0].source",
            ),
            ("\"/workspace\"", "\"workspace\"", "mounts[0].target"),
            ("PYTHONPATH:", "1BAD:", "environment.1BAD"),
            ("timeout: 60", "timeout: 0", "timeout"),
            ("timeout: 60", "timeout: 86401", "timeout"),
        ];
        for (from, to, field) in cases {
            assert!(SEED.contains(from), "{from}");
            assert_eq!(field_of(&SEED.replacen(from, to, 1)), field, "{to}");
        }
    }

    #[test]
    fn malformed_yaml_reports_line() {
        let err = ContainerToolSpec::from_yaml_str("name: a\ntype: container-tool\nimag: x\n")
            .unwrap_err();
        let ContainerToolError::Load(crate::config::ConfigError::Invalid { line, .. }) = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(*line, Some(3), "{err}");
    }
}
