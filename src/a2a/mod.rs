//! The A2A protocol layer: JSON-RPC 2.0 models, error codes, the method table,
//! the wire format, events, and the [`A2aLocalFacade`] that routes requests to
//! services. This is the only part of the crate that knows JSON-RPC.

mod agent;
mod bridge;
mod card;
mod engine_ops;
mod error;
mod events;
mod facade;
mod methods;
mod models;
mod params;
mod sse;
mod standard;
mod stdio;
mod stream;
mod task;
pub mod v1;
mod version;
mod wire;

pub use agent::{
    AgentExecutor, EchoExecutor, InMemoryTaskStore, PushNotifier, RecordingPushNotifier, TaskPage,
    TaskQuery, TaskStore, TaskUpdates, TransitionError,
};
pub use bridge::{EventBusBridge, a2a_event_type};
pub use card::{
    AGENT_CARD_PATH, AGENT_JSON_PATH, AgentCard, AgentCardBuilder, AgentExtension, AgentSkill,
    EXTENSION_URI, SecurityScheme,
};
pub use error::{
    A2aError, A2aNotAvailableError, A2aOperationNotFoundError, A2aVersionMismatchError, ErrorCode,
    ErrorFamily, ErrorKind, StandardErrorCode,
};
pub use events::{
    A2aEventQueue, DEFAULT_HISTORY, EventFilter, EventReceiver, QueueClosed, SubscriptionId,
    TASK_ARTIFACT_UPDATE, TASK_STATUS_UPDATE,
};
pub use facade::{A2aLocalFacade, A2aLocalFacadeBuilder};
pub use methods::{LEGACY_ALIASES, Method, Resolved, STANDARD_ALIASES};
pub use models::{
    A2aErrorDetail, A2aEvent, A2aRequest, A2aResponse, JSONRPC_VERSION, ModelError, RequestId,
    ResponsePayload,
};
pub use sse::{MAX_SSE_LINE, SseFrame, SseParser, sse_comment};
pub use stdio::{ServeStats, event_notification, notification_method, serve_lines};
pub use stream::{Dispatch, ResponseStream, StreamItem, StreamNext};
pub use task::{
    Artifact, ArtifactUpdateKind, FileContent, Message, MessageKind, Part, PushAuthentication,
    PushNotificationConfig, Role, StatusUpdateKind, StreamEvent, Task, TaskArtifactUpdateEvent,
    TaskKind, TaskPushNotificationConfig, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
pub use version::{A2aVersion, SUPPORTED_VERSIONS};
pub use wire::WireLimits;
