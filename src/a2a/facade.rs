//! [`A2aLocalFacade`]: routes A2A requests to the services it was given.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::agent::{AgentExecutor, PushNotifier, TaskStore};
use super::card::AgentCard;
use super::error::{
    A2aError, A2aNotAvailableError, A2aOperationNotFoundError, A2aVersionMismatchError, ErrorFamily,
};
use super::events::{A2aEventQueue, EventFilter, TASK_STATUS_UPDATE};
use super::methods::Method;
use super::models::{A2aEvent, A2aRequest, A2aResponse};
use super::params::{self, Params};
use super::standard::{Standard, StandardServices};
use super::stream::{Dispatch, ResponseStream};
use super::version::A2aVersion;
use super::wire::{self, HandlerResult, WireLimits};
use crate::clock::{Clock, SystemClock};
use crate::context::{ContextScope, ContextService};
use crate::diagnostics::{CheckStatus, Diagnostics};
use crate::plan::{PlanLifecycle, PlanStatus};
use crate::registry::{Registry, RegistryFilter, RegistryKind};
use crate::session::{CreateSession, SessionService};
use crate::sync::SyncService;

/// The services a facade routes to; every one is optional.
#[derive(Debug, Clone, Default)]
struct Services {
    sessions: Option<Arc<dyn SessionService>>,
    plans: Option<Arc<dyn PlanLifecycle>>,
    registries: [Option<Arc<dyn Registry>>; 6],
    context: Option<Arc<dyn ContextService>>,
    diagnostics: Option<Arc<dyn Diagnostics>>,
    sync: Option<Arc<dyn SyncService>>,
    events: Option<A2aEventQueue>,
    standard: StandardServices,
    engine: Option<crate::engine::PlanEngine>,
    close_hooks: Vec<Arc<dyn crate::session::SessionCloseHook>>,
}

fn registry_slot(kind: RegistryKind) -> usize {
    match kind {
        RegistryKind::Tool => 0,
        RegistryKind::Resource => 1,
        RegistryKind::Actor => 2,
        RegistryKind::Skill => 3,
        RegistryKind::Action => 4,
        RegistryKind::Project => 5,
    }
}

/// Builds an [`A2aLocalFacade`]; every service is optional.
#[derive(Debug, Default)]
#[must_use]
pub struct A2aLocalFacadeBuilder {
    services: Services,
    limits: WireLimits,
    clock: Option<Arc<dyn Clock>>,
}

impl A2aLocalFacadeBuilder {
    /// Wires the session service.
    pub fn session_service(mut self, service: Arc<dyn SessionService>) -> Self {
        self.services.sessions = Some(service);
        self
    }

    /// Wires the plan lifecycle service.
    pub fn plan_lifecycle_service(mut self, service: Arc<dyn PlanLifecycle>) -> Self {
        self.services.plans = Some(service);
        self
    }

    /// Wires the registry of `kind`.
    pub fn registry(mut self, kind: RegistryKind, registry: Arc<dyn Registry>) -> Self {
        if let Some(slot) = self.services.registries.get_mut(registry_slot(kind)) {
            *slot = Some(registry);
        }
        self
    }

    /// Wires the context service.
    pub fn context_service(mut self, service: Arc<dyn ContextService>) -> Self {
        self.services.context = Some(service);
        self
    }

    /// Wires the diagnostics service.
    pub fn diagnostics_service(mut self, service: Arc<dyn Diagnostics>) -> Self {
        self.services.diagnostics = Some(service);
        self
    }

    /// Wires the sync and namespace service.
    pub fn sync_service(mut self, service: Arc<dyn SyncService>) -> Self {
        self.services.sync = Some(service);
        self
    }

    /// Wires the event queue (plan transitions are published to it).
    pub fn event_queue(mut self, queue: A2aEventQueue) -> Self {
        self.services.events = Some(queue);
        self
    }

