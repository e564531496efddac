//! Typed parameters of the facade's methods, and their parsing.
//!
//! Unknown parameter names are rejected (-32602) so a typo never passes silently.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::error::A2aError;
use super::wire::strip_position;
use crate::context::ContextScope;
use crate::ids::{DecisionId, EventId, PlanId, SessionId};

/// Where a request's parameters come from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Params<'a> {
    /// Raw JSON text from the wire (`None`: omitted).
    Raw(Option<&'a RawValue>),
    /// An in-process request's object.
    Value(&'a Value),
}

impl Params<'_> {
    /// Deserializes into `T`; on failure, names the parameter at fault.
    pub(crate) fn parse<T: DeserializeOwned>(&self) -> Result<T, A2aError> {
        let first = match self {
            Params::Raw(None) => serde_json::from_str::<T>("{}"),
            Params::Raw(Some(raw)) => serde_json::from_str::<T>(raw.get()),
            Params::Value(value) => T::deserialize(*value),
        };
        first.map_err(|e| self.explain::<T>(&e))
    }

    /// Runs the failed parse again, tracking the path, to say which parameter was wrong.
    /// Only the error path pays for this.
    fn explain<T: DeserializeOwned>(&self, error: &serde_json::Error) -> A2aError {
        let path = match self {
            Params::Raw(Some(raw)) => {
                let mut de = serde_json::Deserializer::from_str(raw.get());
                serde_path_to_error::deserialize::<_, T>(&mut de)
                    .err()
                    .map(|e| e.path().to_string())
            }
            Params::Value(value) => serde_path_to_error::deserialize::<_, T>(*value)
                .err()
                .map(|e| e.path().to_string()),
            Params::Raw(None) => None,
        };
        let reason = strip_position(&error.to_string());
        let named = ["missing field `", "unknown field `"]
            .iter()
            .find_map(|prefix| reason.strip_prefix(prefix))
            .and_then(|rest| rest.split('`').next())
            .map(str::to_owned);
        let param = named.or(path.filter(|p| p != "." && !p.is_empty()));
        A2aError::InvalidParams { param, reason }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Empty {}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SessionRef {
    pub(crate) session_id: SessionId,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanRef {
    pub(crate) plan_id: PlanId,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Explain {
    pub(crate) plan_id: PlanId,
    pub(crate) decision_id: DecisionId,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Correct {
    pub(crate) plan_id: PlanId,
    pub(crate) guidance: String,
    #[serde(default)]
    pub(crate) decision_id: Option<DecisionId>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Prompt {
    pub(crate) plan_id: PlanId,
    pub(crate) guidance: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Simulate {
    #[serde(default)]
    session_id: Option<SessionId>,
    #[serde(default)]
    plan_id: Option<PlanId>,
    #[serde(default)]
    pub(crate) overrides: Map<String, Value>,
}

impl Simulate {
    pub(crate) fn scope(&self) -> ContextScope {
        scope(self.session_id, self.plan_id)
    }
}

fn scope(session_id: Option<SessionId>, plan_id: Option<PlanId>) -> ContextScope {
    ContextScope::new(session_id, plan_id)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextSet {
    #[serde(default)]
    session_id: Option<SessionId>,
    #[serde(default)]
    plan_id: Option<PlanId>,
    pub(crate) key: String,
    pub(crate) value: Value,
}

impl ContextSet {
    pub(crate) fn scope(&self) -> ContextScope {
        scope(self.session_id, self.plan_id)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NamespaceOpt {
    #[serde(default)]
    pub(crate) namespace: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NamespaceRef {
    pub(crate) namespace: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Subscribe {
    #[serde(default)]
    pub(crate) event_types: Vec<String>,
    #[serde(default)]
    pub(crate) plan_id: Option<PlanId>,
    #[serde(default)]
    pub(crate) after_event_id: Option<EventId>,
}
