//! JSON-RPC 2.0 over bytes: envelope parsing, batches, notifications, limits.
//!
//! The wire path never builds a `serde_json::Value` for the envelope: it borrows
//! the request's members as raw JSON, echoes the `id` byte for byte (so `1`,
//! `1.0` and `"1"` come back exactly as sent), and hands the raw `params` to the
//! method handler, which deserializes them straight into its typed parameters.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::error::{A2aError, ErrorFamily};
use super::models::A2aErrorDetail;

/// Limits applied to wire input before it is parsed, so hostile input is
/// rejected with an error instead of exhausting the stack or memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct WireLimits {
    /// Largest accepted message, in bytes (default 4 MiB).
    pub max_request_bytes: usize,
    /// Deepest accepted nesting of arrays and objects (default 64).
    pub max_depth: usize,
    /// Most requests accepted in one batch (default 1,000).
    pub max_batch: usize,
}

impl Default for WireLimits {
    fn default() -> Self {
        Self {
            max_request_bytes: 4 * 1024 * 1024,
            max_depth: 64,
            max_batch: 1000,
        }
    }
}

impl WireLimits {
    /// Sets the largest accepted message size.
    #[must_use]
    pub fn max_request_bytes(mut self, bytes: usize) -> Self {
        self.max_request_bytes = bytes;
        self
    }

    /// Sets the deepest accepted nesting.
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Sets the largest accepted batch.
    #[must_use]
    pub fn max_batch(mut self, requests: usize) -> Self {
        self.max_batch = requests;
        self
    }
}

/// A method handler appends its JSON result to the buffer, or returns the error
/// object (whatever it appended is then discarded).
pub(crate) type HandlerResult = Result<(), A2aErrorDetail>;

/// The signature of the facade's method router as the wire sees it.
pub(crate) type Handler<'h> = &'h dyn Fn(&str, Option<&RawValue>, &mut Vec<u8>) -> HandlerResult;

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present_raw")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present_raw")]
    params: Option<&'a RawValue>,
}

/// Keeps an explicit `null` as `Some("null")` so it differs from an absent member.
fn present_raw<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

const NULL_ID: &str = "null";

/// Processes one wire message (a single request or a batch).
/// The error reply for `error` to the request with raw id `id`.
pub(crate) fn error_reply(id: &str, error: &A2aError, family: ErrorFamily) -> Vec<u8> {
    detail_bytes(id, &error.to_detail(family))
}

/// A success reply carrying the raw JSON `result`.
pub(crate) fn result_reply(id: &str, result: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(PREFIX.len() + id.len() + result.len() + 12);
    out.extend_from_slice(PREFIX);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(result.as_bytes());
    out.push(b'}');
    out
}

/// A checked message: a batch, or one request parsed once (or the error
/// reply its parsing produced).
pub(crate) enum Incoming<'a> {
    /// A JSON array.
    Batch(&'a str),
    /// One request object.
    Single(Request<'a>),
    /// Nothing to run: the reply to send, if any.
    Done(Option<Vec<u8>>),
}

/// Checks limits and encoding and parses a single request, exactly once.
pub(crate) fn receive<'a>(input: &'a [u8], limits: &WireLimits) -> Incoming<'a> {
    let text = match precheck(input, limits) {
        Ok(text) => text,
        Err(error) => return Incoming::Done(Some(error_bytes(NULL_ID, &error))),
    };
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
    if trimmed.starts_with('[') {
        return Incoming::Batch(text);
    }
    match parse_request(text) {
        Ok(request) => Incoming::Single(request),
        Err(reply) => Incoming::Done(reply),
    }
}

/// Runs a batch (each element parsed and run as a single request).
pub(crate) fn run_batch(text: &str, limits: &WireLimits, handler: Handler<'_>) -> Option<Vec<u8>> {
    dispatch_batch(text, limits, handler)
}

fn precheck<'a>(input: &'a [u8], limits: &WireLimits) -> Result<&'a str, A2aError> {
    if input.len() > limits.max_request_bytes {
        return Err(A2aError::invalid_request(format!(
            "message of {} bytes exceeds the limit of {} bytes",
            input.len(),
            limits.max_request_bytes
        )));
    }
    let text = std::str::from_utf8(input).map_err(|e| A2aError::Parse {
        reason: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
    })?;
    check_depth(text.as_bytes(), limits.max_depth)?;
    Ok(text)
}

