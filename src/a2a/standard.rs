//! The standard A2A operations, in the shapes of A2A 0.3 and 1.0.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::agent::{AgentExecutor, PushNotifier, TaskQuery, TaskStore, TaskUpdates};
use super::card::AgentCard;
use super::error::{A2aError, A2aNotAvailableError, ErrorKind};
use super::events::{
    A2aEventQueue, EventFilter, EventReceiver, TASK_ARTIFACT_UPDATE, TASK_STATUS_UPDATE,
};
use super::methods::Method;
use super::models::A2aEvent;
use super::params::Params;
use super::task::{Message, PushNotificationConfig, StreamEvent, Task, TaskState};
use super::v1;
use super::version::A2aVersion;
use crate::clock::{Clock, iso8601};

/// The services behind the standard operations; all optional.
#[derive(Debug, Clone, Default)]
pub(crate) struct StandardServices {
    pub(crate) tasks: Option<Arc<dyn TaskStore>>,
    pub(crate) executor: Option<Arc<dyn AgentExecutor>>,
    pub(crate) push: Option<Arc<dyn PushNotifier>>,
    pub(crate) card: Option<AgentCard>,
    pub(crate) extended_card: Option<AgentCard>,
}

/// Default and largest page sizes of `tasks/list`.
const DEFAULT_PAGE_SIZE: usize = 50;
const MAX_PAGE_SIZE: usize = 100;
/// How many live events a resubscription may have waiting.
const STREAM_BUFFER: usize = 256;

/// What a streaming operation yields: events known now, then (for a
/// resubscription) live events of one task.
#[derive(Debug)]
pub(crate) struct StreamPlan {
    pub(crate) initial: Vec<StreamEvent>,
    pub(crate) live: Option<EventReceiver>,
}

pub(crate) struct Standard<'a> {
    pub(crate) services: &'a StandardServices,
    pub(crate) events: Option<&'a A2aEventQueue>,
    pub(crate) clock: &'a dyn Clock,
    pub(crate) version: A2aVersion,
}

fn missing(method: Method, service: &'static str) -> A2aError {
    A2aNotAvailableError {
        operation: method.name().to_owned(),
        service,
    }
    .into()
}

fn task_not_found(id: &str) -> A2aError {
    A2aError::protocol(
        ErrorKind::NotFound,
        format!("task `{id}` not found"),
        "id",
        id,
    )
}

fn invalid(param: &str, reason: impl Into<String>) -> A2aError {
    A2aError::invalid_param(param, reason)
}

