//! Safety profiles: hard constraints on what an actor may do.

use serde::{Deserialize, Serialize};

use super::Violation;
use crate::money::Usd;

/// The largest accepted `max_retries_per_step`.
pub const MAX_RETRIES_LIMIT: u32 = 100;

/// Hard safety constraints (the specification's `SafetyProfile`), plus `read_only`.
///
/// Deserialization validates (`max_retries_per_step` in 0–100, costs not
/// negative) and rejects unknown fields.
///
/// ```
/// use cleveragents::SafetyProfile;
///
/// let standard = SafetyProfile::default();
/// assert!(standard.require_sandbox && standard.require_checkpoints);
/// assert!(!standard.allow_unsafe_tools);
/// assert_eq!(standard.max_retries_per_step, 3);
///
/// let read_only = SafetyProfile::named("read-only").unwrap();
/// assert!(!read_only.allows_writes());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(description = "Hard safety constraints on what an actor may do.")
)]
#[serde(try_from = "SafetyDocument")]
#[non_exhaustive]
pub struct SafetyProfile {
    /// Require sandbox isolation for all file writes.
    pub require_sandbox: bool,
    /// Require checkpoints before destructive operations.
    pub require_checkpoints: bool,
    /// Allow tools marked `unsafe: true`.
    pub allow_unsafe_tools: bool,
    /// Require human approval before each action step.
    pub require_human_approval: bool,
    /// Permitted skill categories (empty: all).
    pub allowed_skill_categories: Vec<String>,
    /// Maximum cost per plan, in USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost_per_plan: Option<Usd>,
    /// Maximum lifetime cost, in USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_total_cost: Option<Usd>,
    /// Maximum retries per action step (0–100).
    pub max_retries_per_step: u32,
    /// No file writes; only tools that read are permitted.
    pub read_only: bool,
}

impl Default for SafetyProfile {
    /// The specification's defaults (the `standard` profile).
    fn default() -> Self {
        Self {
            require_sandbox: true,
            require_checkpoints: true,
            allow_unsafe_tools: false,
            require_human_approval: false,
            allowed_skill_categories: Vec::new(),
            max_cost_per_plan: None,
            max_total_cost: None,
            max_retries_per_step: 3,
            read_only: false,
        }
    }
}

/// Names of the named safety profiles, in documentation order.
pub const NAMED_SAFETY_PROFILES: &[&str] = &[
    "strict",
    "standard",
    "permissive",
    "read-only",
    "cost-capped-1usd",
    "cost-capped-5usd",
];

impl SafetyProfile {
    /// A named safety profile:
    ///
    /// | name | meaning |
    /// | --- | --- |
    /// | `strict` | every safety flag on, unsafe tools blocked, human approval required |
    /// | `standard` | sandbox and checkpoints required, unsafe tools blocked, no approval |
    /// | `permissive` | sandbox required, checkpoints optional, unsafe tools allowed |
    /// | `read-only` | no file writes, read tools only |
    /// | `cost-capped-1usd` | standard + $1.00 per plan |
    /// | `cost-capped-5usd` | standard + $5.00 per plan |
    #[must_use]
    pub fn named(name: &str) -> Option<Self> {
        let standard = Self::default();
        Some(match name {
            "strict" => Self {
                require_human_approval: true,
                ..standard
            },
            "standard" => standard,
            "permissive" => Self {
                require_checkpoints: false,
                allow_unsafe_tools: true,
                ..standard
            },
            "read-only" => Self {
                read_only: true,
                ..standard
            },
            "cost-capped-1usd" => Self {
                max_cost_per_plan: Some(Usd::from_dollars(1)),
                ..standard
            },
            "cost-capped-5usd" => Self {
                max_cost_per_plan: Some(Usd::from_dollars(5)),
                ..standard
            },
            _ => return None,
        })
    }

    /// Whether file writes are permitted at all.
    #[must_use]
    pub const fn allows_writes(&self) -> bool {
        !self.read_only
    }

