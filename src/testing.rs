//! Conformance checks for the service ports (feature `testing`).
//!
//! A host that implements a port runs the matching check against its
//! implementation in its own tests; the crate runs the same checks against its
//! in-memory implementations. Each check returns the first contract violation
//! it finds, naming the rule.
//!
//! ```
//! use cleveragents::testing::check_session_service;
//! use cleveragents::InMemorySessionService;
//!
//! check_session_service(&InMemorySessionService::new())?;
//! # Ok::<(), cleveragents::testing::ConformanceError>(())
//! ```

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use crate::context::{ContextScope, ContextService};
use crate::ids::{DecisionId, PlanId, SessionId};
use crate::plan::{Correction, PlanFilter, PlanLifecycle, PlanPhase, PlanState, UsePlan};
use crate::service_error::ServiceError;
use crate::session::{CreateSession, SessionService, SessionStatus};

/// A port implementation broke a rule of its contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("conformance rule `{rule}` violated: {detail}")]
#[non_exhaustive]
pub struct ConformanceError {
    /// The rule, e.g. `session.create.idempotent`.
    pub rule: &'static str,
    /// What happened instead.
    pub detail: String,
}

type Check = Result<(), ConformanceError>;

fn fail(rule: &'static str, detail: impl Into<String>) -> ConformanceError {
    ConformanceError {
        rule,
        detail: detail.into(),
    }
}

fn ensure(rule: &'static str, ok: bool, detail: impl FnOnce() -> String) -> Check {
    if ok {
        Ok(())
    } else {
        Err(fail(rule, detail()))
    }
}

fn service<T>(rule: &'static str, result: Result<T, ServiceError>) -> Result<T, ConformanceError> {
    result.map_err(|e| fail(rule, format!("unexpected error: {e}")))
}

fn is_not_found(result: &Result<impl std::fmt::Debug, ServiceError>, key: &str) -> bool {
    matches!(result, Err(ServiceError::NotFound { key: k, .. }) if *k == key)
}

/// Checks a [`SessionService`]: creation, idempotent creation (also under
/// concurrency), close, get, list and not-found errors.
///
/// # Errors
/// The first violated rule.
pub fn check_session_service(sessions: &dyn SessionService) -> Check {
    let first = service(
        "session.create",
        sessions.create(CreateSession::new().actor_name("conformance/actor")),
    )?;
    ensure("session.create.new", first.created, || {
        "a create without id reported created = false".into()
    })?;
    ensure(
        "session.create.open",
        first.session.status == SessionStatus::Open,
        || format!("new session has status {:?}", first.session.status),
    )?;
    let id = first.session.session_id;
    let again = service(
        "session.create",
        sessions.create(CreateSession::new().session_id(id)),
    )?;
    ensure(
        "session.create.idempotent",
        !again.created && again.session.session_id == id,
        || format!("create with an existing id returned {again:?}"),
    )?;

    let chosen = SessionId::new();
    let created = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..25 {
                    if let Ok(c) = sessions.create(CreateSession::new().session_id(chosen)) {
                        if c.created {
                            created.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                }
            });
        }
    });
    ensure(
        "session.create.idempotent_concurrently",
        created.load(Ordering::SeqCst) == 1,
        || {
            format!(
                "{} threads reported creating the same session",
                created.load(Ordering::SeqCst)
            )
        },
    )?;

    let got = service("session.get", sessions.get(id))?;
    ensure("session.get", got.session_id == id, || {
        format!("get returned {got:?}")
    })?;
    let listed = service("session.list", sessions.list())?;
    ensure(
        "session.list",
        listed.iter().any(|s| s.session_id == id),
        || "a created session is not listed".into(),
    )?;
    let closed = service("session.close", sessions.close(id))?;
    ensure(
        "session.close",
        closed.status == SessionStatus::Closed,
        || format!("close returned {closed:?}"),
    )?;
    let closed = service("session.close.repeat", sessions.close(id))?;
    ensure(
        "session.close.repeat",
        closed.status == SessionStatus::Closed,
        || format!("{closed:?}"),
    )?;
    let unknown = SessionId::new();
    ensure(
        "session.not_found",
        is_not_found(&sessions.close(unknown), "session_id"),
        || "closing an unknown session is not NotFound with key `session_id`".into(),
    )?;
    ensure(
        "session.not_found",
        is_not_found(&sessions.get(unknown), "session_id"),
        || "getting an unknown session is not NotFound with key `session_id`".into(),
    )
}

