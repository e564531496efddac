//! Devcontainer integration: `.devcontainer/devcontainer.json` and the
//! `devcontainer-instance` resource.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ContainerToolError;
use super::runtime::Mount;
use super::spec::check_absolute;

/// The only accepted `type` of a devcontainer resource.
pub const DEVCONTAINER_RESOURCE_TYPE: &str = "devcontainer-instance";

/// Keys of `devcontainer.json` this crate understands; every other key is
/// listed in [`DevcontainerConfig::unsupported_keys`].
pub const SUPPORTED_DEVCONTAINER_KEYS: [&str; 7] = [
    "name",
    "image",
    "build",
    "mounts",
    "containerEnv",
    "remoteUser",
    "workspaceFolder",
];

/// The `devcontainer-instance` resource, as declared in a project:
///
/// ```yaml
/// name: dev_env
/// type: devcontainer-instance
/// devcontainer_path: ".devcontainer/devcontainer.json"
/// use_for_tools: true
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DevcontainerResource {
    /// The resource's name.
    pub name: String,
    /// Always `devcontainer-instance`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Path of `devcontainer.json`, relative to the project root.
    pub devcontainer_path: String,
    /// Run every tool of the project inside this devcontainer.
    #[serde(default)]
    pub use_for_tools: bool,
}

impl DevcontainerResource {
    /// Loads and validates a resource declaration from YAML.
    ///
    /// # Errors
    /// [`ContainerToolError::Load`] for malformed YAML, [`ContainerToolError::Invalid`]
    /// for a wrong `type`, an empty name or an absolute or `..` path.
    pub fn from_yaml_str(text: &str) -> Result<Self, ContainerToolError> {
        let resource: Self = crate::config::from_yaml_str(text)?;
        resource.validate()?;
        Ok(resource)
    }

    /// Checks the declaration.
    ///
    /// # Errors
    /// As [`Self::from_yaml_str`].
    pub fn validate(&self) -> Result<(), ContainerToolError> {
        if self.kind != DEVCONTAINER_RESOURCE_TYPE {
            return Err(invalid(
                "type",
                format!(
                    "expected `{DEVCONTAINER_RESOURCE_TYPE}`, found `{}`",
                    self.kind
                ),
            ));
        }
        if self.name.trim().is_empty() {
            return Err(invalid("name", "must not be empty"));
        }
        let path = Path::new(&self.devcontainer_path);
        if self.devcontainer_path.is_empty()
            || path.is_absolute()
            || path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(invalid(
                "devcontainer_path",
                format!(
                    "must be a path inside the project, found `{}`",
                    self.devcontainer_path
                ),
            ));
        }
        Ok(())
    }

    /// Reads and parses the devcontainer file of the project rooted at `project_root`.
    ///
    /// # Errors
    /// [`ContainerToolError::Load`] when the file cannot be read or parsed.
    pub fn load(&self, project_root: &Path) -> Result<DevcontainerConfig, ContainerToolError> {
        let path = project_root.join(&self.devcontainer_path);
        let text = std::fs::read_to_string(&path).map_err(|e| crate::config::ConfigError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        DevcontainerConfig::from_jsonc_str(&text, project_root)
    }
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> ContainerToolError {
    ContainerToolError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

/// The `build` block of `devcontainer.json`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DevcontainerBuild {
    /// The Dockerfile, relative to the `devcontainer.json` folder.
    #[serde(default)]
    pub dockerfile: Option<String>,
    /// The build context, relative to the `devcontainer.json` folder.
    #[serde(default)]
    pub context: Option<String>,
    /// Build arguments.
    #[serde(default)]
    pub args: BTreeMap<String, String>,
    /// Build target stage.
    #[serde(default)]
    pub target: Option<String>,
}

/// The parts of `devcontainer.json` that decide where tools run.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DevcontainerConfig {
    /// Display name.
    pub name: Option<String>,
    /// The image, when given directly.
    pub image: Option<String>,
    /// Build settings, when the image is built from a Dockerfile.
    pub build: Option<DevcontainerBuild>,
    /// Bind mounts, with `${localWorkspaceFolder}` and friends substituted.
    pub mounts: Vec<Mount>,
    /// `containerEnv`: the environment tools see.
    pub container_env: BTreeMap<String, String>,
    /// `remoteUser`: the user tools run as.
    pub remote_user: Option<String>,
    /// `workspaceFolder`: the tools' working directory.
    pub workspace_folder: Option<String>,
    /// Top-level keys present in the file that this crate does not act on
    /// (`features`, `forwardPorts`, `postCreateCommand`, …), sorted.
    pub unsupported_keys: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawDevcontainer {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    image: Option<String>,
    #[serde(default)]
    build: Option<DevcontainerBuild>,
    #[serde(default)]
    mounts: Vec<RawMount>,
    #[serde(default)]
    container_env: BTreeMap<String, String>,
    #[serde(default)]
    remote_user: Option<String>,
    #[serde(default)]
    workspace_folder: Option<String>,
    #[serde(flatten)]
    other: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawMount {
    Text(String),
    Object {
        source: String,
        target: String,
        #[serde(rename = "type", default)]
        kind: Option<String>,
        #[serde(default)]
        readonly: bool,
    },
}

struct Vars<'a> {
    local: &'a str,
    basename: String,
    container: String,
}

impl Vars<'_> {
    fn substitute(&self, field: &str, text: &str) -> Result<String, ContainerToolError> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(rest.get(..start).unwrap_or_default());
            let after = rest.get(start + 2..).unwrap_or_default();
            let Some(end) = after.find('}') else {
                return Err(invalid(field, format!("unterminated `${{` in `{text}`")));
            };
            let name = after.get(..end).unwrap_or_default();
            out.push_str(match name {
                "localWorkspaceFolder" => self.local,
                "localWorkspaceFolderBasename" => &self.basename,
                "containerWorkspaceFolder" => &self.container,
                other => {
                    return Err(invalid(
                        field,
                        format!(
                            "variable `${{{other}}}` is not supported; only \
                             localWorkspaceFolder, localWorkspaceFolderBasename and \
                             containerWorkspaceFolder are"
                        ),
                    ));
                }
            });
            rest = after.get(end + 1..).unwrap_or_default();
        }
        out.push_str(rest);
        Ok(out)
    }
}

