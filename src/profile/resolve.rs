//! Where a resolved setting came from, and the environment port.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{AutomationProfile, SafetyProfile};
use crate::string_enum::string_enum;

/// The environment variable naming the global default automation profile.
pub const PROFILE_ENV_VAR: &str = "CLEVERAGENTS_AUTOMATION_PROFILE";

string_enum!(
    /// A configuration level, from most to least specific.
    ProfileLevel, "profile level" {
        /// The plan (`--automation-profile` at `plan use`).
        Plan => "plan",
        /// The action template.
        Action => "action",
        /// The project configuration.
        Project => "project",
        /// The global configuration.
        Global => "global",
    }
);

string_enum!(
    /// Which level decided a resolved setting (its provenance).
    ProfileSource, "profile source" {
        /// The plan's own setting.
        Plan => "plan",
        /// The action template.
        Action => "action",
        /// The project configuration.
        Project => "project",
        /// The explicit global setting.
        Global => "global",
        /// The global default from `CLEVERAGENTS_AUTOMATION_PROFILE`.
        Environment => "environment",
        /// The resolved automation profile's own value.
        AutomationProfile => "automation profile",
        /// The built-in default.
        Default => "default",
    }
);

impl From<ProfileLevel> for ProfileSource {
    fn from(level: ProfileLevel) -> Self {
        match level {
            ProfileLevel::Plan => Self::Plan,
            ProfileLevel::Action => Self::Action,
            ProfileLevel::Project => Self::Project,
            ProfileLevel::Global => Self::Global,
        }
    }
}

/// A resolved value and the level that decided it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Resolved<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: ProfileSource,
}

impl<T> Resolved<T> {
    /// A value from `source`.
    #[must_use]
    pub const fn new(value: T, source: ProfileSource) -> Self {
        Self { value, source }
    }
}

/// The automation profile resolved for a plan, with its provenance.
///
/// This is a value: the plan keeps it, and later edits or deletion of the
/// source profile do not change it (the profile is locked to the plan).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResolvedProfile {
    /// The profile.
    pub profile: Arc<AutomationProfile>,
    /// Which level decided it.
    pub source: ProfileSource,
}

impl ResolvedProfile {
    /// The profile's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.profile.name
    }
}

/// A safety profile given by name (`strict`) or inline (an action's `safety_profile:` block).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
#[non_exhaustive]
pub enum SafetyProfileRef {
    /// One of the named safety profiles.
    Named(String),
    /// A complete profile.
    Inline(SafetyProfile),
}

/// Reads environment variables. Library logic never reads the process
/// environment itself; it asks this port, so tests and hosts control it.
pub trait Environment: Send + Sync + Debug {
    /// The value of `name`, if set.
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment (`std::env::var`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnvironment;

impl Environment for ProcessEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// A fixed set of variables, for tests and embedded hosts.
///
/// ```
/// use cleveragents::{Environment, MapEnvironment};
///
/// let env = MapEnvironment::new().with("CLEVERAGENTS_AUTOMATION_PROFILE", "auto");
/// assert_eq!(env.var("CLEVERAGENTS_AUTOMATION_PROFILE").as_deref(), Some("auto"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct MapEnvironment {
    vars: HashMap<String, String>,
}

impl MapEnvironment {
    /// No variables.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a variable.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.vars.insert(name.into(), value.into());
        self
    }
}

impl Environment for MapEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }
}
