//! The in-memory reference plan lifecycle.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use parking_lot::RwLock;
use serde_json::{Map, Value};

use super::lifecycle::{Correction, PlanFilter, PlanLifecycle, UsePlan};
use super::{
    Artifact, Decision, DecisionKind, FileChange, PlanPhase, PlanState, PlanStatus, PlanSummary,
};
use crate::clock::{Clock, SystemClock};
use crate::ids::{CheckpointId, DecisionId, PlanId, SessionId};
use crate::service_error::{ServiceError, ServiceResult, require_text};

/// What a rollback restores.
#[derive(Debug, Clone)]
struct Checkpoint {
    id: CheckpointId,
    phase: PlanPhase,
    state: PlanState,
    artifacts: Vec<Artifact>,
    changes: BTreeMap<String, FileChange>,
}

#[derive(Debug, Clone)]
struct PlanRecord {
    status: PlanStatus,
    session_id: Option<SessionId>,
    arguments: Map<String, Value>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    decisions: Vec<Decision>,
    artifacts: Vec<Artifact>,
    changes: BTreeMap<String, FileChange>,
    checkpoints: Vec<Checkpoint>,
    /// The state a paused or waiting plan returns to.
    held_from: Option<PlanState>,
}

impl PlanRecord {
    fn id(&self) -> PlanId {
        self.status.plan_id
    }

    fn is_applied(&self) -> bool {
        self.status.phase == PlanPhase::Apply && self.status.state == PlanState::Completed
    }

    fn refuse(&self, action: &'static str, needs: &str) -> ServiceError {
        ServiceError::InvalidState {
            entity: "plan",
            key: "plan_id",
            id: self.id().to_string(),
            action,
            reason: format!(
                "it is in phase `{}` with state `{}`; {action} needs {needs}",
                self.status.phase, self.status.state
            ),
        }
    }

    /// Refuses anything on a cancelled, failed or applied plan.
    fn require_open(&self, action: &'static str) -> ServiceResult<()> {
        if self.status.state.is_final() || self.is_applied() {
            Err(self.refuse(action, "a plan that is neither finished nor cancelled"))
        } else {
            Ok(())
        }
    }

    fn root_id(&self) -> Option<DecisionId> {
        self.decisions.first().map(|d| d.decision_id)
    }

    fn decide(
        &mut self,
        at: DateTime<Utc>,
        parent_id: Option<DecisionId>,
        kind: DecisionKind,
        summary: String,
        rationale: String,
    ) -> Decision {
        let mut decision = Decision::new(self.status.phase, kind, summary, rationale, at);
        decision.parent_id = parent_id;
        self.decisions.push(decision.clone());
        self.updated_at = at;
        decision
    }

    fn checkpoint(&mut self) {
        self.checkpoints.push(Checkpoint {
            id: CheckpointId::new(),
            phase: self.status.phase,
            state: self.status.state,
            artifacts: self.artifacts.clone(),
            changes: self.changes.clone(),
        });
    }

    fn move_to(&mut self, phase: PlanPhase, state: PlanState) {
        self.status.phase = phase;
        self.status.state = state;
        self.status.pause_reason = None;
        self.held_from = None;
    }

    fn summary(&self) -> PlanSummary {
        let mut summary = PlanSummary::new(self.status.clone(), self.created_at);
        summary.session_id = self.session_id;
        summary.arguments = self.arguments.clone();
        summary.updated_at = self.updated_at;
        summary
    }
}

/// The in-memory reference [`PlanLifecycle`]: a cheap `Clone` handle; clones
/// share state.
///
/// Transitions (anything else is refused with `InvalidState`, code -32004):
///
/// | operation | from | to | checkpoint |
/// | --- | --- | --- | --- |
/// | `use` | — | `strategize` / `completed` | — |
/// | `execute` | `strategize` / `completed` | `execute` / `running` | taken before |
/// | `apply` | `execute` / `running` or `completed` | `apply` / `completed` | taken before |
/// | `cancel` | any unfinished | same phase / `cancelled` | — |
/// | `rollback` | any but cancelled/failed | the last checkpoint, which is removed | — |
///
/// While executing, the host records what the plan produces with
/// [`record_change`](Self::record_change) and [`record_artifact`](Self::record_artifact).
///
/// ```
/// use cleveragents::{InMemoryPlanLifecycle, PlanLifecycle, PlanPhase, PlanState, UsePlan};
///
/// let plans = InMemoryPlanLifecycle::new();
/// let plan = plans.use_action(UsePlan::new("refactor-auth").argument("target", "src/auth"))?;
/// plans.execute(plan.plan_id)?;
/// plans.record_change(plan.plan_id, "src/auth.rs", Some("old".into()), Some("new".into()))?;
/// let status = plans.apply(plan.plan_id)?;
/// assert_eq!((status.phase, status.state), (PlanPhase::Apply, PlanState::Completed));
///
/// // Undo the apply: back to execute, with the change still proposed.
/// let back = plans.rollback(plan.plan_id)?;
/// assert_eq!(back.phase, PlanPhase::Execute);
/// assert_eq!(plans.diff(plan.plan_id)?.len(), 1);
/// # Ok::<(), cleveragents::ServiceError>(())
/// ```
#[derive(Debug, Clone)]
pub struct InMemoryPlanLifecycle {
    plans: Arc<RwLock<HashMap<PlanId, PlanRecord>>>,
    clock: Arc<dyn Clock>,
}