fn parse_mount_text(
    field: &str,
    text: &str,
) -> Result<(String, String, Option<String>, bool), ContainerToolError> {
    let (mut source, mut target, mut kind, mut readonly) = (None, None, None, false);
    for part in text.split(',') {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        match key.trim() {
            "source" | "src" => source = Some(value.to_owned()),
            "target" | "destination" | "dst" => target = Some(value.to_owned()),
            "type" => kind = Some(value.to_owned()),
            "readonly" | "ro" => readonly = value.is_empty() || value == "true" || value == "1",
            "consistency" => {}
            other => {
                return Err(invalid(
                    field,
                    format!("unknown mount option `{other}` in `{text}`"),
                ));
            }
        }
    }
    match (source, target) {
        (Some(s), Some(t)) => Ok((s, t, kind, readonly)),
        _ => Err(invalid(
            field,
            format!("`{text}` needs both source and target"),
        )),
    }
}

impl DevcontainerConfig {
    /// Parses `devcontainer.json` text (JSON with `//` and `/* */` comments and
    /// trailing commas) for the project rooted at `project_root`.
    ///
    /// # Errors
    /// [`ContainerToolError::Load`] with line and column for malformed text;
    /// [`ContainerToolError::Invalid`] for neither `image` nor `build`, a
    /// non-bind or unparsable mount, a relative mount path, or an unknown
    /// `${variable}`.
    pub fn from_jsonc_str(text: &str, project_root: &Path) -> Result<Self, ContainerToolError> {
        let json =
            strip_jsonc(text).map_err(|(line, message)| crate::config::ConfigError::Invalid {
                format: crate::config::Format::Json,
                path: ".".to_owned(),
                line: Some(line),
                column: None,
                message,
            })?;
        let raw: RawDevcontainer = crate::config::from_json_str(&json)?;
        if raw.image.is_none() && raw.build.is_none() {
            return Err(invalid("image", "neither `image` nor `build` is given"));
        }
        let workspace_folder = raw.workspace_folder.clone();
        let local = project_root.to_string_lossy();
        let basename = project_root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let vars = Vars {
            local: &local,
            // Devcontainer tools default the container folder to /workspaces/<basename>.
            container: workspace_folder
                .clone()
                .unwrap_or_else(|| format!("/workspaces/{basename}")),
            basename,
        };
        let mut mounts = Vec::with_capacity(raw.mounts.len());
        for (i, mount) in raw.mounts.iter().enumerate() {
            let field = format!("mounts[{i}]");
            let (source, target, kind, readonly) = match mount {
                RawMount::Text(text) => parse_mount_text(&field, text)?,
                RawMount::Object {
                    source,
                    target,
                    kind,
                    readonly,
                } => (source.clone(), target.clone(), kind.clone(), *readonly),
            };
            if kind.as_deref().is_some_and(|k| k != "bind") {
                return Err(invalid(
                    &field,
                    format!(
                        "only bind mounts are supported, found type `{}`",
                        kind.unwrap_or_default()
                    ),
                ));
            }
            let source = vars.substitute(&field, &source)?;
            let target = vars.substitute(&field, &target)?;
            check_absolute(&source).map_err(|m| invalid(format!("{field}.source"), m))?;
            check_absolute(&target).map_err(|m| invalid(format!("{field}.target"), m))?;
            mounts.push(Mount::new(PathBuf::from(source), target, readonly));
        }
        let mut container_env = BTreeMap::new();
        for (name, value) in raw.container_env {
            let value = vars.substitute(&format!("containerEnv.{name}"), &value)?;
            container_env.insert(name, value);
        }
        if let Some(folder) = &workspace_folder {
            check_absolute(folder).map_err(|m| invalid("workspaceFolder", m))?;
        }
        Ok(Self {
            name: raw.name,
            image: raw.image,
            build: raw.build,
            mounts,
            container_env,
            remote_user: raw.remote_user,
            workspace_folder,
            unsupported_keys: raw.other.into_keys().collect(),
        })
    }
}

