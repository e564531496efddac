//! A2A error codes, error types, and the one table mapping domain errors to codes.
//!
//! Two code families exist (see `docs/a2a-protocol.md`):
//! - the **vendor** family, used by `_cleveragents/…` methods, `session.*` and
//!   the legacy names: exactly the specification's table (-32001 entity not found …
//!   -32008 plan error);
//! - the **standard** family, used by the standard A2A operations: the A2A
//!   standard's own codes (-32001 task not found … -32009 version not supported),
//!   so real A2A clients understand them.
//!
//! Both share the JSON-RPC 2.0 codes (-32700 … -32603). Domain errors are first
//! classified into an [`ErrorKind`]; [`ErrorKind::code`] then gives the code for a
//! family. That is the only place codes are chosen.

use std::fmt;

use serde_json::{Value, json};

use super::models::A2aErrorDetail;
use crate::service_error::ServiceError;

/// Every error code of the specification's table (JSON-RPC 2.0 codes plus the vendor range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// -32700: the text is not JSON.
    ParseError,
    /// -32600: the JSON is not a valid request.
    InvalidRequest,
    /// -32601: no such method.
    MethodNotFound,
    /// -32602: the parameters are wrong.
    InvalidParams,
    /// -32603: an internal failure.
    InternalError,
    /// -32001: the entity does not exist.
    EntityNotFound,
    /// -32002: authentication is required.
    AuthenticationRequired,
    /// -32003: the caller may not do this.
    AuthorizationForbidden,
    /// -32004: not allowed in the current state (or the service is missing).
    InvalidState,
    /// -32005: the entity exists already.
    AlreadyExists,
    /// -32006: a budget would be exceeded.
    BudgetExceeded,
    /// -32007: incompatible protocol versions.
    VersionMismatch,
    /// -32008: the plan failed.
    PlanError,
}

impl ErrorCode {
    /// Every code, in the specification's order.
    pub const ALL: &'static [Self] = &[
        Self::ParseError,
        Self::InvalidRequest,
        Self::MethodNotFound,
        Self::InvalidParams,
        Self::InternalError,
        Self::EntityNotFound,
        Self::AuthenticationRequired,
        Self::AuthorizationForbidden,
        Self::InvalidState,
        Self::AlreadyExists,
        Self::BudgetExceeded,
        Self::VersionMismatch,
        Self::PlanError,
    ];

    /// The integer code.
    #[must_use]
    pub const fn code(self) -> i64 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::InternalError => -32603,
            Self::EntityNotFound => -32001,
            Self::AuthenticationRequired => -32002,
            Self::AuthorizationForbidden => -32003,
            Self::InvalidState => -32004,
            Self::AlreadyExists => -32005,
            Self::BudgetExceeded => -32006,
            Self::VersionMismatch => -32007,
            Self::PlanError => -32008,
        }
    }

    /// The default message (the JSON-RPC 2.0 specification's wording for its codes).
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            Self::ParseError => "Parse error",
            Self::InvalidRequest => "Invalid Request",
            Self::MethodNotFound => "Method not found",
            Self::InvalidParams => "Invalid params",
            Self::InternalError => "Internal error",
            Self::EntityNotFound => "Entity not found",
            Self::AuthenticationRequired => "Authentication required",
            Self::AuthorizationForbidden => "Authorization forbidden",
            Self::InvalidState => "Invalid state",
            Self::AlreadyExists => "Already exists",
            Self::BudgetExceeded => "Budget exceeded",
            Self::VersionMismatch => "Version mismatch",
            Self::PlanError => "Plan error",
        }
    }

    /// The code for an integer, if it is one of the specification's.
    #[must_use]
    pub fn from_code(code: i64) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.code() == code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

/// The A2A standard's own error codes (used by the standard operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StandardErrorCode {
    /// -32001
    TaskNotFound,
    /// -32002
    TaskNotCancelable,
    /// -32003
    PushNotificationNotSupported,
    /// -32004
    UnsupportedOperation,
    /// -32005
    ContentTypeNotSupported,
    /// -32006
    InvalidAgentResponse,
    /// -32007
    AuthenticatedExtendedCardNotConfigured,
    /// -32008
    ExtensionSupportRequired,
    /// -32009
    VersionNotSupported,
}

