//! Budgets: billing limits and their resolution across configuration levels,
//! and the budget hierarchy (plan, session, organisation).

mod hierarchy;
mod ledger;
mod pricing;

use serde::{Deserialize, Serialize};

use crate::money::Usd;
use crate::profile::{ProfileSource, Resolved};

pub(crate) use hierarchy::{BudgetCell, take_all};
pub use hierarchy::{
    BudgetExceeded, BudgetLevel, BudgetSnapshot, CostBudgetService, PlanBudget, Reservation,
};
pub use ledger::{CostLedger, CostRecord, DEFAULT_LEDGER_CAPACITY, InMemoryCostLedger, ModelCost};
pub use pricing::{ModelPrice, PricingError, PricingTable, TokenUsage};

/// The default warning threshold, in percent of a budget.
pub const DEFAULT_WARN_AT_PERCENT: u8 = 80;

/// Billing limits at one configuration level (`[billing]`); unset fields
/// inherit from less specific levels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct BillingConfig {
    /// Hard limit per session, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_per_session: Option<Usd>,
    /// Hard limit per plan, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_per_plan: Option<Usd>,
    /// Lifetime hard limit, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_cost: Option<Usd>,
    /// Warn when this percentage of any budget is consumed (default 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warn_at_percent: Option<u8>,
}

/// Billing limits after resolution, each with the level that set it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResolvedBilling {
    /// Per-session limit.
    pub max_cost_per_session: Option<Resolved<Usd>>,
    /// Per-plan limit.
    pub max_cost_per_plan: Option<Resolved<Usd>>,
    /// Lifetime limit.
    pub max_total_cost: Option<Resolved<Usd>>,
    /// Warning threshold in percent.
    pub warn_at_percent: Resolved<u8>,
}

fn first<T: Copy>(
    levels: &[(ProfileSource, Option<&BillingConfig>)],
    field: impl Fn(&BillingConfig) -> Option<T>,
) -> Option<Resolved<T>> {
    levels
        .iter()
        .find_map(|(source, config)| config.and_then(&field).map(|v| Resolved::new(v, *source)))
}

/// Resolves billing limits field by field with the precedence
/// plan > action > project > global: each limit comes from the most specific
/// level that sets it.
///
/// ```
/// use cleveragents::{BillingConfig, ProfileSource, Usd, resolve_billing};
///
/// let mut global = BillingConfig::default();
/// global.max_total_cost = Some(Usd::from_dollars(100));
/// global.max_cost_per_plan = Some(Usd::from_dollars(5));
/// let mut plan = BillingConfig::default();
/// plan.max_cost_per_plan = Some(Usd::from_dollars(2));
///
/// let billing = resolve_billing(Some(&plan), None, None, Some(&global));
/// let per_plan = billing.max_cost_per_plan.unwrap();
/// assert_eq!((per_plan.value, per_plan.source), (Usd::from_dollars(2), ProfileSource::Plan));
/// assert_eq!(billing.max_total_cost.unwrap().source, ProfileSource::Global);
/// assert_eq!(billing.warn_at_percent.value, 80);
/// ```
#[must_use]
pub fn resolve_billing(
    plan: Option<&BillingConfig>,
    action: Option<&BillingConfig>,
    project: Option<&BillingConfig>,
    global: Option<&BillingConfig>,
) -> ResolvedBilling {
    let levels = [
        (ProfileSource::Plan, plan),
        (ProfileSource::Action, action),
        (ProfileSource::Project, project),
        (ProfileSource::Global, global),
    ];
    ResolvedBilling {
        max_cost_per_session: first(&levels, |c| c.max_cost_per_session),
        max_cost_per_plan: first(&levels, |c| c.max_cost_per_plan),
        max_total_cost: first(&levels, |c| c.max_total_cost),
        warn_at_percent: first(&levels, |c| c.warn_at_percent)
            .unwrap_or_else(|| Resolved::new(DEFAULT_WARN_AT_PERCENT, ProfileSource::Default)),
    }
}
