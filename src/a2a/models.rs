//! The JSON-RPC 2.0 envelope types of the A2A protocol.
//!
//! These are the in-process models: [`A2aRequest`] and [`A2aResponse`] validate
//! on construction *and* on deserialization, so a value of either type is always
//! a well-formed JSON-RPC 2.0 message. The wire path
//! ([`A2aLocalFacade::dispatch_json`](crate::A2aLocalFacade::dispatch_json)) does
//! not build them; it works on borrowed bytes for speed and echoes ids verbatim.

use std::fmt;
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::clock::{Clock, iso8601};
use crate::ids::{EventId, PlanId};

/// The only JSON-RPC version there is.
pub const JSONRPC_VERSION: &str = "2.0";

/// A message that is not valid JSON-RPC 2.0 / A2A.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// `jsonrpc` was not the string `"2.0"`.
    #[error("`jsonrpc` must be \"2.0\", got `{0}`")]
    WrongVersion(String),
    /// `method` was empty or only white space.
    #[error("`method` must not be blank")]
    BlankMethod,
    /// `params` was present but not a JSON object.
    #[error("`params` must be a JSON object, got {0}")]
    ParamsNotObject(&'static str),
    /// A response had both `result` and `error`.
    #[error("a response must not carry both `result` and `error`")]
    ResultAndError,
    /// A response had neither `result` nor `error`.
    #[error("a response must carry either `result` or `error`")]
    NeitherResultNorError,
}

/// A JSON-RPC request id: a string, a number or null, echoed with its type.
///
/// ```
/// use cleveragents::RequestId;
///
/// let id: RequestId = serde_json::from_str("7").unwrap();
/// assert_eq!(id, RequestId::from(7));
/// assert!(serde_json::from_str::<RequestId>("{}").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RequestId {
    /// A string id (the A2A default: a ULID).
    String(String),
    /// A numeric id, kept exactly as parsed.
    Number(Number),
    /// An explicit `null` id.
    Null,
}

impl RequestId {
    /// A fresh ULID string id.
    #[must_use]
    pub fn new_ulid() -> Self {
        Self::String(ulid::Ulid::new().to_string())
    }
}

impl Default for RequestId {
    fn default() -> Self {
        Self::new_ulid()
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::String(s) => f.write_str(s),
            Self::Number(n) => write!(f, "{n}"),
            Self::Null => f.write_str("null"),
        }
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        Self::Number(n.into())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(s) => serializer.serialize_str(s),
            Self::Number(n) => n.serialize(serializer),
            Self::Null => serializer.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(Self::String(s)),
            Value::Number(n) => Ok(Self::Number(n)),
            Value::Null => Ok(Self::Null),
            other => Err(D::Error::custom(format!(
                "`id` must be a string, a number or null, got {}",
                json_type(&other)
            ))),
        }
    }
}

/// The JSON type name of a value, for error messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An object as a map; `null` as an empty one; anything else is an error.
fn into_object(value: Value) -> Result<Map<String, Value>, ModelError> {
    match value {
        Value::Null => Ok(Map::new()),
        Value::Object(map) => Ok(map),
        other => Err(ModelError::ParamsNotObject(json_type(&other))),
    }
}

static EMPTY_MAP: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// A JSON-RPC 2.0 request, validated.
///
/// ```
/// use cleveragents::A2aRequest;
/// use serde_json::json;
///
/// let req = A2aRequest::new("_cleveragents/plan/list", json!({}))?;
/// assert_eq!(req.method(), "_cleveragents/plan/list");
/// assert_eq!(req.id().to_string().len(), 26); // a fresh ULID
///
/// assert!(A2aRequest::new("  ", json!({})).is_err());
/// assert!(A2aRequest::new("x", json!([1, 2])).is_err());
/// # Ok::<(), cleveragents::ModelError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct A2aRequest {
    id: RequestId,
    method: String,
    /// Always a `Value::Object`.
    params: Value,
}