/// Rejects nesting deeper than `max` without recursion (strings are skipped).
fn check_depth(bytes: &[u8], max: usize) -> Result<(), A2aError> {
    let mut depth = 0_usize;
    let mut in_string = false;
    let mut escaped = false;
    for (at, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > max {
                    return Err(A2aError::invalid_request(format!(
                        "nesting deeper than {max} levels at byte {at}"
                    )));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn dispatch_batch(text: &str, limits: &WireLimits, handler: Handler<'_>) -> Option<Vec<u8>> {
    let items: Vec<&RawValue> = match serde_json::from_str(text) {
        Ok(items) => items,
        Err(e) => return Some(error_bytes(NULL_ID, &parse_error(&e))),
    };
    if items.is_empty() {
        return Some(error_bytes(
            NULL_ID,
            &A2aError::invalid_request("a batch must contain at least one request"),
        ));
    }
    if items.len() > limits.max_batch {
        return Some(error_bytes(
            NULL_ID,
            &A2aError::invalid_request(format!(
                "batch of {} requests exceeds the limit of {}",
                items.len(),
                limits.max_batch
            )),
        ));
    }
    let mut out = Vec::with_capacity(items.len() * 64);
    out.push(b'[');
    let mut any = false;
    for item in items {
        if let Some(reply) = dispatch_single(item.get(), handler) {
            if any {
                out.push(b',');
            }
            out.extend_from_slice(&reply);
            any = true;
        }
    }
    out.push(b']');
    // A batch of notifications only gets no reply at all.
    any.then_some(out)
}

fn parse_error(e: &serde_json::Error) -> A2aError {
    A2aError::Parse {
        reason: e.to_string(),
    }
}

/// A request that passed the envelope checks.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    /// The raw id, `None` for a notification.
    pub(crate) id: Option<&'a str>,
    pub(crate) method: std::borrow::Cow<'a, str>,
    pub(crate) params: Option<&'a RawValue>,
}

/// Parses one request object; `Err` holds the error reply to send (`None`
/// when the request is a notification whose error must not be answered).
pub(crate) fn parse_request(text: &str) -> Result<Request<'_>, Option<Vec<u8>>> {
    let envelope: Envelope<'_> = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(e) if e.is_data() && serde_json::from_str::<IgnoredAny>(text).is_ok() => {
            let reason = if text.trim_start().starts_with('{') {
                strip_position(&e.to_string())
            } else {
                "a request must be a JSON object".to_owned()
            };
            return Err(Some(error_bytes(
                NULL_ID,
                &A2aError::invalid_request(reason),
            )));
        }
        Err(e) => return Err(Some(error_bytes(NULL_ID, &parse_error(&e)))),
    };
    let id = match envelope.id {
        None => None,
        Some(raw) => match raw.get().as_bytes().first() {
            Some(b'"' | b'n') => Some(raw.get()),
            // Echoed verbatim, so it must also be a number every client can read back.
            Some(b'-' | b'0'..=b'9')
                if serde_json::from_str::<serde_json::Number>(raw.get()).is_ok() =>
            {
                Some(raw.get())
            }
            Some(b'-' | b'0'..=b'9') => {
                return Err(Some(error_bytes(
                    NULL_ID,
                    &A2aError::invalid_request("`id` is a number out of the representable range"),
                )));
            }
            _ => {
                return Err(Some(error_bytes(
                    NULL_ID,
                    &A2aError::invalid_request("`id` must be a string, a number or null"),
                )));
            }
        },
    };
    let reply_id = id.unwrap_or(NULL_ID);
    let invalid = |reason: &str| {
        Err(Some(error_bytes(
            reply_id,
            &A2aError::invalid_request(reason),
        )))
    };

    match envelope.jsonrpc {
        Some(raw) if raw.get() == "\"2.0\"" => {}
        Some(raw) if serde_json::from_str::<&str>(raw.get()).ok() == Some("2.0") => {}
        Some(raw) => {
            return invalid(&format!(
                "`jsonrpc` must be \"2.0\", got {}",
                truncate(raw.get())
            ));
        }
        None => return invalid("`jsonrpc` is missing; it must be \"2.0\""),
    }
    let Some(method_raw) = envelope.method else {
        return invalid("`method` is missing");
    };
    let method: std::borrow::Cow<'_, str> = match serde_json::from_str::<&str>(method_raw.get()) {
        Ok(m) => m.into(),
        Err(_) => match serde_json::from_str::<String>(method_raw.get()) {
            Ok(m) => m.into(),
            Err(_) => return invalid("`method` must be a string"),
        },
    };
    if method.trim().is_empty() {
        return invalid("`method` must not be blank");
    }
    let params = match envelope.params {
        None => None,
        Some(raw) => match raw.get().as_bytes().first() {
            Some(b'{') => Some(raw),
            Some(b'[') => {
                let error = A2aError::InvalidParams {
                    param: None,
                    reason:
                        "positional (array) params are not supported; use named params (an object)"
                            .to_owned(),
                };
                return Err(id.map(|id| error_bytes(id, &error)));
            }
            _ => return invalid("`params` must be an object or an array"),
        },
    };
    Ok(Request { id, method, params })
}