/// Turns JSON-with-comments into JSON: comments become spaces (newlines
/// kept, so line numbers still match) and trailing commas are dropped.
///
/// # Errors
/// The 1-based line and a message for an unterminated block comment or string.
pub(crate) fn strip_jsonc(text: &str) -> Result<String, (usize, String)> {
    let mut out = String::with_capacity(text.len());
    // A comma held back until the next significant character shows whether it trails.
    let mut pending: Option<usize> = None;
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                pending = None;
                out.push('"');
                let start = line;
                let mut closed = false;
                while let Some(s) = chars.next() {
                    out.push(s);
                    match s {
                        '\\' => {
                            if let Some(escaped) = chars.next() {
                                out.push(escaped);
                            }
                        }
                        '"' => {
                            closed = true;
                            break;
                        }
                        '\n' => line += 1,
                        _ => {}
                    }
                }
                if !closed {
                    return Err((start, "unterminated string".to_owned()));
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        line += 1;
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let start = line;
                chars.next();
                out.push_str("  ");
                let mut closed = false;
                while let Some(s) = chars.next() {
                    if s == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        out.push_str("  ");
                        closed = true;
                        break;
                    }
                    if s == '\n' {
                        line += 1;
                        out.push('\n');
                    } else {
                        out.push(' ');
                    }
                }
                if !closed {
                    return Err((start, "unterminated block comment".to_owned()));
                }
            }
            ',' => {
                pending = Some(out.len());
                out.push(',');
            }
            '}' | ']' => {
                if let Some(at) = pending.take() {
                    out.replace_range(at..=at, " ");
                }
                out.push(c);
            }
            c if c.is_whitespace() => {
                if c == '\n' {
                    line += 1;
                }
                out.push(c);
            }
            c => {
                pending = None;
                out.push(c);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas() {
        let text = "{\n  // a comment, with \"quotes\"\n  \"a\": [1, 2,],\n  /* block\n  */ \"b\": \"x // not a comment,\u{7d}\",\n}\n";
        let json = strip_jsonc(text).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["a"], serde_json::json!([1, 2]));
        assert_eq!(v["b"], "x // not a comment,\u{7d}");
        assert_eq!(json.lines().count(), text.lines().count());
        assert!(strip_jsonc("[ /* open").is_err());
        assert!(strip_jsonc("[ \"open").is_err());
        // A comma followed by a comment then a brace still trails.
        let v: serde_json::Value =
            serde_json::from_str(&strip_jsonc("[1, // c\n]").unwrap()).unwrap();
        assert_eq!(v, serde_json::json!([1]));
    }
}