impl A2aRequest {
    /// A request with a fresh ULID id. `params` must be an object (or null, meaning `{}`).
    ///
    /// # Errors
    /// [`ModelError::BlankMethod`] or [`ModelError::ParamsNotObject`].
    pub fn new(method: impl Into<String>, params: Value) -> Result<Self, ModelError> {
        Self::with_id(RequestId::new_ulid(), method, params)
    }

    /// A request with the given id; an empty-string id is replaced by a fresh ULID.
    ///
    /// # Errors
    /// As [`A2aRequest::new`].
    pub fn with_id(
        id: impl Into<RequestId>,
        method: impl Into<String>,
        params: Value,
    ) -> Result<Self, ModelError> {
        let method = method.into();
        if method.trim().is_empty() {
            return Err(ModelError::BlankMethod);
        }
        let params = Value::Object(into_object(params)?);
        let id = match id.into() {
            RequestId::String(s) if s.is_empty() => RequestId::new_ulid(),
            id => id,
        };
        Ok(Self { id, method, params })
    }

    /// The `jsonrpc` member: always `"2.0"`.
    #[must_use]
    pub fn jsonrpc(&self) -> &'static str {
        JSONRPC_VERSION
    }

    /// The correlation id.
    #[must_use]
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The method name.
    #[must_use]
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The named parameters.
    #[must_use]
    pub fn params(&self) -> &Map<String, Value> {
        self.params.as_object().unwrap_or(&EMPTY_MAP)
    }

    /// The parameters as a JSON value (always an object).
    #[must_use]
    pub fn params_value(&self) -> &Value {
        &self.params
    }
}

#[derive(Serialize)]
struct RequestOut<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    params: &'a Value,
}

impl Serialize for A2aRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RequestOut {
            jsonrpc: JSONRPC_VERSION,
            id: &self.id,
            method: &self.method,
            params: &self.params,
        }
        .serialize(serializer)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestIn {
    jsonrpc: String,
    #[serde(default)]
    id: Option<RequestId>,
    method: String,
    #[serde(default)]
    params: Value,
}

impl<'de> Deserialize<'de> for A2aRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RequestIn::deserialize(deserializer)?;
        if raw.jsonrpc != JSONRPC_VERSION {
            return Err(D::Error::custom(ModelError::WrongVersion(raw.jsonrpc)));
        }
        // A missing id and `"id": null` both deserialize to `None` here; the
        // in-process model has no notifications, so both become a fresh id.
        let id = raw.id.unwrap_or_else(RequestId::new_ulid);
        Self::with_id(id, raw.method, raw.params).map_err(D::Error::custom)
    }
}

/// The error member of a JSON-RPC response.
///
/// `data` names the entity or parameter at fault (e.g. `{"plan_id": "…"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct A2aErrorDetail {
    /// The JSON-RPC error code.
    pub code: i64,
    /// A short human-readable description.
    pub message: String,
    /// Structured context; omitted from JSON when null.
    #[serde(default = "empty_object", skip_serializing_if = "Value::is_null")]
    pub data: Value,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

impl A2aErrorDetail {
    /// An error with empty `data`.
    #[must_use]
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: empty_object(),
        }
    }

    /// Replaces `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = data;
        self
    }
}

/// What a response carries: exactly one of a result or an error.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResponsePayload {
    /// The success value (any JSON, `null` included).
    Result(Value),
    /// The failure.
    Error(A2aErrorDetail),
}

/// A JSON-RPC 2.0 response, validated: `result` and `error` are mutually exclusive.
///
/// ```
/// use cleveragents::{A2aErrorDetail, A2aResponse, RequestId};
/// use serde_json::json;
///
/// let ok = A2aResponse::success(RequestId::from(1), json!({"status": "closed"}));
/// assert_eq!(ok.result(), Some(&json!({"status": "closed"})));
///
/// let text = r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#;
/// assert!(serde_json::from_str::<A2aResponse>(text).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct A2aResponse {
    id: RequestId,
    payload: ResponsePayload,
}