/// One request object (already known to be syntactically valid inside a batch).
fn dispatch_single(text: &str, handler: Handler<'_>) -> Option<Vec<u8>> {
    match parse_request(text) {
        Ok(request) => run(request, handler),
        Err(reply) => reply,
    }
}

/// Runs one parsed request through the handler and builds its reply
/// (`None` for a notification).
pub(crate) fn run(request: Request<'_>, handler: Handler<'_>) -> Option<Vec<u8>> {
    let Request { id, method, params } = request;
    let method = method.as_ref();
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(PREFIX);
    out.extend_from_slice(id.unwrap_or(NULL_ID).as_bytes());
    let mark = out.len();
    out.extend_from_slice(br#","result":"#);
    let outcome = handler(method, params, &mut out);
    let _ = id?;
    match outcome {
        Ok(()) => out.push(b'}'),
        Err(detail) => {
            out.truncate(mark);
            write_error_member(&mut out, &detail);
        }
    }
    Some(out)
}

fn truncate(text: &str) -> String {
    if text.len() <= 40 {
        text.to_owned()
    } else {
        let mut end = 40;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", text.get(..end).unwrap_or_default())
    }
}

/// Drops serde_json's " at line L column C" suffix where the position refers to
/// an inner fragment and would mislead.
pub(crate) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message.get(..at).unwrap_or(message).to_owned(),
        None => message.to_owned(),
    }
}

const PREFIX: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

pub(crate) fn detail_bytes(id: &str, detail: &A2aErrorDetail) -> Vec<u8> {
    let mut out = Vec::with_capacity(PREFIX.len() + id.len() + 128);
    out.extend_from_slice(PREFIX);
    out.extend_from_slice(id.as_bytes());
    write_error_member(&mut out, detail);
    out
}

/// Appends `,"error":{…}}`, closing the response object.
fn write_error_member(out: &mut Vec<u8>, detail: &A2aErrorDetail) {
    out.extend_from_slice(br#","error":"#);
    let start = out.len();
    if serde_json::to_writer(&mut *out, detail).is_err() {
        // Serializing plain strings and numbers cannot fail; keep valid JSON regardless.
        out.truncate(start);
        out.extend_from_slice(br#"{"code":-32603,"message":"Internal error"}"#);
    }
    out.push(b'}');
}

fn error_bytes(id: &str, error: &A2aError) -> Vec<u8> {
    detail_bytes(id, &error.to_detail(ErrorFamily::Vendor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_scan_ignores_brackets_in_strings() {
        assert!(check_depth(br#"{"a":"[[[[[[[[[["}"#, 2).is_ok());
        assert!(check_depth(br#"{"a":"\"[[[["}"#, 1).is_ok());
        assert!(check_depth(b"[[[", 2).is_err());
    }

    #[test]
    fn strip_position_drops_the_suffix() {
        assert_eq!(
            strip_position("missing field `x` at line 1 column 2"),
            "missing field `x`"
        );
        assert_eq!(strip_position("plain"), "plain");
    }
}