impl InMemoryPlanLifecycle {
    /// An empty lifecycle using the system clock.
    #[must_use]
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// An empty lifecycle using `clock` for timestamps.
    #[must_use]
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            plans: Arc::default(),
            clock,
        }
    }

    fn read<T>(
        &self,
        plan_id: PlanId,
        f: impl FnOnce(&PlanRecord) -> ServiceResult<T>,
    ) -> ServiceResult<T> {
        let plans = self.plans.read();
        let record = plans
            .get(&plan_id)
            .ok_or_else(|| ServiceError::not_found("plan", "plan_id", plan_id))?;
        f(record)
    }

    fn write<T>(
        &self,
        plan_id: PlanId,
        f: impl FnOnce(&mut PlanRecord, DateTime<Utc>) -> ServiceResult<T>,
    ) -> ServiceResult<T> {
        let now = self.clock.now();
        let mut plans = self.plans.write();
        let record = plans
            .get_mut(&plan_id)
            .ok_or_else(|| ServiceError::not_found("plan", "plan_id", plan_id))?;
        f(record, now)
    }

    /// Records a file change the executing plan proposes (replacing an earlier
    /// change of the same path, keeping the original `before`).
    ///
    /// # Errors
    /// `NotFound` for an unknown plan, `InvalidState` unless the plan is
    /// executing, `Invalid` for a blank path or a change with neither side.
    pub fn record_change(
        &self,
        plan_id: PlanId,
        path: &str,
        before: Option<String>,
        after: Option<String>,
    ) -> ServiceResult<FileChange> {
        require_text("path", path)?;
        self.write(plan_id, |record, now| {
            if (record.status.phase, record.status.state)
                != (PlanPhase::Execute, PlanState::Running)
            {
                return Err(record.refuse(
                    "record a change for",
                    "phase `execute` with state `running`",
                ));
            }
            let before = record
                .changes
                .get(path)
                .map_or(before, |earlier| earlier.before.clone());
            let change = FileChange::new(path, before, after).ok_or_else(|| {
                ServiceError::invalid("after", "a change needs content before or after")
            })?;
            record.changes.insert(path.to_owned(), change.clone());
            record.updated_at = now;
            Ok(change)
        })
    }

    /// Stops a running or waiting plan with a reason (e.g. `budget_exceeded`).
    ///
    /// # Errors
    /// `NotFound`; `InvalidState` for a plan that is not running, waiting or completed-but-unapplied.
    pub fn pause(&self, plan_id: PlanId, reason: &str) -> ServiceResult<PlanStatus> {
        self.hold(plan_id, PlanState::Paused, reason, "pause")
    }

    /// Waits for a human: the plan goes to `input-required` with `reason`.
    ///
    /// # Errors
    /// As [`pause`](Self::pause).
    pub fn await_input(&self, plan_id: PlanId, reason: &str) -> ServiceResult<PlanStatus> {
        self.hold(
            plan_id,
            PlanState::InputRequired,
            reason,
            "ask a human about",
        )
    }

    fn hold(
        &self,
        plan_id: PlanId,
        state: PlanState,
        reason: &str,
        action: &'static str,
    ) -> ServiceResult<PlanStatus> {
        self.write(plan_id, |record, now| {
            record.require_open(action)?;
            record.held_from.get_or_insert(record.status.state);
            record.status.state = state;
            record.status.pause_reason = Some(reason.to_owned());
            record.updated_at = now;
            Ok(record.status.clone())
        })
    }

    /// Continues a paused or waiting plan in the state it was held from.
    ///
    /// # Errors
    /// `NotFound`; `InvalidState` unless the plan is paused or waiting.
    pub fn resume(&self, plan_id: PlanId) -> ServiceResult<PlanStatus> {
        self.write(plan_id, |record, now| {
            if !matches!(
                record.status.state,
                PlanState::Paused | PlanState::InputRequired
            ) {
                return Err(record.refuse("resume", "state `paused` or `input-required`"));
            }
            let state = record.held_from.take().unwrap_or(PlanState::Running);
            record.status.state = state;
            record.status.pause_reason = None;
            record.updated_at = now;
            Ok(record.status.clone())
        })
    }

    /// Records an artifact the executing plan produced.
    ///
    /// # Errors
    /// `NotFound` for an unknown plan, `InvalidState` unless the plan is executing.
    pub fn record_artifact(&self, plan_id: PlanId, artifact: Artifact) -> ServiceResult<Artifact> {
        self.write(plan_id, |record, now| {
            if (record.status.phase, record.status.state)
                != (PlanPhase::Execute, PlanState::Running)
            {
                return Err(record.refuse(
                    "record an artifact for",
                    "phase `execute` with state `running`",
                ));
            }
            record.artifacts.push(artifact.clone());
            record.updated_at = now;
            Ok(artifact)
        })
    }
}

