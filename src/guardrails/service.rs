//! The autonomy guardrail service.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, RwLock};
use serde_json::{Map, Value};

use super::audit::{AuditContext, GuardrailAuditTrail, GuardrailEventType as E, Record};
use super::sink::{AuditSink, SinkMode};
use super::{AutonomyGuardrails, BudgetCheck, GuardrailDecision, GuardrailError};
use crate::budget::{BudgetCell, BudgetExceeded, BudgetLevel, CostBudgetService, take_all};
use crate::clock::{Clock, SystemClock};
use crate::glob::glob_match;
use crate::ids::{PlanId, SessionId};
use crate::money::Usd;

/// Metadata key of the serialized audit trail.
pub const AUDIT_TRAIL_KEY: &str = "guardrail_audit_trail";
/// Metadata key of the serialized guardrails.
pub const GUARDRAILS_KEY: &str = "autonomy_guardrails";

const SHARDS: usize = 16;

#[derive(Debug)]
struct PlanState {
    guardrails: AutonomyGuardrails,
    trail: GuardrailAuditTrail,
    /// Confirmations granted and not yet used, by operation.
    grants: HashMap<String, u32>,
    session: Option<SessionId>,
    session_cell: Option<Arc<BudgetCell>>,
    org_cell: Option<Arc<BudgetCell>>,
}

/// How to revert a decision when a strict sink refuses its entry.
#[derive(Debug)]
enum Undo {
    Nothing,
    Steps(u64),
    Spend {
        amount: Usd,
        cells: Vec<Arc<BudgetCell>>,
    },
    Grant(String),
}

#[derive(Debug)]
struct Inner {
    shards: [RwLock<HashMap<PlanId, Arc<Mutex<PlanState>>>>; SHARDS],
    budgets: Option<CostBudgetService>,
    clock: Arc<dyn Clock>,
    sink: Option<(Arc<dyn AuditSink>, SinkMode)>,
    capacity: usize,
    chained: bool,
    sink_failures: AtomicU64,
}

/// Builds an [`AutonomyGuardrailService`].
#[derive(Debug)]
#[must_use]
pub struct AutonomyGuardrailServiceBuilder {
    budgets: Option<CostBudgetService>,
    clock: Arc<dyn Clock>,
    sink: Option<(Arc<dyn AuditSink>, SinkMode)>,
    capacity: usize,
    chained: bool,
}

impl Default for AutonomyGuardrailServiceBuilder {
    fn default() -> Self {
        Self {
            budgets: None,
            clock: Arc::new(SystemClock),
            sink: None,
            capacity: super::DEFAULT_AUDIT_CAPACITY,
            chained: cfg!(feature = "audit-chain"),
        }
    }
}

impl AutonomyGuardrailServiceBuilder {
    /// The session and org levels of the budget hierarchy.
    pub fn cost_budget_service(mut self, budgets: CostBudgetService) -> Self {
        self.budgets = Some(budgets);
        self
    }

    /// The clock for timestamps and wall-clock limits (default: the system clock).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Where audit entries are persisted, and what a failure there does.
    pub fn audit_sink(mut self, sink: Arc<dyn AuditSink>, mode: SinkMode) -> Self {
        self.sink = Some((sink, mode));
        self
    }

    /// How many entries each plan's trail retains (default 10,000).
    pub fn audit_capacity(mut self, entries: usize) -> Self {
        self.capacity = entries.max(1);
        self
    }

    /// Turns the hash chain on or off (default: on with the `audit-chain` feature).
    pub fn audit_chain(mut self, chained: bool) -> Self {
        self.chained = chained;
        self
    }

    /// Builds the service.
    #[must_use]
    pub fn build(self) -> AutonomyGuardrailService {
        AutonomyGuardrailService {
            inner: Arc::new(Inner {
                shards: std::array::from_fn(|_| RwLock::new(HashMap::new())),
                budgets: self.budgets,
                clock: self.clock,
                sink: self.sink,
                capacity: self.capacity,
                chained: self.chained,
                sink_failures: AtomicU64::new(0),
            }),
        }
    }
}