    /// Wires the plan engine: plan use/execute/apply/cancel go through its
    /// gates and budgets, and the engine operations (approve, resume, tool
    /// calls, LLM reservations, costs, config, guards, profiles) are served.
    /// The engine's lifecycle also serves the other plan methods.
    pub fn plan_engine(mut self, engine: crate::engine::PlanEngine) -> Self {
        self.services.plans = Some(Arc::new(engine.lifecycle().clone()));
        self.services.engine = Some(engine);
        self
    }

    /// Wires the task store of the standard A2A operations.
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.services.standard.tasks = Some(store);
        self
    }

    /// Wires the agent that handles `message/send` and `message/stream`.
    pub fn agent_executor(mut self, executor: Arc<dyn AgentExecutor>) -> Self {
        self.services.standard.executor = Some(executor);
        self
    }

    /// Wires push-notification delivery (enables the push config methods).
    pub fn push_notifier(mut self, notifier: Arc<dyn PushNotifier>) -> Self {
        self.services.standard.push = Some(notifier);
        self
    }

    /// Sets the public agent card.
    pub fn agent_card(mut self, card: AgentCard) -> Self {
        self.services.standard.card = Some(card);
        self
    }

    /// Sets the authenticated extended agent card.
    pub fn extended_agent_card(mut self, card: AgentCard) -> Self {
        self.services.standard.extended_card = Some(card);
        self
    }

    /// Sets the wire limits (defaults: 4 MiB, depth 64, batches of 1,000).
    pub fn limits(mut self, limits: WireLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the clock used to stamp events (default: the system clock).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Adds a hook told of every `session.close` (after the close is stored).
    /// Hooks run in the order added; they cannot fail the close.
    pub fn session_close_hook(mut self, hook: Arc<dyn crate::session::SessionCloseHook>) -> Self {
        self.services.close_hooks.push(hook);
        self
    }

    /// Builds the facade.
    #[must_use]
    pub fn build(self) -> A2aLocalFacade {
        A2aLocalFacade {
            inner: Arc::new(Inner {
                services: self.services,
                limits: self.limits,
                clock: self.clock.unwrap_or_else(|| Arc::new(SystemClock)),
            }),
        }
    }
}

#[derive(Debug)]
struct Inner {
    services: Services,
    limits: WireLimits,
    clock: Arc<dyn Clock>,
}

/// The A2A entry point in local mode: routes JSON-RPC 2.0 requests to the
/// services it was built with. A cheap `Clone` handle, `Send + Sync`.
///
/// Missing services never crash it: list methods answer empty lists,
/// `_cleveragents/health/check` reports what is wired, and every other method
/// answers -32004 with `data.service` naming what is missing.
///
/// ```
/// use cleveragents::{A2aLocalFacade, A2aRequest};
/// use serde_json::json;
///
/// let facade = A2aLocalFacade::in_memory();
/// let created = facade.dispatch(&A2aRequest::new("session.create", json!({"actor_name": "openai/gpt-4o"}))?);
/// assert_eq!(created.result().unwrap()["status"], "created");
///
/// let reply = facade
///     .dispatch_json(br#"{"jsonrpc":"2.0","id":7,"method":"_cleveragents/plan/use","params":{"action_name":"refactor-auth"}}"#)
///     .expect("a request with an id gets a reply");
/// let reply: serde_json::Value = serde_json::from_slice(&reply)?;
/// assert_eq!(reply["id"], 7);
/// assert_eq!(reply["result"]["phase"], "strategize");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct A2aLocalFacade {
    inner: Arc<Inner>,
}

impl A2aLocalFacade {
    /// A builder with nothing wired.
    pub fn builder() -> A2aLocalFacadeBuilder {
        A2aLocalFacadeBuilder::default()
    }

    /// A facade over fresh in-memory implementations of every service.
    #[must_use]
    pub fn in_memory() -> Self {
        Self::in_memory_with_clock(Arc::new(SystemClock))
    }

