//! The domain event bus: what the plan engine announces (plan created, phase
//! changed, checkpoint restored, …), independent of any protocol.

use std::fmt::{self, Debug};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ids::PlanId;
use crate::string_enum::string_enum;

string_enum!(
    /// The domain events the plan engine publishes.
    DomainEventType, "domain event type" {
        /// A plan was created.
        PlanCreated => "PLAN_CREATED",
        /// A plan moved to another phase.
        PlanPhaseChanged => "PLAN_PHASE_CHANGED",
        /// A plan's state changed.
        PlanStateChanged => "PLAN_STATE_CHANGED",
        /// A plan was applied.
        PlanApplied => "PLAN_APPLIED",
        /// A plan was cancelled.
        PlanCancelled => "PLAN_CANCELLED",
        /// A plan failed.
        PlanErrored => "PLAN_ERRORED",
        /// A plan was restored from a checkpoint.
        CheckpointRestored => "CHECKPOINT_RESTORED",
        /// A budget crossed its warning threshold.
        BudgetWarning => "BUDGET_WARNING",
        /// A container tied to a closing session could not be stopped.
        ContainerCleanupFailed => "CONTAINER_CLEANUP_FAILED",
    }
);

/// One domain event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DomainEvent {
    /// What happened.
    pub event_type: DomainEventType,
    /// The plan concerned.
    #[serde(default)]
    pub plan_id: Option<PlanId>,
    /// Details.
    #[serde(default)]
    pub data: Map<String, Value>,
}

impl DomainEvent {
    /// An event about `plan_id` with `data`.
    #[must_use]
    pub fn new(
        event_type: DomainEventType,
        plan_id: Option<PlanId>,
        data: Map<String, Value>,
    ) -> Self {
        Self {
            event_type,
            plan_id,
            data,
        }
    }
}

/// A handler subscribed to the bus.
pub type DomainHandler = Arc<dyn Fn(&DomainEvent) + Send + Sync>;

/// Identifies a bus subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BusSubscription(u64);

/// The domain event bus port. Implemented by hosts; `&self`, safe under
/// concurrency; handlers must be called outside the bus's locks.
pub trait EventBus: Send + Sync + Debug + 'static {
    /// Calls `handler` for every event published from now on.
    fn subscribe(&self, handler: DomainHandler) -> BusSubscription;
    /// Stops a subscription; `false` when it did not exist.
    fn unsubscribe(&self, subscription: BusSubscription) -> bool;
    /// Delivers `event` to every subscriber.
    fn publish(&self, event: &DomainEvent);
}

/// The in-memory [`EventBus`]: synchronous delivery on the publishing thread,
/// outside the lock; a panicking handler is contained.
#[derive(Clone, Default)]
pub struct InMemoryEventBus {
    handlers: Arc<Mutex<Vec<(BusSubscription, DomainHandler)>>>,
    next: Arc<AtomicU64>,
}

impl Debug for InMemoryEventBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryEventBus")
            .field("subscribers", &self.handlers.lock().len())
            .finish()
    }
}

impl InMemoryEventBus {
    /// No subscribers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl EventBus for InMemoryEventBus {
    fn subscribe(&self, handler: DomainHandler) -> BusSubscription {
        let id = BusSubscription(self.next.fetch_add(1, Ordering::Relaxed));
        self.handlers.lock().push((id, handler));
        id
    }

    fn unsubscribe(&self, subscription: BusSubscription) -> bool {
        let mut handlers = self.handlers.lock();
        let before = handlers.len();
        handlers.retain(|(id, _)| *id != subscription);
        handlers.len() != before
    }

    fn publish(&self, event: &DomainEvent) {
        let handlers: Vec<DomainHandler> = self
            .handlers
            .lock()
            .iter()
            .map(|(_, h)| Arc::clone(h))
            .collect();
        for handler in handlers {
            let _ = catch_unwind(AssertUnwindSafe(|| handler(event)));
        }
    }
}
