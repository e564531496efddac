//! [`EventBusBridge`]: domain events onto the A2A event queue.

use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;

use super::events::{A2aEventQueue, TASK_ARTIFACT_UPDATE, TASK_STATUS_UPDATE};
use super::models::A2aEvent;
use crate::clock::Clock;
use crate::event_bus::{BusSubscription, DomainEvent, DomainEventType, EventBus};

/// The A2A event type a domain event becomes: plan lifecycle events are
/// status updates, a restored checkpoint is an artifact update.
#[must_use]
pub const fn a2a_event_type(event: DomainEventType) -> &'static str {
    match event {
        DomainEventType::CheckpointRestored => TASK_ARTIFACT_UPDATE,
        _ => TASK_STATUS_UPDATE,
    }
}

/// Subscribes to a domain [`EventBus`] and republishes its events on an
/// [`A2aEventQueue`]. `start` and `stop` are idempotent.
///
/// ```
/// use std::sync::Arc;
/// use cleveragents::a2a::{A2aEventQueue, EventBusBridge};
/// use cleveragents::{DomainEvent, DomainEventType, EventBus, InMemoryEventBus, SystemClock};
///
/// let bus = InMemoryEventBus::new();
/// let queue = A2aEventQueue::new();
/// let bridge = EventBusBridge::new(Arc::new(bus.clone()), queue.clone(), Arc::new(SystemClock));
/// bridge.start();
/// bridge.start(); // no second subscription
/// bus.publish(&DomainEvent::new(DomainEventType::PlanCreated, None, Default::default()));
/// assert_eq!(queue.get_events(10)[0].event_type, "TaskStatusUpdateEvent");
/// bridge.stop();
/// bus.publish(&DomainEvent::new(DomainEventType::PlanApplied, None, Default::default()));
/// assert_eq!(queue.get_events(10).len(), 1);
/// ```
#[derive(Debug)]
pub struct EventBusBridge {
    bus: Arc<dyn EventBus>,
    queue: A2aEventQueue,
    clock: Arc<dyn Clock>,
    subscription: Mutex<Option<BusSubscription>>,
}

impl EventBusBridge {
    /// A bridge, not yet started.
    #[must_use]
    pub fn new(bus: Arc<dyn EventBus>, queue: A2aEventQueue, clock: Arc<dyn Clock>) -> Self {
        Self {
            bus,
            queue,
            clock,
            subscription: Mutex::new(None),
        }
    }

    /// Starts forwarding (a second call does nothing).
    pub fn start(&self) {
        let mut subscription = self.subscription.lock();
        if subscription.is_some() {
            return;
        }
        let queue = self.queue.clone();
        let clock = Arc::clone(&self.clock);
        *subscription = Some(self.bus.subscribe(Arc::new(move |event: &DomainEvent| {
            let mut data = event.data.clone();
            data.insert(
                "domain_event".into(),
                Value::String(event.event_type.as_str().to_owned()),
            );
            if let Some(plan) = event.plan_id {
                data.entry("taskId")
                    .or_insert_with(|| Value::String(plan.to_string()));
            }
            if let Ok(a2a) = A2aEvent::new(
                a2a_event_type(event.event_type),
                event.plan_id,
                Value::Object(data),
                &*clock,
            ) {
                // A closed queue has no listeners left; nothing to report.
                let _ = queue.publish(a2a);
            }
        })));
    }

    /// Stops forwarding (a second call does nothing).
    pub fn stop(&self) {
        if let Some(subscription) = self.subscription.lock().take() {
            self.bus.unsubscribe(subscription);
        }
    }

    /// Whether the bridge is forwarding.
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.subscription.lock().is_some()
    }
}

impl Drop for EventBusBridge {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_bus::{DomainEvent, InMemoryEventBus};
    use crate::{ManualClock, PlanId};

    #[test]
    fn every_domain_event_maps_as_specified() {
        let bus = InMemoryEventBus::new();
        let queue = A2aEventQueue::new();
        let bridge = EventBusBridge::new(
            Arc::new(bus.clone()),
            queue.clone(),
            Arc::new(ManualClock::default()),
        );
        bridge.start();
        let plan = PlanId::new();
        for event in DomainEventType::ALL {
            bus.publish(&DomainEvent::new(
                *event,
                Some(plan),
                serde_json::Map::new(),
            ));
        }
        let got: Vec<(String, String)> = queue
            .get_events(100)
            .into_iter()
            .map(|e| {
                (
                    e.event_type,
                    e.data["domain_event"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let expected: Vec<(String, String)> = DomainEventType::ALL
            .iter()
            .map(|e| {
                let kind = if *e == DomainEventType::CheckpointRestored {
                    TASK_ARTIFACT_UPDATE
                } else {
                    TASK_STATUS_UPDATE
                };
                (kind.to_owned(), e.as_str().to_owned())
            })
            .collect();
        assert_eq!(got, expected);
        assert_eq!(queue.get_events(1)[0].data["taskId"], plan.to_string());
        bridge.stop();
        bridge.stop();
        assert!(!bridge.is_running());
        bus.publish(&DomainEvent::new(
            DomainEventType::PlanErrored,
            None,
            serde_json::Map::new(),
        ));
        assert_eq!(queue.get_events(100).len(), DomainEventType::ALL.len());
    }
}
