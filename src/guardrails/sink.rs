//! The audit-sink port: where audit entries are persisted.

use std::fmt::Debug;
use std::sync::Arc;

use parking_lot::Mutex;

use super::audit::GuardrailAuditEntry;
use crate::ids::PlanId;
use crate::service_error::ServiceResult;

/// Receives every audit entry, outside the service's locks, right after the
/// entry is appended (so before it can be evicted from the bounded trail).
/// Entries of one plan may arrive out of order under concurrency; order them
/// by [`GuardrailAuditEntry::sequence`]. Implemented by hosts; `&self`, safe
/// under concurrency.
pub trait AuditSink: Send + Sync + Debug + 'static {
    /// Persists one entry of `plan_id`'s trail.
    ///
    /// # Errors
    /// From the host; what happens then depends on the [`SinkMode`].
    fn record(&self, plan_id: PlanId, entry: &GuardrailAuditEntry) -> ServiceResult<()>;
}

/// What a sink failure does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SinkMode {
    /// The failure is counted and the decision stands.
    #[default]
    BestEffort,
    /// The check that produced the entry fails; any charge it recorded is
    /// given back, and a compensating entry says so.
    Strict,
}

/// The in-memory [`AuditSink`]: keeps every entry it is given, per plan
/// (unbounded: meant for tests and short-lived hosts).
#[derive(Debug, Clone, Default)]
pub struct InMemoryAuditSink {
    entries: Arc<Mutex<Vec<(PlanId, GuardrailAuditEntry)>>>,
}

impl InMemoryAuditSink {
    /// An empty sink.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Every entry received for `plan_id`, in sequence order.
    #[must_use]
    pub fn entries(&self, plan_id: PlanId) -> Vec<GuardrailAuditEntry> {
        let mut out: Vec<GuardrailAuditEntry> = self
            .entries
            .lock()
            .iter()
            .filter(|(p, _)| *p == plan_id)
            .map(|(_, e)| e.clone())
            .collect();
        out.sort_by_key(GuardrailAuditEntry::sequence);
        out
    }

    /// How many entries were received in all.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.lock().len()
    }

    /// Whether nothing was received.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.lock().is_empty()
    }
}

impl AuditSink for InMemoryAuditSink {
    fn record(&self, plan_id: PlanId, entry: &GuardrailAuditEntry) -> ServiceResult<()> {
        self.entries.lock().push((plan_id, entry.clone()));
        Ok(())
    }
}