    /// As [`in_memory`](Self::in_memory), with every service stamping time from `clock`.
    #[must_use]
    pub fn in_memory_with_clock(clock: Arc<dyn Clock>) -> Self {
        Self::in_memory_builder(clock).build()
    }

    /// A builder already holding a fresh in-memory implementation of every
    /// service (the echo executor answers messages), for hosts that replace
    /// or add a few: an agent card, their own executor.
    pub fn in_memory_builder(clock: Arc<dyn Clock>) -> A2aLocalFacadeBuilder {
        let mut builder = Self::builder()
            .session_service(Arc::new(crate::InMemorySessionService::with_clock(
                Arc::clone(&clock),
            )))
            .plan_lifecycle_service(Arc::new(crate::InMemoryPlanLifecycle::with_clock(
                Arc::clone(&clock),
            )))
            .context_service(Arc::new(crate::InMemoryContextService::new()))
            .diagnostics_service(Arc::new(crate::DiagnosticsRegistry::new()))
            .sync_service(Arc::new(crate::InMemorySync::new()))
            .event_queue(A2aEventQueue::new())
            .task_store(Arc::new(super::agent::InMemoryTaskStore::new()))
            .agent_executor(Arc::new(super::agent::EchoExecutor::new()))
            .push_notifier(Arc::new(super::agent::RecordingPushNotifier::new()))
            .clock(clock);
        for kind in RegistryKind::ALL {
            builder = builder.registry(*kind, Arc::new(crate::InMemoryRegistry::new(*kind)));
        }
        builder
    }

    /// The wired event queue, if any.
    #[must_use]
    pub fn event_queue(&self) -> Option<&A2aEventQueue> {
        self.inner.services.events.as_ref()
    }

    /// The public agent card, if one is set.
    #[must_use]
    pub fn agent_card(&self) -> Option<&AgentCard> {
        self.inner.services.standard.card.as_ref()
    }

    /// The wire limits in force.
    #[must_use]
    pub fn limits(&self) -> &WireLimits {
        &self.inner.limits
    }

    /// Handles an in-process request. Always answers (the in-process model has
    /// no notifications).
    #[must_use]
    pub fn dispatch(&self, request: &A2aRequest) -> A2aResponse {
        self.dispatch_versioned(request, A2aVersion::V0_3)
    }

    /// Handles an in-process request in the given A2A version's shapes.
    #[must_use]
    pub fn dispatch_versioned(&self, request: &A2aRequest, version: A2aVersion) -> A2aResponse {
        let mut buf = Vec::new();
        match self.handle(
            request.method(),
            Params::Value(request.params_value()),
            &mut buf,
            Ok(version),
        ) {
            Ok(()) => match serde_json::from_slice::<Value>(&buf) {
                Ok(value) => A2aResponse::success(request.id().clone(), value),
                Err(e) => A2aResponse::failure(
                    request.id().clone(),
                    internal(&e).to_detail(ErrorFamily::Vendor),
                ),
            },
            Err(detail) => A2aResponse::failure(request.id().clone(), detail),
        }
    }

    /// Handles JSON-RPC 2.0 bytes: one request or a batch. Returns the reply
    /// bytes, or `None` when nothing must be sent back (notifications only).
    ///
    /// Never panics, whatever the input: unparsable JSON answers -32700,
    /// malformed requests -32600, input over the [`WireLimits`] -32600.
    #[must_use]
    pub fn dispatch_json(&self, input: &[u8]) -> Option<Vec<u8>> {
        match self.handle_json(input, None) {
            Dispatch::Reply(reply) => Some(reply),
            Dispatch::NoReply => None,
            // Only handle_json callers can consume a stream; a single reply
            // gets its first response.
            Dispatch::Stream(stream) => stream
                .collect_until_idle(std::time::Duration::ZERO)
                .into_iter()
                .next()
                .map(|item| item.response),
        }
    }

