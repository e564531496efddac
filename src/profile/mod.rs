//! Automation profiles: how much an agent may do without asking a human.
//!
//! An [`AutomationProfile`] holds eleven confidence thresholds (one per
//! [`AutomationDecision`]), a [`SafetyProfile`] of hard constraints, the
//! sandbox settings those constraints refer to, and an optional
//! [`AutomationGuard`]. Eight profiles are built in; hosts add their own
//! through the [`AutomationProfileService`].

mod builtin;
mod resolve;
mod safety;
mod service;
mod threshold;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::config::ConfigError;
use crate::guard::{AutomationGuard, GuardContext, GuardResult};
use crate::service_error::ServiceError;
use crate::string_enum::string_enum;

pub use builtin::{BUILTIN_PROFILE_NAMES, builtin_profile, builtin_profiles, is_builtin};
pub use resolve::{
    Environment, MapEnvironment, PROFILE_ENV_VAR, ProcessEnvironment, ProfileLevel, ProfileSource,
    Resolved, ResolvedProfile, SafetyProfileRef,
};
pub use safety::{MAX_RETRIES_LIMIT, NAMED_SAFETY_PROFILES, SafetyProfile, SafetyProfileError};
pub use service::{
    AutomationProfileService, AutomationProfileServiceBuilder, InMemoryProfileRepository,
    ProfileRepository,
};
pub use threshold::{AutomationDecision, GateDecision, Threshold, ThresholdError};

/// One problem found while validating a profile.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Violation {
    /// Dotted path of the field at fault, e.g. `safety.require_sandbox`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl Violation {
    /// A violation at `field`.
    #[must_use]
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.field, self.message)
    }
}

fn join(problems: &[Violation]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a profile operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// A profile name that is neither built in nor registered.
    #[error("unknown automation profile `{name}` at the {level} level; known profiles: {}", .known.join(", "))]
    UnknownProfile {
        /// Where the name was given.
        level: ProfileSource,
        /// The name.
        name: String,
        /// Every known name, built-ins first.
        known: Vec<String>,
    },
    /// A safety profile name that is not one of the named safety profiles.
    #[error("unknown safety profile `{name}` at the {level} level; known safety profiles: {}", .known.join(", "))]
    UnknownSafetyProfile {
        /// Where the name was given.
        level: ProfileSource,
        /// The name.
        name: String,
        /// The named safety profiles.
        known: Vec<String>,
    },
    /// Custom profiles may not use a built-in name.
    #[error("`{0}` is a built-in profile name and is reserved")]
    ReservedName(String),
    /// A custom profile with that name exists already.
    #[error("automation profile `{0}` already exists")]
    AlreadyExists(String),
    /// No custom profile with that name.
    #[error("automation profile `{0}` not found")]
    NotFound(String),
    /// An update whose body names a different profile.
    #[error("cannot update `{target}` with a profile named `{body}`; names must match")]
    NameMismatch {
        /// The profile being updated.
        target: String,
        /// The name in the new body.
        body: String,
    },
    /// The profile breaks one or more rules; all are listed.
    #[error("invalid automation profile `{name}`: {}", join(.problems))]
    Invalid {
        /// The profile's name.
        name: String,
        /// Every problem found.
        problems: Vec<Violation>,
    },
    /// The document could not be loaded.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The profile repository failed.
    #[error("profile repository failed: {0}")]
    Repository(#[from] ServiceError),
}

string_enum!(
    /// How the plan's work is isolated.
    SandboxStrategy, "sandbox strategy" {
        /// No isolation: changes are made in place.
        None => "none",
        /// A separate working tree of the project's repository.
        Worktree => "worktree",
        /// A container.
        Container => "container",
    }
);

/// Checkpoint settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CheckpointConfig {
    /// Whether checkpoints are taken (default true).
    #[serde(default = "enabled")]
    pub enabled: bool,
}

const fn enabled() -> bool {
    true
}

impl Default for CheckpointConfig {
    fn default() -> Self {
        Self { enabled: true }
    }
}

/// The sandbox settings the safety constraints refer to
/// (`sandbox.strategy`, `sandbox.checkpoint.enabled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SandboxConfig {
    /// The isolation strategy (default `worktree`).
    #[serde(default = "worktree")]
    pub strategy: SandboxStrategy,
    /// Checkpoint settings.
    #[serde(default)]
    pub checkpoint: CheckpointConfig,
}

const fn worktree() -> SandboxStrategy {
    SandboxStrategy::Worktree
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            strategy: SandboxStrategy::Worktree,
            checkpoint: CheckpointConfig::default(),
        }
    }
}

impl SandboxConfig {
    /// No sandbox, checkpoints as given.
    #[must_use]
    pub const fn none(checkpoints: bool) -> Self {
        Self {
            strategy: SandboxStrategy::None,
            checkpoint: CheckpointConfig {
                enabled: checkpoints,
            },
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for SandboxStrategy {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SandboxStrategy".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": ["none", "worktree", "container"]})
    }
}