/// Enforces guardrails during plan execution and audits every decision.
/// A cheap `Clone` handle, `Send + Sync`. Each plan has its own lock (plans
/// are spread over sharded maps), so different plans never wait for each other;
/// session and org budgets are lock-free.
///
/// Counter checks take the amount already used and allow iff `used < limit`;
/// money checks allow iff `spent + cost <= limit` and record the cost in the
/// same step; the wall clock allows iff `elapsed <= limit`. A plan that was
/// never configured has no limits (and still gets an audit trail).
///
/// ```
/// use cleveragents::{AutonomyGuardrailService, AutonomyGuardrails, PlanId, Usd};
///
/// let service = AutonomyGuardrailService::new();
/// let plan = PlanId::new();
/// let mut guardrails = AutonomyGuardrails::default();
/// guardrails.max_steps = Some(2);
/// guardrails.tool_budget = Some(Usd::from_dollars(5));
/// service.configure_guardrails(plan, guardrails)?;
///
/// assert!(service.check_step_limit(plan, 1)?.allowed);
/// assert!(!service.check_step_limit(plan, 2)?.allowed);
/// assert!(service.check_tool_budget(plan, Usd::from_dollars(5))?.allowed);
/// let refused = service.check_tool_budget(plan, Usd::from_cents(1))?;
/// assert!(!refused.allowed);
///
/// let trail = service.get_audit_trail(plan).unwrap();
/// assert_eq!((trail.allowed_count(), trail.denied_count()), (2, 2));
/// trail.verify()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AutonomyGuardrailService {
    inner: Arc<Inner>,
}

impl Default for AutonomyGuardrailService {
    fn default() -> Self {
        Self::builder().build()
    }
}

fn over(label: &str, used: u64, limit: u64, field: &str) -> String {
    format!(
        "{label} reached: {used}/{limit}. Remediation: raise {field} or request human approval."
    )
}

impl AutonomyGuardrailService {
    /// No budgets, no sink, the system clock, 10,000-entry chained trails.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder.
    pub fn builder() -> AutonomyGuardrailServiceBuilder {
        AutonomyGuardrailServiceBuilder::default()
    }

    fn shard(&self, plan_id: PlanId) -> &RwLock<HashMap<PlanId, Arc<Mutex<PlanState>>>> {
        // The low bits of a ULID are random: an even spread.
        let index = usize::try_from(plan_id.as_ulid().0 % SHARDS as u128).unwrap_or(0);
        self.inner
            .shards
            .get(index)
            .unwrap_or(&self.inner.shards[0])
    }

    fn fresh_state(&self) -> PlanState {
        PlanState {
            guardrails: AutonomyGuardrails::default(),
            trail: GuardrailAuditTrail::new(self.inner.capacity, self.inner.chained),
            grants: HashMap::new(),
            session: None,
            session_cell: None,
            org_cell: None,
        }
    }

    fn plan(&self, plan_id: PlanId) -> Arc<Mutex<PlanState>> {
        let shard = self.shard(plan_id);
        if let Some(plan) = shard.read().get(&plan_id) {
            return Arc::clone(plan);
        }
        Arc::clone(
            shard
                .write()
                .entry(plan_id)
                .or_insert_with(|| Arc::new(Mutex::new(self.fresh_state()))),
        )
    }

    /// Runs `f` on the plan's state under its lock, creating the plan on first
    /// use. The common path holds the shard's read lock and clones no `Arc`.
    fn with_plan<T>(&self, plan_id: PlanId, f: impl FnOnce(&mut PlanState) -> T) -> T {
        {
            let shard = self.shard(plan_id).read();
            if let Some(plan) = shard.get(&plan_id) {
                return f(&mut plan.lock());
            }
        }
        let plan = self.plan(plan_id);
        let mut state = plan.lock();
        f(&mut state)
    }

    fn existing(&self, plan_id: PlanId) -> Option<Arc<Mutex<PlanState>>> {
        self.shard(plan_id).read().get(&plan_id).cloned()
    }