impl StandardErrorCode {
    /// The integer code.
    #[must_use]
    pub const fn code(self) -> i64 {
        match self {
            Self::TaskNotFound => -32001,
            Self::TaskNotCancelable => -32002,
            Self::PushNotificationNotSupported => -32003,
            Self::UnsupportedOperation => -32004,
            Self::ContentTypeNotSupported => -32005,
            Self::InvalidAgentResponse => -32006,
            Self::AuthenticatedExtendedCardNotConfigured => -32007,
            Self::ExtensionSupportRequired => -32008,
            Self::VersionNotSupported => -32009,
        }
    }

    /// The standard's message.
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            Self::TaskNotFound => "Task not found",
            Self::TaskNotCancelable => "Task cannot be canceled",
            Self::PushNotificationNotSupported => "Push Notification is not supported",
            Self::UnsupportedOperation => "This operation is not supported",
            Self::ContentTypeNotSupported => "Incompatible content types",
            Self::InvalidAgentResponse => "Invalid agent response",
            Self::AuthenticatedExtendedCardNotConfigured => {
                "Authenticated Extended Card is not configured"
            }
            Self::ExtensionSupportRequired => "Extension support required",
            Self::VersionNotSupported => "Version not supported",
        }
    }
}

/// Which code family an error is reported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorFamily {
    /// `_cleveragents/…`, `session.*` and the legacy names: the specification's table.
    Vendor,
    /// The standard A2A operations: the A2A standard's codes.
    Standard,
}

/// What went wrong, independent of how it is coded on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Not JSON.
    Parse,
    /// Not a valid JSON-RPC request.
    InvalidRequest,
    /// No such method.
    MethodNotFound,
    /// Bad parameters.
    InvalidParams,
    /// An internal or host failure.
    Internal,
    /// The entity does not exist.
    NotFound,
    /// Authentication required.
    AuthenticationRequired,
    /// Not allowed.
    Forbidden,
    /// Not allowed in the current state.
    InvalidState,
    /// The service that would answer is not wired (or the operation is unsupported).
    NotAvailable,
    /// Exists already.
    AlreadyExists,
    /// A budget would be exceeded.
    BudgetExceeded,
    /// The requested protocol version is not supported.
    VersionMismatch,
    /// The plan failed.
    PlanFailed,
    /// The task cannot be canceled (it is finished).
    NotCancelable,
    /// Push notifications are not supported.
    PushNotSupported,
    /// Content type not supported.
    ContentTypeNotSupported,
    /// The agent's answer was invalid.
    InvalidAgentResponse,
    /// No extended agent card is configured.
    ExtendedCardNotConfigured,
    /// A required extension is not supported by the client.
    ExtensionSupportRequired,
}

impl ErrorKind {
    /// The wire code and default message of this kind in `family`.
    #[must_use]
    pub const fn code(self, family: ErrorFamily) -> (i64, &'static str) {
        use ErrorCode as V;
        use StandardErrorCode as S;
        let vendor = match self {
            Self::Parse => V::ParseError,
            Self::InvalidRequest => V::InvalidRequest,
            Self::MethodNotFound => V::MethodNotFound,
            Self::InvalidParams | Self::ContentTypeNotSupported => V::InvalidParams,
            Self::Internal | Self::InvalidAgentResponse => V::InternalError,
            Self::NotFound => V::EntityNotFound,
            Self::AuthenticationRequired => V::AuthenticationRequired,
            Self::Forbidden => V::AuthorizationForbidden,
            Self::InvalidState
            | Self::NotAvailable
            | Self::NotCancelable
            | Self::PushNotSupported
            | Self::ExtendedCardNotConfigured
            | Self::ExtensionSupportRequired => V::InvalidState,
            Self::AlreadyExists => V::AlreadyExists,
            Self::BudgetExceeded => V::BudgetExceeded,
            Self::VersionMismatch => V::VersionMismatch,
            Self::PlanFailed => V::PlanError,
        };
        let standard = match self {
            Self::NotFound => Some(S::TaskNotFound),
            Self::NotCancelable => Some(S::TaskNotCancelable),
            Self::PushNotSupported => Some(S::PushNotificationNotSupported),
            Self::NotAvailable | Self::InvalidState => Some(S::UnsupportedOperation),
            Self::ContentTypeNotSupported => Some(S::ContentTypeNotSupported),
            Self::InvalidAgentResponse => Some(S::InvalidAgentResponse),
            Self::ExtendedCardNotConfigured => Some(S::AuthenticatedExtendedCardNotConfigured),
            Self::ExtensionSupportRequired => Some(S::ExtensionSupportRequired),
            Self::VersionMismatch => Some(S::VersionNotSupported),
            _ => None,
        };
        match (family, standard) {
            (ErrorFamily::Standard, Some(s)) => (s.code(), s.message()),
            _ => (vendor.code(), vendor.message()),
        }
    }
}

