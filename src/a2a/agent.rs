//! The ports behind the standard A2A operations: where tasks are stored,
//! what the host's agent does with a message, and how push notifications
//! are delivered. Each ships an in-memory implementation.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::task::{
    Artifact, ArtifactUpdateKind, Message, Part, PushNotificationConfig, StatusUpdateKind,
    StreamEvent, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use crate::service_error::{ServiceError, ServiceResult};

/// Which tasks to list, and which page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskQuery {
    /// Only this conversation.
    pub context_id: Option<String>,
    /// Only this state.
    pub state: Option<TaskState>,
    /// At most this many (1–100).
    pub page_size: usize,
    /// Continue after this token (from a previous page).
    pub page_token: Option<String>,
    /// Only tasks whose status timestamp is at or after this ISO-8601 time.
    pub status_timestamp_after: Option<String>,
}

impl TaskQuery {
    /// A query for the first `page_size` tasks, unfiltered.
    #[must_use]
    pub fn new(page_size: usize) -> Self {
        Self {
            page_size,
            ..Self::default()
        }
    }
}

/// One page of tasks, newest first.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct TaskPage {
    /// The tasks.
    pub tasks: Vec<Task>,
    /// The token for the next page; empty when this is the last.
    pub next_page_token: String,
    /// How many tasks match in all.
    pub total_size: usize,
}

/// Storage of tasks and their push configurations. Implemented by hosts;
/// `&self`, safe under concurrency.
pub trait TaskStore: Send + Sync + Debug + 'static {
    /// A task by id.
    ///
    /// # Errors
    /// From the host.
    fn get(&self, id: &str) -> ServiceResult<Option<Task>>;
    /// Inserts or replaces a task.
    ///
    /// # Errors
    /// From the host.
    fn save(&self, task: &Task) -> ServiceResult<()>;
    /// A page of tasks matching `query`, newest first.
    ///
    /// # Errors
    /// `Invalid` (field `pageToken`) for a token this store did not issue.
    fn list(&self, query: &TaskQuery) -> ServiceResult<TaskPage>;
    /// The newest task of a conversation.
    ///
    /// # Errors
    /// From the host.
    fn latest_in_context(&self, context_id: &str) -> ServiceResult<Option<Task>>;
    /// Stores a push configuration for a task (replacing one with the same
    /// id); assigns an id when it has none. Returns what was stored.
    ///
    /// # Errors
    /// From the host.
    fn set_push_config(
        &self,
        task_id: &str,
        config: PushNotificationConfig,
    ) -> ServiceResult<PushNotificationConfig>;
    /// A task's push configurations.
    ///
    /// # Errors
    /// From the host.
    fn push_configs(&self, task_id: &str) -> ServiceResult<Vec<PushNotificationConfig>>;
    /// Removes one; `false` when there was none.
    ///
    /// # Errors
    /// From the host.
    fn delete_push_config(&self, task_id: &str, config_id: &str) -> ServiceResult<bool>;
}

#[derive(Debug, Default)]
struct Stored {
    /// Creation order: sequence number → task id.
    order: BTreeMap<u64, String>,
    /// Task id → (sequence number, task).
    tasks: HashMap<String, (u64, Task)>,
    next: u64,
    push: HashMap<String, Vec<PushNotificationConfig>>,
}

/// The in-memory [`TaskStore`]: a cheap `Clone` handle; clones share state.
/// Lists newest first by creation; a page token is the id of the last task
/// of the previous page.
#[derive(Debug, Clone, Default)]
pub struct InMemoryTaskStore {
    inner: Arc<RwLock<Stored>>,
}

impl InMemoryTaskStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl TaskStore for InMemoryTaskStore {
    fn get(&self, id: &str) -> ServiceResult<Option<Task>> {
        Ok(self.inner.read().tasks.get(id).map(|(_, t)| t.clone()))
    }

    fn save(&self, task: &Task) -> ServiceResult<()> {
        let mut stored = self.inner.write();
        let stored = &mut *stored;
        match stored.tasks.get_mut(&task.id) {
            Some((_, existing)) => *existing = task.clone(),
            None => {
                let seq = stored.next;
                stored.next += 1;
                stored.order.insert(seq, task.id.clone());
                stored.tasks.insert(task.id.clone(), (seq, task.clone()));
            }
        }
        Ok(())
    }