macro_rules! profile_type {
    ($($field:ident => $variant:ident, $doc:literal;)+) => {
        /// A named automation profile: eleven confidence thresholds, the safety
        /// profile, sandbox settings and an optional guard.
        ///
        /// Deserialization validates everything and rejects unknown fields;
        /// a threshold that is not given defaults to `1.0` (ask a human).
        ///
        /// ```
        /// use cleveragents::{AutomationDecision, AutomationProfile, GateDecision};
        ///
        /// let profile = AutomationProfile::from_yaml_str("name: careful\nedit_code: 0.6\n")?;
        /// assert_eq!(profile.decide(AutomationDecision::EditCode, Some(0.8), true), GateDecision::Proceed);
        /// assert_eq!(profile.decide(AutomationDecision::EditCode, Some(0.5), true), GateDecision::AskHuman);
        /// assert_eq!(profile.decide(AutomationDecision::EditCode, Some(0.5), false), GateDecision::Deny);
        /// assert_eq!(profile.decide(AutomationDecision::ApprovePlan, Some(1.0), true), GateDecision::AskHuman);
        /// # Ok::<(), cleveragents::ProfileError>(())
        /// ```
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[cfg_attr(
            feature = "schema",
            schemars(description = "An automation profile: confidence thresholds (0.0 always proceeds, 1.0 always asks a human), safety constraints, sandbox settings and an optional guard.")
        )]
        #[serde(try_from = "ProfileDocument")]
        #[non_exhaustive]
        pub struct AutomationProfile {
            /// The profile's name.
            pub name: String,
            /// One line saying what the profile is for.
            #[serde(default, skip_serializing_if = "String::is_empty")]
            pub description: String,
            $(
                #[doc = $doc]
                pub $field: Threshold,
            )+
            /// Whether a human can answer approval requests under this profile
            /// (`false` for unattended profiles such as `ci`: an ask becomes a deny).
            pub interactive: bool,
            /// Hard safety constraints.
            pub safety: SafetyProfile,
            /// Sandbox and checkpoint settings.
            pub sandbox: SandboxConfig,
            /// Per-tool-call guards.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub guard: Option<AutomationGuard>,
        }

        /// The YAML/JSON document form of an automation profile.
        #[derive(Debug, Clone, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[cfg_attr(feature = "schema", schemars(rename = "AutomationProfile"))]
        #[serde(deny_unknown_fields)]
        struct ProfileDocument {
            /// The profile's name (required, not blank).
            name: String,
            /// One line saying what the profile is for.
            #[serde(default)]
            description: String,
            $(
                #[doc = $doc]
                #[doc = " Default 1.0 (always ask)."]
                #[serde(default = "always_ask")]
                $field: Threshold,
            )+
            /// Whether a human can answer approval requests (default true).
            #[serde(default = "enabled")]
            interactive: bool,
            /// Hard safety constraints (defaults: the specification's table).
            #[serde(default)]
            safety: SafetyProfile,
            /// Sandbox and checkpoint settings.
            #[serde(default)]
            sandbox: SandboxConfig,
            /// Per-tool-call guards.
            #[serde(default)]
            guard: Option<AutomationGuard>,
        }

        impl TryFrom<ProfileDocument> for AutomationProfile {
            type Error = ProfileError;
            fn try_from(d: ProfileDocument) -> Result<Self, Self::Error> {
                let profile = Self {
                    name: d.name,
                    description: d.description,
                    $($field: d.$field,)+
                    interactive: d.interactive,
                    safety: d.safety,
                    sandbox: d.sandbox,
                    guard: d.guard,
                };
                profile.validate().map(|()| profile)
            }
        }

        impl AutomationProfile {
            /// A profile named `name` with every threshold at `threshold` and
            /// default safety, sandbox, no guard.
            #[must_use]
            pub fn uniform(name: impl Into<String>, threshold: Threshold) -> Self {
                Self {
                    name: name.into(),
                    description: String::new(),
                    $($field: threshold,)+
                    interactive: true,
                    safety: SafetyProfile::default(),
                    sandbox: SandboxConfig::default(),
                    guard: None,
                }
            }

            /// The threshold gating `decision`.
            #[inline]
            #[must_use]
            pub const fn threshold(&self, decision: AutomationDecision) -> Threshold {
                match decision {
                    $(AutomationDecision::$variant => self.$field,)+
                }
            }

            /// Sets the threshold gating `decision`.
            pub fn set_threshold(&mut self, decision: AutomationDecision, threshold: Threshold) {
                match decision {
                    $(AutomationDecision::$variant => self.$field = threshold,)+
                }
            }
        }
    };
}