    /// Handles JSON-RPC 2.0 bytes sent with the `A2A-Version` header value
    /// `a2a_version` (`None`: absent, meaning 0.3). A single request to a
    /// streaming method (`message/stream`, `tasks/resubscribe`) answers a
    /// [`ResponseStream`]; in a batch, streaming methods are refused.
    /// An unsupported version answers -32009 (standard methods) or -32007.
    #[must_use]
    pub fn handle_json(&self, input: &[u8], a2a_version: Option<&str>) -> Dispatch {
        let version = A2aVersion::negotiate(a2a_version);
        let handler = |method: &str, params: Option<&RawValue>, out: &mut Vec<u8>| {
            self.handle(
                method,
                Params::Raw(params),
                out,
                version.as_ref().map(|v| *v),
            )
        };
        let reply = match wire::receive(input, &self.inner.limits) {
            wire::Incoming::Done(reply) => reply,
            wire::Incoming::Batch(text) => wire::run_batch(text, &self.inner.limits, &handler),
            wire::Incoming::Single(request) => {
                let streaming = Method::resolve(&request.method)
                    .map(|r| r.method)
                    .filter(|m| m.is_streaming());
                match streaming {
                    Some(method) => return self.open_stream(method, &request, &version),
                    None => wire::run(request, &handler),
                }
            }
        };
        reply.map_or(Dispatch::NoReply, Dispatch::Reply)
    }

    /// A single request to a streaming method becomes a stream.
    fn open_stream(
        &self,
        method: Method,
        request: &wire::Request<'_>,
        version: &Result<A2aVersion, A2aVersionMismatchError>,
    ) -> Dispatch {
        let family = method.family();
        let version = match version {
            Ok(v) => *v,
            Err(e) => {
                let error = A2aError::from(e.clone());
                return request.id.map_or(Dispatch::NoReply, |id| {
                    Dispatch::Reply(wire::error_reply(id, &error, family))
                });
            }
        };
        let plan = self
            .standard(version)
            .stream(method, &Params::Raw(request.params));
        match (request.id, plan) {
            (None, _) => Dispatch::NoReply,
            (Some(id), Ok(plan)) => Dispatch::Stream(ResponseStream::new(id, version, plan)),
            (Some(id), Err(error)) => Dispatch::Reply(wire::error_reply(id, &error, family)),
        }
    }