/// An operation that is not available because the service behind it is not wired.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("operation `{operation}` is not available: no {service} service is configured")]
#[non_exhaustive]
pub struct A2aNotAvailableError {
    /// The method called.
    pub operation: String,
    /// The missing service, e.g. `plan_lifecycle_service`.
    pub service: &'static str,
}

/// An unknown (or reserved) method name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown operation `{operation}`")]
#[non_exhaustive]
pub struct A2aOperationNotFoundError {
    operation: String,
    reserved: bool,
}

impl A2aOperationNotFoundError {
    /// For the method `operation`.
    #[must_use]
    pub fn new(operation: impl Into<String>) -> Self {
        let operation = operation.into();
        let reserved = operation.starts_with("rpc.");
        Self {
            operation,
            reserved,
        }
    }

    /// The method name that was not found.
    #[must_use]
    pub fn operation(&self) -> &str {
        &self.operation
    }

    /// Whether the name is reserved by JSON-RPC (starts with `rpc.`).
    #[must_use]
    pub fn is_reserved(&self) -> bool {
        self.reserved
    }
}

/// A protocol version the peer asked for that this agent does not speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("protocol version `{requested}` is not supported; supported: {}", .supported.join(", "))]
#[non_exhaustive]
pub struct A2aVersionMismatchError {
    /// What the peer asked for.
    pub requested: String,
    /// What this agent speaks.
    pub supported: Vec<String>,
}