profile_type! {
    decompose_task => DecomposeTask, " Auto-enter Strategize after `plan use`.";
    create_tool => CreateTool, " Auto-proceed from Strategize to Execute.";
    select_tool => SelectTool, " Auto-proceed from Execute to Apply.";
    edit_code => EditCode, " Auto-make decisions during Strategize.";
    execute_command => ExecuteCommand, " Auto-make decisions during Execute.";
    create_file => CreateFile, " Auto-attempt to fix validation failures.";
    delete_content => DeleteContent, " Auto-revise strategy when Execute hits constraints.";
    access_network => AccessNetwork, " Auto-revert from Apply (`constrained`) to Strategize.";
    install_dependency => InstallDependency, " Auto-spawn and execute child plans.";
    modify_config => ModifyConfig, " Auto-retry on transient failures.";
    approve_plan => ApprovePlan, " Auto-restore from checkpoint on failure.";
}

const fn always_ask() -> Threshold {
    Threshold::ALWAYS_ASK
}

impl AutomationProfile {
    /// The gate decision for `decision` at `confidence`. `human_available` is
    /// the host's flag; an ask becomes [`GateDecision::Deny`] when it is false
    /// or the profile is not interactive. Pure and allocation-free.
    #[inline]
    #[must_use]
    pub fn decide(
        &self,
        decision: AutomationDecision,
        confidence: Option<f64>,
        human_available: bool,
    ) -> GateDecision {
        if self.threshold(decision).allows(confidence) {
            GateDecision::Proceed
        } else if human_available && self.interactive {
            GateDecision::AskHuman
        } else {
            GateDecision::Deny
        }
    }

    /// Runs the profile's guard over one tool call (allowed when it has none).
    /// A profile that is not interactive turns approval requests into denials.
    #[must_use]
    pub fn check_guard(&self, ctx: &GuardContext<'_>) -> GuardResult {
        match &self.guard {
            Some(guard) => {
                let ctx = ctx.human_available(ctx.human_available && self.interactive);
                guard.check(&ctx)
            }
            None => GuardResult::allow(),
        }
    }

    /// Every problem with the profile (empty when valid): a blank name, the
    /// safety profile's own rules, and the specification's constraints —
    /// `safety.require_sandbox: false` only with `sandbox.strategy: none`, and
    /// `safety.require_checkpoints: false` only with `sandbox.checkpoint.enabled: false`.
    #[must_use]
    pub fn violations(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        if self.name.trim().is_empty() {
            out.push(Violation::new("name", "must not be blank"));
        }
        out.extend(self.safety.violations("safety"));
        if !self.safety.require_sandbox && self.sandbox.strategy != SandboxStrategy::None {
            out.push(Violation::new(
                "safety.require_sandbox",
                format!(
                    "`false` is only valid with sandbox strategy `none`, but `sandbox.strategy` is `{}`",
                    self.sandbox.strategy
                ),
            ));
        }
        if !self.safety.require_checkpoints && self.sandbox.checkpoint.enabled {
            out.push(Violation::new(
                "safety.require_checkpoints",
                "`false` is only valid when `sandbox.checkpoint.enabled` is `false`",
            ));
        }
        if let Some(guard) = &self.guard {
            for (field, list) in [
                ("guard.tool_allowlist", &guard.tool_allowlist),
                ("guard.tool_denylist", &guard.tool_denylist),
            ] {
                if list.iter().flatten().any(|p| p.is_empty()) {
                    out.push(Violation::new(field, "patterns must not be empty"));
                }
            }
            if guard
                .max_total_cost
                .is_some_and(crate::money::Usd::is_negative)
            {
                out.push(Violation::new(
                    "guard.max_total_cost",
                    "must not be negative",
                ));
            }
        }
        out
    }

    /// Checks [`violations`](Self::violations).
    ///
    /// # Errors
    /// [`ProfileError::Invalid`] listing every problem.
    pub fn validate(&self) -> Result<(), ProfileError> {
        let problems = self.violations();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ProfileError::Invalid {
                name: self.name.clone(),
                problems,
            })
        }
    }

    /// Loads a profile from YAML.
    ///
    /// # Errors
    /// [`ProfileError::Config`] with the field path, line and column.
    pub fn from_yaml_str(text: &str) -> Result<Self, ProfileError> {
        Ok(crate::config::from_yaml_str(text)?)
    }

    /// Loads a profile from JSON.
    ///
    /// # Errors
    /// [`ProfileError::Config`] with the field path, line and column.
    pub fn from_json_str(text: &str) -> Result<Self, ProfileError> {
        Ok(crate::config::from_json_str(text)?)
    }

    /// Loads a profile from a file (`.json` as JSON, otherwise YAML).
    ///
    /// # Errors
    /// [`ProfileError::Config`] when the file cannot be read or parsed.
    pub fn from_path(path: &std::path::Path) -> Result<Self, ProfileError> {
        Ok(crate::config::from_path(path)?)
    }

    /// The profile as YAML.
    ///
    /// # Errors
    /// [`ProfileError::Config`] when YAML support is compiled out.
    pub fn to_yaml_string(&self) -> Result<String, ProfileError> {
        Ok(crate::config::to_yaml_string(self)?)
    }
}