fn history_limit(value: Option<i64>) -> Result<Option<usize>, A2aError> {
    value
        .map(|n| {
            usize::try_from(n)
                .map_err(|_| invalid("historyLength", format!("must not be negative, got {n}")))
        })
        .transpose()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendConfig03 {
    #[serde(default)]
    history_length: Option<i64>,
    #[serde(default)]
    push_notification_config: Option<PushNotificationConfig>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendParams03 {
    message: Message,
    #[serde(default)]
    configuration: Option<SendConfig03>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendConfig10 {
    #[serde(default)]
    history_length: Option<i64>,
    #[serde(default)]
    task_push_notification_config: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendParams10 {
    message: Value,
    #[serde(default)]
    configuration: Option<SendConfig10>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskIdParams {
    id: String,
    #[serde(default)]
    history_length: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListParams {
    #[serde(default)]
    context_id: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    page_size: Option<i64>,
    #[serde(default)]
    page_token: Option<String>,
    #[serde(default)]
    history_length: Option<i64>,
    #[serde(default)]
    status_timestamp_after: Option<String>,
    #[serde(default)]
    include_artifacts: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PushSet03 {
    task_id: String,
    push_notification_config: PushNotificationConfig,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PushRef03 {
    id: String,
    #[serde(default)]
    push_notification_config_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PushRef10 {
    task_id: String,
    #[serde(default)]
    id: Option<String>,
}

impl Standard<'_> {
    fn now(&self) -> String {
        iso8601(self.clock.now())
    }

    fn tasks(&self, method: Method) -> Result<&dyn TaskStore, A2aError> {
        self.services
            .tasks
            .as_deref()
            .ok_or_else(|| missing(method, "task_store"))
    }

    fn load(&self, method: Method, id: &str) -> Result<Task, A2aError> {
        self.tasks(method)?
            .get(id)?
            .ok_or_else(|| task_not_found(id))
    }

    fn task_json(&self, task: &Task) -> Value {
        match self.version {
            A2aVersion::V0_3 => serde_json::to_value(task).unwrap_or(Value::Null),
            A2aVersion::V1_0 => v1::task_to_v1(task),
        }
    }

    fn push_json(&self, task_id: &str, config: &PushNotificationConfig) -> Value {
        match self.version {
            A2aVersion::V0_3 => json!({"taskId": task_id, "pushNotificationConfig": config}),
            A2aVersion::V1_0 => v1::push_config_to_v1(task_id, config),
        }
    }

    /// Runs a non-streaming standard operation; returns its result.
    pub(crate) fn call(&self, method: Method, params: &Params<'_>) -> Result<Value, A2aError> {
        match method {
            Method::MessageSend => {
                let (task, _, history) = self.send(method, params)?;
                let task = self.task_json(&task.with_history_limit(history));
                Ok(match self.version {
                    A2aVersion::V0_3 => task,
                    A2aVersion::V1_0 => json!({ "task": task }),
                })
            }
            Method::TasksGet => {
                let p: TaskIdParams = params.parse()?;
                let history = history_limit(p.history_length)?;
                let task = self.load(method, &p.id)?;
                Ok(self.task_json(&task.with_history_limit(history)))
            }
            Method::TasksList => self.list(params),
            Method::TasksCancel => self.cancel(method, params),
            Method::PushConfigSet => self.push_set(method, params),
            Method::PushConfigGet => self.push_get(method, params),
            Method::PushConfigList => self.push_list(method, params),
            Method::PushConfigDelete => self.push_delete(method, params),
            Method::ExtendedCard => {
                let _: Map<String, Value> = params.parse()?;
                match &self.services.extended_card {
                    Some(card) => Ok(card.to_json(self.version)),
                    None => Err(A2aError::protocol(
                        ErrorKind::ExtendedCardNotConfigured,
                        "no authenticated extended agent card is configured",
                        "method",
                        method.name(),
                    )),
                }
            }
            _ => Err(A2aError::protocol(
                ErrorKind::NotAvailable,
                format!(
                    "`{}` streams its answer; call it through a streaming transport",
                    method.name()
                ),
                "method",
                method.name(),
            )),
        }
    }

    /// Starts a streaming operation.
    pub(crate) fn stream(
        &self,
        method: Method,
        params: &Params<'_>,
    ) -> Result<StreamPlan, A2aError> {
        match method {
            Method::MessageStream => {
                let (_, events, _) = self.send(method, params)?;
                Ok(StreamPlan {
                    initial: events,
                    live: None,
                })
            }
            Method::TasksResubscribe => {
                let p: TaskIdParams = params.parse()?;
                let queue = self.events.ok_or_else(|| missing(method, "event_queue"))?;
                // Subscribe first, then read the task: nothing can slip between.
                let live = queue.subscribe_channel(
                    EventFilter::default().task(Some(p.id.clone())),
                    STREAM_BUFFER,
                );
                let task = self.load(method, &p.id)?;
                if task.status.state.is_terminal() {
                    return Err(A2aError::protocol(
                        ErrorKind::InvalidState,
                        format!(
                            "task `{}` is {} and will not change",
                            task.id, task.status.state
                        ),
                        "id",
                        task.id,
                    ));
                }
                Ok(StreamPlan {
                    initial: vec![StreamEvent::Task(task)],
                    live: Some(live),
                })
            }
            other => Err(A2aError::protocol(
                ErrorKind::NotAvailable,
                format!("`{}` does not stream", other.name()),
                "method",
                other.name(),
            )),
        }
    }

    /// Reads send parameters in this version.
    fn send_params(
        &self,
        params: &Params<'_>,
    ) -> Result<(Message, Option<i64>, Option<PushNotificationConfig>), A2aError> {
        match self.version {
            A2aVersion::V0_3 => {
                let p: SendParams03 = params.parse()?;
                let (history, push) = p.configuration.map_or((None, None), |c| {
                    (c.history_length, c.push_notification_config)
                });
                Ok((p.message, history, push))
            }
            A2aVersion::V1_0 => {
                let p: SendParams10 = params.parse()?;
                let message = v1::message_from_v1(&p.message)
                    .map_err(|e| invalid("message", e.to_string()))?;
                let (history, push) = match p.configuration {
                    Some(c) => {
                        let push = c
                            .task_push_notification_config
                            .as_ref()
                            .map(|v| v1::push_config_from_v1(v).map(|(_, config)| config))
                            .transpose()
                            .map_err(|e| {
                                invalid("configuration.taskPushNotificationConfig", e.to_string())
                            })?;
                        (c.history_length, push)
                    }
                    None => (None, None),
                };
                Ok((message, history, push))
            }
        }
    }

    /// Finds or creates the task a message belongs to.
    fn task_for(&self, method: Method, message: &Message) -> Result<(Task, bool), A2aError> {
        let store = self.tasks(method)?;
        if let Some(task_id) = &message.task_id {
            let task = store.get(task_id)?.ok_or_else(|| task_not_found(task_id))?;
            if task.status.state.is_terminal() {
                return Err(A2aError::protocol(
                    ErrorKind::InvalidState,
                    format!(
                        "task `{task_id}` is {} and accepts no more messages",
                        task.status.state
                    ),
                    "taskId",
                    task_id.as_str(),
                ));
            }
            if message
                .context_id
                .as_ref()
                .is_some_and(|c| *c != task.context_id)
            {
                return Err(invalid(
                    "message.contextId",
                    format!("does not match task `{task_id}`'s context"),
                ));
            }
            return Ok((task, false));
        }
        if let Some(context_id) = &message.context_id {
            // A multi-turn conversation: the context's interrupted task continues.
            if let Some(task) = store.latest_in_context(context_id)? {
                if task.status.state.is_interrupted() {
                    return Ok((task, false));
                }
            }
        }
        let context_id = message
            .context_id
            .clone()
            .unwrap_or_else(|| ulid::Ulid::new().to_string());
        Ok((
            Task::new(ulid::Ulid::new().to_string(), context_id, Some(self.now())),
            true,
        ))
    }

    fn send(
        &self,
        method: Method,
        params: &Params<'_>,
    ) -> Result<(Task, Vec<StreamEvent>, Option<usize>), A2aError> {
        let (mut message, history, push) = self.send_params(params)?;
        let history = history_limit(history)?;
        if message.parts.is_empty() {
            return Err(invalid(
                "message.parts",
                "a message needs at least one part",
            ));
        }
        let executor = self
            .services
            .executor
            .as_deref()
            .ok_or_else(|| missing(method, "agent_executor"))?;
        if push.is_some() && self.services.push.is_none() {
            return Err(push_not_supported());
        }
        let (mut task, created) = self.task_for(method, &message)?;
        message.task_id = Some(task.id.clone());
        message.context_id = Some(task.context_id.clone());
        task.history.push(message.clone());
        let mut events = vec![StreamEvent::Task(task.clone())];
        if created {
            // The store learns of the task before the agent starts on it.
            self.tasks(method)?.save(&task)?;
        }
        if let Some(config) = push {
            self.tasks(method)?.set_push_config(&task.id, config)?;
        }
        let outcome = {
            let mut updates = TaskUpdates::new(&mut task, &mut events, self.now());
            executor.execute(&message, &mut updates)
        };
        if let Err(error) = outcome {
            let mut updates = TaskUpdates::new(&mut task, &mut events, self.now());
            // A task the executor already finished stays as it is.
            let _ = updates.set_status(
                TaskState::Failed,
                Some(Message::agent_text(error.to_string())),
            );
        }
        self.tasks(method)?.save(&task)?;
        self.publish(&events);
        self.notify(&task);
        Ok((task, events, history))
    }

    /// Publishes task events for resubscribers and the vendor event feed.
    fn publish(&self, events: &[StreamEvent]) {
        let Some(queue) = self.events else { return };
        for event in events {
            let event_type = match event {
                StreamEvent::StatusUpdate(_) => TASK_STATUS_UPDATE,
                StreamEvent::ArtifactUpdate(_) => TASK_ARTIFACT_UPDATE,
                _ => continue,
            };
            let data = serde_json::to_value(event).unwrap_or(Value::Null);
            if let Ok(a2a_event) = A2aEvent::new(event_type, None, data, self.clock) {
                let _ = queue.publish(a2a_event);
            }
        }
    }

    /// Sends the task to its push configurations; failures never fail the task.
    fn notify(&self, task: &Task) {
        let (Some(push), Some(store)) = (&self.services.push, &self.services.tasks) else {
            return;
        };
        for config in store.push_configs(&task.id).unwrap_or_default() {
            let _ = push.notify(&config, task);
        }
    }

    fn list(&self, params: &Params<'_>) -> Result<Value, A2aError> {
        let p: ListParams = params.parse()?;
        let state = p
            .status
            .as_deref()
            .map(|s| {
                let parsed = match self.version {
                    A2aVersion::V0_3 => s.parse::<TaskState>().ok(),
                    A2aVersion::V1_0 => TaskState::from_v1(s),
                };
                parsed.ok_or_else(|| invalid("status", format!("unknown task state `{s}`")))
            })
            .transpose()?;
        let page_size = match p.page_size {
            None => DEFAULT_PAGE_SIZE,
            Some(n) => usize::try_from(n)
                .ok()
                .filter(|n| (1..=MAX_PAGE_SIZE).contains(n))
                .ok_or_else(|| {
                    invalid(
                        "pageSize",
                        format!("must be from 1 to {MAX_PAGE_SIZE}, got {n}"),
                    )
                })?,
        };
        let history = history_limit(p.history_length)?;
        let query = TaskQuery {
            context_id: p.context_id,
            state,
            page_size,
            page_token: p.page_token.filter(|t| !t.is_empty()),
            status_timestamp_after: p.status_timestamp_after,
        };
        let page = match &self.services.tasks {
            Some(store) => store.list(&query)?,
            None => super::agent::TaskPage::default(),
        };
        let include_artifacts = p.include_artifacts.unwrap_or(false);
        let tasks: Vec<Value> = page
            .tasks
            .iter()
            .map(|t| {
                let mut t = t.with_history_limit(history);
                if !include_artifacts {
                    t.artifacts.clear();
                }
                self.task_json(&t)
            })
            .collect();
        Ok(json!({
            "tasks": tasks,
            "nextPageToken": page.next_page_token,
            "pageSize": page_size,
            "totalSize": page.total_size,
        }))
    }

    fn cancel(&self, method: Method, params: &Params<'_>) -> Result<Value, A2aError> {
        let p: TaskIdParams = params.parse()?;
        let mut task = self.load(method, &p.id)?;
        if task.status.state.is_terminal() {
            return Err(A2aError::protocol(
                ErrorKind::NotCancelable,
                format!(
                    "task `{}` is {} and cannot be canceled",
                    task.id, task.status.state
                ),
                "id",
                task.id,
            ));
        }
        let mut events = Vec::new();
        {
            let mut updates = TaskUpdates::new(&mut task, &mut events, self.now());
            updates.set_status(TaskState::Canceled, None).map_err(|e| {
                A2aError::protocol(ErrorKind::NotCancelable, e.to_string(), "id", p.id.as_str())
            })?;
        }
        self.tasks(method)?.save(&task)?;
        self.publish(&events);
        self.notify(&task);
        Ok(self.task_json(&task))
    }

    fn push_store(&self, method: Method) -> Result<&dyn TaskStore, A2aError> {
        if self.services.push.is_none() {
            return Err(push_not_supported());
        }
        self.tasks(method)
    }

    fn push_set(&self, method: Method, params: &Params<'_>) -> Result<Value, A2aError> {
        let store = self.push_store(method)?;
        let (task_id, config) = match self.version {
            A2aVersion::V0_3 => {
                let p: PushSet03 = params.parse()?;
                (p.task_id, p.push_notification_config)
            }
            A2aVersion::V1_0 => {
                let value: Value = params.parse()?;
                v1::push_config_from_v1(&value).map_err(|e| invalid("params", e.to_string()))?
            }
        };
        if config.url.trim().is_empty() {
            return Err(invalid("url", "must not be blank"));
        }
        store
            .get(&task_id)?
            .ok_or_else(|| task_not_found(&task_id))?;
        let stored = store.set_push_config(&task_id, config)?;
        Ok(self.push_json(&task_id, &stored))
    }

    fn push_ref(&self, params: &Params<'_>) -> Result<(String, Option<String>), A2aError> {
        Ok(match self.version {
            A2aVersion::V0_3 => {
                let p: PushRef03 = params.parse()?;
                (p.id, p.push_notification_config_id)
            }
            A2aVersion::V1_0 => {
                let p: PushRef10 = params.parse()?;
                (p.task_id, p.id)
            }
        })
    }

    fn push_get(&self, method: Method, params: &Params<'_>) -> Result<Value, A2aError> {
        let store = self.push_store(method)?;
        let (task_id, config_id) = self.push_ref(params)?;
        store
            .get(&task_id)?
            .ok_or_else(|| task_not_found(&task_id))?;
        let configs = store.push_configs(&task_id)?;
        let found = match &config_id {
            Some(id) => configs
                .iter()
                .find(|c| c.id.as_deref() == Some(id.as_str())),
            None => configs.first(),
        };
        let config = found.ok_or_else(|| {
            A2aError::protocol(
                ErrorKind::NotFound,
                format!("task `{task_id}` has no such push notification config"),
                "pushNotificationConfigId",
                config_id.clone().map_or(Value::Null, Value::String),
            )
        })?;
        Ok(self.push_json(&task_id, config))
    }

    fn push_list(&self, method: Method, params: &Params<'_>) -> Result<Value, A2aError> {
        let store = self.push_store(method)?;
        let (task_id, _) = self.push_ref(params)?;
        store
            .get(&task_id)?
            .ok_or_else(|| task_not_found(&task_id))?;
        let configs: Vec<Value> = store
            .push_configs(&task_id)?
            .iter()
            .map(|c| self.push_json(&task_id, c))
            .collect();
        Ok(match self.version {
            A2aVersion::V0_3 => Value::Array(configs),
            A2aVersion::V1_0 => json!({"configs": configs, "nextPageToken": ""}),
        })
    }

    fn push_delete(&self, method: Method, params: &Params<'_>) -> Result<Value, A2aError> {
        let store = self.push_store(method)?;
        let (task_id, config_id) = self.push_ref(params)?;
        let config_id = config_id.ok_or_else(|| invalid("pushNotificationConfigId", "missing"))?;
        store
            .get(&task_id)?
            .ok_or_else(|| task_not_found(&task_id))?;
        if !store.delete_push_config(&task_id, &config_id)? {
            return Err(A2aError::protocol(
                ErrorKind::NotFound,
                format!("task `{task_id}` has no push notification config `{config_id}`"),
                "pushNotificationConfigId",
                config_id,
            ));
        }
        Ok(match self.version {
            A2aVersion::V0_3 => Value::Null,
            A2aVersion::V1_0 => json!({}),
        })
    }
}

fn push_not_supported() -> A2aError {
    A2aError::protocol(
        ErrorKind::PushNotSupported,
        "push notifications are not supported: no push notifier is configured",
        "service",
        "push_notifier",
    )
}