/// Any failure of an A2A operation, ready to become a JSON-RPC error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum A2aError {
    /// The service behind the method is not wired.
    #[error(transparent)]
    NotAvailable(#[from] A2aNotAvailableError),
    /// Unknown method.
    #[error(transparent)]
    OperationNotFound(#[from] A2aOperationNotFoundError),
    /// Unsupported protocol version.
    #[error(transparent)]
    VersionMismatch(#[from] A2aVersionMismatchError),
    /// The text is not JSON (or not UTF-8).
    #[error("parse error: {reason}")]
    Parse {
        /// What the parser said, with line and column.
        reason: String,
    },
    /// The JSON is not a valid JSON-RPC 2.0 request.
    #[error("invalid request: {reason}")]
    InvalidRequest {
        /// What is wrong with it.
        reason: String,
    },
    /// The parameters are wrong.
    #[error("invalid params: {reason}")]
    InvalidParams {
        /// The parameter at fault, when known (a dotted path such as `arguments.target`).
        param: Option<String>,
        /// What is wrong with it.
        reason: String,
    },
    /// A service failed.
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// A protocol-level refusal of the given kind (task not cancelable, push
    /// notifications not supported, extended card not configured, …).
    #[error("{reason}")]
    Protocol {
        /// What kind of refusal.
        kind: ErrorKind,
        /// Why.
        reason: String,
        /// What is at fault (e.g. `{"id": "…"}`).
        data: serde_json::Map<String, Value>,
    },
}

impl A2aError {
    /// An [`A2aError::InvalidRequest`].
    #[must_use]
    pub fn invalid_request(reason: impl Into<String>) -> Self {
        Self::InvalidRequest {
            reason: reason.into(),
        }
    }

    /// An [`A2aError::InvalidParams`] naming the parameter.
    #[must_use]
    pub fn invalid_param(param: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidParams {
            param: Some(param.into()),
            reason: reason.into(),
        }
    }

    /// A protocol-level refusal naming `key: value` as what is at fault.
    #[must_use]
    pub fn protocol(
        kind: ErrorKind,
        reason: impl Into<String>,
        key: &str,
        value: impl Into<Value>,
    ) -> Self {
        let mut data = serde_json::Map::new();
        data.insert(key.to_owned(), value.into());
        Self::Protocol {
            kind,
            reason: reason.into(),
            data,
        }
    }

    /// How this error is classified.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::NotAvailable(_) => ErrorKind::NotAvailable,
            Self::OperationNotFound(_) => ErrorKind::MethodNotFound,
            Self::VersionMismatch(_) => ErrorKind::VersionMismatch,
            Self::Parse { .. } => ErrorKind::Parse,
            Self::InvalidRequest { .. } => ErrorKind::InvalidRequest,
            Self::InvalidParams { .. } => ErrorKind::InvalidParams,
            Self::Protocol { kind, .. } => *kind,
            Self::Service(e) => match e {
                ServiceError::NotFound { .. } => ErrorKind::NotFound,
                ServiceError::AlreadyExists { .. } => ErrorKind::AlreadyExists,
                ServiceError::InvalidState { .. } => ErrorKind::InvalidState,
                ServiceError::Invalid { .. } => ErrorKind::InvalidParams,
                _ => ErrorKind::Internal,
            },
        }
    }

    /// The JSON-RPC error object for this error in `family`. `data` always names
    /// what is at fault.
    #[must_use]
    pub fn to_detail(&self, family: ErrorFamily) -> A2aErrorDetail {
        let (code, default_message) = self.kind().code(family);
        let (message, data): (String, Value) = match self {
            Self::NotAvailable(e) => (
                default_message.to_owned(),
                json!({"service": e.service, "method": e.operation, "reason": e.to_string()}),
            ),
            Self::OperationNotFound(e) => {
                let reason = if e.reserved {
                    "method names starting with `rpc.` are reserved".to_owned()
                } else {
                    e.to_string()
                };
                (
                    default_message.to_owned(),
                    json!({"method": e.operation, "reason": reason}),
                )
            }
            Self::VersionMismatch(e) => (
                default_message.to_owned(),
                json!({"requested": e.requested, "supported": e.supported}),
            ),
            Self::Parse { reason } | Self::InvalidRequest { reason } => {
                (default_message.to_owned(), json!({"reason": reason}))
            }
            Self::InvalidParams { param, reason } => match param {
                Some(p) => (
                    default_message.to_owned(),
                    json!({"param": p, "reason": reason}),
                ),
                None => (default_message.to_owned(), json!({"reason": reason})),
            },
            Self::Service(e) => service_detail(e, default_message),
            Self::Protocol { reason, data, .. } => {
                let mut data = data.clone();
                data.insert("reason".into(), Value::String(reason.clone()));
                (default_message.to_owned(), Value::Object(data))
            }
        };
        A2aErrorDetail::new(code, message).with_data(data)
    }
}

