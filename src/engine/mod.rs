//! The plan engine: one place that decides every step of a plan.
//!
//! [`PlanEngine`] joins the policy pieces around the in-memory plan
//! lifecycle: the automation profile locked at `plan use` (threshold gates
//! that wait for a human in `input-required`), the safety profile (approval
//! per step, unsafe tools, read-only, retries, skill categories), the
//! profile's guards, the guardrails (steps, retries), and the budgets
//! (plan, session, lifetime) with pre-flight reservations for LLM calls.
//! Every decision is appended to the plan's audit trail and domain events
//! are published on the event bus.

mod config;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::budget::{
    BillingConfig, BudgetExceeded, BudgetLevel, CostBudgetService, CostLedger, CostRecord,
    InMemoryCostLedger, PricingError, PricingTable, Reservation, TokenUsage, resolve_billing,
};
use crate::clock::{Clock, SystemClock};
use crate::event_bus::{DomainEvent, DomainEventType, EventBus};
use crate::guard::{AutomationGuard, GuardContext, Verdict};
use crate::guardrails::{
    AuditContext, AutonomyGuardrailService, AutonomyGuardrails, GuardrailError, GuardrailEventType,
};
use crate::ids::{PlanId, SessionId};
use crate::money::Usd;
use crate::plan::{
    InMemoryPlanLifecycle, PlanLifecycle, PlanPhase, PlanState, PlanStatus, UsePlan,
};
use crate::profile::{
    AutomationDecision, AutomationProfileService, GateDecision, ProfileError, ProfileSource,
    Resolved, ResolvedProfile, SafetyProfile, SafetyProfileRef,
};
use crate::service_error::ServiceError;
use crate::string_enum::string_enum;

pub use config::CONFIG_KEYS;

/// The organisation every session is counted against: the lifetime budget.
pub const LIFETIME_ORG: &str = "lifetime";
/// The pause reason of a plan stopped by a budget.
pub const BUDGET_EXCEEDED: &str = "budget_exceeded";

/// Why an engine operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A profile could not be resolved or stored.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A service failed (unknown plan, refused transition, …).
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The guardrail service failed (strict audit sink).
    #[error(transparent)]
    Guardrail(#[from] GuardrailError),
    /// A budget refused the charge; the plan is paused.
    #[error(transparent)]
    Budget(#[from] BudgetExceeded),
    /// The call could not be priced.
    #[error(transparent)]
    Pricing(#[from] PricingError),
    /// The operation does not fit the plan's state.
    #[error("plan `{plan_id}`: {reason}")]
    InvalidState {
        /// The plan.
        plan_id: PlanId,
        /// Why.
        reason: String,
    },
    /// An unknown plan, reservation or configuration key.
    #[error("{entity} `{id}` not found")]
    NotFound {
        /// What was looked up.
        entity: &'static str,
        /// The id or key given.
        id: String,
    },
    /// A configuration value that does not fit its key.
    #[error("invalid value for `{key}`: {reason}")]
    InvalidValue {
        /// The key.
        key: String,
        /// What is wrong.
        reason: String,
    },
}

string_enum!(
    /// What the engine decided about a step.
    StepVerdict, "step verdict" {
        /// Go on.
        Proceed => "proceed",
        /// A human must approve first (the plan waits in `input-required`).
        AskHuman => "ask_human",
        /// Refused.
        Deny => "deny",
    }
);

/// The engine's answer about one step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StepDecision {
    /// The verdict.
    pub verdict: StepVerdict,
    /// Why (the first objection), when not proceeding.
    pub reason: Option<String>,
    /// Every objection.
    pub objections: Vec<String>,
    /// The plan's status afterwards.
    pub status: PlanStatus,
}

/// What `plan use` asks of the engine: the action, and the settings each
/// configuration level gives (plan > action > project > global).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EngineUse {
    /// The action to carry out.
    pub action_name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// The session charged.
    #[serde(default)]
    pub session_id: Option<SessionId>,
    /// Automation profile: the plan's own choice (`--automation-profile`).
    #[serde(default)]
    pub automation_profile: Option<String>,
    /// Automation profile of the action template.
    #[serde(default)]
    pub action_profile: Option<String>,
    /// Automation profile of the project.
    #[serde(default)]
    pub project_profile: Option<String>,
    /// Safety profile of the plan (`--safety-profile`), by name or inline.
    #[serde(default)]
    pub safety_profile: Option<SafetyProfileRef>,
    /// Safety profile of the action template.
    #[serde(default)]
    pub action_safety_profile: Option<SafetyProfileRef>,
    /// Billing limits of the plan.
    #[serde(default)]
    pub billing: Option<BillingConfig>,
    /// Confidence in decomposing the task (gates `decompose_task`).
    #[serde(default)]
    pub confidence: Option<f64>,
}

impl EngineUse {
    /// A plan of `action_name` with nothing else set.
    #[must_use]
    pub fn new(action_name: impl Into<String>) -> Self {
        Self {
            action_name: action_name.into(),
            ..Self::default()
        }
    }
}

/// One tool call the agent wants to make.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolCall {
    /// The tool.
    pub tool_name: String,
    /// Whether it writes.
    #[serde(default)]
    pub is_write: bool,
    /// Whether the tool is marked `unsafe: true`.
    #[serde(default, rename = "unsafe")]
    pub is_unsafe: bool,
    /// Its cost, USD.
    #[serde(default)]
    pub cost: Usd,
    /// The skill category it belongs to.
    #[serde(default)]
    pub skill_category: Option<String>,
    /// Confidence in making the call (gates `execute_command`).
    #[serde(default)]
    pub confidence: Option<f64>,
}