    fn list(&self, query: &TaskQuery) -> ServiceResult<TaskPage> {
        let stored = self.inner.read();
        let before = match &query.page_token {
            Some(token) => match stored.tasks.get(token) {
                Some((seq, _)) => *seq,
                None => {
                    return Err(ServiceError::invalid(
                        "pageToken",
                        format!("`{token}` is not a page token of this list"),
                    ));
                }
            },
            None => u64::MAX,
        };
        let matches = |t: &&Task| {
            query.context_id.as_ref().is_none_or(|c| *c == t.context_id)
                && query.state.is_none_or(|s| s == t.status.state)
                && query.status_timestamp_after.as_ref().is_none_or(|after| {
                    t.status
                        .timestamp
                        .as_ref()
                        .is_some_and(|ts| timestamp_at_or_after(ts, after))
                })
        };
        let in_order = || {
            stored
                .order
                .values()
                .rev()
                .filter_map(|id| stored.tasks.get(id))
        };
        let total_size = in_order().map(|(_, t)| t).filter(matches).count();
        let size = query.page_size.clamp(1, 100);
        let mut page: Vec<Task> = in_order()
            .filter(|(seq, _)| *seq < before)
            .map(|(_, t)| t)
            .filter(matches)
            .take(size + 1)
            .cloned()
            .collect();
        let next_page_token = if page.len() > size {
            page.truncate(size);
            page.last().map(|t| t.id.clone()).unwrap_or_default()
        } else {
            String::new()
        };
        Ok(TaskPage {
            tasks: page,
            next_page_token,
            total_size,
        })
    }

    fn latest_in_context(&self, context_id: &str) -> ServiceResult<Option<Task>> {
        let stored = self.inner.read();
        Ok(stored
            .order
            .values()
            .rev()
            .filter_map(|id| stored.tasks.get(id))
            .map(|(_, t)| t)
            .find(|t| t.context_id == context_id)
            .cloned())
    }

    fn set_push_config(
        &self,
        task_id: &str,
        mut config: PushNotificationConfig,
    ) -> ServiceResult<PushNotificationConfig> {
        let id = config
            .id
            .get_or_insert_with(|| ulid::Ulid::new().to_string())
            .clone();
        let mut stored = self.inner.write();
        let configs = stored.push.entry(task_id.to_owned()).or_default();
        configs.retain(|c| c.id.as_deref() != Some(id.as_str()));
        configs.push(config.clone());
        Ok(config)
    }

    fn push_configs(&self, task_id: &str) -> ServiceResult<Vec<PushNotificationConfig>> {
        Ok(self
            .inner
            .read()
            .push
            .get(task_id)
            .cloned()
            .unwrap_or_default())
    }

    fn delete_push_config(&self, task_id: &str, config_id: &str) -> ServiceResult<bool> {
        let mut stored = self.inner.write();
        let Some(configs) = stored.push.get_mut(task_id) else {
            return Ok(false);
        };
        let before = configs.len();
        configs.retain(|c| c.id.as_deref() != Some(config_id));
        Ok(configs.len() != before)
    }
}

fn timestamp_at_or_after(ts: &str, after: &str) -> bool {
    match (
        chrono::DateTime::parse_from_rfc3339(ts),
        chrono::DateTime::parse_from_rfc3339(after),
    ) {
        (Ok(ts), Ok(after)) => ts >= after,
        _ => false,
    }
}

/// A task state change the executor asked for that the state machine refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task `{task_id}` cannot move from `{from}` to `{to}`")]
#[non_exhaustive]
pub struct TransitionError {
    /// The task.
    pub task_id: String,
    /// Its state.
    pub from: TaskState,
    /// The refused state.
    pub to: TaskState,
}

/// What an executor may do to the task it is working on. Every change is
/// applied to the task and recorded as a stream event.
#[derive(Debug)]
pub struct TaskUpdates<'a> {
    task: &'a mut Task,
    events: &'a mut Vec<StreamEvent>,
    timestamp: String,
}

impl<'a> TaskUpdates<'a> {
    pub(crate) fn new(
        task: &'a mut Task,
        events: &'a mut Vec<StreamEvent>,
        timestamp: String,
    ) -> Self {
        Self {
            task,
            events,
            timestamp,
        }
    }

    /// The task as it stands.
    #[must_use]
    pub fn task(&self) -> &Task {
        self.task
    }