    /// Runs one decision under the plan's lock, appends its entry, then hands
    /// the entry to the sink outside the lock.
    fn decide(
        &self,
        plan_id: PlanId,
        f: impl FnOnce(&mut PlanState, i64) -> (Record, Undo),
    ) -> Result<GuardrailDecision, GuardrailError> {
        let now = self.inner.clock.now_nanos();
        let (decision, entry, undo) = self.with_plan(plan_id, |state| {
            let (record, undo) = f(state, now);
            let event_type = record.event_type;
            let allowed = record.result() == super::GuardrailResult::Allowed;
            let reason = record.reason.clone();
            let sequence = state.trail.append(record, now);
            let entry = self
                .inner
                .sink
                .as_ref()
                .and_then(|_| state.trail.entries().back().cloned());
            (
                GuardrailDecision {
                    allowed,
                    event_type,
                    sequence,
                    reason,
                },
                entry,
                undo,
            )
        });
        let (Some((sink, mode)), Some(entry)) = (&self.inner.sink, entry) else {
            return Ok(decision);
        };
        match sink.record(plan_id, &entry) {
            Ok(()) => Ok(decision),
            Err(_) if *mode == SinkMode::BestEffort => {
                self.inner.sink_failures.fetch_add(1, Ordering::Relaxed);
                Ok(decision)
            }
            Err(source) => {
                self.inner.sink_failures.fetch_add(1, Ordering::Relaxed);
                self.revert(plan_id, &decision, undo);
                Err(GuardrailError::AuditSink {
                    sequence: decision.sequence,
                    source,
                })
            }
        }
    }

