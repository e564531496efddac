//! Autonomy guardrails: per-plan runtime limits (steps, tool budget, wall
//! clock, per-actor calls and retries, required confirmations), the budget
//! hierarchy (plan → session → org), and the tamper-evident audit trail of
//! every decision.

mod audit;
mod service;
mod sink;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::budget::{BudgetExceeded, BudgetLevel};
use crate::money::Usd;
use crate::profile::Violation;
use crate::service_error::ServiceError;

pub use audit::{
    AuditContext, AuditHash, AuditVerifyError, DEFAULT_AUDIT_CAPACITY, GuardrailAuditEntry,
    GuardrailAuditTrail, GuardrailEventType, GuardrailResult, MAX_AUDIT_SEQUENCE,
};
pub use service::{
    AUDIT_TRAIL_KEY, AutonomyGuardrailService, AutonomyGuardrailServiceBuilder, GUARDRAILS_KEY,
};
pub use sink::{AuditSink, InMemoryAuditSink, SinkMode};

/// Per-actor runtime limits. `None` means unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ActorLimits {
    /// Most tool calls per actor invocation (allowed while `calls < limit`).
    #[serde(default)]
    pub max_tool_calls_per_invocation: Option<u32>,
    /// Most retries per tool failure (allowed while `retries < limit`).
    #[serde(default)]
    pub max_retries_per_failure: Option<u32>,
}

impl ActorLimits {
    /// Limits on calls per invocation and retries per failure.
    #[must_use]
    pub const fn new(
        max_tool_calls_per_invocation: Option<u32>,
        max_retries_per_failure: Option<u32>,
    ) -> Self {
        Self {
            max_tool_calls_per_invocation,
            max_retries_per_failure,
        }
    }
}

/// A plan's guardrails: limits, and the runtime counters tracked against them.
/// `None` means unlimited.
///
/// ```
/// use cleveragents::{ActorLimits, AutonomyGuardrails, Usd};
///
/// let mut guardrails = AutonomyGuardrails::default();
/// guardrails.max_steps = Some(100);
/// guardrails.tool_budget = Some(Usd::from_dollars(10));
/// guardrails.max_wall_clock_seconds = Some(3600.0);
/// guardrails.actor_limits = ActorLimits::new(Some(20), Some(3));
/// guardrails.required_confirmations = vec!["delete_database".into(), "deploy_*".into()];
/// assert!(guardrails.validate().is_ok());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AutonomyGuardrails {
    /// Most execution steps (allowed while `step < max_steps`).
    #[serde(default)]
    pub max_steps: Option<u64>,
    /// Most cumulative tool cost, USD (allowed while `spent + cost <= budget`).
    #[serde(default)]
    pub tool_budget: Option<Usd>,
    /// Most wall-clock time, seconds (allowed while `elapsed <= limit`).
    #[serde(default)]
    pub max_wall_clock_seconds: Option<f64>,
    /// Per-actor limits.
    #[serde(default)]
    pub actor_limits: ActorLimits,
    /// Operations (names or `*` patterns) that need a human's confirmation.
    #[serde(default)]
    pub required_confirmations: Vec<String>,
    /// Steps admitted so far (runtime).
    #[serde(default)]
    pub step_count: u64,
    /// Tool cost recorded so far (runtime).
    #[serde(default)]
    pub budget_spent: Usd,
    /// When execution started (runtime; set when the guardrails are configured).
    #[serde(default)]
    pub start_time: Option<DateTime<Utc>>,
}

impl AutonomyGuardrails {
    /// Every problem (empty when valid).
    #[must_use]
    pub fn violations(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        if let Some(seconds) = self.max_wall_clock_seconds {
            if !seconds.is_finite() || seconds < 0.0 {
                out.push(Violation::new(
                    "max_wall_clock_seconds",
                    format!("must be a finite number of seconds, 0 or more, got `{seconds}`"),
                ));
            }
        }
        if self.tool_budget.is_some_and(Usd::is_negative) {
            out.push(Violation::new("tool_budget", "must not be negative"));
        }
        if self.budget_spent.is_negative() {
            out.push(Violation::new("budget_spent", "must not be negative"));
        }
        if self
            .required_confirmations
            .iter()
            .any(|o| o.trim().is_empty())
        {
            out.push(Violation::new(
                "required_confirmations",
                "operations must not be blank",
            ));
        }
        out
    }

    /// Checks [`violations`](Self::violations).
    ///
    /// # Errors
    /// [`GuardrailError::InvalidGuardrails`] listing every problem.
    pub fn validate(&self) -> Result<(), GuardrailError> {
        let problems = self.violations();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(GuardrailError::InvalidGuardrails(problems))
        }
    }
}

/// A guardrail check's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GuardrailDecision {
    /// Whether the step, cost, call or retry may go on. For
    /// confirmations: `false` means a human must confirm first.
    pub allowed: bool,
    /// What was recorded.
    pub event_type: GuardrailEventType,
    /// The audit entry's sequence number.
    pub sequence: u64,
    /// Why it was denied (`None` when allowed).
    pub reason: Option<String>,
}

/// A budget-hierarchy check's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BudgetCheck {
    /// Whether the charge was recorded at every level.
    pub allowed: bool,
    /// The level that refused.
    pub exceeded_level: Option<BudgetLevel>,
    /// The refusal in full: limit, spent, reserved, requested.
    pub exceeded: Option<BudgetExceeded>,
    /// Why (`None` when allowed).
    pub reason: Option<String>,
    /// The audit entry's sequence number.
    pub sequence: u64,
}

/// Why a guardrail operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardrailError {
    /// A negative cost.
    #[error("invalid cost `{0}`: a cost must not be negative")]
    NegativeCost(Usd),
    /// Guardrails that break their rules.
    #[error("invalid guardrails: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    InvalidGuardrails(Vec<Violation>),
    /// In strict mode, the audit sink failed; the decision was reverted.
    #[error("audit sink failed to record entry {sequence}; the decision was reverted")]
    AuditSink {
        /// The entry the sink refused.
        sequence: u64,
        /// The sink's error.
        #[source]
        source: ServiceError,
    },
    /// Metadata that cannot be restored; nothing was changed.
    #[error("cannot restore guardrails from metadata: `{key}`: {reason}")]
    InvalidMetadata {
        /// The metadata key at fault.
        key: &'static str,
        /// What is wrong.
        reason: String,
    },
}