fn capitalized(entity: &str) -> String {
    let mut chars = entity.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn service_detail(error: &ServiceError, default_message: &str) -> (String, Value) {
    match error {
        ServiceError::NotFound { entity, key, id } => (
            format!("{} not found", capitalized(entity)),
            json!({ *key: id, "reason": error.to_string() }),
        ),
        ServiceError::AlreadyExists { entity, key, id } => (
            format!("{} already exists", capitalized(entity)),
            json!({ *key: id, "reason": error.to_string() }),
        ),
        ServiceError::InvalidState {
            key, id, action, ..
        } => (
            default_message.to_owned(),
            json!({ *key: id, "operation": action, "reason": error.to_string() }),
        ),
        ServiceError::Invalid { field, message } => (
            default_message.to_owned(),
            json!({"param": field, "reason": message}),
        ),
        // Host errors may carry internals; name the failure, not its text.
        _ => (
            default_message.to_owned(),
            json!({"reason": "a host service failed"}),
        ),
    }
}

impl From<crate::engine::EngineError> for A2aError {
    fn from(error: crate::engine::EngineError) -> Self {
        use crate::engine::EngineError as E;
        use crate::profile::ProfileError as P;
        let reason = error.to_string();
        let protocol = |kind: ErrorKind, key: &str, value: Value| {
            A2aError::protocol(kind, reason.clone(), key, value)
        };
        match error {
            E::Service(e) => Self::Service(e),
            E::Budget(b) => {
                let data = serde_json::to_value(b)
                    .ok()
                    .and_then(|v| v.as_object().cloned())
                    .unwrap_or_default();
                Self::Protocol {
                    kind: ErrorKind::BudgetExceeded,
                    reason,
                    data,
                }
            }
            E::InvalidState { plan_id, .. } => protocol(
                ErrorKind::InvalidState,
                "plan_id",
                Value::String(plan_id.to_string()),
            ),
            E::NotFound { entity, id } => protocol(ErrorKind::NotFound, entity, Value::String(id)),
            E::InvalidValue { key, .. } => {
                protocol(ErrorKind::InvalidParams, "key", Value::String(key))
            }
            E::Pricing(_) => protocol(
                ErrorKind::InvalidParams,
                "param",
                Value::String("model".into()),
            ),
            E::Profile(p) => match p {
                P::UnknownProfile { level, name, .. }
                | P::UnknownSafetyProfile { level, name, .. } => protocol(
                    ErrorKind::InvalidParams,
                    level.as_str(),
                    Value::String(name),
                ),
                P::ReservedName(name) => {
                    protocol(ErrorKind::Forbidden, "name", Value::String(name))
                }
                P::AlreadyExists(name) => {
                    protocol(ErrorKind::AlreadyExists, "name", Value::String(name))
                }
                P::NotFound(name) => protocol(ErrorKind::NotFound, "name", Value::String(name)),
                P::NameMismatch { target, .. } => {
                    protocol(ErrorKind::InvalidParams, "name", Value::String(target))
                }
                P::Invalid { name, .. } => {
                    protocol(ErrorKind::InvalidParams, "profile", Value::String(name))
                }
                P::Config(_) => protocol(
                    ErrorKind::InvalidParams,
                    "param",
                    Value::String("profile".into()),
                ),
                P::Repository(e) => Self::Service(e),
            },
            _ => protocol(
                ErrorKind::Internal,
                "reason",
                Value::String("guardrail service".into()),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_codes_are_the_specified_table() {
        let table: Vec<(i64, &str)> = ErrorCode::ALL
            .iter()
            .map(|c| (c.code(), c.message()))
            .collect();
        assert_eq!(table.len(), 13);
        assert_eq!(
            ErrorCode::from_code(-32006),
            Some(ErrorCode::BudgetExceeded)
        );
        assert_eq!(ErrorCode::from_code(-32009), None);
    }

    #[test]
    fn families_differ_where_the_standard_has_its_own_code() {
        assert_eq!(ErrorKind::NotFound.code(ErrorFamily::Vendor).0, -32001);
        assert_eq!(
            ErrorKind::NotFound.code(ErrorFamily::Standard),
            (-32001, "Task not found")
        );
        assert_eq!(
            ErrorKind::VersionMismatch.code(ErrorFamily::Vendor).0,
            -32007
        );
        assert_eq!(
            ErrorKind::VersionMismatch.code(ErrorFamily::Standard).0,
            -32009
        );
        assert_eq!(ErrorKind::NotAvailable.code(ErrorFamily::Vendor).0, -32004);
        assert_eq!(
            ErrorKind::NotAvailable.code(ErrorFamily::Standard).0,
            -32004
        );
        assert_eq!(
            ErrorKind::InvalidParams.code(ErrorFamily::Standard).0,
            -32602
        );
    }

    #[test]
    fn not_found_detail_names_the_entity() {
        let err = A2aError::from(ServiceError::not_found("plan", "plan_id", "01HX"));
        let detail = err.to_detail(ErrorFamily::Vendor);
        assert_eq!(detail.code, -32001);
        assert_eq!(detail.message, "Plan not found");
        assert_eq!(detail.data["plan_id"], "01HX");
    }
}
