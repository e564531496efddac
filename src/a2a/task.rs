//! The standard A2A task model, in the A2A 0.3 JSON shape (camelCase fields,
//! `kind` tags, lowercase states), and the task state machine.
//!
//! The same values convert to and from A2A 1.0 (protojson) in
//! [`v1`](super::v1). Unknown fields in input are ignored (the format is the
//! standard's, not ours); required ones are enforced.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::string_enum::string_enum;

macro_rules! kind_tag {
    ($(#[$meta:meta])* $name:ident, $text:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($text)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = std::borrow::Cow::<str>::deserialize(d)?;
                if text == $text {
                    Ok(Self)
                } else {
                    Err(serde::de::Error::custom(format!(
                        concat!("`kind` must be \"", $text, "\", got `{}`"),
                        text
                    )))
                }
            }
        }
    };
}

kind_tag!(
    /// The `kind` tag of a task (`"task"`).
    TaskKind, "task"
);
kind_tag!(
    /// The `kind` tag of a message (`"message"`).
    MessageKind, "message"
);
kind_tag!(
    /// The `kind` tag of a status update (`"status-update"`).
    StatusUpdateKind, "status-update"
);
kind_tag!(
    /// The `kind` tag of an artifact update (`"artifact-update"`).
    ArtifactUpdateKind, "artifact-update"
);

string_enum!(
    /// A task's lifecycle state.
    TaskState, "task state" {
        /// Received, not started.
        Submitted => "submitted",
        /// Being worked on.
        Working => "working",
        /// Paused until the client sends more input (interrupted).
        InputRequired => "input-required",
        /// Finished successfully (terminal).
        Completed => "completed",
        /// Cancelled (terminal).
        Canceled => "canceled",
        /// Finished with an error (terminal).
        Failed => "failed",
        /// Refused by the agent (terminal).
        Rejected => "rejected",
        /// Paused until the client authenticates (interrupted).
        AuthRequired => "auth-required",
        /// Unknown or indeterminate.
        Unknown => "unknown",
    }
);

impl TaskState {
    /// No transition leaves a terminal state.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Canceled | Self::Failed | Self::Rejected
        )
    }

    /// Waiting for the client.
    #[must_use]
    pub const fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }

    /// Whether a task may move from `self` to `next`: never out of a terminal
    /// state, never back to `submitted` or into `unknown`; a state may repeat
    /// (a new status message).
    #[must_use]
    pub const fn can_transition_to(self, next: Self) -> bool {
        if self.is_terminal() {
            return false;
        }
        match next {
            Self::Unknown => false,
            Self::Submitted => matches!(self, Self::Submitted | Self::Unknown),
            _ => true,
        }
    }

    /// The A2A 1.0 spelling (`TASK_STATE_WORKING`; `unknown` is `TASK_STATE_UNSPECIFIED`).
    #[must_use]
    pub const fn as_v1(self) -> &'static str {
        match self {
            Self::Submitted => "TASK_STATE_SUBMITTED",
            Self::Working => "TASK_STATE_WORKING",
            Self::InputRequired => "TASK_STATE_INPUT_REQUIRED",
            Self::Completed => "TASK_STATE_COMPLETED",
            Self::Canceled => "TASK_STATE_CANCELED",
            Self::Failed => "TASK_STATE_FAILED",
            Self::Rejected => "TASK_STATE_REJECTED",
            Self::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
            Self::Unknown => "TASK_STATE_UNSPECIFIED",
        }
    }

    /// Parses the A2A 1.0 spelling.
    #[must_use]
    pub fn from_v1(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|s| s.as_v1() == text)
    }
}

string_enum!(
    /// Who sent a message.
    Role, "role" {
        /// The client.
        User => "user",
        /// The agent.
        Agent => "agent",
    }
);

/// File content: inline base64 bytes or a URI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum FileContent {
    /// Inline content.
    Bytes {
        /// Base64-encoded content.
        bytes: String,
        /// MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// File name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Content at a URI.
    Uri {
        /// Where the content is.
        uri: String,
        /// MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// File name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
}

/// A piece of message or artifact content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Part metadata.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Map<String, Value>>,
    },
    /// A file.
    File {
        /// The content.
        file: FileContent,
        /// Part metadata.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Map<String, Value>>,
    },
    /// Structured data (an object in A2A 0.3).
    Data {
        /// The data.
        data: Map<String, Value>,
        /// Part metadata.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<Map<String, Value>>,
    },
}

impl Part {
    /// A text part.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text {
            text: text.into(),
            metadata: None,
        }
    }

    /// The text, for a text part.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text, .. } => Some(text),
            _ => None,
        }
    }
}