impl Default for InMemoryPlanLifecycle {
    fn default() -> Self {
        Self::new()
    }
}

impl PlanLifecycle for InMemoryPlanLifecycle {
    fn use_action(&self, request: UsePlan) -> ServiceResult<PlanStatus> {
        require_text("action_name", &request.action_name)?;
        let now = self.clock.now();
        let plan_id = PlanId::new();
        let status = PlanStatus::new(
            plan_id,
            request.action_name.clone(),
            PlanPhase::Strategize,
            PlanState::Completed,
        );
        let mut record = PlanRecord {
            status: status.clone(),
            session_id: request.session_id,
            arguments: request.arguments,
            created_at: now,
            updated_at: now,
            decisions: Vec::new(),
            artifacts: Vec::new(),
            changes: BTreeMap::new(),
            checkpoints: Vec::new(),
            held_from: None,
        };
        let argument_names: Vec<&str> = record.arguments.keys().map(String::as_str).collect();
        let rationale = if argument_names.is_empty() {
            "created by `plan use` with no arguments".to_owned()
        } else {
            format!(
                "created by `plan use` with arguments: {}",
                argument_names.join(", ")
            )
        };
        record.decide(
            now,
            None,
            DecisionKind::Strategy,
            format!("carry out action `{}`", request.action_name),
            rationale,
        );
        self.plans.write().insert(plan_id, record);
        Ok(status)
    }

    fn execute(&self, plan_id: PlanId) -> ServiceResult<PlanStatus> {
        self.write(plan_id, |record, now| {
            if (record.status.phase, record.status.state)
                != (PlanPhase::Strategize, PlanState::Completed)
            {
                return Err(record.refuse("execute", "phase `strategize` with state `completed`"));
            }
            record.checkpoint();
            record.move_to(PlanPhase::Execute, PlanState::Running);
            let root = record.root_id();
            record.decide(
                now,
                root,
                DecisionKind::Execution,
                "execute the strategy".to_owned(),
                "the strategy was complete and execution was requested".to_owned(),
            );
            Ok(record.status.clone())
        })
    }

    fn apply(&self, plan_id: PlanId) -> ServiceResult<PlanStatus> {
        self.write(plan_id, |record, now| {
            let ready = record.status.phase == PlanPhase::Execute
                && matches!(
                    record.status.state,
                    PlanState::Running | PlanState::Completed
                );
            if !ready {
                return Err(record.refuse(
                    "apply",
                    "phase `execute` with state `running` or `completed`",
                ));
            }
            record.checkpoint();
            record.move_to(PlanPhase::Apply, PlanState::Completed);
            let root = record.root_id();
            let files = record.changes.len();
            record.decide(
                now,
                root,
                DecisionKind::Application,
                format!("apply {files} file change(s)"),
                "execution finished and apply was requested".to_owned(),
            );
            Ok(record.status.clone())
        })
    }

    fn cancel(&self, plan_id: PlanId) -> ServiceResult<PlanStatus> {
        self.write(plan_id, |record, now| {
            record.require_open("cancel")?;
            record.status.state = PlanState::Cancelled;
            record.status.pause_reason = None;
            let root = record.root_id();
            record.decide(
                now,
                root,
                DecisionKind::Cancellation,
                "cancel the plan".to_owned(),
                "cancellation was requested".to_owned(),
            );
            Ok(record.status.clone())
        })
    }

    fn status(&self, plan_id: PlanId) -> ServiceResult<PlanStatus> {
        self.read(plan_id, |record| Ok(record.status.clone()))
    }

    fn tree(&self, plan_id: PlanId) -> ServiceResult<Vec<Decision>> {
        self.read(plan_id, |record| Ok(record.decisions.clone()))
    }

    fn explain(&self, plan_id: PlanId, decision_id: DecisionId) -> ServiceResult<Decision> {
        self.read(plan_id, |record| {
            record
                .decisions
                .iter()
                .find(|d| d.decision_id == decision_id)
                .cloned()
                .ok_or_else(|| ServiceError::not_found("decision", "decision_id", decision_id))
        })
    }

