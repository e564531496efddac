//! A2A 1.0 (protojson) forms of the task model, converted losslessly to and
//! from the 0.3-shaped types ([`Task`], [`Message`], …) where both versions can
//! say the same thing.
//!
//! Differences and how they are bridged:
//! - parts: 1.0 puts `text`/`raw`/`url`/`data` side by side with `filename`
//!   and `mediaType`; 0.3 nests files under `file`. A 1.0 text part's
//!   `filename`/`mediaType` have no 0.3 home and are dropped.
//! - 1.0 data parts may hold any JSON value, 0.3 only objects: a non-object
//!   value is carried as `{"value": …}`.
//! - 1.0 status updates have no `final`; it is derived from the state
//!   (terminal or interrupted) when reading 1.0.
//! - push authentication: 1.0 has one `scheme`, 0.3 a list `schemes` (the
//!   first is used when writing 1.0).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::task::{
    Artifact, ArtifactUpdateKind, FileContent, Message, MessageKind, Part, PushAuthentication,
    PushNotificationConfig, Role, StatusUpdateKind, StreamEvent, Task, TaskArtifactUpdateEvent,
    TaskKind, TaskState, TaskStatus, TaskStatusUpdateEvent,
};

/// A 1.0 document that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid A2A 1.0 {what}: {reason}")]
#[non_exhaustive]
pub struct V1Error {
    /// What was being read, e.g. `part`.
    pub what: &'static str,
    /// What is wrong.
    pub reason: String,
}

fn err(what: &'static str, reason: impl Into<String>) -> V1Error {
    V1Error {
        what,
        reason: reason.into(),
    }
}

