//! The cost ledger: one record per LLM call, and the queries over them.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use super::pricing::TokenUsage;
use crate::ids::{PlanId, SessionId};
use crate::money::Usd;
use crate::service_error::{ServiceError, ServiceResult};

/// What one LLM call cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CostRecord {
    /// Unique per call: a repeated key is ignored, never charged twice.
    pub idempotency_key: String,
    /// The model used.
    pub model: String,
    /// Tokens used.
    pub usage: TokenUsage,
    /// What it cost.
    pub cost: Usd,
    /// The session charged.
    pub session_id: Option<SessionId>,
    /// The plan charged.
    pub plan_id: Option<PlanId>,
    /// When the call was made.
    pub timestamp: DateTime<Utc>,
}

impl CostRecord {
    /// A record of a call of `model`.
    #[must_use]
    pub fn new(
        idempotency_key: impl Into<String>,
        model: impl Into<String>,
        usage: TokenUsage,
        cost: Usd,
        timestamp: DateTime<Utc>,
    ) -> Self {
        Self {
            idempotency_key: idempotency_key.into(),
            model: model.into(),
            usage,
            cost,
            session_id: None,
            plan_id: None,
            timestamp,
        }
    }
}

/// A plan's cost for one model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelCost {
    /// The model.
    pub model: String,
    /// Calls made.
    pub calls: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// What they cost.
    pub cost: Usd,
}

/// Storage of cost records. Implemented by hosts; `&self`, safe under concurrency.
pub trait CostLedger: Send + Sync + Debug + 'static {
    /// Records a call; `false` when its idempotency key was seen before
    /// (nothing is charged then).
    ///
    /// # Errors
    /// `Invalid` for a negative cost or a blank key.
    fn record(&self, record: CostRecord) -> ServiceResult<bool>;
    /// What a session cost.
    ///
    /// # Errors
    /// From the host.
    fn session_cost(&self, session: SessionId) -> ServiceResult<Usd>;
    /// Every session with its cost, by session id.
    ///
    /// # Errors
    /// From the host.
    fn session_costs(&self) -> ServiceResult<Vec<(SessionId, Usd)>>;
    /// A plan's cost by model, by model name.
    ///
    /// # Errors
    /// From the host.
    fn plan_breakdown(&self, plan: PlanId) -> ServiceResult<Vec<ModelCost>>;
    /// Everything ever recorded.
    ///
    /// # Errors
    /// From the host.
    fn lifetime_total(&self) -> ServiceResult<Usd>;
}

#[derive(Debug, Default)]
struct Ledger {
    records: VecDeque<CostRecord>,
    keys: HashSet<String>,
    sessions: BTreeMap<SessionId, Usd>,
    plans: HashMap<PlanId, BTreeMap<String, ModelCost>>,
    total: Usd,
}

/// Default number of records (and idempotency keys) the in-memory ledger keeps.
pub const DEFAULT_LEDGER_CAPACITY: usize = 100_000;

/// The in-memory [`CostLedger`]: exact running totals, plus the most recent
/// records (bounded; totals never forget). A repeated idempotency key is
/// recognised while its record is retained.
#[derive(Debug, Clone)]
pub struct InMemoryCostLedger {
    inner: Arc<RwLock<Ledger>>,
    capacity: usize,
}

impl Default for InMemoryCostLedger {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_LEDGER_CAPACITY)
    }
}

impl InMemoryCostLedger {
    /// An empty ledger retaining [`DEFAULT_LEDGER_CAPACITY`] records.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty ledger retaining `capacity` records (at least one).
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Arc::default(),
            capacity: capacity.max(1),
        }
    }

    /// The retained records, oldest first.
    #[must_use]
    pub fn records(&self) -> Vec<CostRecord> {
        self.inner.read().records.iter().cloned().collect()
    }
}

impl CostLedger for InMemoryCostLedger {
    fn record(&self, record: CostRecord) -> ServiceResult<bool> {
        if record.cost.is_negative() {
            return Err(ServiceError::invalid(
                "cost",
                format!("must not be negative, got {}", record.cost),
            ));
        }
        if record.idempotency_key.trim().is_empty() {
            return Err(ServiceError::invalid(
                "idempotency_key",
                "must not be blank",
            ));
        }
        let mut ledger = self.inner.write();
        if !ledger.keys.insert(record.idempotency_key.clone()) {
            return Ok(false);
        }
        let total = ledger
            .total
            .checked_add(record.cost)
            .ok_or_else(|| ServiceError::invalid("cost", "the lifetime total overflows"))?;
        ledger.total = total;
        if let Some(session) = record.session_id {
            let entry = ledger.sessions.entry(session).or_default();
            *entry = entry.saturating_add(record.cost);
        }
        if let Some(plan) = record.plan_id {
            let entry = ledger
                .plans
                .entry(plan)
                .or_default()
                .entry(record.model.clone())
                .or_insert_with(|| ModelCost {
                    model: record.model.clone(),
                    ..ModelCost::default()
                });
            entry.calls += 1;
            entry.input_tokens = entry.input_tokens.saturating_add(record.usage.input_tokens);
            entry.output_tokens = entry
                .output_tokens
                .saturating_add(record.usage.output_tokens);
            entry.cost = entry.cost.saturating_add(record.cost);
        }
        if ledger.records.len() >= self.capacity {
            if let Some(old) = ledger.records.pop_front() {
                ledger.keys.remove(&old.idempotency_key);
            }
        }
        ledger.records.push_back(record);
        Ok(true)
    }

    fn session_cost(&self, session: SessionId) -> ServiceResult<Usd> {
        Ok(self
            .inner
            .read()
            .sessions
            .get(&session)
            .copied()
            .unwrap_or_default())
    }

    fn session_costs(&self) -> ServiceResult<Vec<(SessionId, Usd)>> {
        Ok(self
            .inner
            .read()
            .sessions
            .iter()
            .map(|(s, c)| (*s, *c))
            .collect())
    }

    fn plan_breakdown(&self, plan: PlanId) -> ServiceResult<Vec<ModelCost>> {
        Ok(self
            .inner
            .read()
            .plans
            .get(&plan)
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default())
    }

    fn lifetime_total(&self) -> ServiceResult<Usd> {
        Ok(self.inner.read().total)
    }
}