/// Checks a [`PlanLifecycle`]: creation and listing, the phase order, that a
/// cancelled plan accepts no transition, decision lookup, and not-found errors
/// with key `plan_id` on every operation.
///
/// # Errors
/// The first violated rule.
pub fn check_plan_lifecycle(plans: &dyn PlanLifecycle) -> Check {
    ensure(
        "plan.use.blank_action",
        matches!(
            plans.use_action(UsePlan::new("  ")),
            Err(ServiceError::Invalid { .. })
        ),
        || "a blank action name is not rejected as Invalid".into(),
    )?;
    let session = SessionId::new();
    let plan = service(
        "plan.use",
        plans.use_action(UsePlan::new("conformance").session(session)),
    )?;
    ensure(
        "plan.use.phase",
        plan.phase == PlanPhase::Strategize,
        || format!("a new plan is in phase {}", plan.phase),
    )?;
    let id = plan.plan_id;
    let status = service("plan.status", plans.status(id))?;
    ensure(
        "plan.status",
        status.plan_id == id && status.action_name == "conformance",
        || format!("status returned {status:?}"),
    )?;
    let listed = service(
        "plan.list",
        plans.list(&PlanFilter::default().session(session)),
    )?;
    ensure("plan.list.session_filter", listed.len() == 1, || {
        format!("listing by session returned {} plans", listed.len())
    })?;

    let executed = service("plan.execute", plans.execute(id))?;
    ensure("plan.execute", executed.phase == PlanPhase::Execute, || {
        format!("{executed:?}")
    })?;
    let applied = service("plan.apply", plans.apply(id))?;
    ensure("plan.apply", applied.phase == PlanPhase::Apply, || {
        format!("{applied:?}")
    })?;
    ensure(
        "plan.apply.final",
        matches!(plans.execute(id), Err(ServiceError::InvalidState { .. })),
        || "an applied plan accepted execute".into(),
    )?;

    let tree = service("plan.tree", plans.tree(id))?;
    let root = tree
        .first()
        .ok_or_else(|| fail("plan.tree", "no decision recorded"))?;
    let explained = service("plan.explain", plans.explain(id, root.decision_id))?;
    ensure(
        "plan.explain",
        explained.decision_id == root.decision_id,
        || format!("{explained:?}"),
    )?;
    ensure(
        "plan.explain.not_found",
        is_not_found(&plans.explain(id, DecisionId::new()), "decision_id"),
        || "an unknown decision is not NotFound with key `decision_id`".into(),
    )?;

    let other = service("plan.use", plans.use_action(UsePlan::new("conformance")))?.plan_id;
    let cancelled = service("plan.cancel", plans.cancel(other))?;
    ensure(
        "plan.cancel",
        cancelled.state == PlanState::Cancelled,
        || format!("{cancelled:?}"),
    )?;
    for (op, result) in [
        ("execute", plans.execute(other).map(drop)),
        ("apply", plans.apply(other).map(drop)),
        ("cancel", plans.cancel(other).map(drop)),
        (
            "correct",
            plans.correct(other, Correction::new("x")).map(drop),
        ),
    ] {
        ensure(
            "plan.cancelled.final",
            matches!(result, Err(ServiceError::InvalidState { .. })),
            || format!("a cancelled plan accepted {op}"),
        )?;
    }

    let unknown = PlanId::new();
    let results = [
        ("status", is_not_found(&plans.status(unknown), "plan_id")),
        ("execute", is_not_found(&plans.execute(unknown), "plan_id")),
        ("apply", is_not_found(&plans.apply(unknown), "plan_id")),
        ("cancel", is_not_found(&plans.cancel(unknown), "plan_id")),
        ("tree", is_not_found(&plans.tree(unknown), "plan_id")),
        ("diff", is_not_found(&plans.diff(unknown), "plan_id")),
        (
            "artifacts",
            is_not_found(&plans.artifacts(unknown), "plan_id"),
        ),
        (
            "rollback",
            is_not_found(&plans.rollback(unknown), "plan_id"),
        ),
        (
            "prompt",
            is_not_found(&plans.prompt(unknown, "x".into()), "plan_id"),
        ),
        (
            "correct",
            is_not_found(&plans.correct(unknown, Correction::new("x")), "plan_id"),
        ),
    ];
    for (op, ok) in results {
        ensure("plan.not_found", ok, || {
            format!("{op} of an unknown plan is not NotFound with key `plan_id`")
        })?;
    }
    Ok(())
}

/// Checks a [`ContextService`]: tier precedence, simulation storing nothing,
/// `null` removing a key, and blank keys rejected.
///
/// # Errors
/// The first violated rule.
pub fn check_context_service(context: &dyn ContextService) -> Check {
    let key = format!("conformance-{}", PlanId::new());
    let global = ContextScope::default();
    let plan = ContextScope::new(Some(SessionId::new()), Some(PlanId::new()));
    service("context.set", context.set(&global, &key, json!("global")))?;
    service(
        "context.set",
        context.set(
            &ContextScope::new(plan.session_id, None),
            &key,
            json!("session"),
        ),
    )?;
    let value_of = |scope: &ContextScope| -> Result<Option<serde_json::Value>, ConformanceError> {
        Ok(service("context.show", context.show(scope))?
            .into_iter()
            .find(|e| e.key == key)
            .map(|e| e.value))
    };
    ensure(
        "context.precedence",
        value_of(&plan)? == Some(json!("session")),
        || "the session tier does not override the global tier".into(),
    )?;
    service("context.set", context.set(&plan, &key, json!("plan")))?;
    ensure(
        "context.precedence",
        value_of(&plan)? == Some(json!("plan")),
        || "the plan tier does not override the session tier".into(),
    )?;
    let mut overrides = serde_json::Map::new();
    overrides.insert(key.clone(), json!("simulated"));
    let simulated = service("context.simulate", context.simulate(&plan, &overrides))?;
    ensure(
        "context.simulate",
        simulated
            .iter()
            .any(|e| e.key == key && e.value == json!("simulated")),
        || "simulate does not apply overrides".into(),
    )?;
    ensure(
        "context.simulate.stores_nothing",
        value_of(&plan)? == Some(json!("plan")),
        || "simulate changed the stored context".into(),
    )?;
    service(
        "context.set",
        context.set(&global, &key, serde_json::Value::Null),
    )?;
    ensure(
        "context.set.null_removes",
        value_of(&global)?.is_none(),
        || "setting null did not remove the key".into(),
    )?;
    ensure(
        "context.set.blank_key",
        matches!(
            context.set(&global, " ", json!(1)),
            Err(ServiceError::Invalid { .. })
        ),
        || "a blank key is not rejected as Invalid".into(),
    )?;
    let tiers: HashSet<_> = service("context.inspect", context.inspect(&plan))?
        .into_iter()
        .map(|t| t.tier)
        .collect();
    ensure("context.inspect", tiers.len() == 3, || {
        format!("inspect of a plan scope gave {} tiers", tiers.len())
    })
}
