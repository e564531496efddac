//! The facade's operations backed by the [`PlanEngine`]: every CLI command of
//! the specification has one.

use serde::Deserialize;
use serde_json::{Value, json};

use super::error::A2aError;
use super::methods::Method;
use super::params::Params;
use crate::budget::TokenUsage;
use crate::engine::{EngineUse, PlanEngine, ToolCall};
use crate::ids::{PlanId, SessionId};
use crate::money::Usd;
use crate::profile::AutomationProfile;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Gate {
    plan_id: PlanId,
    #[serde(default)]
    confidence: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanOnly {
    plan_id: PlanId,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallParams {
    plan_id: PlanId,
    #[serde(flatten)]
    call: ToolCall,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Retry {
    plan_id: PlanId,
    attempt: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reserve {
    plan_id: PlanId,
    model: String,
    input_tokens: u64,
    #[serde(default)]
    max_output_tokens: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Commit {
    call_id: String,
    usage: TokenUsage,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallRef {
    call_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionCostParams {
    #[serde(default)]
    session_id: Option<SessionId>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigGet {
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigSet {
    key: String,
    value: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardAudit {
    plan_id: PlanId,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardSet {
    plan_id: PlanId,
    #[serde(default)]
    max_cost: Option<Usd>,
    #[serde(default)]
    max_tool_calls: Option<u32>,
    #[serde(default)]
    require_approval_for_writes: Option<bool>,
    #[serde(default)]
    require_approval_for_apply: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Denylist {
    plan_id: PlanId,
    tool: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileName {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileBody {
    profile: AutomationProfile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileUpdate {
    name: String,
    profile: AutomationProfile,
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Runs an engine-backed operation; `None` when `method` is not one.
pub(crate) fn call(
    engine: &PlanEngine,
    method: Method,
    params: &Params<'_>,
) -> Option<Result<Value, A2aError>> {
    use Method as M;
    let result = (|| -> Result<Value, A2aError> {
        Ok(match method {
            M::PlanUse => to_json(&engine.use_plan(params.parse::<EngineUse>()?)?),
            M::PlanExecute => {
                let p: Gate = params.parse()?;
                to_json(&engine.execute(p.plan_id, p.confidence)?)
            }
            M::PlanApply => {
                let p: Gate = params.parse()?;
                to_json(&engine.apply(p.plan_id, p.confidence)?)
            }
            M::PlanCancel => to_json(&engine.cancel(params.parse::<PlanOnly>()?.plan_id)?),
            M::PlanApprove => to_json(&engine.approve(params.parse::<PlanOnly>()?.plan_id)?),
            M::PlanResume => to_json(&engine.resume(params.parse::<PlanOnly>()?.plan_id)?),
            M::PlanStep => to_json(&engine.next_step(params.parse::<PlanOnly>()?.plan_id)?),
            M::PlanToolCall => {
                let p: ToolCallParams = params.parse()?;
                to_json(&engine.tool_call(p.plan_id, &p.call)?)
            }
            M::PlanRetry => {
                let p: Retry = params.parse()?;
                to_json(&engine.retry(p.plan_id, p.attempt)?)
            }
            M::PlanLlmReserve => {
                let p: Reserve = params.parse()?;
                let (call_id, reserved) =
                    engine.open_call(p.plan_id, &p.model, p.input_tokens, p.max_output_tokens)?;
                json!({"call_id": call_id, "reserved": reserved})
            }
            M::PlanLlmCommit => {
                let p: Commit = params.parse()?;
                json!({"call_id": p.call_id, "cost": engine.commit_call(&p.call_id, p.usage)?})
            }
            M::PlanLlmRelease => {
                let p: CallRef = params.parse()?;
                engine.release_call(&p.call_id)?;
                json!({"call_id": p.call_id, "status": "released"})
            }
            M::PlanCost => {
                let p: PlanOnly = params.parse()?;
                let models = engine.ledger().plan_breakdown(p.plan_id)?;
                let budget = engine.budgets().plan_budget(p.plan_id);
                json!({"plan_id": p.plan_id, "spent": budget.spent, "limit": budget.limit, "models": models})
            }
            M::SessionCost => {
                let p: SessionCostParams = params.parse()?;
                match p.session_id {
                    Some(id) => {
                        json!({"session_id": id, "cost": engine.ledger().session_cost(id)?, "spent": engine.budgets().session_budget(id).spent})
                    }
                    None => {
                        let sessions: Vec<Value> = engine
                            .ledger()
                            .session_costs()?
                            .into_iter()
                            .map(|(id, cost)| json!({"session_id": id, "cost": cost}))
                            .collect();
                        json!({"sessions": sessions, "total": engine.ledger().lifetime_total()?})
                    }
                }
            }
            M::ConfigGet => {
                let p: ConfigGet = params.parse()?;
                json!({"key": p.key, "value": engine.config_get(&p.key)?})
            }
            M::ConfigSet => {
                let p: ConfigSet = params.parse()?;
                json!({"key": p.key, "value": engine.config_set(&p.key, &p.value)?})
            }
            M::PlanGuardShow => {
                let p: PlanOnly = params.parse()?;
                json!({"plan_id": p.plan_id, "guard": engine.guard(p.plan_id)?})
            }
            M::PlanGuardAudit => {
                let p: GuardAudit = params.parse()?;
                let trail = engine.guardrails().get_audit_trail(p.plan_id);
                let (entries, allowed, denied, evicted, verified) = match &trail {
                    Some(t) => {
                        let skip = t
                            .entries()
                            .len()
                            .saturating_sub(p.limit.unwrap_or(usize::MAX));
                        let entries: Vec<Value> =
                            t.entries().iter().skip(skip).map(to_json).collect();
                        (
                            entries,
                            t.allowed_count(),
                            t.denied_count(),
                            t.evicted_count(),
                            t.verify().is_ok(),
                        )
                    }
                    None => (Vec::new(), 0, 0, 0, true),
                };
                json!({"plan_id": p.plan_id, "allowed_count": allowed, "denied_count": denied, "evicted_count": evicted, "verified": verified, "entries": entries})
            }
            M::PlanGuardSet => {
                let p: GuardSet = params.parse()?;
                let guard = engine.edit_guard(p.plan_id, |g| {
                    if p.max_cost.is_some() {
                        g.max_total_cost = p.max_cost;
                    }
                    if p.max_tool_calls.is_some() {
                        g.max_tool_calls_per_step = p.max_tool_calls;
                    }
                    if let Some(w) = p.require_approval_for_writes {
                        g.require_approval_for_writes = w;
                    }
                    if let Some(a) = p.require_approval_for_apply {
                        g.require_approval_for_apply = a;
                    }
                })?;
                json!({"plan_id": p.plan_id, "guard": guard})
            }
            M::PlanGuardDenylistAdd | M::PlanGuardDenylistRemove => {
                let p: Denylist = params.parse()?;
                if p.tool.is_empty() {
                    return Err(A2aError::invalid_param("tool", "must not be empty"));
                }
                let add = method == M::PlanGuardDenylistAdd;
                let guard = engine.edit_guard(p.plan_id, |g| {
                    let list = g.tool_denylist.get_or_insert_with(Vec::new);
                    list.retain(|t| *t != p.tool);
                    if add {
                        list.push(p.tool.clone());
                    }
                })?;
                json!({"plan_id": p.plan_id, "guard": guard})
            }
            M::PlanProfileShow => {
                let p: PlanOnly = params.parse()?;
                let (profile, safety) = engine.plan_profile(p.plan_id)?;
                json!({"plan_id": p.plan_id, "profile": profile.profile, "source": profile.source, "safety": safety.value, "safety_source": safety.source})
            }
            M::ProfileList => {
                let _: super::params::Empty = params.parse()?;
                json!({"profiles": engine.profiles().list_profiles().map_err(crate::engine::EngineError::from)?})
            }
            M::ProfileShow => {
                let p: ProfileName = params.parse()?;
                to_json(
                    &engine
                        .profiles()
                        .get_profile(&p.name)
                        .map_err(crate::engine::EngineError::from)?,
                )
            }
            M::ProfileAdd => {
                let p: ProfileBody = params.parse()?;
                to_json(
                    &engine
                        .profiles()
                        .create_profile(p.profile)
                        .map_err(crate::engine::EngineError::from)?,
                )
            }
            M::ProfileUpdate => {
                let p: ProfileUpdate = params.parse()?;
                to_json(
                    &engine
                        .profiles()
                        .update_profile(&p.name, p.profile)
                        .map_err(crate::engine::EngineError::from)?,
                )
            }
            M::ProfileDelete => {
                let p: ProfileName = params.parse()?;
                to_json(
                    &engine
                        .profiles()
                        .delete_profile(&p.name)
                        .map_err(crate::engine::EngineError::from)?,
                )
            }
            _ => return Err(A2aError::invalid_request("not an engine operation")),
        })
    })();
    let is_engine_method = matches!(
        method,
        M::PlanUse
            | M::PlanExecute
            | M::PlanApply
            | M::PlanCancel
            | M::PlanApprove
            | M::PlanResume
            | M::PlanStep
            | M::PlanToolCall
            | M::PlanRetry
            | M::PlanLlmReserve
            | M::PlanLlmCommit
            | M::PlanLlmRelease
            | M::PlanCost
            | M::SessionCost
            | M::ConfigGet
            | M::ConfigSet
            | M::PlanGuardShow
            | M::PlanGuardAudit
            | M::PlanGuardSet
            | M::PlanGuardDenylistAdd
            | M::PlanGuardDenylistRemove
            | M::PlanProfileShow
            | M::ProfileList
            | M::ProfileShow
            | M::ProfileAdd
            | M::ProfileUpdate
            | M::ProfileDelete
    );
    is_engine_method.then_some(result)
}

/// Whether `method` needs the plan engine (and has no fallback without it).
pub(crate) fn needs_engine(method: Method) -> bool {
    method.service() == "plan_engine"
}
