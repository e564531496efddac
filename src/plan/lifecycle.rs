//! The plan lifecycle port.

use std::fmt::Debug;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Artifact, Decision, FileChange, PlanState, PlanStatus, PlanSummary};
use crate::ids::{DecisionId, PlanId, SessionId};
use crate::service_error::ServiceResult;

/// What `_cleveragents/plan/use` asks for: a plan created from an action.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct UsePlan {
    /// The action template to carry out (required, not blank).
    pub action_name: String,
    /// The action's arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// The session the plan belongs to.
    #[serde(default)]
    pub session_id: Option<SessionId>,
}

impl UsePlan {
    /// A plan for `action_name` with no arguments.
    #[must_use]
    pub fn new(action_name: impl Into<String>) -> Self {
        Self {
            action_name: action_name.into(),
            ..Self::default()
        }
    }

    /// Sets one argument.
    #[must_use]
    pub fn argument(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.arguments.insert(name.into(), value.into());
        self
    }

    /// Ties the plan to a session.
    #[must_use]
    pub fn session(mut self, id: SessionId) -> Self {
        self.session_id = Some(id);
        self
    }
}

/// A human correction of a plan (`_cleveragents/plan/correct`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Correction {
    /// What to do differently (required, not blank).
    pub guidance: String,
    /// The decision being corrected; the tree's root when absent.
    #[serde(default)]
    pub decision_id: Option<DecisionId>,
}

impl Correction {
    /// A correction of the whole plan.
    #[must_use]
    pub fn new(guidance: impl Into<String>) -> Self {
        Self {
            guidance: guidance.into(),
            decision_id: None,
        }
    }
}

/// Which plans `_cleveragents/plan/list` returns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PlanFilter {
    /// Only plans of this session.
    #[serde(default)]
    pub session_id: Option<SessionId>,
    /// Only plans in this state.
    #[serde(default)]
    pub state: Option<PlanState>,
}

impl PlanFilter {
    /// Only plans of this session.
    #[must_use]
    pub fn session(mut self, id: SessionId) -> Self {
        self.session_id = Some(id);
        self
    }

    /// Only plans in this state.
    #[must_use]
    pub fn state(mut self, state: PlanState) -> Self {
        self.state = Some(state);
        self
    }
}

/// The plan lifecycle: creating plans from actions and moving them through
/// strategize → execute → apply. Implemented by hosts; `&self` methods, so
/// implementations use interior mutability and must be safe under concurrency.
///
/// Every method naming a plan fails with
/// [`ServiceError::NotFound`](crate::ServiceError::NotFound) (key `plan_id`)
/// for an unknown plan, and with
/// [`ServiceError::InvalidState`](crate::ServiceError::InvalidState) for a
/// transition the plan's state does not allow.
pub trait PlanLifecycle: Send + Sync + Debug + 'static {
    /// Creates a plan from an action; the plan starts in `strategize`.
    ///
    /// # Errors
    /// [`ServiceError::Invalid`](crate::ServiceError::Invalid) for a blank action name.
    fn use_action(&self, request: UsePlan) -> ServiceResult<PlanStatus>;
    /// Moves the plan to `execute`.
    ///
    /// # Errors
    /// See the trait documentation.
    fn execute(&self, plan_id: PlanId) -> ServiceResult<PlanStatus>;
    /// Moves the plan to `apply`.
    ///
    /// # Errors
    /// See the trait documentation.
    fn apply(&self, plan_id: PlanId) -> ServiceResult<PlanStatus>;
    /// Cancels a plan that has not finished.
    ///
    /// # Errors
    /// See the trait documentation.
    fn cancel(&self, plan_id: PlanId) -> ServiceResult<PlanStatus>;
    /// The plan's phase and state.
    ///
    /// # Errors
    /// See the trait documentation.
    fn status(&self, plan_id: PlanId) -> ServiceResult<PlanStatus>;
    /// The decision tree, in the order decisions were made (parents first).
    ///
    /// # Errors
    /// See the trait documentation.
    fn tree(&self, plan_id: PlanId) -> ServiceResult<Vec<Decision>>;
    /// One decision with its rationale.
    ///
    /// # Errors
    /// `NotFound` with key `decision_id` for an unknown decision.
    fn explain(&self, plan_id: PlanId, decision_id: DecisionId) -> ServiceResult<Decision>;
    /// Records a human correction; returns the decision it became.
    ///
    /// # Errors
    /// See the trait documentation.
    fn correct(&self, plan_id: PlanId, correction: Correction) -> ServiceResult<Decision>;
    /// Injects guidance into execution; returns the decision it became.
    ///
    /// # Errors
    /// See the trait documentation.
    fn prompt(&self, plan_id: PlanId, guidance: String) -> ServiceResult<Decision>;
    /// The file changes the plan makes.
    ///
    /// # Errors
    /// See the trait documentation.
    fn diff(&self, plan_id: PlanId) -> ServiceResult<Vec<FileChange>>;
    /// What the plan produced.
    ///
    /// # Errors
    /// See the trait documentation.
    fn artifacts(&self, plan_id: PlanId) -> ServiceResult<Vec<Artifact>>;
    /// Restores the last checkpoint (undoing the last phase transition).
    ///
    /// # Errors
    /// See the trait documentation.
    fn rollback(&self, plan_id: PlanId) -> ServiceResult<PlanStatus>;
    /// Plans matching `filter`, oldest first.
    ///
    /// # Errors
    /// From the host.
    fn list(&self, filter: &PlanFilter) -> ServiceResult<Vec<PlanSummary>>;
}