    fn standard(&self, version: A2aVersion) -> Standard<'_> {
        Standard {
            services: &self.inner.services.standard,
            events: self.inner.services.events.as_ref(),
            clock: &*self.inner.clock,
            version,
        }
    }

    fn handle(
        &self,
        name: &str,
        params: Params<'_>,
        out: &mut Vec<u8>,
        version: Result<A2aVersion, &A2aVersionMismatchError>,
    ) -> HandlerResult {
        let Some(resolved) = Method::resolve(name) else {
            let error = A2aError::from(A2aOperationNotFoundError::new(name));
            return Err(error.to_detail(ErrorFamily::Vendor));
        };
        let method = resolved.method;
        let version = version.map_err(|e| A2aError::from(e.clone()).to_detail(method.family()))?;
        self.call(method, params, &mut Out(out), version)
            .map_err(|e| e.to_detail(method.family()))
    }

    fn missing(method: Method) -> A2aError {
        A2aNotAvailableError {
            operation: method.name().to_owned(),
            service: method.service(),
        }
        .into()
    }

    fn sessions(&self, method: Method) -> Result<&dyn SessionService, A2aError> {
        self.inner
            .services
            .sessions
            .as_deref()
            .ok_or_else(|| Self::missing(method))
    }

    fn plans(&self, method: Method) -> Result<&dyn PlanLifecycle, A2aError> {
        self.inner
            .services
            .plans
            .as_deref()
            .ok_or_else(|| Self::missing(method))
    }

    fn context(&self, method: Method) -> Result<&dyn ContextService, A2aError> {
        self.inner
            .services
            .context
            .as_deref()
            .ok_or_else(|| Self::missing(method))
    }

    fn sync(&self, method: Method) -> Result<&dyn SyncService, A2aError> {
        self.inner
            .services
            .sync
            .as_deref()
            .ok_or_else(|| Self::missing(method))
    }

    fn registry(&self, kind: RegistryKind) -> Option<&dyn Registry> {
        self.inner
            .services
            .registries
            .get(registry_slot(kind))
            .and_then(Option::as_deref)
    }

    /// Publishes a status update for a plan transition, if an event queue is wired.
    fn publish_status(&self, status: &PlanStatus) {
        let Some(queue) = &self.inner.services.events else {
            return;
        };
        let data = json!({
            "taskId": status.plan_id,
            "plan_id": status.plan_id,
            "phase": status.phase,
            "state": status.state,
        });
        if let Ok(event) = A2aEvent::new(
            TASK_STATUS_UPDATE,
            Some(status.plan_id),
            data,
            &*self.inner.clock,
        ) {
            // A closed queue means nobody listens any more; the transition itself succeeded.
            let _ = queue.publish(event);
        }
    }

    fn transition(
        &self,
        method: Method,
        params: &Params<'_>,
        op: impl FnOnce(&dyn PlanLifecycle, crate::PlanId) -> crate::ServiceResult<PlanStatus>,
        out: &mut Out<'_>,
    ) -> Result<(), A2aError> {
        let plans = self.plans(method)?;
        let p: params::PlanRef = params.parse()?;
        let status = op(plans, p.plan_id)?;
        self.publish_status(&status);
        out.write(&status)
    }

    #[expect(
        clippy::too_many_lines,
        reason = "one flat routing table reads best as one match"
    )]
    fn call(
        &self,
        method: Method,
        params: Params<'_>,
        out: &mut Out<'_>,
        version: A2aVersion,
    ) -> Result<(), A2aError> {
        use Method as M;
        if method.is_standard() {
            let result = self.standard(version).call(method, &params)?;
            return out.write(&result);
        }
        if let Some(engine) = &self.inner.services.engine {
            if let Some(result) = super::engine_ops::call(engine, method, &params) {
                let result = result?;
                if let Ok(status) = serde_json::from_value::<PlanStatus>(result.clone()) {
                    self.publish_status(&status);
                }
                return out.write(&result);
            }
        } else if super::engine_ops::needs_engine(method) {
            return Err(Self::missing(method));
        }
        match method {
            M::SessionCreate => {
                let request: CreateSession = params.parse()?;
                let created = self.sessions(method)?.create(request)?;
                out.write(&json!({
                    "session_id": created.session.session_id,
                    "status": if created.created { "created" } else { "existing" },
                }))
            }
            M::SessionClose => {
                let p: params::SessionRef = params.parse()?;
                let session = self.sessions(method)?.close(p.session_id)?;
                for hook in &self.inner.services.close_hooks {
                    hook.session_closed(session.session_id);
                }
                out.write(&json!({"session_id": session.session_id, "status": "closed"}))
            }
            M::PlanUse => {
                let request: crate::UsePlan = params.parse()?;
                let status = self.plans(method)?.use_action(request)?;
                self.publish_status(&status);
                out.write(&status)
            }
            M::PlanExecute => self.transition(method, &params, |s, id| s.execute(id), out),
            M::PlanApply => self.transition(method, &params, |s, id| s.apply(id), out),
            M::PlanCancel => self.transition(method, &params, |s, id| s.cancel(id), out),
            M::PlanRollback => self.transition(method, &params, |s, id| s.rollback(id), out),
            M::PlanStatus => {
                let plans = self.plans(method)?;
                let p: params::PlanRef = params.parse()?;
                out.write(&plans.status(p.plan_id)?)
            }
            M::PlanTree => {
                let plans = self.plans(method)?;
                let p: params::PlanRef = params.parse()?;
                out.write(&json!({"plan_id": p.plan_id, "decisions": plans.tree(p.plan_id)?}))
            }
            M::PlanExplain => {
                let plans = self.plans(method)?;
                let p: params::Explain = params.parse()?;
                out.write(&json!({"plan_id": p.plan_id, "decision": plans.explain(p.plan_id, p.decision_id)?}))
            }
            M::PlanCorrect => {
                let plans = self.plans(method)?;
                let p: params::Correct = params.parse()?;
                let mut correction = crate::Correction::new(p.guidance);
                correction.decision_id = p.decision_id;
                out.write(&json!({"plan_id": p.plan_id, "decision": plans.correct(p.plan_id, correction)?}))
            }
            M::PlanPrompt => {
                let plans = self.plans(method)?;
                let p: params::Prompt = params.parse()?;
                out.write(&json!({"plan_id": p.plan_id, "decision": plans.prompt(p.plan_id, p.guidance)?}))
            }
            M::PlanDiff => {
                let plans = self.plans(method)?;
                let p: params::PlanRef = params.parse()?;
                out.write(&json!({"plan_id": p.plan_id, "changes": plans.diff(p.plan_id)?}))
            }
            M::PlanArtifacts => {
                let plans = self.plans(method)?;
                let p: params::PlanRef = params.parse()?;
                out.write(&json!({"plan_id": p.plan_id, "artifacts": plans.artifacts(p.plan_id)?}))
            }
            M::PlanList => {
                let filter: crate::PlanFilter = params.parse()?;
                let plans = match &self.inner.services.plans {
                    Some(service) => service.list(&filter)?,
                    None => Vec::new(),
                };
                out.write(&json!({"plans": plans}))
            }
            M::RegistryToolList => self.list_registry(RegistryKind::Tool, "tools", &params, out),
            M::RegistryResourceList => {
                self.list_registry(RegistryKind::Resource, "resources", &params, out)
            }
            M::RegistryActorList => self.list_registry(RegistryKind::Actor, "actors", &params, out),
            M::RegistrySkillList => self.list_registry(RegistryKind::Skill, "skills", &params, out),
            M::RegistryActionList => {
                self.list_registry(RegistryKind::Action, "actions", &params, out)
            }
            M::RegistryProjectList => {
                self.list_registry(RegistryKind::Project, "projects", &params, out)
            }
            M::ContextShow => {
                let scope: ContextScope = params.parse()?;
                out.write(&json!({"entries": self.context(method)?.show(&scope)?}))
            }
            M::ContextInspect => {
                let scope: ContextScope = params.parse()?;
                out.write(&json!({"tiers": self.context(method)?.inspect(&scope)?}))
            }
            M::ContextSimulate => {
                let p: params::Simulate = params.parse()?;
                out.write(
                    &json!({"entries": self.context(method)?.simulate(&p.scope(), &p.overrides)?}),
                )
            }
            M::ContextSet => {
                let p: params::ContextSet = params.parse()?;
                let scope = p.scope();
                self.context(method)?.set(&scope, &p.key, p.value)?;
                out.write(&json!({"key": p.key, "tier": scope.narrowest_tier(), "status": "set"}))
            }
            M::HealthCheck => {
                let _: params::Empty = params.parse()?;
                out.write(&self.health())
            }
            M::DiagnosticsRun => {
                let _: params::Empty = params.parse()?;
                let service = self
                    .inner
                    .services
                    .diagnostics
                    .as_deref()
                    .ok_or_else(|| Self::missing(method))?;
                let checks = service.run()?;
                let status = checks
                    .iter()
                    .map(|c| c.status)
                    .max()
                    .unwrap_or(CheckStatus::Pass);
                out.write(&json!({"status": status, "checks": checks}))
            }
            M::SyncPull => {
                let p: params::NamespaceOpt = params.parse()?;
                out.write(&self.sync(method)?.pull(p.namespace.as_deref())?)
            }
            M::SyncPush => {
                let p: params::NamespaceOpt = params.parse()?;
                out.write(&self.sync(method)?.push(p.namespace.as_deref())?)
            }
            M::SyncStatus => {
                let p: params::NamespaceOpt = params.parse()?;
                out.write(&self.sync(method)?.status(p.namespace.as_deref())?)
            }
            M::NamespaceList => {
                let _: params::Empty = params.parse()?;
                let namespaces = match &self.inner.services.sync {
                    Some(service) => service.namespaces()?,
                    None => Vec::new(),
                };
                out.write(&json!({"namespaces": namespaces}))
            }
            M::NamespaceShow => {
                let p: params::NamespaceRef = params.parse()?;
                out.write(&self.sync(method)?.namespace(&p.namespace)?)
            }
            M::NamespaceMembers => {
                let p: params::NamespaceRef = params.parse()?;
                let members = self.sync(method)?.members(&p.namespace)?;
                out.write(&json!({"namespace": p.namespace, "members": members}))
            }
            M::EventSubscribe => {
                let p: params::Subscribe = params.parse()?;
                let queue = self
                    .inner
                    .services
                    .events
                    .as_ref()
                    .ok_or_else(|| Self::missing(method))?;
                let filter = EventFilter::default()
                    .event_types(p.event_types)
                    .plan(p.plan_id);
                let replay = queue.events_after(p.after_event_id, &filter);
                let id = queue.subscribe_buffered(filter);
                out.write(&json!({"subscription_id": id, "events": replay}))
            }
            _ => Err(A2aError::protocol(
                super::error::ErrorKind::NotAvailable,
                format!("`{}` is not routed", method.name()),
                "method",
                method.name(),
            )),
        }
    }

    fn list_registry(
        &self,
        kind: RegistryKind,
        key: &str,
        params: &Params<'_>,
        out: &mut Out<'_>,
    ) -> Result<(), A2aError> {
        let filter: RegistryFilter = params.parse()?;
        let entries = match self.registry(kind) {
            Some(registry) => registry.list(&filter)?,
            None => Vec::new(),
        };
        let mut map = Map::with_capacity(1);
        map.insert(
            key.to_owned(),
            serde_json::to_value(entries).map_err(|e| internal(&e))?,
        );
        out.write(&map)
    }

    fn health(&self) -> Value {
        let s = &self.inner.services;
        let mut services = Map::new();
        services.insert("session_service".into(), s.sessions.is_some().into());
        services.insert("plan_lifecycle_service".into(), s.plans.is_some().into());
        for kind in RegistryKind::ALL {
            let name = match kind {
                RegistryKind::Tool => "tool_registry",
                RegistryKind::Resource => "resource_registry_service",
                RegistryKind::Actor => "actor_registry",
                RegistryKind::Skill => "skill_registry",
                RegistryKind::Action => "action_registry",
                RegistryKind::Project => "project_registry",
            };
            services.insert(name.into(), self.registry(*kind).is_some().into());
        }
        services.insert("context_service".into(), s.context.is_some().into());
        services.insert("diagnostics_service".into(), s.diagnostics.is_some().into());
        services.insert("sync_service".into(), s.sync.is_some().into());
        services.insert("event_queue".into(), s.events.is_some().into());
        let all = services.values().all(|v| v == &Value::Bool(true));
        json!({
            "status": if all { "ok" } else { "degraded" },
            "version": env!("CARGO_PKG_VERSION"),
            "services": services,
        })
    }
}

fn internal(e: &serde_json::Error) -> A2aError {
    A2aError::from(crate::ServiceError::Host(Box::new(std::io::Error::other(
        e.to_string(),
    ))))
}

/// Where a handler writes its result: straight into the reply buffer.
struct Out<'a>(&'a mut Vec<u8>);

impl Out<'_> {
    fn write<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), A2aError> {
        serde_json::to_writer(&mut *self.0, value).map_err(|e| internal(&e))
    }
}