    /// Moves the task to `state`, with an optional agent message.
    ///
    /// # Errors
    /// [`TransitionError`] when the state machine forbids it.
    pub fn set_status(
        &mut self,
        state: TaskState,
        message: Option<Message>,
    ) -> Result<(), TransitionError> {
        let from = self.task.status.state;
        if !from.can_transition_to(state) {
            return Err(TransitionError {
                task_id: self.task.id.clone(),
                from,
                to: state,
            });
        }
        let message = message.map(|mut m| {
            m.task_id = Some(self.task.id.clone());
            m.context_id = Some(self.task.context_id.clone());
            m
        });
        if let Some(m) = &message {
            self.task.history.push(m.clone());
        }
        self.task.status = TaskStatus {
            state,
            message: message.map(Box::new),
            timestamp: Some(self.timestamp.clone()),
        };
        self.events
            .push(StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
                kind: StatusUpdateKind,
                task_id: self.task.id.clone(),
                context_id: self.task.context_id.clone(),
                status: self.task.status.clone(),
                is_final: state.is_terminal() || state.is_interrupted(),
                metadata: None,
            }));
        Ok(())
    }

    /// Adds an artifact (or, with `append`, extends the one with its id).
    pub fn add_artifact(&mut self, artifact: Artifact, append: bool, last_chunk: bool) {
        match self
            .task
            .artifacts
            .iter_mut()
            .find(|a| append && a.artifact_id == artifact.artifact_id)
        {
            Some(existing) => existing.parts.extend(artifact.parts.iter().cloned()),
            None => self.task.artifacts.push(artifact.clone()),
        }
        self.events
            .push(StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
                kind: ArtifactUpdateKind,
                task_id: self.task.id.clone(),
                context_id: self.task.context_id.clone(),
                artifact,
                append,
                last_chunk,
                metadata: None,
            }));
    }
}

/// What the host's agent does with a message. Implemented by hosts; `&self`,
/// safe under concurrency. It runs synchronously: when it returns, the task
/// should be terminal or interrupted (`input-required`, `auth-required`); a
/// task left `working` is reported as such.
pub trait AgentExecutor: Send + Sync + Debug + 'static {
    /// Handles `message`, already appended to the task's history.
    ///
    /// # Errors
    /// Any error fails the task (state `failed`, the error as its message).
    fn execute(&self, message: &Message, updates: &mut TaskUpdates<'_>) -> ServiceResult<()>;
}

/// An executor that echoes the text it receives, as an artifact and a reply.
/// With [`requiring_approval`](Self::requiring_approval), a new task first
/// stops in `input-required` and completes on the next message of its
/// conversation (a multi-turn interaction).
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoExecutor {
    approval: bool,
}

impl EchoExecutor {
    /// Echo and complete.
    #[must_use]
    pub const fn new() -> Self {
        Self { approval: false }
    }

    /// Ask for approval before completing.
    #[must_use]
    pub const fn requiring_approval() -> Self {
        Self { approval: true }
    }
}

fn invalid_state(e: TransitionError) -> ServiceError {
    ServiceError::InvalidState {
        entity: "task",
        key: "id",
        id: e.task_id.clone(),
        action: "update",
        reason: e.to_string(),
    }
}

impl AgentExecutor for EchoExecutor {
    fn execute(&self, message: &Message, updates: &mut TaskUpdates<'_>) -> ServiceResult<()> {
        let resumed = updates.task().status.state == TaskState::InputRequired;
        updates
            .set_status(TaskState::Working, None)
            .map_err(invalid_state)?;
        if self.approval && !resumed {
            let ask = Message::agent_text("Approval required: reply to proceed.");
            return updates
                .set_status(TaskState::InputRequired, Some(ask))
                .map_err(invalid_state);
        }
        let text = message.text();
        updates.add_artifact(
            Artifact::new("echo", vec![Part::text(text.clone())]),
            false,
            true,
        );
        let reply = Message::agent_text(format!("echo: {text}"));
        updates
            .set_status(TaskState::Completed, Some(reply))
            .map_err(invalid_state)
    }
}

/// Delivers push notifications (the HTTP call is the host's). Implemented
/// by hosts; `&self`, safe under concurrency. Called outside every lock.
pub trait PushNotifier: Send + Sync + Debug + 'static {
    /// Sends `task` (its current state) to the configured webhook.
    ///
    /// # Errors
    /// From the host; failures are counted, never fail the task.
    fn notify(&self, config: &PushNotificationConfig, task: &Task) -> ServiceResult<()>;
}

/// A [`PushNotifier`] that records what it would send.
#[derive(Debug, Clone, Default)]
pub struct RecordingPushNotifier {
    sent: Arc<Mutex<Vec<(PushNotificationConfig, Task)>>>,
}

impl RecordingPushNotifier {
    /// Nothing sent yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Everything sent, in order.
    #[must_use]
    pub fn sent(&self) -> Vec<(PushNotificationConfig, Task)> {
        self.sent.lock().clone()
    }
}

impl PushNotifier for RecordingPushNotifier {
    fn notify(&self, config: &PushNotificationConfig, task: &Task) -> ServiceResult<()> {
        self.sent.lock().push((config.clone(), task.clone()));
        Ok(())
    }
}
