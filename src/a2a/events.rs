//! In-process publish/subscribe of [`A2aEvent`]s.
//!
//! Subscribers are either callbacks ([`A2aEventQueue::subscribe_local`]) or
//! bounded buffers a transport drains ([`A2aEventQueue::subscribe_buffered`]).
//! Callbacks run on the publishing thread, after the queue's lock is released,
//! so a callback may publish or unsubscribe; a callback that panics is counted
//! and skipped, never poisoning the queue or starving other subscribers.

use std::collections::VecDeque;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::models::A2aEvent;
use crate::ids::{EventId, PlanId};

/// Event type of plan phase or state changes.
pub const TASK_STATUS_UPDATE: &str = "TaskStatusUpdateEvent";
/// Event type of artifacts produced.
pub const TASK_ARTIFACT_UPDATE: &str = "TaskArtifactUpdateEvent";

/// Identifies a subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SubscriptionId(u64);

impl SubscriptionId {
    /// The numeric form.
    #[must_use]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// From the numeric form.
    #[must_use]
    pub const fn from_u64(id: u64) -> Self {
        Self(id)
    }
}

impl fmt::Display for SubscriptionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Publishing to a closed queue.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the event queue is closed")]
#[non_exhaustive]
pub struct QueueClosed;

/// Which events a subscription receives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EventFilter {
    /// Only events of these types (all when empty).
    #[serde(default)]
    pub event_types: Vec<String>,
    /// Only events of this plan.
    #[serde(default)]
    pub plan_id: Option<PlanId>,
    /// Only events whose data's `taskId` is this.
    #[serde(default, rename = "task_id")]
    pub task_id: Option<String>,
}

impl EventFilter {
    /// Events of these types only (all when empty).
    #[must_use]
    pub fn event_types(mut self, types: Vec<String>) -> Self {
        self.event_types = types;
        self
    }

    /// Events of this task only (matched against the event data's `taskId`).
    #[must_use]
    pub fn task(mut self, task_id: Option<String>) -> Self {
        self.task_id = task_id;
        self
    }

    /// Events of this plan only.
    #[must_use]
    pub fn plan(mut self, plan_id: Option<PlanId>) -> Self {
        self.plan_id = plan_id;
        self
    }

    /// Whether `event` passes.
    #[must_use]
    pub fn matches(&self, event: &A2aEvent) -> bool {
        (self.event_types.is_empty() || self.event_types.contains(&event.event_type))
            && self.plan_id.is_none_or(|p| event.plan_id == Some(p))
            && self
                .task_id
                .as_deref()
                .is_none_or(|t| event.data.get("taskId").and_then(|v| v.as_str()) == Some(t))
    }
}

type Callback = Arc<dyn Fn(&A2aEvent) + Send + Sync>;

#[derive(Clone)]
enum Sink {
    Callback(Callback),
    Channel {
        filter: EventFilter,
        sender: std::sync::mpsc::SyncSender<A2aEvent>,
    },
    Buffer {
        filter: EventFilter,
        events: Arc<Mutex<VecDeque<A2aEvent>>>,
    },
}

struct State {
    history: VecDeque<A2aEvent>,
    subscribers: Vec<(SubscriptionId, Sink)>,
    closed: bool,
}

struct Inner {
    state: Mutex<State>,
    capacity: usize,
    next_id: AtomicU64,
    callback_panics: AtomicU64,
    buffer_dropped: AtomicU64,
}

/// In-memory pub/sub for plan and session events with a bounded history.
/// A cheap `Clone` handle; clones share the queue.
///
/// ```
/// use std::sync::{Arc, atomic::{AtomicUsize, Ordering}};
/// use cleveragents::{A2aEvent, ManualClock};
/// use cleveragents::a2a::{A2aEventQueue, TASK_STATUS_UPDATE};
/// use serde_json::json;
///
/// let queue = A2aEventQueue::new();
/// let seen = Arc::new(AtomicUsize::new(0));
/// let counter = Arc::clone(&seen);
/// let sub = queue.subscribe_local(move |_event| { counter.fetch_add(1, Ordering::SeqCst); });
/// let clock = ManualClock::default();
/// queue.publish(A2aEvent::new(TASK_STATUS_UPDATE, None, json!({"state": "working"}), &clock)?)?;
/// assert_eq!(seen.load(Ordering::SeqCst), 1);
/// assert_eq!(queue.get_events(50).len(), 1);
/// assert!(queue.unsubscribe(sub));
/// queue.close();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct A2aEventQueue {
    inner: Arc<Inner>,
}