    /// Strict mode: gives back what a decision took and records that it did.
    fn revert(&self, plan_id: PlanId, decision: &GuardrailDecision, undo: Undo) {
        let now = self.inner.clock.now_nanos();
        let entry = self.with_plan(plan_id, |state| {
            let (event_type, context) = match undo {
                Undo::Nothing => return None,
                Undo::Steps(previous) => {
                    state.guardrails.step_count = previous;
                    (E::StepBlocked, AuditContext::default())
                }
                Undo::Spend { amount, cells } => {
                    state.guardrails.budget_spent =
                        state.guardrails.budget_spent.saturating_sub(amount);
                    for cell in &cells {
                        cell.give_back(amount);
                    }
                    let context = AuditContext {
                        amount: Some(amount),
                        ..AuditContext::default()
                    };
                    (E::BudgetBlocked, context)
                }
                Undo::Grant(operation) => {
                    *state.grants.entry(operation.clone()).or_insert(0) += 1;
                    let context = AuditContext {
                        operation: Some(operation),
                        ..AuditContext::default()
                    };
                    (E::ConfirmationRequired, context)
                }
            };
            let record = Record {
                event_type,
                guard_name: "audit_sink",
                reason: Some(format!(
                    "Decision {} was reverted because the audit sink failed to record it. Remediation: restore the audit sink and retry.",
                    decision.sequence
                )),
                context,
            };
            state.trail.append(record, now);
            state.trail.entries().back().cloned()
        });
        if let (Some((sink, _)), Some(entry)) = (&self.inner.sink, entry) {
            if sink.record(plan_id, &entry).is_err() {
                self.inner.sink_failures.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Appends a decision made elsewhere (an engine's threshold gate, a
    /// safety-profile refusal) to the plan's trail, so every decision is audited.
    ///
    /// # Errors
    /// Only [`GuardrailError::AuditSink`] in strict mode.
    pub fn record_decision(
        &self,
        plan_id: PlanId,
        event_type: super::GuardrailEventType,
        guard_name: &'static str,
        reason: Option<String>,
        context: AuditContext,
    ) -> Result<GuardrailDecision, GuardrailError> {
        self.decide(plan_id, |_, _| {
            (
                Record {
                    event_type,
                    guard_name,
                    reason,
                    context,
                },
                Undo::Nothing,
            )
        })
    }

    /// Sets a plan's guardrails (limits and runtime counters as given). The
    /// start time is set to now unless given. The audit trail is kept.
    ///
    /// # Errors
    /// [`GuardrailError::InvalidGuardrails`]; nothing changes then.
    pub fn configure_guardrails(
        &self,
        plan_id: PlanId,
        mut guardrails: AutonomyGuardrails,
    ) -> Result<(), GuardrailError> {
        guardrails.validate()?;
        guardrails
            .start_time
            .get_or_insert_with(|| self.inner.clock.now());
        self.plan(plan_id).lock().guardrails = guardrails;
        Ok(())
    }

    /// A plan's guardrails and counters, if the plan is known.
    #[must_use]
    pub fn get_guardrails(&self, plan_id: PlanId) -> Option<AutonomyGuardrails> {
        self.existing(plan_id).map(|p| p.lock().guardrails.clone())
    }

    /// Step `current_step` (steps already taken) may run iff `current_step < max_steps`.
    ///
    /// # Errors
    /// Only [`GuardrailError::AuditSink`] in strict mode.
    pub fn check_step_limit(
        &self,
        plan_id: PlanId,
        current_step: u64,
    ) -> Result<GuardrailDecision, GuardrailError> {
        self.decide(plan_id, |state, _| {
            let max = state.guardrails.max_steps;
            let context = AuditContext {
                count: Some(current_step),
                max,
                ..AuditContext::default()
            };
            match max {
                Some(limit) if current_step >= limit => (
                    Record {
                        event_type: E::StepBlocked,
                        guard_name: "max_steps",
                        reason: Some(over("Step limit", current_step, limit, "max_steps")),
                        context,
                    },
                    Undo::Nothing,
                ),
                _ => {
                    let previous = state.guardrails.step_count;
                    state.guardrails.step_count = previous.max(current_step.saturating_add(1));
                    let record = Record {
                        event_type: E::StepAllowed,
                        guard_name: "max_steps",
                        reason: None,
                        context,
                    };
                    (record, Undo::Steps(previous))
                }
            }
        })
    }

    /// A tool cost is allowed iff `spent + cost <= tool_budget`; an allowed
    /// cost is recorded in the same step.
    ///
    /// # Errors
    /// [`GuardrailError::NegativeCost`]; [`GuardrailError::AuditSink`] in strict mode.
    pub fn check_tool_budget(
        &self,
        plan_id: PlanId,
        tool_cost: Usd,
    ) -> Result<GuardrailDecision, GuardrailError> {
        if tool_cost.is_negative() {
            return Err(GuardrailError::NegativeCost(tool_cost));
        }
        self.decide(plan_id, |state, _| {
            let limit = state.guardrails.tool_budget;
            let spent = state.guardrails.budget_spent;
            let after = spent.checked_add(tool_cost);
            let fits = match (limit, after) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(limit), Some(after)) => after <= limit,
            };
            if fits {
                let after = after.unwrap_or(spent);
                state.guardrails.budget_spent = after;
                let record = Record {
                    event_type: E::BudgetAllowed,
                    guard_name: "tool_budget",
                    reason: None,
                    context: AuditContext {
                        amount: Some(tool_cost),
                        spent: Some(after),
                        limit,
                        level: Some(BudgetLevel::Plan),
                        ..AuditContext::default()
                    },
                };
                let undo = Undo::Spend {
                    amount: tool_cost,
                    cells: Vec::new(),
                };
                (record, undo)
            } else {
                let record = Record {
                    event_type: E::BudgetBlocked,
                    guard_name: "tool_budget",
                    reason: Some(format!(
                        "Tool budget exceeded: {spent} spent + {tool_cost} requested > {} limit. Remediation: raise tool_budget, lower cost, or request human approval.",
                        limit.unwrap_or(Usd::MAX)
                    )),
                    context: AuditContext {
                        amount: Some(tool_cost),
                        spent: Some(spent),
                        limit,
                        level: Some(BudgetLevel::Plan),
                        ..AuditContext::default()
                    },
                };
                (record, Undo::Nothing)
            }
        })
    }

    /// Allowed iff the time since the plan's start is within `max_wall_clock_seconds`.
    ///
    /// # Errors
    /// Only [`GuardrailError::AuditSink`] in strict mode.
    pub fn check_wall_clock(&self, plan_id: PlanId) -> Result<GuardrailDecision, GuardrailError> {
        self.decide(plan_id, |state, now_nanos| {
            let now = crate::clock::from_unix_nanos(now_nanos);
            let start = *state.guardrails.start_time.get_or_insert(now);
            let elapsed = (now - start).max(chrono::TimeDelta::zero());
            let elapsed_ms = u64::try_from(elapsed.num_milliseconds()).unwrap_or(u64::MAX);
            let limit = state.guardrails.max_wall_clock_seconds;
            #[expect(clippy::cast_possible_truncation, reason = "validated finite and non-negative; saturating conversion")]
            let limit_ns = limit.map(|s| (s * 1e9).round().min(i64::MAX as f64) as i64);
            let elapsed_ns = elapsed.num_nanoseconds().unwrap_or(i64::MAX);
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "saturating conversion")]
            let context = AuditContext {
                elapsed_ms: Some(elapsed_ms),
                limit_ms: limit.map(|s| (s * 1000.0).round().min(u64::MAX as f64) as u64),
                ..AuditContext::default()
            };
            match (limit, limit_ns) {
                (Some(seconds), Some(limit_ns)) if elapsed_ns > limit_ns => (
                    Record {
                        event_type: E::TimeBlocked,
                        guard_name: "max_wall_clock_seconds",
                        reason: Some(format!(
                            "Wall-clock limit exceeded: {:.3}s > {seconds}s. Remediation: raise max_wall_clock_seconds or request human approval.",
                            elapsed.as_seconds_f64()
                        )),
                        context,
                    },
                    Undo::Nothing,
                ),
                _ => (
                    Record {
                        event_type: E::TimeAllowed,
                        guard_name: "max_wall_clock_seconds",
                        reason: None,
                        context,
                    },
                    Undo::Nothing,
                ),
            }
        })
    }