impl ToolCall {
    /// A read-only, free call of `tool_name`.
    #[must_use]
    pub fn new(tool_name: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            ..Self::default()
        }
    }

    /// A free call of the tool `definition` describes, carrying its `unsafe`
    /// flag so guards and safety profiles see it.
    #[must_use]
    pub fn for_tool(definition: &crate::tool::ToolDefinition) -> Self {
        Self {
            tool_name: definition.name.to_string(),
            is_unsafe: definition.is_unsafe,
            ..Self::default()
        }
    }
}

/// What a human must approve before a waiting plan goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    Gate(AutomationDecision),
    Tool(String),
}

#[derive(Debug)]
struct EnginePlan {
    profile: ResolvedProfile,
    safety: Resolved<SafetyProfile>,
    billing: BillingConfig,
    guard: AutomationGuard,
    session: Option<SessionId>,
    pending: Option<Pending>,
    approved_tools: HashSet<String>,
    step: u64,
    calls_in_step: u32,
    warned: [bool; 3],
    /// The charge that paused the plan: it must fit before the plan resumes.
    paused_for: Option<BudgetExceeded>,
}

#[derive(Debug, Default)]
struct GlobalConfig {
    billing: BillingConfig,
    safety: Option<SafetyProfileRef>,
}

struct OpenCall {
    plan_id: PlanId,
    model: String,
    reservation: Reservation,
}

impl std::fmt::Debug for OpenCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenCall")
            .field("plan_id", &self.plan_id)
            .field("model", &self.model)
            .finish()
    }
}

#[derive(Debug)]
struct Inner {
    lifecycle: InMemoryPlanLifecycle,
    profiles: AutomationProfileService,
    guardrails: AutonomyGuardrailService,
    budgets: CostBudgetService,
    ledger: Arc<dyn CostLedger>,
    pricing: RwLock<PricingTable>,
    events: Option<Arc<dyn EventBus>>,
    clock: Arc<dyn Clock>,
    human_available: bool,
    config: RwLock<GlobalConfig>,
    plans: RwLock<HashMap<PlanId, Arc<Mutex<EnginePlan>>>>,
    calls: Mutex<HashMap<String, OpenCall>>,
}

/// Builds a [`PlanEngine`]; every part has an in-memory default.
#[derive(Debug, Default)]
#[must_use]
pub struct PlanEngineBuilder {
    lifecycle: Option<InMemoryPlanLifecycle>,
    profiles: Option<AutomationProfileService>,
    guardrails: Option<AutonomyGuardrailService>,
    budgets: Option<CostBudgetService>,
    ledger: Option<Arc<dyn CostLedger>>,
    pricing: PricingTable,
    events: Option<Arc<dyn EventBus>>,
    clock: Option<Arc<dyn Clock>>,
    no_human: bool,
    billing: BillingConfig,
}

impl PlanEngineBuilder {
    /// The plan lifecycle (default: a fresh in-memory one).
    pub fn lifecycle(mut self, lifecycle: InMemoryPlanLifecycle) -> Self {
        self.lifecycle = Some(lifecycle);
        self
    }
    /// The profile service (default: built-ins only).
    pub fn profiles(mut self, profiles: AutomationProfileService) -> Self {
        self.profiles = Some(profiles);
        self
    }
    /// The guardrail service (default: a fresh one on the engine's clock).
    pub fn guardrails(mut self, guardrails: AutonomyGuardrailService) -> Self {
        self.guardrails = Some(guardrails);
        self
    }
    /// The budgets (default: none limited).
    pub fn budgets(mut self, budgets: CostBudgetService) -> Self {
        self.budgets = Some(budgets);
        self
    }
    /// The cost ledger (default: in memory).
    pub fn ledger(mut self, ledger: Arc<dyn CostLedger>) -> Self {
        self.ledger = Some(ledger);
        self
    }
    /// Model prices.
    pub fn pricing(mut self, pricing: PricingTable) -> Self {
        self.pricing = pricing;
        self
    }
    /// Where domain events are published.
    pub fn event_bus(mut self, bus: Arc<dyn EventBus>) -> Self {
        self.events = Some(bus);
        self
    }
    /// The clock.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
    /// Declares that no human can answer: every ask becomes a denial.
    pub fn no_human(mut self) -> Self {
        self.no_human = true;
        self
    }
    /// The global billing limits (`[billing]`).
    pub fn billing(mut self, billing: BillingConfig) -> Self {
        self.billing = billing;
        self
    }
    /// Builds the engine.
    #[must_use]
    pub fn build(self) -> PlanEngine {
        let clock = self.clock.unwrap_or_else(|| Arc::new(SystemClock));
        PlanEngine {
            inner: Arc::new(Inner {
                lifecycle: self
                    .lifecycle
                    .unwrap_or_else(|| InMemoryPlanLifecycle::with_clock(Arc::clone(&clock))),
                profiles: self.profiles.unwrap_or_default(),
                guardrails: self.guardrails.unwrap_or_else(|| {
                    AutonomyGuardrailService::builder()
                        .clock(Arc::clone(&clock))
                        .build()
                }),
                budgets: self.budgets.unwrap_or_default(),
                ledger: self
                    .ledger
                    .unwrap_or_else(|| Arc::new(InMemoryCostLedger::new())),
                pricing: RwLock::new(self.pricing),
                events: self.events,
                clock,
                human_available: !self.no_human,
                config: RwLock::new(GlobalConfig {
                    billing: self.billing,
                    safety: None,
                }),
                plans: RwLock::new(HashMap::new()),
                calls: Mutex::new(HashMap::new()),
            }),
        }
    }
}