fn parse<T: DeserializeOwned>(what: &'static str, value: &Value) -> Result<T, V1Error> {
    serde_path_to_error::deserialize(value)
        .map_err(|e| err(what, format!("at `{}`: {}", e.path(), e.inner())))
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartV1 {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    raw: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    filename: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    media_type: Option<String>,
}

impl From<&Part> for PartV1 {
    fn from(part: &Part) -> Self {
        match part {
            Part::Text { text, metadata } => Self {
                text: Some(text.clone()),
                metadata: metadata.clone(),
                ..Self::default()
            },
            Part::File { file, metadata } => match file {
                FileContent::Bytes {
                    bytes,
                    mime_type,
                    name,
                } => Self {
                    raw: Some(bytes.clone()),
                    filename: name.clone(),
                    media_type: mime_type.clone(),
                    metadata: metadata.clone(),
                    ..Self::default()
                },
                FileContent::Uri {
                    uri,
                    mime_type,
                    name,
                } => Self {
                    url: Some(uri.clone()),
                    filename: name.clone(),
                    media_type: mime_type.clone(),
                    metadata: metadata.clone(),
                    ..Self::default()
                },
            },
            Part::Data { data, metadata } => Self {
                data: Some(Value::Object(data.clone())),
                metadata: metadata.clone(),
                ..Self::default()
            },
        }
    }
}

impl TryFrom<PartV1> for Part {
    type Error = V1Error;
    fn try_from(p: PartV1) -> Result<Self, V1Error> {
        let set = [
            p.text.is_some(),
            p.raw.is_some(),
            p.url.is_some(),
            p.data.is_some(),
        ]
        .into_iter()
        .filter(|b| *b)
        .count();
        if set != 1 {
            return Err(err(
                "part",
                format!("exactly one of `text`, `raw`, `url`, `data` must be set, found {set}"),
            ));
        }
        let metadata = p.metadata;
        Ok(match (p.text, p.raw, p.url, p.data) {
            (Some(text), ..) => Part::Text { text, metadata },
            (_, Some(bytes), ..) => Part::File {
                file: FileContent::Bytes {
                    bytes,
                    mime_type: p.media_type,
                    name: p.filename,
                },
                metadata,
            },
            (_, _, Some(uri), _) => Part::File {
                file: FileContent::Uri {
                    uri,
                    mime_type: p.media_type,
                    name: p.filename,
                },
                metadata,
            },
            (_, _, _, Some(data)) => Part::Data {
                data: match data {
                    Value::Object(map) => map,
                    other => {
                        let mut wrapped = Map::new();
                        wrapped.insert("value".to_owned(), other);
                        wrapped
                    }
                },
                metadata,
            },
            _ => return Err(err("part", "no content")),
        })
    }
}

fn role_v1(role: Role) -> &'static str {
    match role {
        Role::User => "ROLE_USER",
        Role::Agent => "ROLE_AGENT",
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageV1 {
    message_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task_id: Option<String>,
    role: String,
    parts: Vec<PartV1>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    extensions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reference_task_ids: Vec<String>,
}

impl From<&Message> for MessageV1 {
    fn from(m: &Message) -> Self {
        Self {
            message_id: m.message_id.clone(),
            context_id: m.context_id.clone(),
            task_id: m.task_id.clone(),
            role: role_v1(m.role).to_owned(),
            parts: m.parts.iter().map(PartV1::from).collect(),
            metadata: m.metadata.clone(),
            extensions: m.extensions.clone(),
            reference_task_ids: m.reference_task_ids.clone(),
        }
    }
}

impl TryFrom<MessageV1> for Message {
    type Error = V1Error;
    fn try_from(m: MessageV1) -> Result<Self, V1Error> {
        let role = match m.role.as_str() {
            "ROLE_USER" => Role::User,
            "ROLE_AGENT" => Role::Agent,
            other => {
                return Err(err(
                    "message",
                    format!("`role` must be ROLE_USER or ROLE_AGENT, got `{other}`"),
                ));
            }
        };
        Ok(Message {
            kind: MessageKind,
            message_id: m.message_id,
            role,
            parts: m
                .parts
                .into_iter()
                .map(Part::try_from)
                .collect::<Result<_, _>>()?,
            context_id: m.context_id,
            task_id: m.task_id,
            reference_task_ids: m.reference_task_ids,
            extensions: m.extensions,
            metadata: m.metadata,
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct StatusV1 {
    state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<MessageV1>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timestamp: Option<String>,
}

impl From<&TaskStatus> for StatusV1 {
    fn from(s: &TaskStatus) -> Self {
        Self {
            state: s.state.as_v1().to_owned(),
            message: s.message.as_deref().map(MessageV1::from),
            timestamp: s.timestamp.clone(),
        }
    }
}

impl TryFrom<StatusV1> for TaskStatus {
    type Error = V1Error;
    fn try_from(s: StatusV1) -> Result<Self, V1Error> {
        let state = TaskState::from_v1(&s.state)
            .ok_or_else(|| err("task status", format!("unknown state `{}`", s.state)))?;
        Ok(TaskStatus {
            state,
            message: s.message.map(Message::try_from).transpose()?.map(Box::new),
            timestamp: s.timestamp,
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactV1 {
    artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    parts: Vec<PartV1>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    extensions: Vec<String>,
}

impl From<&Artifact> for ArtifactV1 {
    fn from(a: &Artifact) -> Self {
        Self {
            artifact_id: a.artifact_id.clone(),
            name: a.name.clone(),
            description: a.description.clone(),
            parts: a.parts.iter().map(PartV1::from).collect(),
            metadata: a.metadata.clone(),
            extensions: a.extensions.clone(),
        }
    }
}

impl TryFrom<ArtifactV1> for Artifact {
    type Error = V1Error;
    fn try_from(a: ArtifactV1) -> Result<Self, V1Error> {
        Ok(Artifact {
            artifact_id: a.artifact_id,
            parts: a
                .parts
                .into_iter()
                .map(Part::try_from)
                .collect::<Result<_, _>>()?,
            name: a.name,
            description: a.description,
            extensions: a.extensions,
            metadata: a.metadata,
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskV1 {
    id: String,
    #[serde(default)]
    context_id: String,
    status: StatusV1,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    artifacts: Vec<ArtifactV1>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    history: Vec<MessageV1>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<Map<String, Value>>,
}

impl From<&Task> for TaskV1 {
    fn from(t: &Task) -> Self {
        Self {
            id: t.id.clone(),
            context_id: t.context_id.clone(),
            status: StatusV1::from(&t.status),
            artifacts: t.artifacts.iter().map(ArtifactV1::from).collect(),
            history: t.history.iter().map(MessageV1::from).collect(),
            metadata: t.metadata.clone(),
        }
    }
}

impl TryFrom<TaskV1> for Task {
    type Error = V1Error;
    fn try_from(t: TaskV1) -> Result<Self, V1Error> {
        Ok(Task {
            kind: TaskKind,
            id: t.id,
            context_id: t.context_id,
            status: TaskStatus::try_from(t.status)?,
            artifacts: t
                .artifacts
                .into_iter()
                .map(Artifact::try_from)
                .collect::<Result<_, _>>()?,
            history: t
                .history
                .into_iter()
                .map(Message::try_from)
                .collect::<Result<_, _>>()?,
            metadata: t.metadata,
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusUpdateV1 {
    task_id: String,
    context_id: String,
    status: StatusV1,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<Map<String, Value>>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactUpdateV1 {
    task_id: String,
    context_id: String,
    artifact: ArtifactV1,
    #[serde(default)]
    append: bool,
    #[serde(default)]
    last_chunk: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<Map<String, Value>>,
}

/// A task in 1.0 form.
#[must_use]
pub fn task_to_v1(task: &Task) -> Value {
    to_value(&TaskV1::from(task))
}

/// Reads a 1.0 task.
///
/// # Errors
/// [`V1Error`] naming the field at fault.
pub fn task_from_v1(value: &Value) -> Result<Task, V1Error> {
    Task::try_from(parse::<TaskV1>("task", value)?)
}

/// A message in 1.0 form.
#[must_use]
pub fn message_to_v1(message: &Message) -> Value {
    to_value(&MessageV1::from(message))
}

/// Reads a 1.0 message.
///
/// # Errors
/// [`V1Error`] naming the field at fault.
pub fn message_from_v1(value: &Value) -> Result<Message, V1Error> {
    Message::try_from(parse::<MessageV1>("message", value)?)
}

/// A stream event in 1.0 form: the `StreamResponse` oneof
/// (`{"task": …}`, `{"message": …}`, `{"statusUpdate": …}`, `{"artifactUpdate": …}`).
#[must_use]
pub fn stream_event_to_v1(event: &StreamEvent) -> Value {
    let (key, value) = match event {
        StreamEvent::Task(t) => ("task", task_to_v1(t)),
        StreamEvent::Message(m) => ("message", message_to_v1(m)),
        StreamEvent::StatusUpdate(e) => (
            "statusUpdate",
            to_value(&StatusUpdateV1 {
                task_id: e.task_id.clone(),
                context_id: e.context_id.clone(),
                status: StatusV1::from(&e.status),
                metadata: e.metadata.clone(),
            }),
        ),
        StreamEvent::ArtifactUpdate(e) => (
            "artifactUpdate",
            to_value(&ArtifactUpdateV1 {
                task_id: e.task_id.clone(),
                context_id: e.context_id.clone(),
                artifact: ArtifactV1::from(&e.artifact),
                append: e.append,
                last_chunk: e.last_chunk,
                metadata: e.metadata.clone(),
            }),
        ),
    };
    let mut map = Map::new();
    map.insert(key.to_owned(), value);
    Value::Object(map)
}

/// Reads a 1.0 `StreamResponse`.
///
/// # Errors
/// [`V1Error`] when it is not exactly one known payload.
pub fn stream_event_from_v1(value: &Value) -> Result<StreamEvent, V1Error> {
    let Some(map) = value.as_object().filter(|m| m.len() == 1) else {
        return Err(err(
            "stream response",
            "must hold exactly one of task, message, statusUpdate, artifactUpdate",
        ));
    };
    let Some((key, inner)) = map.iter().next() else {
        return Err(err("stream response", "empty"));
    };
    match key.as_str() {
        "task" => task_from_v1(inner).map(StreamEvent::Task),
        "message" => message_from_v1(inner).map(StreamEvent::Message),
        "statusUpdate" => {
            let e: StatusUpdateV1 = parse("status update", inner)?;
            let status = TaskStatus::try_from(e.status)?;
            let is_final = status.state.is_terminal() || status.state.is_interrupted();
            Ok(StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
                kind: StatusUpdateKind,
                task_id: e.task_id,
                context_id: e.context_id,
                status,
                is_final,
                metadata: e.metadata,
            }))
        }
        "artifactUpdate" => {
            let e: ArtifactUpdateV1 = parse("artifact update", inner)?;
            Ok(StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
                kind: ArtifactUpdateKind,
                task_id: e.task_id,
                context_id: e.context_id,
                artifact: Artifact::try_from(e.artifact)?,
                append: e.append,
                last_chunk: e.last_chunk,
                metadata: e.metadata,
            }))
        }
        other => Err(err("stream response", format!("unknown payload `{other}`"))),
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthenticationV1 {
    scheme: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credentials: Option<String>,
}

/// A push configuration in 1.0 form (`TaskPushNotificationConfig`, flat).
#[must_use]
pub fn push_config_to_v1(task_id: &str, config: &PushNotificationConfig) -> Value {
    let mut map = Map::new();
    if let Some(id) = &config.id {
        map.insert("id".into(), Value::String(id.clone()));
    }
    map.insert("taskId".into(), Value::String(task_id.to_owned()));
    map.insert("url".into(), Value::String(config.url.clone()));
    if let Some(token) = &config.token {
        map.insert("token".into(), Value::String(token.clone()));
    }
    if let Some(auth) = &config.authentication {
        let v1 = AuthenticationV1 {
            scheme: auth.schemes.first().cloned().unwrap_or_default(),
            credentials: auth.credentials.clone(),
        };
        map.insert("authentication".into(), to_value(&v1));
    }
    Value::Object(map)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PushConfigV1 {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    task_id: String,
    url: String,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    authentication: Option<AuthenticationV1>,
    #[serde(default)]
    #[allow(dead_code, reason = "accepted and ignored: one tenant per endpoint")]
    tenant: Option<String>,
}

/// Reads a 1.0 push configuration: the task id and the configuration.
///
/// # Errors
/// [`V1Error`] naming the field at fault.
pub fn push_config_from_v1(value: &Value) -> Result<(String, PushNotificationConfig), V1Error> {
    let c: PushConfigV1 = parse("push notification config", value)?;
    let empty = |s: Option<String>| s.filter(|v| !v.is_empty());
    Ok((
        c.task_id,
        PushNotificationConfig {
            id: empty(c.id),
            url: c.url,
            token: empty(c.token),
            authentication: c.authentication.map(|a| PushAuthentication {
                schemes: vec![a.scheme],
                credentials: a.credentials,
            }),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Task {
        let mut task = Task::new("t1", "c1", Some("2025-01-01T00:00:00.000Z".into()));
        task.status.state = TaskState::InputRequired;
        task.status.message = Some(Box::new(Message::agent_text("approve?")));
        task.history.push(Message::user_text("hello"));
        let mut data = Map::new();
        data.insert("k".into(), json!(1));
        task.artifacts.push(Artifact::new(
            "out",
            vec![
                Part::text("echo"),
                Part::Data {
                    data,
                    metadata: None,
                },
                Part::File {
                    file: FileContent::Uri {
                        uri: "https://example.com/a.png".into(),
                        mime_type: Some("image/png".into()),
                        name: Some("a.png".into()),
                    },
                    metadata: None,
                },
            ],
        ));
        task
    }

    #[test]
    fn tasks_round_trip_through_1_0() {
        let task = sample();
        let v1 = task_to_v1(&task);
        assert_eq!(v1["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        assert_eq!(v1["history"][0]["role"], "ROLE_USER");
        assert!(v1.get("kind").is_none());
        assert_eq!(
            v1["artifacts"][0]["parts"][2],
            json!({"url": "https://example.com/a.png", "filename": "a.png", "mediaType": "image/png"})
        );
        assert_eq!(task_from_v1(&v1).unwrap(), task);
    }

    #[test]
    fn stream_events_round_trip_and_final_is_derived() {
        let task = sample();
        let update = StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            kind: StatusUpdateKind,
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: TaskStatus::new(TaskState::Completed, None),
            is_final: true,
            metadata: None,
        });
        for event in [StreamEvent::Task(task), update] {
            assert_eq!(
                stream_event_from_v1(&stream_event_to_v1(&event)).unwrap(),
                event
            );
        }
        assert!(stream_event_from_v1(&json!({"task": {}, "message": {}})).is_err());
    }

    #[test]
    fn bad_parts_are_refused() {
        let two =
            json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a", "url": "b"}]});
        assert!(
            message_from_v1(&two)
                .unwrap_err()
                .to_string()
                .contains("exactly one of")
        );
        let role = json!({"messageId": "m", "role": "user", "parts": []});
        assert!(
            message_from_v1(&role)
                .unwrap_err()
                .to_string()
                .contains("ROLE_USER")
        );
        let scalar = json!({"messageId": "m", "role": "ROLE_AGENT", "parts": [{"data": [1, 2]}]});
        let m = message_from_v1(&scalar).unwrap();
        assert_eq!(
            serde_json::to_value(&m.parts[0]).unwrap(),
            json!({"kind": "data", "data": {"value": [1, 2]}})
        );
    }
}
