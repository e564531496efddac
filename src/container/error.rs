//! Errors of container tool loading and execution.

use crate::config::ConfigError;
use crate::tool::ToolName;

/// A container tool that could not be loaded or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContainerToolError {
    /// The document is malformed (with line and column where known).
    #[error(transparent)]
    Load(#[from] ConfigError),
    /// A field breaks a rule of the definition.
    #[error("invalid container tool: `{field}` {message}")]
    Invalid {
        /// The field (`mounts[0].source`).
        field: String,
        /// What is wrong, with the value.
        message: String,
    },
    /// A mount refers to a resource the registry does not know.
    #[error("`{field}` refers to unknown resource `{name}`")]
    UnknownResource {
        /// The field holding the template.
        field: String,
        /// The resource name.
        name: String,
    },
    /// The resource registry failed or gave an unusable path.
    #[error("resource `{name}`: {reason}")]
    Resource {
        /// The resource name.
        name: String,
        /// What went wrong.
        reason: String,
    },
    /// No container tool of that name is registered.
    #[error("unknown container tool `{0}`")]
    UnknownTool(ToolName),
    /// A tool of that name is already registered.
    #[error("container tool `{0}` is already registered")]
    Duplicate(ToolName),
    /// The container runtime failed at one of the steps.
    #[error("container tool `{tool}`: {step} failed: {source}")]
    Runtime {
        /// The tool.
        tool: ToolName,
        /// The step that failed.
        step: super::ExecutionStep,
        /// The runtime's error.
        #[source]
        source: super::RuntimeError,
    },
}