impl fmt::Debug for A2aEventQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.state.lock();
        f.debug_struct("A2aEventQueue")
            .field("history", &state.history.len())
            .field("capacity", &self.inner.capacity)
            .field("subscribers", &state.subscribers.len())
            .field("closed", &state.closed)
            .finish()
    }
}

impl Default for A2aEventQueue {
    fn default() -> Self {
        Self::new()
    }
}

/// Default number of events kept in the history (and in each buffer).
pub const DEFAULT_HISTORY: usize = 1000;

impl A2aEventQueue {
    /// A queue keeping the last [`DEFAULT_HISTORY`] events.
    #[must_use]
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_HISTORY)
    }

    /// A queue keeping the last `capacity` events (at least one).
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    history: VecDeque::with_capacity(capacity.min(1024)),
                    subscribers: Vec::new(),
                    closed: false,
                }),
                capacity,
                next_id: AtomicU64::new(1),
                callback_panics: AtomicU64::new(0),
                buffer_dropped: AtomicU64::new(0),
            }),
        }
    }

    fn next_id(&self) -> SubscriptionId {
        SubscriptionId(self.inner.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Calls `callback` for every event published from now on.
    pub fn subscribe_local(
        &self,
        callback: impl Fn(&A2aEvent) + Send + Sync + 'static,
    ) -> SubscriptionId {
        let id = self.next_id();
        self.inner
            .state
            .lock()
            .subscribers
            .push((id, Sink::Callback(Arc::new(callback))));
        id
    }

    /// Buffers matching events from now on (the oldest dropped past the queue's
    /// capacity) until [`drain`](Self::drain)ed.
    pub fn subscribe_buffered(&self, filter: EventFilter) -> SubscriptionId {
        let id = self.next_id();
        self.inner.state.lock().subscribers.push((
            id,
            Sink::Buffer {
                filter,
                events: Arc::default(),
            },
        ));
        id
    }

    /// A pull subscription: matching events from now on arrive on the
    /// returned receiver (at most `capacity` waiting; more are dropped and
    /// counted). Dropping the receiver unsubscribes.
    #[must_use]
    pub fn subscribe_channel(&self, filter: EventFilter, capacity: usize) -> EventReceiver {
        let (sender, receiver) = std::sync::mpsc::sync_channel(capacity.max(1));
        let id = self.next_id();
        self.inner
            .state
            .lock()
            .subscribers
            .push((id, Sink::Channel { filter, sender }));
        EventReceiver {
            receiver,
            queue: self.clone(),
            id,
        }
    }

    /// Takes the events buffered for a buffered subscription (empty for an
    /// unknown id or a callback subscription).
    #[must_use]
    pub fn drain(&self, id: SubscriptionId) -> Vec<A2aEvent> {
        let buffer =
            self.inner
                .state
                .lock()
                .subscribers
                .iter()
                .find_map(|(sid, sink)| match sink {
                    Sink::Buffer { events, .. } if *sid == id => Some(Arc::clone(events)),
                    _ => None,
                });
        buffer
            .map(|b| b.lock().drain(..).collect())
            .unwrap_or_default()
    }

    /// The ids of the buffered subscriptions.
    #[must_use]
    pub fn buffered_subscriptions(&self) -> Vec<SubscriptionId> {
        self.inner
            .state
            .lock()
            .subscribers
            .iter()
            .filter(|(_, s)| matches!(s, Sink::Buffer { .. }))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Records `event` in the history and delivers it to every subscriber.
    ///
    /// # Errors
    /// [`QueueClosed`] after [`close`](Self::close).
    pub fn publish(&self, event: A2aEvent) -> Result<(), QueueClosed> {
        let sinks: Vec<Sink> = {
            let mut state = self.inner.state.lock();
            if state.closed {
                return Err(QueueClosed);
            }
            if state.history.len() >= self.inner.capacity {
                state.history.pop_front();
            }
            state.history.push_back(event.clone());
            state.subscribers.iter().map(|(_, s)| s.clone()).collect()
        };
        for sink in sinks {
            match sink {
                Sink::Callback(callback) => {
                    if catch_unwind(AssertUnwindSafe(|| callback(&event))).is_err() {
                        self.inner.callback_panics.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Sink::Channel { filter, sender } => {
                    if filter.matches(&event) && sender.try_send(event.clone()).is_err() {
                        // Full or gone: a slow or departed reader never blocks publishers.
                        self.inner.buffer_dropped.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Sink::Buffer { filter, events } => {
                    if filter.matches(&event) {
                        let mut events = events.lock();
                        if events.len() >= self.inner.capacity {
                            events.pop_front();
                            self.inner.buffer_dropped.fetch_add(1, Ordering::Relaxed);
                        }
                        events.push_back(event.clone());
                    }
                }
            }
        }
        Ok(())
    }

    /// The most recent `limit` events, oldest first.
    #[must_use]
    pub fn get_events(&self, limit: usize) -> Vec<A2aEvent> {
        let state = self.inner.state.lock();
        let skip = state.history.len().saturating_sub(limit);
        state.history.iter().skip(skip).cloned().collect()
    }

    /// Events in the history published after `after` (all retained ones when
    /// `after` is `None` or no longer retained) that pass `filter`, oldest first.
    #[must_use]
    pub fn events_after(&self, after: Option<EventId>, filter: &EventFilter) -> Vec<A2aEvent> {
        let state = self.inner.state.lock();
        let start = after
            .and_then(|id| state.history.iter().position(|e| e.event_id == id))
            .map_or(0, |at| at + 1);
        state
            .history
            .iter()
            .skip(start)
            .filter(|e| filter.matches(e))
            .cloned()
            .collect()
    }

    /// Removes a subscription; `false` when it did not exist.
    pub fn unsubscribe(&self, id: SubscriptionId) -> bool {
        let mut state = self.inner.state.lock();
        let before = state.subscribers.len();
        state.subscribers.retain(|(sid, _)| *sid != id);
        state.subscribers.len() != before
    }

    /// Stops the queue: subscribers are dropped and further publishes fail.
    /// The history stays readable.
    pub fn close(&self) {
        let mut state = self.inner.state.lock();
        state.closed = true;
        state.subscribers.clear();
    }

    /// Whether [`close`](Self::close) was called.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.inner.state.lock().closed
    }

    /// How many callbacks panicked (each panic is contained and counted).
    #[must_use]
    pub fn callback_panics(&self) -> u64 {
        self.inner.callback_panics.load(Ordering::Relaxed)
    }

    /// How many buffered events were dropped because a buffer was full.
    #[must_use]
    pub fn buffer_dropped(&self) -> u64 {
        self.inner.buffer_dropped.load(Ordering::Relaxed)
    }
}

/// The receiving end of [`A2aEventQueue::subscribe_channel`]; dropping it
/// unsubscribes.
#[derive(Debug)]
pub struct EventReceiver {
    receiver: std::sync::mpsc::Receiver<A2aEvent>,
    queue: A2aEventQueue,
    id: SubscriptionId,
}

impl EventReceiver {
    /// The next event, waiting at most `timeout`; `None` on timeout or when
    /// the queue closed.
    #[must_use]
    pub fn recv_timeout(&self, timeout: std::time::Duration) -> Option<A2aEvent> {
        self.receiver.recv_timeout(timeout).ok()
    }

    /// The next event if one is waiting.
    #[must_use]
    pub fn try_recv(&self) -> Option<A2aEvent> {
        self.receiver.try_recv().ok()
    }

    /// The subscription's id.
    #[must_use]
    pub fn id(&self) -> SubscriptionId {
        self.id
    }
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        self.queue.unsubscribe(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ManualClock;
    use serde_json::json;

    fn event(kind: &str) -> A2aEvent {
        A2aEvent::new(kind, None, json!({}), &ManualClock::default()).unwrap()
    }

    #[test]
    fn history_is_bounded_and_ordered() {
        let queue = A2aEventQueue::with_capacity(3);
        let events: Vec<A2aEvent> = (0..5).map(|i| event(&format!("e{i}"))).collect();
        for e in &events {
            queue.publish(e.clone()).unwrap();
        }
        let kept: Vec<String> = queue
            .get_events(10)
            .into_iter()
            .map(|e| e.event_type)
            .collect();
        assert_eq!(kept, ["e2", "e3", "e4"]);
        assert_eq!(queue.get_events(1)[0].event_type, "e4");
        let after = queue.events_after(Some(events[3].event_id), &EventFilter::default());
        assert_eq!(after.len(), 1);
    }

    #[test]
    fn callbacks_may_publish_and_panics_are_contained() {
        let queue = A2aEventQueue::new();
        let inner = queue.clone();
        queue.subscribe_local(move |e| {
            if e.event_type == "first" {
                inner.publish(event("second")).unwrap();
            }
        });
        queue.subscribe_local(|_| panic!("subscriber bug"));
        let buffered = queue.subscribe_buffered(EventFilter::default());
        queue.publish(event("first")).unwrap();
        assert_eq!(queue.get_events(10).len(), 2);
        assert_eq!(queue.callback_panics(), 2);
        assert_eq!(queue.drain(buffered).len(), 2);
        assert!(queue.drain(buffered).is_empty());
        queue.close();
        assert_eq!(queue.publish(event("late")), Err(QueueClosed));
    }
}