fn min_limit(a: Option<Usd>, b: Option<Usd>) -> Option<Usd> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn level_index(level: BudgetLevel) -> usize {
    match level {
        BudgetLevel::Plan => 0,
        BudgetLevel::Session => 1,
        BudgetLevel::Org => 2,
    }
}

/// The plan engine. A cheap `Clone` handle, `Send + Sync`.
///
/// ```
/// use cleveragents::{EngineUse, PlanEngine, StepVerdict, ToolCall, Usd};
///
/// let engine = PlanEngine::builder().build();
/// let mut request = EngineUse::new("refactor-auth");
/// request.automation_profile = Some("auto".into());
/// let plan = engine.use_plan(request)?.plan_id;
/// engine.execute(plan, None)?;
/// let mut call = ToolCall::new("write_file");
/// call.is_write = true;
/// assert_eq!(engine.tool_call(plan, &call)?.verdict, StepVerdict::Proceed);
/// # Ok::<(), cleveragents::EngineError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PlanEngine {
    inner: Arc<Inner>,
}

impl PlanEngine {
    /// A builder.
    pub fn builder() -> PlanEngineBuilder {
        PlanEngineBuilder::default()
    }

    /// The plan lifecycle behind the engine.
    #[must_use]
    pub fn lifecycle(&self) -> &InMemoryPlanLifecycle {
        &self.inner.lifecycle
    }

    /// The profile service.
    #[must_use]
    pub fn profiles(&self) -> &AutomationProfileService {
        &self.inner.profiles
    }

    /// The guardrail service (audit trails).
    #[must_use]
    pub fn guardrails(&self) -> &AutonomyGuardrailService {
        &self.inner.guardrails
    }

    /// The budgets.
    #[must_use]
    pub fn budgets(&self) -> &CostBudgetService {
        &self.inner.budgets
    }

    /// The cost ledger.
    #[must_use]
    pub fn ledger(&self) -> &dyn CostLedger {
        &*self.inner.ledger
    }

    fn plan(&self, plan_id: PlanId) -> Result<Arc<Mutex<EnginePlan>>, EngineError> {
        self.inner
            .plans
            .read()
            .get(&plan_id)
            .cloned()
            .ok_or_else(|| EngineError::NotFound {
                entity: "plan",
                id: plan_id.to_string(),
            })
    }

