//! `config get` / `config set` for the billing and safety keys.

use serde_json::{Value, json};

use super::{EngineError, LIFETIME_ORG, PlanEngine};
use crate::money::Usd;
use crate::profile::{NAMED_SAFETY_PROFILES, SafetyProfileRef};

/// Every configuration key, with what it holds.
pub const CONFIG_KEYS: &[(&str, &str)] = &[
    (
        "billing.max_cost_per_session",
        "USD limit per session, or null",
    ),
    ("billing.max_cost_per_plan", "USD limit per plan, or null"),
    ("billing.max_total_cost", "lifetime USD limit, or null"),
    (
        "billing.warn_at_percent",
        "warn when this percentage of a budget is spent (1-100)",
    ),
    ("billing.total_spent", "lifetime spend (read only)"),
    ("safety.profile", "the global named safety profile, or null"),
];

fn invalid(key: &str, reason: impl Into<String>) -> EngineError {
    EngineError::InvalidValue {
        key: key.to_owned(),
        reason: reason.into(),
    }
}

fn money(key: &str, value: &Value) -> Result<Option<Usd>, EngineError> {
    if value.is_null() {
        return Ok(None);
    }
    let usd: Usd =
        serde_json::from_value(value.clone()).map_err(|e| invalid(key, e.to_string()))?;
    if usd.is_negative() {
        return Err(invalid(key, format!("must not be negative, got {usd}")));
    }
    Ok(Some(usd))
}

impl PlanEngine {
    /// The value of a configuration key (see [`CONFIG_KEYS`]).
    ///
    /// # Errors
    /// [`EngineError::NotFound`] for an unknown key.
    pub fn config_get(&self, key: &str) -> Result<Value, EngineError> {
        let config = self.inner.config.read();
        Ok(match key {
            "billing.max_cost_per_session" => json!(config.billing.max_cost_per_session),
            "billing.max_cost_per_plan" => json!(config.billing.max_cost_per_plan),
            "billing.max_total_cost" => json!(config.billing.max_total_cost),
            "billing.warn_at_percent" => json!(
                config
                    .billing
                    .warn_at_percent
                    .unwrap_or(crate::budget::DEFAULT_WARN_AT_PERCENT)
            ),
            "billing.total_spent" => json!(self.inner.budgets.org_budget(LIFETIME_ORG).spent),
            "safety.profile" => match &config.safety {
                Some(SafetyProfileRef::Named(name)) => json!(name),
                Some(other) => json!(other),
                None => Value::Null,
            },
            _ => {
                return Err(EngineError::NotFound {
                    entity: "configuration key",
                    id: key.to_owned(),
                });
            }
        })
    }

    /// Sets a configuration key. Billing changes apply at once to every plan
    /// that does not set its own limit, so a paused plan can be resumed after
    /// a raise; nothing is half-applied when the value is refused.
    ///
    /// # Errors
    /// [`EngineError::NotFound`] for an unknown or read-only key,
    /// [`EngineError::InvalidValue`] for a value that does not fit.
    pub fn config_set(&self, key: &str, value: &Value) -> Result<Value, EngineError> {
        {
            let mut config = self.inner.config.write();
            match key {
                "billing.max_cost_per_session" => {
                    config.billing.max_cost_per_session = money(key, value)?
                }
                "billing.max_cost_per_plan" => {
                    config.billing.max_cost_per_plan = money(key, value)?
                }
                "billing.max_total_cost" => config.billing.max_total_cost = money(key, value)?,
                "billing.warn_at_percent" => {
                    let percent = value
                        .as_u64()
                        .filter(|p| (1..=100).contains(p))
                        .and_then(|p| u8::try_from(p).ok())
                        .ok_or_else(|| {
                            invalid(
                                key,
                                format!("must be a whole number from 1 to 100, got {value}"),
                            )
                        })?;
                    config.billing.warn_at_percent = Some(percent);
                }
                "safety.profile" => {
                    config.safety = match value {
                        Value::Null => None,
                        Value::String(name) if NAMED_SAFETY_PROFILES.contains(&name.as_str()) => {
                            Some(SafetyProfileRef::Named(name.clone()))
                        }
                        other => {
                            return Err(invalid(
                                key,
                                format!(
                                    "`{other}` is not a named safety profile; known: {}",
                                    NAMED_SAFETY_PROFILES.join(", ")
                                ),
                            ));
                        }
                    };
                }
                _ => {
                    return Err(EngineError::NotFound {
                        entity: "writable configuration key",
                        id: key.to_owned(),
                    });
                }
            }
        }
        if key.starts_with("billing.") {
            let plans: Vec<_> = self
                .inner
                .plans
                .read()
                .iter()
                .map(|(id, p)| (*id, std::sync::Arc::clone(p)))
                .collect();
            for (plan_id, plan) in plans {
                let state = plan.lock();
                self.apply_limits(plan_id, &state);
            }
        }
        self.config_get(key)
    }
}
