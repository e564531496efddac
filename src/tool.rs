//! The tool runtime interface shared by host tools and container tools.
//!
//! A [`ToolRuntime`] runs one [`ToolInvocation`] and answers a [`ToolResult`].
//! Host tools implement it directly; container tools go through
//! [`ContainerToolExecutor`](crate::ContainerToolExecutor), which implements it
//! too, so callers never care where a tool runs.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::ids::SessionId;

/// Longest tool name accepted, in bytes.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// A tool name, optionally namespaced with `/` (`my-org/python-linter`).
///
/// Each `/`-separated segment is non-empty and made of ASCII letters, digits,
/// `-`, `_` and `.`, and is not `.` or `..`; the whole name is at most
/// [`MAX_TOOL_NAME_LEN`] bytes.
///
/// ```
/// use cleveragents::ToolName;
/// let name: ToolName = "my-org/python-linter".parse().unwrap();
/// assert_eq!(name.namespace(), Some("my-org"));
/// assert_eq!(name.local_name(), "python-linter");
/// assert!("my-org//x".parse::<ToolName>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ToolName(String);

/// A string that is not a valid [`ToolName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool name `{name}`: {reason}")]
#[non_exhaustive]
pub struct ToolNameError {
    /// The rejected name (shortened when very long).
    pub name: String,
    /// Why it was rejected.
    pub reason: &'static str,
}

impl ToolName {
    /// Validates and wraps `name`.
    ///
    /// # Errors
    /// [`ToolNameError`] when the name breaks a rule of the type's documentation.
    pub fn new(name: impl Into<String>) -> Result<Self, ToolNameError> {
        let name = name.into();
        let fail = |reason| ToolNameError {
            name: name.chars().take(64).collect(),
            reason,
        };
        if name.is_empty() {
            return Err(fail("the name is empty"));
        }
        if name.len() > MAX_TOOL_NAME_LEN {
            return Err(fail("the name is longer than 128 bytes"));
        }
        for segment in name.split('/') {
            if segment.is_empty() {
                return Err(fail("a `/`-separated segment is empty"));
            }
            if segment == "." || segment == ".." {
                return Err(fail("a segment is `.` or `..`"));
            }
            if !segment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            {
                return Err(fail(
                    "only ASCII letters, digits, `-`, `_`, `.` and `/` are allowed",
                ));
            }
        }
        Ok(Self(name))
    }

    /// The name as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Everything before the last `/`, if the name is namespaced.
    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        self.0.rsplit_once('/').map(|(ns, _)| ns)
    }

    /// The part after the last `/` (the whole name when not namespaced).
    #[must_use]
    pub fn local_name(&self) -> &str {
        self.0.rsplit_once('/').map_or(self.0.as_str(), |(_, n)| n)
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for ToolName {
    type Err = ToolNameError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s)
    }
}

impl TryFrom<String> for ToolName {
    type Error = ToolNameError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::new(s)
    }
}

impl From<ToolName> for String {
    fn from(name: ToolName) -> Self {
        name.0
    }
}

/// Where a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ToolKind {
    /// In the host process or on the host directly.
    #[default]
    Host,
    /// In a container, through a [`ContainerRuntime`](crate::ContainerRuntime).
    ContainerTool,
}

/// What guards and safety profiles need to know about a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: ToolName,
    /// Where it runs.
    pub kind: ToolKind,
    /// Declared `unsafe: true`: only profiles that allow unsafe tools may call it.
    #[serde(rename = "unsafe")]
    pub is_unsafe: bool,
}

impl ToolDefinition {
    /// A definition of a tool of `kind`, safe unless [`Self::unsafe_tool`] is called.
    #[must_use]
    pub const fn new(name: ToolName, kind: ToolKind) -> Self {
        Self {
            name,
            kind,
            is_unsafe: false,
        }
    }

    /// Marks the tool `unsafe`.
    #[must_use]
    pub const fn unsafe_tool(mut self, is_unsafe: bool) -> Self {
        self.is_unsafe = is_unsafe;
        self
    }
}

/// One call of a tool: the tool and the arguments appended to its command.
///
/// Arguments are passed to the program as separate argv entries; no shell
/// ever sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolInvocation {
    /// The tool to run.
    pub tool: ToolName,
    /// Extra arguments, appended to the tool's declared command.
    #[serde(default)]
    pub args: Vec<String>,
    /// The session the call belongs to; what it leaves running is stopped
    /// when that session closes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<SessionId>,
}

impl ToolInvocation {
    /// A call of `tool` with no extra arguments.
    #[must_use]
    pub const fn new(tool: ToolName) -> Self {
        Self {
            tool,
            args: Vec::new(),
            session_id: None,
        }
    }

    /// Ties the call to `session`.
    #[must_use]
    pub const fn in_session(mut self, session: SessionId) -> Self {
        self.session_id = Some(session);
        self
    }

    /// Appends one argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }
}

/// What a finished (or killed) tool produced.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolResult {
    /// The exit status; `None` when the process was killed by a signal
    /// (including the timeout's kill).
    pub exit_code: Option<i32>,
    /// Standard output, decoded as UTF-8 (invalid bytes replaced).
    pub stdout: String,
    /// Standard error, decoded as UTF-8 (invalid bytes replaced).
    pub stderr: String,
    /// Wall-clock time of the execution step.
    #[serde(with = "duration_ms", rename = "duration_ms")]
    pub duration: Duration,
    /// Output went over the capture cap and was cut.
    pub truncated: bool,
    /// The tool ran past its timeout and was killed.
    pub timed_out: bool,
}

impl ToolResult {
    /// The tool exited with status 0 before its timeout.
    #[must_use]
    pub const fn succeeded(&self) -> bool {
        matches!(self.exit_code, Some(0)) && !self.timed_out
    }
}

mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

/// Why a tool could not be run at all (a tool that ran and failed is a
/// [`ToolResult`] with a non-zero exit code, not an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool of that name is known to this runtime.
    #[error("unknown tool `{0}`")]
    UnknownTool(ToolName),
    /// The tool is known but could not be started or finished.
    #[error("tool `{tool}` failed: {reason}")]
    Failed {
        /// The tool.
        tool: ToolName,
        /// What went wrong.
        reason: String,
    },
}

/// Runs tools. Host tools and container tools implement the same interface.
pub trait ToolRuntime: Send + Sync {
    /// Runs `call` to completion (or to its timeout).
    ///
    /// # Errors
    /// [`ToolError`] when the tool could not be run at all.
    fn run_tool(&self, call: &ToolInvocation) -> Result<ToolResult, ToolError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_validate() {
        for ok in ["a", "my-org/python-linter", "a.b_c/d-e/f", "x/y/z"] {
            assert!(ToolName::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/a",
            "a/",
            "a//b",
            "a/../b",
            "a b",
            "ä",
            "a/./b",
            &"x".repeat(129),
        ] {
            assert!(ToolName::new(bad).is_err(), "{bad}");
        }
        let n = ToolName::new("plain").unwrap();
        assert_eq!(n.namespace(), None);
        assert_eq!(n.local_name(), "plain");
    }

    #[test]
    fn result_round_trips() {
        let r = ToolResult {
            exit_code: Some(0),
            stdout: "ok".into(),
            duration: Duration::from_millis(12),
            ..ToolResult::default()
        };
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"duration_ms\":12"), "{json}");
        assert_eq!(serde_json::from_str::<ToolResult>(&json).unwrap(), r);
        assert!(r.succeeded());
    }
}