    fn publish(&self, event: DomainEventType, plan_id: PlanId, data: Value) {
        let Some(bus) = &self.inner.events else {
            return;
        };
        let mut map = match data {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if let Ok(status) = self.inner.lifecycle.status(plan_id) {
            map.entry("phase").or_insert_with(|| json!(status.phase));
            map.entry("state").or_insert_with(|| json!(status.state));
        }
        bus.publish(&DomainEvent::new(event, Some(plan_id), map));
    }

    fn audit(
        &self,
        plan_id: PlanId,
        event: GuardrailEventType,
        guard: &'static str,
        reason: Option<String>,
        context: AuditContext,
    ) -> Result<(), EngineError> {
        self.inner
            .guardrails
            .record_decision(plan_id, event, guard, reason, context)?;
        Ok(())
    }

    fn gate_context(gate: AutomationDecision) -> AuditContext {
        AuditContext {
            operation: Some(gate.as_str().to_owned()),
            ..AuditContext::default()
        }
    }

    /// The effective billing of a plan: its own limits over the global ones,
    /// the lower of billing and safety-profile limits when both are set.
    fn limits(&self, plan: &EnginePlan) -> (Option<Usd>, Option<Usd>, Option<Usd>, u8) {
        let config = self.inner.config.read();
        let billing = resolve_billing(Some(&plan.billing), None, None, Some(&config.billing));
        let safety = &plan.safety.value;
        (
            min_limit(
                billing.max_cost_per_plan.map(|r| r.value),
                safety.max_cost_per_plan,
            ),
            billing.max_cost_per_session.map(|r| r.value),
            min_limit(
                billing.max_total_cost.map(|r| r.value),
                safety.max_total_cost,
            ),
            billing.warn_at_percent.value,
        )
    }

    fn apply_limits(&self, plan_id: PlanId, plan: &EnginePlan) {
        let (per_plan, per_session, total, _) = self.limits(plan);
        let budgets = &self.inner.budgets;
        budgets.set_plan_limit(plan_id, per_plan);
        if let Some(session) = plan.session {
            budgets.set_session_limit(session, per_session);
        }
        budgets.set_org_limit(LIFETIME_ORG, total);
    }

    /// Creates a plan: resolves and locks the automation profile, resolves
    /// the safety profile and billing, sets up budgets and guardrails, and
    /// gates `decompose_task`.
    ///
    /// # Errors
    /// [`EngineError::Profile`] for an unknown profile at any level.
    pub fn use_plan(&self, request: EngineUse) -> Result<PlanStatus, EngineError> {
        let profile = self.inner.profiles.resolve_profile(
            request.automation_profile.as_deref(),
            request.action_profile.as_deref(),
            request.project_profile.as_deref(),
        )?;
        let global_safety = self.inner.config.read().safety.clone();
        let safety = self.inner.profiles.resolve_safety_profile(
            request.safety_profile.as_ref(),
            request.action_safety_profile.as_ref(),
            None,
            global_safety.as_ref(),
            &profile.profile.safety,
        )?;
        let mut use_request = UsePlan::new(request.action_name);
        use_request.arguments = request.arguments;
        use_request.session_id = request.session_id;
        let status = self.inner.lifecycle.use_action(use_request)?;
        let plan_id = status.plan_id;
        let budgets = &self.inner.budgets;
        if let Some(session) = request.session_id {
            budgets.assign_session_to_org(session, LIFETIME_ORG);
            budgets.assign_plan_to_session(plan_id, session);
            self.inner
                .guardrails
                .associate_plan_with_session(plan_id, session);
        } else {
            budgets.assign_plan_to_org(plan_id, LIFETIME_ORG);
        }
        let mut guardrails = AutonomyGuardrails::default();
        guardrails.actor_limits.max_retries_per_failure = Some(safety.value.max_retries_per_step);
        self.inner
            .guardrails
            .configure_guardrails(plan_id, guardrails)?;
        let state = EnginePlan {
            guard: profile.profile.guard.clone().unwrap_or_default(),
            profile,
            safety,
            billing: request.billing.unwrap_or_default(),
            session: request.session_id,
            pending: None,
            approved_tools: HashSet::new(),
            step: 0,
            calls_in_step: 0,
            warned: [false; 3],
            paused_for: None,
        };
        self.apply_limits(plan_id, &state);
        let decision = state.profile.profile.decide(
            AutomationDecision::DecomposeTask,
            request.confidence,
            self.inner.human_available,
        );
        let state = Arc::new(Mutex::new(state));
        self.inner.plans.write().insert(plan_id, Arc::clone(&state));
        self.publish(
            DomainEventType::PlanCreated,
            plan_id,
            json!({"action_name": status.action_name}),
        );
        self.gate(plan_id, &state, AutomationDecision::DecomposeTask, decision)?;
        Ok(self.inner.lifecycle.status(plan_id)?)
    }

    /// Records a gate's decision; an ask makes the plan wait, a deny pauses it.
    /// Returns whether the gated step may happen now.
    fn gate(
        &self,
        plan_id: PlanId,
        state: &Mutex<EnginePlan>,
        gate: AutomationDecision,
        decision: GateDecision,
    ) -> Result<bool, EngineError> {
        let threshold = state.lock().profile.profile.threshold(gate);
        match decision {
            GateDecision::AskHuman => {
                state.lock().pending = Some(Pending::Gate(gate));
                let reason = format!("`{gate}` needs a human's approval (threshold {threshold})");
                self.audit(
                    plan_id,
                    GuardrailEventType::ConfirmationRequired,
                    "automation_profile",
                    Some(reason.clone()),
                    Self::gate_context(gate),
                )?;
                self.inner
                    .lifecycle
                    .await_input(plan_id, &format!("approval_required: {gate}"))?;
                self.publish(
                    DomainEventType::PlanStateChanged,
                    plan_id,
                    json!({"reason": reason}),
                );
                Ok(false)
            }
            GateDecision::Deny => {
                let reason = format!("`{gate}` needs a human's approval and none can answer");
                self.audit(
                    plan_id,
                    GuardrailEventType::ConfirmationRequired,
                    "automation_profile",
                    Some(reason),
                    Self::gate_context(gate),
                )?;
                self.inner
                    .lifecycle
                    .pause(plan_id, &format!("no_human_to_approve: {gate}"))?;
                self.publish(DomainEventType::PlanStateChanged, plan_id, json!({}));
                Ok(false)
            }
            _ => {
                self.audit(
                    plan_id,
                    GuardrailEventType::ConfirmationGranted,
                    "automation_profile",
                    None,
                    Self::gate_context(gate),
                )?;
                Ok(true)
            }
        }
    }

    fn require_no_pending(
        &self,
        plan_id: PlanId,
        state: &Mutex<EnginePlan>,
    ) -> Result<(), EngineError> {
        if state.lock().pending.is_some() {
            return Err(EngineError::InvalidState {
                plan_id,
                reason: "it is waiting for a human's approval; approve it first".to_owned(),
            });
        }
        Ok(())
    }

    /// Moves the plan to execute, if the `create_tool` gate allows.
    ///
    /// # Errors
    /// Unknown plan; a plan waiting for approval; a refused transition.
    pub fn execute(
        &self,
        plan_id: PlanId,
        confidence: Option<f64>,
    ) -> Result<PlanStatus, EngineError> {
        let state = self.plan(plan_id)?;
        self.require_no_pending(plan_id, &state)?;
        let decision = state.lock().profile.profile.decide(
            AutomationDecision::CreateTool,
            confidence,
            self.inner.human_available,
        );
        if self.gate(plan_id, &state, AutomationDecision::CreateTool, decision)? {
            self.inner.lifecycle.execute(plan_id)?;
            self.publish(DomainEventType::PlanPhaseChanged, plan_id, json!({}));
        }
        Ok(self.inner.lifecycle.status(plan_id)?)
    }

    /// Applies the plan, if the `select_tool` gate and the guard's apply
    /// approval allow.
    ///
    /// # Errors
    /// As [`execute`](Self::execute).
    pub fn apply(
        &self,
        plan_id: PlanId,
        confidence: Option<f64>,
    ) -> Result<PlanStatus, EngineError> {
        let state = self.plan(plan_id)?;
        self.require_no_pending(plan_id, &state)?;
        let (mut decision, guard_asks) = {
            let s = state.lock();
            let human = self.inner.human_available && s.profile.profile.interactive;
            let decision = s.profile.profile.decide(
                AutomationDecision::SelectTool,
                confidence,
                self.inner.human_available,
            );
            (decision, !s.guard.check_apply(human).allowed)
        };
        if guard_asks && decision == GateDecision::Proceed {
            decision = if self.inner.human_available {
                GateDecision::AskHuman
            } else {
                GateDecision::Deny
            };
        }
        if self.gate(plan_id, &state, AutomationDecision::SelectTool, decision)? {
            self.inner.lifecycle.apply(plan_id)?;
            self.publish(DomainEventType::PlanApplied, plan_id, json!({}));
        }
        Ok(self.inner.lifecycle.status(plan_id)?)
    }

    /// A human approves what the plan waits for; the gated step happens now
    /// (for a tool call: the next call of that tool proceeds).
    ///
    /// # Errors
    /// A plan that waits for nothing.
    pub fn approve(&self, plan_id: PlanId) -> Result<PlanStatus, EngineError> {
        let state = self.plan(plan_id)?;
        let pending = state
            .lock()
            .pending
            .take()
            .ok_or_else(|| EngineError::InvalidState {
                plan_id,
                reason: "it is not waiting for an approval".to_owned(),
            })?;
        self.inner.lifecycle.resume(plan_id)?;
        let operation = match &pending {
            Pending::Gate(gate) => gate.as_str().to_owned(),
            Pending::Tool(tool) => tool.clone(),
        };
        self.audit(
            plan_id,
            GuardrailEventType::ConfirmationGranted,
            "human",
            None,
            AuditContext {
                operation: Some(operation),
                ..AuditContext::default()
            },
        )?;
        match pending {
            Pending::Gate(AutomationDecision::CreateTool) => {
                self.inner.lifecycle.execute(plan_id)?;
                self.publish(DomainEventType::PlanPhaseChanged, plan_id, json!({}));
            }
            Pending::Gate(AutomationDecision::SelectTool) => {
                self.inner.lifecycle.apply(plan_id)?;
                self.publish(DomainEventType::PlanApplied, plan_id, json!({}));
            }
            Pending::Tool(tool) => {
                state.lock().approved_tools.insert(tool);
            }
            Pending::Gate(_) => {}
        }
        Ok(self.inner.lifecycle.status(plan_id)?)
    }

    /// Continues a paused plan. A plan paused by a budget resumes only once
    /// the charge that paused it fits (raise the limit first).
    ///
    /// # Errors
    /// A plan that is not paused; a budget that is still exhausted.
    pub fn resume(&self, plan_id: PlanId) -> Result<PlanStatus, EngineError> {
        let state = self.plan(plan_id)?;
        let status = self.inner.lifecycle.status(plan_id)?;
        if status.state != PlanState::Paused {
            return Err(EngineError::InvalidState {
                plan_id,
                reason: format!("it is `{}`, not paused", status.state),
            });
        }
        let refused = state.lock().paused_for;
        if let Some(refused) = refused {
            let budget = self.inner.budgets.plan(plan_id);
            if let Some(snapshot) = budget.snapshot(refused.level) {
                if snapshot
                    .remaining()
                    .is_some_and(|left| left < refused.requested)
                {
                    return Err(BudgetExceeded {
                        level: refused.level,
                        limit: snapshot.limit.unwrap_or(Usd::MAX),
                        spent: snapshot.spent,
                        reserved: snapshot.reserved,
                        requested: refused.requested,
                    }
                    .into());
                }
            }
        }
        state.lock().paused_for = None;
        let status = self.inner.lifecycle.resume(plan_id)?;
        self.publish(
            DomainEventType::PlanStateChanged,
            plan_id,
            json!({"resumed": true}),
        );
        Ok(status)
    }

    /// Cancels a plan.
    ///
    /// # Errors
    /// Unknown plan; a finished plan.
    pub fn cancel(&self, plan_id: PlanId) -> Result<PlanStatus, EngineError> {
        let status = self.inner.lifecycle.cancel(plan_id)?;
        if let Ok(state) = self.plan(plan_id) {
            state.lock().pending = None;
        }
        self.publish(DomainEventType::PlanCancelled, plan_id, json!({}));
        Ok(status)
    }

    fn pause_for_budget(
        &self,
        plan_id: PlanId,
        exceeded: &BudgetExceeded,
    ) -> Result<(), EngineError> {
        if let Ok(state) = self.plan(plan_id) {
            state.lock().paused_for = Some(*exceeded);
        }
        self.audit(
            plan_id,
            GuardrailEventType::BudgetBlocked,
            "budget",
            Some(format!(
                "{exceeded}. Remediation: raise the {} budget, then resume the plan.",
                exceeded.level
            )),
            AuditContext {
                amount: Some(exceeded.requested),
                spent: Some(exceeded.spent),
                limit: Some(exceeded.limit),
                level: Some(exceeded.level),
                ..AuditContext::default()
            },
        )?;
        self.inner.lifecycle.pause(plan_id, BUDGET_EXCEEDED)?;
        self.publish(
            DomainEventType::PlanStateChanged,
            plan_id,
            json!({"pause_reason": BUDGET_EXCEEDED, "level": exceeded.level}),
        );
        Ok(())
    }

    fn require_executing(&self, plan_id: PlanId) -> Result<(), EngineError> {
        let status = self.inner.lifecycle.status(plan_id)?;
        if (status.phase, status.state) != (PlanPhase::Execute, PlanState::Running) {
            return Err(EngineError::InvalidState {
                plan_id,
                reason: format!(
                    "steps run in phase `execute` with state `running`; it is `{}`/`{}`",
                    status.phase, status.state
                ),
            });
        }
        Ok(())
    }

    /// Decides one tool call: safety profile, guards, the `execute_command`
    /// gate, then the cost against every budget. An ask makes the plan wait
    /// (approve, then call again); a budget breach pauses it.
    ///
    /// # Errors
    /// Unknown plan; a plan not executing.
    pub fn tool_call(&self, plan_id: PlanId, call: &ToolCall) -> Result<StepDecision, EngineError> {
        let state = self.plan(plan_id)?;
        self.require_executing(plan_id)?;
        let mut denials: Vec<String> = Vec::new();
        let mut asks: Vec<String> = Vec::new();
        {
            let mut s = state.lock();
            let safety = s.safety.value.clone();
            if call.is_write && safety.read_only {
                denials.push(format!(
                    "Tool '{}' writes, and the safety profile is read-only. Remediation: use a safety profile that allows writes.",
                    call.tool_name
                ));
            }
            if call.is_unsafe && !safety.allow_unsafe_tools {
                denials.push(format!(
                    "Tool '{}' is marked unsafe and the safety profile does not allow unsafe tools. Remediation: set allow_unsafe_tools or use another tool.",
                    call.tool_name
                ));
            }
            if let Some(category) = &call.skill_category {
                if !safety.allows_skill_category(category) {
                    denials.push(format!(
                        "Skill category '{category}' is not allowed by the safety profile. Remediation: add it to allowed_skill_categories."
                    ));
                }
            }
            let approved = s.approved_tools.remove(&call.tool_name);
            if !approved {
                if safety.require_human_approval {
                    asks.push("The safety profile requires human approval before each step. Remediation: approve the step.".to_owned());
                }
                let human = self.inner.human_available && s.profile.profile.interactive;
                let spent = self.inner.budgets.plan_budget(plan_id).spent;
                let ctx = GuardContext::new(&call.tool_name)
                    .write(call.is_write)
                    .cost_so_far(spent.saturating_add(call.cost))
                    .calls_so_far(s.calls_in_step)
                    .human_available(human);
                let verdict = s.guard.check(&ctx);
                for objection in verdict.objections {
                    match verdict.verdict {
                        Verdict::Deny => denials.push(objection.reason),
                        _ => asks.push(objection.reason),
                    }
                }
                let gate = s.profile.profile.decide(
                    AutomationDecision::ExecuteCommand,
                    call.confidence,
                    self.inner.human_available,
                );
                match gate {
                    GateDecision::AskHuman => asks.push(format!(
                        "`execute_command` needs a human's approval (threshold {}).",
                        s.profile
                            .profile
                            .threshold(AutomationDecision::ExecuteCommand)
                    )),
                    GateDecision::Deny => denials.push(
                        "`execute_command` needs a human's approval and none can answer."
                            .to_owned(),
                    ),
                    _ => {}
                }
            }
            if denials.is_empty() && !asks.is_empty() && !self.inner.human_available {
                denials.append(&mut asks);
            }
            if denials.is_empty() && asks.is_empty() {
                s.calls_in_step = s.calls_in_step.saturating_add(1);
            }
        }
        let context = AuditContext {
            amount: Some(call.cost),
            operation: Some(call.tool_name.clone()),
            ..AuditContext::default()
        };
        if !denials.is_empty() {
            self.audit(
                plan_id,
                GuardrailEventType::ActorLimitBlocked,
                "tool_call",
                denials.first().cloned(),
                context,
            )?;
            return self.step_decision(plan_id, StepVerdict::Deny, denials);
        }
        if !asks.is_empty() {
            state.lock().pending = Some(Pending::Tool(call.tool_name.clone()));
            self.audit(
                plan_id,
                GuardrailEventType::ConfirmationRequired,
                "tool_call",
                asks.first().cloned(),
                context,
            )?;
            self.inner.lifecycle.await_input(
                plan_id,
                &format!("approval_required: tool {}", call.tool_name),
            )?;
            self.publish(DomainEventType::PlanStateChanged, plan_id, json!({}));
            return self.step_decision(plan_id, StepVerdict::AskHuman, asks);
        }
        if let Err(exceeded) = self.charge(plan_id, &state, call.cost) {
            {
                let mut s = state.lock();
                s.calls_in_step = s.calls_in_step.saturating_sub(1);
            }
            self.pause_for_budget(plan_id, &exceeded)?;
            return self.step_decision(plan_id, StepVerdict::Deny, vec![exceeded.to_string()]);
        }
        self.audit(
            plan_id,
            GuardrailEventType::ActorLimitAllowed,
            "tool_call",
            None,
            context,
        )?;
        self.step_decision(plan_id, StepVerdict::Proceed, Vec::new())
    }

    fn step_decision(
        &self,
        plan_id: PlanId,
        verdict: StepVerdict,
        objections: Vec<String>,
    ) -> Result<StepDecision, EngineError> {
        Ok(StepDecision {
            verdict,
            reason: objections.first().cloned(),
            objections,
            status: self.inner.lifecycle.status(plan_id)?,
        })
    }

    /// Spends `cost` at every level, then checks the warning thresholds.
    fn charge(
        &self,
        plan_id: PlanId,
        state: &Mutex<EnginePlan>,
        cost: Usd,
    ) -> Result<(), BudgetExceeded> {
        if cost > Usd::ZERO {
            self.inner.budgets.plan(plan_id).reserve(cost)?.commit(cost);
            self.warn(plan_id, state);
        }
        Ok(())
    }

    /// Publishes a warning the first time a budget crosses its threshold
    /// (re-armed when it falls back below, e.g. after a raise).
    fn warn(&self, plan_id: PlanId, state: &Mutex<EnginePlan>) {
        let warn_at = {
            let s = state.lock();
            self.limits(&s).3
        };
        let budget = self.inner.budgets.plan(plan_id);
        for level in [BudgetLevel::Plan, BudgetLevel::Session, BudgetLevel::Org] {
            let Some(snapshot) = budget.snapshot(level) else {
                continue;
            };
            let Some(limit) = snapshot.limit.filter(|l| l.nanos() > 0) else {
                continue;
            };
            let used = i128::from(snapshot.spent.nanos()) * 100;
            let over = used >= i128::from(limit.nanos()) * i128::from(warn_at);
            let fire = {
                let mut s = state.lock();
                match s.warned.get_mut(level_index(level)) {
                    Some(slot) => {
                        let fire = over && !*slot;
                        *slot = over;
                        fire
                    }
                    None => false,
                }
            };
            if fire {
                self.publish(
                    DomainEventType::BudgetWarning,
                    plan_id,
                    json!({"level": level, "spent": snapshot.spent, "limit": limit, "warn_at_percent": warn_at}),
                );
            }
        }
    }

    /// Starts the next step: counts it against `max_steps` and resets the
    /// per-step tool-call count.
    ///
    /// # Errors
    /// Unknown plan.
    pub fn next_step(&self, plan_id: PlanId) -> Result<StepDecision, EngineError> {
        let state = self.plan(plan_id)?;
        let step = {
            let mut s = state.lock();
            s.step += 1;
            s.calls_in_step = 0;
            s.step
        };
        let decision = self.inner.guardrails.check_step_limit(plan_id, step)?;
        let verdict = if decision.allowed {
            StepVerdict::Proceed
        } else {
            StepVerdict::Deny
        };
        self.step_decision(plan_id, verdict, decision.reason.into_iter().collect())
    }

    /// Whether retry number `attempt` (0-based) of the current step may run:
    /// allowed while `attempt < max_retries_per_step`.
    ///
    /// # Errors
    /// Unknown plan.
    pub fn retry(&self, plan_id: PlanId, attempt: u32) -> Result<StepDecision, EngineError> {
        self.plan(plan_id)?;
        let decision = self
            .inner
            .guardrails
            .check_retries_per_failure(plan_id, attempt)?;
        let verdict = if decision.allowed {
            StepVerdict::Proceed
        } else {
            StepVerdict::Deny
        };
        self.step_decision(plan_id, verdict, decision.reason.into_iter().collect())
    }

    /// Reserves the most an LLM call can cost (its input plus the most output
    /// it can produce) at every budget level, before the call is made. On a
    /// breach the call must not start: the plan is paused.
    ///
    /// # Errors
    /// [`EngineError::Budget`] naming the level; an unpriced model; a plan not executing.
    pub fn reserve_llm_call(
        &self,
        plan_id: PlanId,
        model: &str,
        input_tokens: u64,
        max_output_tokens: Option<u64>,
    ) -> Result<LlmCall, EngineError> {
        self.plan(plan_id)?;
        self.require_executing(plan_id)?;
        let estimate = self.inner.pricing.read().estimate(
            model,
            input_tokens,
            max_output_tokens,
            self.inner.clock.now(),
        )?;
        match self.inner.budgets.plan(plan_id).reserve(estimate) {
            Ok(reservation) => Ok(LlmCall {
                engine: self.clone(),
                plan_id,
                model: model.to_owned(),
                key: ulid::Ulid::new().to_string(),
                reservation: Some(reservation),
            }),
            Err(exceeded) => {
                self.pause_for_budget(plan_id, &exceeded)?;
                Err(exceeded.into())
            }
        }
    }

    fn settle(&self, call: &mut LlmCall, usage: TokenUsage) -> Result<Usd, EngineError> {
        let now = self.inner.clock.now();
        let cost = self.inner.pricing.read().cost(&call.model, &usage, now)?;
        let Some(reservation) = call.reservation.take() else {
            return Err(EngineError::InvalidState {
                plan_id: call.plan_id,
                reason: "the call was already settled".to_owned(),
            });
        };
        reservation.commit(cost);
        let state = self.plan(call.plan_id)?;
        let mut record = CostRecord::new(call.key.clone(), call.model.clone(), usage, cost, now);
        record.plan_id = Some(call.plan_id);
        record.session_id = state.lock().session;
        self.inner.ledger.record(record)?;
        self.audit(
            call.plan_id,
            GuardrailEventType::BudgetAllowed,
            "llm_call",
            None,
            AuditContext {
                amount: Some(cost),
                operation: Some(call.model.clone()),
                ..AuditContext::default()
            },
        )?;
        self.warn(call.plan_id, &state);
        Ok(cost)
    }

    /// The effective profile locked to a plan, and its safety profile.
    ///
    /// # Errors
    /// Unknown plan.
    pub fn plan_profile(
        &self,
        plan_id: PlanId,
    ) -> Result<(ResolvedProfile, Resolved<SafetyProfile>), EngineError> {
        let state = self.plan(plan_id)?;
        let s = state.lock();
        Ok((s.profile.clone(), s.safety.clone()))
    }

    /// The guard a plan runs under (its profile's, as edited since).
    ///
    /// # Errors
    /// Unknown plan.
    pub fn guard(&self, plan_id: PlanId) -> Result<AutomationGuard, EngineError> {
        Ok(self.plan(plan_id)?.lock().guard.clone())
    }

    /// Edits a plan's guard (`plan guard set`, `denylist add/remove`).
    ///
    /// # Errors
    /// Unknown plan.
    pub fn edit_guard(
        &self,
        plan_id: PlanId,
        edit: impl FnOnce(&mut AutomationGuard),
    ) -> Result<AutomationGuard, EngineError> {
        let state = self.plan(plan_id)?;
        let mut s = state.lock();
        edit(&mut s.guard);
        Ok(s.guard.clone())
    }

    /// Where the plan's profile came from (for display).
    ///
    /// # Errors
    /// Unknown plan.
    pub fn profile_source(&self, plan_id: PlanId) -> Result<ProfileSource, EngineError> {
        Ok(self.plan(plan_id)?.lock().profile.source)
    }

    /// Starts an LLM call tracked by id (for protocol clients that cannot hold
    /// an [`LlmCall`]); settle it with [`commit_call`](Self::commit_call).
    ///
    /// # Errors
    /// As [`reserve_llm_call`](Self::reserve_llm_call).
    pub fn open_call(
        &self,
        plan_id: PlanId,
        model: &str,
        input_tokens: u64,
        max_output_tokens: Option<u64>,
    ) -> Result<(String, Usd), EngineError> {
        let mut call = self.reserve_llm_call(plan_id, model, input_tokens, max_output_tokens)?;
        let reservation = call
            .reservation
            .take()
            .ok_or_else(|| EngineError::InvalidState {
                plan_id,
                reason: "no reservation".to_owned(),
            })?;
        let amount = reservation.amount();
        let key = call.key.clone();
        self.inner.calls.lock().insert(
            key.clone(),
            OpenCall {
                plan_id,
                model: call.model.clone(),
                reservation,
            },
        );
        Ok((key, amount))
    }

    fn take_call(&self, id: &str) -> Result<LlmCall, EngineError> {
        let open = self
            .inner
            .calls
            .lock()
            .remove(id)
            .ok_or_else(|| EngineError::NotFound {
                entity: "call",
                id: id.to_owned(),
            })?;
        Ok(LlmCall {
            engine: self.clone(),
            plan_id: open.plan_id,
            model: open.model,
            key: id.to_owned(),
            reservation: Some(open.reservation),
        })
    }

    /// Settles a call opened with [`open_call`](Self::open_call).
    ///
    /// # Errors
    /// An unknown call id; an unpriced model.
    pub fn commit_call(&self, id: &str, usage: TokenUsage) -> Result<Usd, EngineError> {
        self.take_call(id)?.commit(usage)
    }

    /// Releases a call opened with [`open_call`](Self::open_call), spending nothing.
    ///
    /// # Errors
    /// An unknown call id.
    pub fn release_call(&self, id: &str) -> Result<(), EngineError> {
        drop(self.take_call(id)?);
        Ok(())
    }
}

/// A reserved LLM call. [`commit`](Self::commit) settles it at the actual
/// cost; [`abandon`](Self::abandon) settles a call that was sent but not
/// finished at its input cost; dropping it unsettled releases the reservation.
#[derive(Debug)]
#[must_use = "dropping a reserved call releases its reservation"]
pub struct LlmCall {
    engine: PlanEngine,
    plan_id: PlanId,
    model: String,
    key: String,
    reservation: Option<Reservation>,
}

impl LlmCall {
    /// What was reserved.
    #[must_use]
    pub fn reserved(&self) -> Usd {
        self.reservation
            .as_ref()
            .map_or(Usd::ZERO, Reservation::amount)
    }

    /// The call's idempotency key in the ledger.
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Settles at the cost of `usage`; records it in the ledger.
    ///
    /// # Errors
    /// An unpriced model.
    pub fn commit(mut self, usage: TokenUsage) -> Result<Usd, EngineError> {
        let engine = self.engine.clone();
        engine.settle(&mut self, usage)
    }

    /// Settles a call that was sent but abandoned at the cost of its input.
    ///
    /// # Errors
    /// An unpriced model.
    pub fn abandon(self, input_tokens: u64) -> Result<Usd, EngineError> {
        self.commit(TokenUsage::new(input_tokens, 0))
    }
}