    fn count_check(
        &self,
        plan_id: PlanId,
        used: u32,
        limit: impl FnOnce(&AutonomyGuardrails) -> Option<u32>,
        events: (E, E),
        guard_name: &'static str,
        label: &'static str,
    ) -> Result<GuardrailDecision, GuardrailError> {
        self.decide(plan_id, |state, _| {
            let limit = limit(&state.guardrails);
            let context = AuditContext {
                count: Some(u64::from(used)),
                max: limit.map(u64::from),
                ..AuditContext::default()
            };
            let record = match limit {
                Some(limit) if used >= limit => Record {
                    event_type: events.1,
                    guard_name,
                    reason: Some(over(label, u64::from(used), u64::from(limit), guard_name)),
                    context,
                },
                _ => Record {
                    event_type: events.0,
                    guard_name,
                    reason: None,
                    context,
                },
            };
            (record, Undo::Nothing)
        })
    }

    /// Another tool call is allowed iff `current_calls < max_tool_calls_per_invocation`.
    ///
    /// # Errors
    /// Only [`GuardrailError::AuditSink`] in strict mode.
    pub fn check_actor_tool_calls(
        &self,
        plan_id: PlanId,
        current_calls: u32,
    ) -> Result<GuardrailDecision, GuardrailError> {
        self.count_check(
            plan_id,
            current_calls,
            |g| g.actor_limits.max_tool_calls_per_invocation,
            (E::ActorLimitAllowed, E::ActorLimitBlocked),
            "max_tool_calls_per_invocation",
            "Actor tool call limit",
        )
    }

    /// Another retry is allowed iff `current_retries < max_retries_per_failure`
    /// (a limit of 3 allows retries number 0, 1 and 2).
    ///
    /// # Errors
    /// Only [`GuardrailError::AuditSink`] in strict mode.
    pub fn check_retries_per_failure(
        &self,
        plan_id: PlanId,
        current_retries: u32,
    ) -> Result<GuardrailDecision, GuardrailError> {
        self.count_check(
            plan_id,
            current_retries,
            |g| g.actor_limits.max_retries_per_failure,
            (E::RetryAllowed, E::RetryBlocked),
            "max_retries_per_failure",
            "Retry limit",
        )
    }

    /// Whether `operation` needs a human's confirmation: `allowed == false`
    /// means it does. An operation matching `required_confirmations` (names or
    /// `*` patterns) is allowed only by consuming a confirmation granted with
    /// [`grant_confirmation`](Self::grant_confirmation); others need none.
    ///
    /// # Errors
    /// Only [`GuardrailError::AuditSink`] in strict mode.
    pub fn check_confirmation_required(
        &self,
        plan_id: PlanId,
        operation: &str,
    ) -> Result<GuardrailDecision, GuardrailError> {
        self.decide(plan_id, |state, _| {
            let context = AuditContext {
                operation: Some(operation.to_owned()),
                ..AuditContext::default()
            };
            let required = state
                .guardrails
                .required_confirmations
                .iter()
                .any(|pattern| glob_match(pattern, operation));
            if !required {
                let record = Record {
                    event_type: E::ConfirmationGranted,
                    guard_name: "required_confirmations",
                    reason: None,
                    context,
                };
                return (record, Undo::Nothing);
            }
            match state.grants.get_mut(operation) {
                Some(count) if *count > 0 => {
                    *count -= 1;
                    let record = Record {
                        event_type: E::ConfirmationGranted,
                        guard_name: "required_confirmations",
                        reason: None,
                        context,
                    };
                    (record, Undo::Grant(operation.to_owned()))
                }
                _ => {
                    let record = Record {
                        event_type: E::ConfirmationRequired,
                        guard_name: "required_confirmations",
                        reason: Some(format!(
                            "Operation '{operation}' requires human confirmation. Remediation: confirm it, or remove it from required_confirmations."
                        )),
                        context,
                    };
                    (record, Undo::Nothing)
                }
            }
        })
    }