impl A2aResponse {
    /// A success response.
    #[must_use]
    pub fn success(id: RequestId, result: Value) -> Self {
        Self {
            id,
            payload: ResponsePayload::Result(result),
        }
    }

    /// An error response.
    #[must_use]
    pub fn failure(id: RequestId, error: A2aErrorDetail) -> Self {
        Self {
            id,
            payload: ResponsePayload::Error(error),
        }
    }

    /// The `jsonrpc` member: always `"2.0"`.
    #[must_use]
    pub fn jsonrpc(&self) -> &'static str {
        JSONRPC_VERSION
    }

    /// The id of the request this answers.
    #[must_use]
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The success value, if this is a success.
    #[must_use]
    pub fn result(&self) -> Option<&Value> {
        match &self.payload {
            ResponsePayload::Result(v) => Some(v),
            ResponsePayload::Error(_) => None,
        }
    }

    /// The error, if this is a failure.
    #[must_use]
    pub fn error(&self) -> Option<&A2aErrorDetail> {
        match &self.payload {
            ResponsePayload::Error(e) => Some(e),
            ResponsePayload::Result(_) => None,
        }
    }

    /// Whether this is a success.
    #[must_use]
    pub fn is_success(&self) -> bool {
        matches!(self.payload, ResponsePayload::Result(_))
    }

    /// The payload.
    #[must_use]
    pub fn payload(&self) -> &ResponsePayload {
        &self.payload
    }

    /// Splits into id and payload.
    #[must_use]
    pub fn into_parts(self) -> (RequestId, ResponsePayload) {
        (self.id, self.payload)
    }
}

impl Serialize for A2aResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out<'a> {
            jsonrpc: &'static str,
            id: &'a RequestId,
            #[serde(skip_serializing_if = "Option::is_none")]
            result: Option<&'a Value>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a A2aErrorDetail>,
        }
        Out {
            jsonrpc: JSONRPC_VERSION,
            id: &self.id,
            result: self.result(),
            error: self.error(),
        }
        .serialize(serializer)
    }
}

/// Deserializes a field so that an explicit `null` is `Some(Value::Null)`,
/// distinguishing it from an absent field.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

#[derive(Deserialize)]
struct ResponseIn {
    jsonrpc: String,
    id: RequestId,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default)]
    error: Option<A2aErrorDetail>,
}

impl<'de> Deserialize<'de> for A2aResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = ResponseIn::deserialize(deserializer)?;
        if raw.jsonrpc != JSONRPC_VERSION {
            return Err(D::Error::custom(ModelError::WrongVersion(raw.jsonrpc)));
        }
        let payload = match (raw.result, raw.error) {
            (Some(result), None) => ResponsePayload::Result(result),
            (None, Some(error)) => ResponsePayload::Error(error),
            (Some(_), Some(_)) => return Err(D::Error::custom(ModelError::ResultAndError)),
            (None, None) => return Err(D::Error::custom(ModelError::NeitherResultNorError)),
        };
        Ok(Self {
            id: raw.id,
            payload,
        })
    }
}

/// An event published to A2A subscribers (plan and session progress).
///
/// ```
/// use cleveragents::{A2aEvent, ManualClock};
/// use serde_json::json;
///
/// let clock = ManualClock::default();
/// let event = A2aEvent::new("TaskStatusUpdateEvent", None, json!({"state": "working"}), &clock)?;
/// assert_eq!(event.timestamp_string(), "2025-01-01T00:00:00.000Z");
/// # Ok::<(), cleveragents::ModelError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct A2aEvent {
    /// Unique id, a ULID; set automatically.
    pub event_id: EventId,
    /// The kind of event, e.g. `TaskStatusUpdateEvent`.
    pub event_type: String,
    /// The plan the event concerns, if any.
    #[serde(default)]
    pub plan_id: Option<PlanId>,
    /// Event payload: a JSON object.
    #[serde(default)]
    pub data: Map<String, Value>,
    /// When the event was created, ISO-8601 UTC.
    #[serde(with = "iso_timestamp")]
    pub timestamp: DateTime<Utc>,
}