/// One unit of communication between client and agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Message {
    /// Always `"message"`.
    pub kind: MessageKind,
    /// Unique id, chosen by the sender.
    pub message_id: String,
    /// Who sent it.
    pub role: Role,
    /// The content.
    pub parts: Vec<Part>,
    /// The conversation it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The task it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Tasks referenced for context.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<String>,
    /// Extension URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Message {
    /// A message with a fresh ULID id.
    #[must_use]
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Self {
            kind: MessageKind,
            message_id: ulid::Ulid::new().to_string(),
            role,
            parts,
            context_id: None,
            task_id: None,
            reference_task_ids: Vec::new(),
            extensions: Vec::new(),
            metadata: None,
        }
    }

    /// A user message of one text part.
    #[must_use]
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, vec![Part::text(text)])
    }

    /// An agent message of one text part.
    #[must_use]
    pub fn agent_text(text: impl Into<String>) -> Self {
        Self::new(Role::Agent, vec![Part::text(text)])
    }

    /// All text parts joined by newlines.
    #[must_use]
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(Part::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A task's current status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// A message explaining it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Box<Message>>,
    /// When it was set, ISO-8601 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

impl TaskStatus {
    /// A status with no message, stamped with `timestamp`.
    #[must_use]
    pub fn new(state: TaskState, timestamp: Option<String>) -> Self {
        Self {
            state,
            message: None,
            timestamp,
        }
    }
}

/// Something a task produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Artifact {
    /// Unique within the task.
    pub artifact_id: String,
    /// The content (at least one part).
    pub parts: Vec<Part>,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Extension URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Artifact {
    /// An artifact with a fresh id.
    #[must_use]
    pub fn new(name: impl Into<String>, parts: Vec<Part>) -> Self {
        Self {
            artifact_id: ulid::Ulid::new().to_string(),
            parts,
            name: Some(name.into()),
            description: None,
            extensions: Vec::new(),
            metadata: None,
        }
    }
}

/// The core unit of work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// Always `"task"`.
    pub kind: TaskKind,
    /// Unique id (a ULID here).
    pub id: String,
    /// The conversation.
    pub context_id: String,
    /// Current status.
    pub status: TaskStatus,
    /// Outputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// The messages exchanged, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// Metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Task {
    /// A submitted task.
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        context_id: impl Into<String>,
        timestamp: Option<String>,
    ) -> Self {
        Self {
            kind: TaskKind,
            id: id.into(),
            context_id: context_id.into(),
            status: TaskStatus::new(TaskState::Submitted, timestamp),
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }

    /// A copy keeping only the `n` most recent history messages (`None`: all).
    #[must_use]
    pub fn with_history_limit(&self, n: Option<usize>) -> Self {
        let mut copy = self.clone();
        if let Some(n) = n {
            let skip = copy.history.len().saturating_sub(n);
            copy.history.drain(..skip);
        }
        copy
    }
}

/// A change of a task's status (`kind: status-update`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskStatusUpdateEvent {
    /// Always `"status-update"`.
    pub kind: StatusUpdateKind,
    /// The task.
    pub task_id: String,
    /// Its context.
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// Whether this is the last event of the stream.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// An artifact produced or extended (`kind: artifact-update`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskArtifactUpdateEvent {
    /// Always `"artifact-update"`.
    pub kind: ArtifactUpdateKind,
    /// The task.
    pub task_id: String,
    /// Its context.
    pub context_id: String,
    /// The artifact (or chunk).
    pub artifact: Artifact,
    /// Append to an earlier artifact with the same id.
    #[serde(default)]
    pub append: bool,
    /// The last chunk of the artifact.
    #[serde(default)]
    pub last_chunk: bool,
    /// Metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// Anything a stream carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A task snapshot.
    Task(Task),
    /// A message.
    Message(Message),
    /// A status update.
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact update.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl StreamEvent {
    /// The `kind` of the payload (`task`, `message`, `status-update`,
    /// `artifact-update`), used as the SSE event name.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Task(_) => "task",
            Self::Message(_) => "message",
            Self::StatusUpdate(_) => "status-update",
            Self::ArtifactUpdate(_) => "artifact-update",
        }
    }

    /// Whether the stream ends after this event. A task snapshot never ends
    /// it (a resubscription starts with one, whatever the task's state);
    /// a final status update or a direct message does.
    #[must_use]
    pub fn is_final(&self) -> bool {
        match self {
            Self::Task(_) => false,
            Self::Message(_) => true,
            Self::StatusUpdate(e) => e.is_final,
            Self::ArtifactUpdate(_) => false,
        }
    }
}

/// Push-notification authentication.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PushAuthentication {
    /// HTTP authentication schemes, e.g. `Bearer`.
    pub schemes: Vec<String>,
    /// Credentials for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

/// Where and how to send push notifications for a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PushNotificationConfig {
    /// The configuration's id (assigned when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The webhook URL.
    pub url: String,
    /// A token the receiver can check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Authentication to use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushAuthentication>,
}

impl PushNotificationConfig {
    /// A configuration for `url`.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            id: None,
            url: url.into(),
            token: None,
            authentication: None,
        }
    }
}

/// A push configuration attached to a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskPushNotificationConfig {
    /// The task.
    pub task_id: String,
    /// The configuration.
    pub push_notification_config: PushNotificationConfig,
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "task {} ({})", self.id, self.status.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terminal_states_are_final() {
        for from in TaskState::ALL {
            for to in TaskState::ALL {
                if from.is_terminal() {
                    assert!(!from.can_transition_to(*to), "{from} -> {to}");
                }
            }
        }
        assert!(TaskState::Submitted.can_transition_to(TaskState::Working));
        assert!(TaskState::InputRequired.can_transition_to(TaskState::Working));
        assert!(!TaskState::Working.can_transition_to(TaskState::Submitted));
        assert!(!TaskState::Working.can_transition_to(TaskState::Unknown));
        for state in TaskState::ALL {
            assert_eq!(TaskState::from_v1(state.as_v1()), Some(*state));
        }
    }

    #[test]
    fn parts_and_messages_use_the_0_3_shape() {
        let m = Message::user_text("hi");
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["kind"], "message");
        assert_eq!(v["parts"], json!([{"kind": "text", "text": "hi"}]));
        let file: Part = serde_json::from_value(
            json!({"kind": "file", "file": {"uri": "https://x/y.png", "mimeType": "image/png"}}),
        )
        .unwrap();
        assert!(matches!(
            file,
            Part::File {
                file: FileContent::Uri { .. },
                ..
            }
        ));
        assert!(
            serde_json::from_value::<Message>(
                json!({"kind": "task", "messageId": "1", "role": "user", "parts": []})
            )
            .is_err()
        );
    }
}