    /// Records that a human confirmed one occurrence of `operation`; the next
    /// [`check_confirmation_required`](Self::check_confirmation_required) for it consumes the grant.
    ///
    /// # Errors
    /// Only [`GuardrailError::AuditSink`] in strict mode.
    pub fn grant_confirmation(
        &self,
        plan_id: PlanId,
        operation: &str,
    ) -> Result<GuardrailDecision, GuardrailError> {
        self.decide(plan_id, |state, _| {
            *state.grants.entry(operation.to_owned()).or_insert(0) += 1;
            let record = Record {
                event_type: E::ConfirmationGranted,
                guard_name: "human",
                reason: None,
                context: AuditContext {
                    operation: Some(operation.to_owned()),
                    ..AuditContext::default()
                },
            };
            (record, Undo::Nothing)
        })
    }

    /// Counts the plan's charges in [`check_budget_hierarchy`](Self::check_budget_hierarchy)
    /// against `session` (and its organisation) from now on.
    pub fn associate_plan_with_session(&self, plan_id: PlanId, session_id: SessionId) {
        let cells = self.inner.budgets.as_ref().map(|b| b.cells(session_id));
        let plan = self.plan(plan_id);
        let mut state = plan.lock();
        state.session = Some(session_id);
        (state.session_cell, state.org_cell) = match cells {
            Some((session, org)) => (Some(session), org),
            None => (None, None),
        };
    }

    /// The session a plan is associated with.
    #[must_use]
    pub fn session_of(&self, plan_id: PlanId) -> Option<SessionId> {
        self.existing(plan_id).and_then(|p| p.lock().session)
    }