impl A2aEvent {
    /// An event stamped with `clock.now()` and a fresh id; `data` must be an object (or null).
    ///
    /// # Errors
    /// [`ModelError::ParamsNotObject`] when `data` is not an object.
    pub fn new(
        event_type: impl Into<String>,
        plan_id: Option<PlanId>,
        data: Value,
        clock: &dyn Clock,
    ) -> Result<Self, ModelError> {
        let data = into_object(data)?;
        Ok(Self {
            event_id: EventId::new(),
            event_type: event_type.into(),
            plan_id,
            data,
            timestamp: clock.now(),
        })
    }

    /// The timestamp as the wire string (`2025-01-01T00:00:00.000Z`).
    #[must_use]
    pub fn timestamp_string(&self) -> String {
        iso8601(self.timestamp)
    }
}

mod iso_timestamp {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub(super) fn serialize<S: Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::clock::iso8601(*at))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        DateTime::parse_from_rfc3339(&text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| D::Error::custom(format!("invalid timestamp `{text}`: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_deserialization_validates() {
        let ok: A2aRequest =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":"","method":"m"}"#).unwrap();
        assert_eq!(ok.id().to_string().len(), 26, "empty id replaced by a ULID");
        assert!(ok.params().is_empty());
        let wrong = serde_json::from_str::<A2aRequest>(r#"{"jsonrpc":"1.0","method":"m"}"#);
        assert!(
            wrong
                .unwrap_err()
                .to_string()
                .contains("`jsonrpc` must be \"2.0\"")
        );
        assert!(serde_json::from_str::<A2aRequest>(r#"{"jsonrpc":"2.0","method":" "}"#).is_err());
        assert!(
            serde_json::from_str::<A2aRequest>(r#"{"jsonrpc":"2.0","method":"m","params":[1]}"#)
                .is_err()
        );
        assert!(
            serde_json::from_str::<A2aRequest>(r#"{"jsonrpc":"2.0","method":"m","id":{}}"#)
                .is_err()
        );
    }

    #[test]
    fn request_round_trips() {
        let req = A2aRequest::with_id(5, "m", json!({"a": 1})).unwrap();
        let text = serde_json::to_string(&req).unwrap();
        assert_eq!(
            text,
            r#"{"jsonrpc":"2.0","id":5,"method":"m","params":{"a":1}}"#
        );
        assert_eq!(serde_json::from_str::<A2aRequest>(&text).unwrap(), req);
    }

    #[test]
    fn response_result_xor_error() {
        let null_result: A2aResponse =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":null,"result":null}"#).unwrap();
        assert_eq!(null_result.result(), Some(&Value::Null));
        let neither = serde_json::from_str::<A2aResponse>(r#"{"jsonrpc":"2.0","id":1}"#);
        assert!(
            neither
                .unwrap_err()
                .to_string()
                .contains("either `result` or `error`")
        );
        let err = A2aResponse::failure(
            RequestId::Null,
            A2aErrorDetail::new(-32600, "Invalid Request"),
        );
        let text = serde_json::to_string(&err).unwrap();
        assert_eq!(
            text,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":{}}}"#
        );
        assert_eq!(serde_json::from_str::<A2aResponse>(&text).unwrap(), err);
    }

    #[test]
    fn event_round_trips() {
        let clock = crate::ManualClock::default();
        let event = A2aEvent::new(
            "TaskStatusUpdateEvent",
            Some(PlanId::new()),
            json!({"s": 1}),
            &clock,
        )
        .unwrap();
        let text = serde_json::to_string(&event).unwrap();
        assert!(text.contains("\"timestamp\":\"2025-01-01T00:00:00.000Z\""));
        assert_eq!(serde_json::from_str::<A2aEvent>(&text).unwrap(), event);
        assert!(A2aEvent::new("x", None, json!(3), &clock).is_err());
    }
}
