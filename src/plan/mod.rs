//! Plans: an action taken through the phases strategize → execute → apply.
//!
//! This module holds the plan models and the [`PlanLifecycle`] port; the
//! in-memory reference implementation is [`InMemoryPlanLifecycle`].

mod lifecycle;
mod memory;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ids::{ArtifactId, DecisionId, PlanId, SessionId};

pub use lifecycle::{Correction, PlanFilter, PlanLifecycle, UsePlan};
pub use memory::InMemoryPlanLifecycle;

use crate::string_enum::string_enum;

string_enum!(
    /// The phase a plan is in.
    PlanPhase, "plan phase" {
        /// Working out how to carry out the action.
        Strategize => "strategize",
        /// Carrying it out (in a sandbox).
        Execute => "execute",
        /// Applying the results to the real project.
        Apply => "apply",
    }
);

string_enum!(
    /// The state of the current phase.
    PlanState, "plan state" {
        /// The phase's work is under way.
        Running => "running",
        /// Stopped, waiting to be resumed (see [`PlanStatus::pause_reason`]).
        Paused => "paused",
        /// Waiting for a human to approve a step (see [`PlanStatus::pause_reason`]).
        InputRequired => "input-required",
        /// The phase's work is done; in `apply`, the plan is finished.
        Completed => "completed",
        /// Cancelled; final.
        Cancelled => "cancelled",
        /// Failed; final.
        Failed => "failed",
    }
);

impl PlanState {
    /// Whether no further transition is possible from this state (in any phase).
    #[must_use]
    pub const fn is_final(self) -> bool {
        matches!(self, Self::Cancelled | Self::Failed)
    }
}

string_enum!(
    /// What kind of decision a decision-tree node records.
    DecisionKind, "decision kind" {
        /// How the action is decomposed (made at `plan use`).
        Strategy => "strategy",
        /// Starting execution.
        Execution => "execution",
        /// Applying the results.
        Application => "application",
        /// A human correction.
        Correction => "correction",
        /// Human guidance injected during execution.
        Guidance => "guidance",
        /// A rollback to a checkpoint.
        Rollback => "rollback",
        /// Cancellation.
        Cancellation => "cancellation",
    }
);

/// A plan's phase and state: what `_cleveragents/plan/status` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PlanStatus {
    /// The plan.
    pub plan_id: PlanId,
    /// The action it carries out.
    pub action_name: String,
    /// Current phase.
    pub phase: PlanPhase,
    /// State of that phase.
    pub state: PlanState,
    /// Why the plan is paused, when it is (e.g. `budget_exceeded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_reason: Option<String>,
}

impl PlanStatus {
    /// A status with no pause reason.
    #[must_use]
    pub fn new(
        plan_id: PlanId,
        action_name: impl Into<String>,
        phase: PlanPhase,
        state: PlanState,
    ) -> Self {
        Self {
            plan_id,
            action_name: action_name.into(),
            phase,
            state,
            pause_reason: None,
        }
    }
}

/// Whole-plan summary, as listed by `_cleveragents/plan/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PlanSummary {
    /// Phase and state.
    #[serde(flatten)]
    pub status: PlanStatus,
    /// The session that created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<SessionId>,
    /// The action's arguments.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub arguments: Map<String, Value>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

impl PlanSummary {
    /// A summary of a plan created (and last changed) at `created_at`, with no
    /// session and no arguments; set the public fields for more.
    #[must_use]
    pub fn new(status: PlanStatus, created_at: DateTime<Utc>) -> Self {
        Self {
            status,
            session_id: None,
            arguments: Map::new(),
            created_at,
            updated_at: created_at,
        }
    }
}

/// A node of a plan's decision tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Decision {
    /// Its id.
    pub decision_id: DecisionId,
    /// The decision it refines (`None` for the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<DecisionId>,
    /// The phase it was made in.
    pub phase: PlanPhase,
    /// What kind of decision.
    pub kind: DecisionKind,
    /// One line saying what was decided.
    pub summary: String,
    /// Why: what `_cleveragents/plan/explain` shows.
    pub rationale: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

impl Decision {
    /// A root decision with a fresh id; set `parent_id` to attach it below another.
    #[must_use]
    pub fn new(
        phase: PlanPhase,
        kind: DecisionKind,
        summary: impl Into<String>,
        rationale: impl Into<String>,
        created_at: DateTime<Utc>,
    ) -> Self {
        Self {
            decision_id: DecisionId::new(),
            parent_id: None,
            phase,
            kind,
            summary: summary.into(),
            rationale: rationale.into(),
            created_at,
        }
    }
}

/// Something a plan produced (a report, a patch, a log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Artifact {
    /// Its id.
    pub artifact_id: ArtifactId,
    /// A display name.
    pub name: String,
    /// MIME type, e.g. `text/markdown`.
    pub media_type: String,
    /// The content (text).
    pub content: String,
}

impl Artifact {
    /// A new artifact with a fresh id.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        media_type: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self {
            artifact_id: ArtifactId::new(),
            name: name.into(),
            media_type: media_type.into(),
            content: content.into(),
        }
    }
}

string_enum!(
    /// How a file changes.
    ChangeKind, "change kind" {
        /// The file is created.
        Added => "added",
        /// The file's content changes.
        Modified => "modified",
        /// The file is removed.
        Deleted => "deleted",
    }
);

/// One file a plan changes: what `_cleveragents/plan/diff` lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileChange {
    /// Project-relative path.
    pub path: String,
    /// Added, modified or deleted.
    pub kind: ChangeKind,
    /// Content before (`None` when added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Content after (`None` when deleted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl FileChange {
    /// A change from `before` to `after`; the kind follows from which are present.
    ///
    /// Returns `None` when both are absent (no change).
    #[must_use]
    pub fn new(
        path: impl Into<String>,
        before: Option<String>,
        after: Option<String>,
    ) -> Option<Self> {
        let kind = match (&before, &after) {
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), Some(_)) => ChangeKind::Modified,
            (Some(_), None) => ChangeKind::Deleted,
            (None, None) => return None,
        };
        Some(Self {
            path: path.into(),
            kind,
            before,
            after,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_parse_their_spellings() {
        for phase in PlanPhase::ALL {
            assert_eq!(phase.as_str().parse::<PlanPhase>().unwrap(), *phase);
        }
        let err = "Running".parse::<PlanState>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown plan state `Running`; expected one of: running, paused, input-required, completed, cancelled, failed"
        );
    }
}