    /// Checks a charge against the plan's tool budget, then its session's
    /// budget, then the organisation's, and records it at every level or none.
    /// The result names the level that refused.
    ///
    /// # Errors
    /// [`GuardrailError::NegativeCost`]; [`GuardrailError::AuditSink`] in strict mode.
    pub fn check_budget_hierarchy(
        &self,
        plan_id: PlanId,
        tool_cost: Usd,
    ) -> Result<BudgetCheck, GuardrailError> {
        if tool_cost.is_negative() {
            return Err(GuardrailError::NegativeCost(tool_cost));
        }
        let mut exceeded: Option<BudgetExceeded> = None;
        let decision = self.decide(plan_id, |state, _| {
            let spent = state.guardrails.budget_spent;
            let plan_limit = state.guardrails.tool_budget;
            let after = spent.checked_add(tool_cost);
            let plan_fits = match (plan_limit, after) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(limit), Some(after)) => after <= limit,
            };
            let outcome = if plan_fits {
                let cells: Vec<&BudgetCell> = [state.session_cell.as_deref(), state.org_cell.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect();
                take_all(&cells, tool_cost)
            } else {
                Err(BudgetExceeded {
                    level: BudgetLevel::Plan,
                    limit: plan_limit.unwrap_or(Usd::MAX),
                    spent,
                    reserved: Usd::ZERO,
                    requested: tool_cost,
                })
            };
            match outcome {
                Ok(()) => {
                    let after = after.unwrap_or(spent);
                    state.guardrails.budget_spent = after;
                    let cells: Vec<Arc<BudgetCell>> =
                        [state.session_cell.clone(), state.org_cell.clone()].into_iter().flatten().collect();
                    let record = Record {
                        event_type: E::BudgetAllowed,
                        guard_name: "budget_hierarchy",
                        reason: None,
                        context: AuditContext {
                            amount: Some(tool_cost),
                            spent: Some(after),
                            limit: plan_limit,
                            ..AuditContext::default()
                        },
                    };
                    (record, Undo::Spend { amount: tool_cost, cells })
                }
                Err(refusal) => {
                    exceeded = Some(refusal);
                    let record = Record {
                        event_type: E::BudgetBlocked,
                        guard_name: "budget_hierarchy",
                        reason: Some(format!(
                            "Budget exceeded at the {} level: {} spent + {} reserved + {} requested > {} limit. Remediation: raise the {} budget, lower cost, or request human approval.",
                            refusal.level, refusal.spent, refusal.reserved, refusal.requested, refusal.limit, refusal.level
                        )),
                        context: AuditContext {
                            amount: Some(tool_cost),
                            spent: Some(refusal.spent),
                            limit: Some(refusal.limit),
                            level: Some(refusal.level),
                            ..AuditContext::default()
                        },
                    };
                    (record, Undo::Nothing)
                }
            }
        })?;
        Ok(BudgetCheck {
            allowed: decision.allowed,
            exceeded_level: exceeded.map(|e| e.level),
            exceeded,
            reason: decision.reason,
            sequence: decision.sequence,
        })
    }

    /// A copy of the plan's audit trail, if the plan is known.
    #[must_use]
    pub fn get_audit_trail(&self, plan_id: PlanId) -> Option<GuardrailAuditTrail> {
        self.existing(plan_id).map(|p| p.lock().trail.clone())
    }

    /// Runs `f` over the plan's audit trail without copying it.
    pub fn with_audit_trail<T>(
        &self,
        plan_id: PlanId,
        f: impl FnOnce(&GuardrailAuditTrail) -> T,
    ) -> Option<T> {
        self.existing(plan_id).map(|p| f(&p.lock().trail))
    }

    /// How many sink failures were counted (best effort and strict).
    #[must_use]
    pub fn sink_failures(&self) -> u64 {
        self.inner.sink_failures.load(Ordering::Relaxed)
    }

    /// The plan's guardrails and trail as plan metadata, under the keys
    /// `autonomy_guardrails` and `guardrail_audit_trail`.
    #[must_use]
    pub fn get_audit_trail_as_metadata(&self, plan_id: PlanId) -> Option<Map<String, Value>> {
        let plan = self.existing(plan_id)?;
        let state = plan.lock();
        let mut metadata = Map::new();
        metadata.insert(
            GUARDRAILS_KEY.to_owned(),
            serde_json::to_value(&state.guardrails).ok()?,
        );
        metadata.insert(
            AUDIT_TRAIL_KEY.to_owned(),
            serde_json::to_value(&state.trail).ok()?,
        );
        Some(metadata)
    }

    /// Restores a plan's guardrails and trail from metadata. All or nothing:
    /// both keys must be present and valid and the trail must verify, or
    /// nothing changes. The plan's session association is kept.
    ///
    /// # Errors
    /// [`GuardrailError::InvalidMetadata`] naming the key and the problem.
    pub fn load_from_metadata(
        &self,
        plan_id: PlanId,
        metadata: &Map<String, Value>,
    ) -> Result<(), GuardrailError> {
        fn field<T: serde::de::DeserializeOwned>(
            metadata: &Map<String, Value>,
            key: &'static str,
        ) -> Result<T, GuardrailError> {
            let value = metadata.get(key).ok_or(GuardrailError::InvalidMetadata {
                key,
                reason: "missing".to_owned(),
            })?;
            serde_path_to_error::deserialize(value).map_err(|e| GuardrailError::InvalidMetadata {
                key,
                reason: format!("at `{}`: {}", e.path(), e.inner()),
            })
        }
        let guardrails: AutonomyGuardrails = field(metadata, GUARDRAILS_KEY)?;
        let trail: GuardrailAuditTrail = field(metadata, AUDIT_TRAIL_KEY)?;
        guardrails
            .validate()
            .map_err(|e| GuardrailError::InvalidMetadata {
                key: GUARDRAILS_KEY,
                reason: e.to_string(),
            })?;
        trail
            .verify()
            .map_err(|e| GuardrailError::InvalidMetadata {
                key: AUDIT_TRAIL_KEY,
                reason: e.to_string(),
            })?;
        let plan = self.plan(plan_id);
        let mut state = plan.lock();
        state.guardrails = guardrails;
        state.trail = trail;
        state.grants.clear();
        Ok(())
    }
}