    /// Whether a skill of `category` may be used.
    #[must_use]
    pub fn allows_skill_category(&self, category: &str) -> bool {
        self.allowed_skill_categories.is_empty()
            || self.allowed_skill_categories.iter().any(|c| c == category)
    }

    /// Every problem with this profile (empty when valid); `prefix` is the
    /// field path it sits at (e.g. `safety`).
    #[must_use]
    pub fn violations(&self, prefix: &str) -> Vec<Violation> {
        let at = |field: &str| {
            if prefix.is_empty() {
                field.to_owned()
            } else {
                format!("{prefix}.{field}")
            }
        };
        let mut out = Vec::new();
        if self.max_retries_per_step > MAX_RETRIES_LIMIT {
            out.push(Violation::new(
                at("max_retries_per_step"),
                format!(
                    "must be from 0 to {MAX_RETRIES_LIMIT}, got {}",
                    self.max_retries_per_step
                ),
            ));
        }
        for (field, value) in [
            ("max_cost_per_plan", self.max_cost_per_plan),
            ("max_total_cost", self.max_total_cost),
        ] {
            if let Some(v) = value.filter(|v| v.is_negative()) {
                out.push(Violation::new(
                    at(field),
                    format!("must not be negative, got {v}"),
                ));
            }
        }
        if self
            .allowed_skill_categories
            .iter()
            .any(|c| c.trim().is_empty())
        {
            out.push(Violation::new(
                at("allowed_skill_categories"),
                "categories must not be blank",
            ));
        }
        out
    }
}

/// The document form of [`SafetyProfile`]: every field optional, defaults as the specification's table.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(rename = "SafetyProfile"))]
struct SafetyDocument {
    /// Require sandbox isolation for all file writes (default true).
    #[serde(default = "yes")]
    require_sandbox: bool,
    /// Require checkpoints before destructive operations (default true).
    #[serde(default = "yes")]
    require_checkpoints: bool,
    /// Allow tools marked `unsafe: true` (default false).
    #[serde(default)]
    allow_unsafe_tools: bool,
    /// Require human approval before each action step (default false).
    #[serde(default)]
    require_human_approval: bool,
    /// Permitted skill categories (default empty: all).
    #[serde(default)]
    allowed_skill_categories: Vec<String>,
    /// Maximum cost per plan, in USD (default none).
    #[serde(default)]
    max_cost_per_plan: Option<Usd>,
    /// Maximum lifetime cost, in USD (default none).
    #[serde(default)]
    max_total_cost: Option<Usd>,
    /// Maximum retries per action step, 0-100 (default 3).
    #[serde(default = "three")]
    #[cfg_attr(feature = "schema", schemars(range(max = 100)))]
    max_retries_per_step: u32,
    /// No file writes; only tools that read are permitted (default false).
    #[serde(default)]
    read_only: bool,
}

const fn yes() -> bool {
    true
}

const fn three() -> u32 {
    3
}

/// A safety profile that breaks its rules; every problem is listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid safety profile: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
#[non_exhaustive]
pub struct SafetyProfileError(pub Vec<Violation>);

impl TryFrom<SafetyDocument> for SafetyProfile {
    type Error = SafetyProfileError;
    fn try_from(d: SafetyDocument) -> Result<Self, Self::Error> {
        let profile = Self {
            require_sandbox: d.require_sandbox,
            require_checkpoints: d.require_checkpoints,
            allow_unsafe_tools: d.allow_unsafe_tools,
            require_human_approval: d.require_human_approval,
            allowed_skill_categories: d.allowed_skill_categories,
            max_cost_per_plan: d.max_cost_per_plan,
            max_total_cost: d.max_total_cost,
            max_retries_per_step: d.max_retries_per_step,
            read_only: d.read_only,
        };
        let problems = profile.violations("");
        if problems.is_empty() {
            Ok(profile)
        } else {
            Err(SafetyProfileError(problems))
        }
    }
}