    fn correct(&self, plan_id: PlanId, correction: Correction) -> ServiceResult<Decision> {
        require_text("guidance", &correction.guidance)?;
        self.write(plan_id, |record, now| {
            record.require_open("correct")?;
            let parent = match correction.decision_id {
                Some(id) if record.decisions.iter().any(|d| d.decision_id == id) => Some(id),
                Some(id) => return Err(ServiceError::not_found("decision", "decision_id", id)),
                None => record.root_id(),
            };
            Ok(record.decide(
                now,
                parent,
                DecisionKind::Correction,
                correction.guidance,
                "a human corrected the plan".to_owned(),
            ))
        })
    }

    fn prompt(&self, plan_id: PlanId, guidance: String) -> ServiceResult<Decision> {
        require_text("guidance", &guidance)?;
        self.write(plan_id, |record, now| {
            record.require_open("prompt")?;
            let root = record.root_id();
            Ok(record.decide(
                now,
                root,
                DecisionKind::Guidance,
                guidance,
                "a human injected guidance".to_owned(),
            ))
        })
    }

    fn diff(&self, plan_id: PlanId) -> ServiceResult<Vec<FileChange>> {
        self.read(plan_id, |record| {
            Ok(record.changes.values().cloned().collect())
        })
    }

    fn artifacts(&self, plan_id: PlanId) -> ServiceResult<Vec<Artifact>> {
        self.read(plan_id, |record| Ok(record.artifacts.clone()))
    }

    fn rollback(&self, plan_id: PlanId) -> ServiceResult<PlanStatus> {
        self.write(plan_id, |record, now| {
            if record.status.state.is_final() {
                return Err(record.refuse("roll back", "a plan that is not cancelled or failed"));
            }
            let Some(checkpoint) = record.checkpoints.pop() else {
                return Err(record.refuse("roll back", "a checkpoint, and none was taken yet"));
            };
            record.move_to(checkpoint.phase, checkpoint.state);
            record.artifacts = checkpoint.artifacts;
            record.changes = checkpoint.changes;
            let root = record.root_id();
            record.decide(
                now,
                root,
                DecisionKind::Rollback,
                format!("roll back to checkpoint {}", checkpoint.id),
                "a rollback was requested".to_owned(),
            );
            Ok(record.status.clone())
        })
    }

    fn list(&self, filter: &PlanFilter) -> ServiceResult<Vec<PlanSummary>> {
        let plans = self.plans.read();
        let mut out: Vec<PlanSummary> = plans
            .values()
            .filter(|r| filter.session_id.is_none_or(|s| r.session_id == Some(s)))
            .filter(|r| filter.state.is_none_or(|s| r.status.state == s))
            .map(PlanRecord::summary)
            .collect();
        drop(plans);
        out.sort_by_key(|p| (p.created_at, p.status.plan_id));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn illegal_transitions_are_refused_and_leave_state_unchanged() {
        let plans = InMemoryPlanLifecycle::new();
        let plan = plans.use_action(UsePlan::new("a")).unwrap();
        let err = plans.apply(plan.plan_id).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot apply plan `{}`: it is in phase `strategize` with state `completed`; apply needs phase `execute` with state `running` or `completed`",
                plan.plan_id
            )
        );
        assert_eq!(plans.status(plan.plan_id).unwrap(), plan);
        assert!(plans.rollback(plan.plan_id).is_err(), "no checkpoint yet");
        plans.cancel(plan.plan_id).unwrap();
        assert!(plans.execute(plan.plan_id).is_err());
        assert!(plans.cancel(plan.plan_id).is_err());
        assert!(plans.rollback(plan.plan_id).is_err());
    }

    #[test]
    fn rollback_walks_back_through_checkpoints() {
        let plans = InMemoryPlanLifecycle::new();
        let id = plans.use_action(UsePlan::new("a")).unwrap().plan_id;
        plans.execute(id).unwrap();
        plans
            .record_change(id, "f", None, Some("x".into()))
            .unwrap();
        plans
            .record_change(id, "f", None, Some("y".into()))
            .unwrap();
        plans.apply(id).unwrap();
        assert_eq!(plans.rollback(id).unwrap().phase, PlanPhase::Execute);
        assert_eq!(plans.diff(id).unwrap()[0].after.as_deref(), Some("y"));
        let back = plans.rollback(id).unwrap();
        assert_eq!(
            (back.phase, back.state),
            (PlanPhase::Strategize, PlanState::Completed)
        );
        assert!(plans.diff(id).unwrap().is_empty());
        let kinds: Vec<_> = plans.tree(id).unwrap().iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [
                DecisionKind::Strategy,
                DecisionKind::Execution,
                DecisionKind::Application,
                DecisionKind::Rollback,
                DecisionKind::Rollback
            ]
        );
    }
}
