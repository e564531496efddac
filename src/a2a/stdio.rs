//! The local transport: newline-delimited JSON-RPC 2.0 over a byte stream
//! (the agent's stdin and stdout when a frontend spawns it as a subprocess).
//!
//! One request (or batch) per line in, one reply per line out, nothing for
//! notifications. Lines are read with a hard length cap, so a client can
//! neither exhaust memory nor wedge the loop; blank lines are skipped; every
//! other line gets a reply, and the next line is served normally.

use std::io::{self, BufRead, Write};

use serde_json::{Map, Value};

use super::events::{TASK_ARTIFACT_UPDATE, TASK_STATUS_UPDATE};
use super::facade::A2aLocalFacade;
use super::stream::Dispatch;

/// How long a streamed answer may stay silent before the line transport
/// moves on to the next request (stdio serves one request at a time).
const STREAM_IDLE: std::time::Duration = std::time::Duration::from_secs(1);
use super::models::A2aEvent;

/// What a [`serve_lines`] run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServeStats {
    /// Lines that held a message.
    pub messages: u64,
    /// Replies written.
    pub replies: u64,
    /// Event notifications written.
    pub notifications: u64,
    /// Lines rejected for exceeding the length cap.
    pub oversized: u64,
    /// Blank lines skipped.
    pub blank: u64,
}

/// The JSON-RPC notification method carrying events of `event_type` on the
/// vendor event feed (`task/statusUpdate`, `task/artifactUpdate`).
#[must_use]
pub fn notification_method(event_type: &str) -> &str {
    match event_type {
        TASK_STATUS_UPDATE => "task/statusUpdate",
        TASK_ARTIFACT_UPDATE => "task/artifactUpdate",
        other => other,
    }
}

/// The vendor-feed notification for an event:
/// `{"jsonrpc":"2.0","method":"task/statusUpdate","params":{…data, "eventId", "timestamp"}}`.
#[must_use]
pub fn event_notification(event: &A2aEvent) -> Value {
    let mut params: Map<String, Value> = event.data.clone();
    params
        .entry("eventId")
        .or_insert_with(|| Value::String(event.event_id.to_string()));
    params
        .entry("timestamp")
        .or_insert_with(|| Value::String(event.timestamp_string()));
    serde_json::json!({
        "jsonrpc": "2.0",
        "method": notification_method(&event.event_type),
        "params": params,
    })
}

enum Line {
    Eof,
    Message(Vec<u8>),
    TooLong(usize),
}

/// Reads one line of at most `max` bytes; a longer line is consumed to its end
/// (without keeping it) and reported with its length.
fn read_line(reader: &mut dyn BufRead, max: usize, buf: &mut Vec<u8>) -> io::Result<Line> {
    buf.clear();
    let mut total = 0_usize;
    let mut saw_any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if !saw_any {
                Line::Eof
            } else if total > max {
                Line::TooLong(total)
            } else {
                Line::Message(std::mem::take(buf))
            });
        }
        saw_any = true;
        let (piece, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (chunk.get(..at).unwrap_or_default(), Some(at + 1)),
            None => (chunk, None),
        };
        total = total.saturating_add(piece.len());
        if total <= max {
            buf.extend_from_slice(piece);
        } else {
            buf.clear();
        }
        let consumed = done.unwrap_or(chunk.len());
        reader.consume(consumed);
        if done.is_some() {
            return Ok(if total > max {
                Line::TooLong(total)
            } else {
                Line::Message(std::mem::take(buf))
            });
        }
    }
}

/// Serves `facade` over newline-delimited JSON-RPC until `reader` ends.
///
/// After each message, events buffered for subscriptions made with
/// `_cleveragents/event/subscribe` are written as notification lines.
/// Lines longer than the facade's `max_request_bytes` get a -32600 reply.
///
/// # Errors
/// Only I/O errors of `reader` or `writer`; bad input never ends the loop.
pub fn serve_lines(
    facade: &A2aLocalFacade,
    reader: &mut dyn BufRead,
    writer: &mut dyn Write,
) -> io::Result<ServeStats> {
    let max = facade.limits().max_request_bytes;
    let mut stats = ServeStats::default();
    let mut buf = Vec::new();
    loop {
        let mut stream = None;
        let reply = match read_line(reader, max, &mut buf)? {
            Line::Eof => return Ok(stats),
            Line::TooLong(len) => {
                stats.oversized += 1;
                let detail = super::A2aError::invalid_request(format!(
                    "message of {len} bytes exceeds the limit of {max} bytes"
                ))
                .to_detail(super::ErrorFamily::Vendor);
                Some(super::wire::detail_bytes("null", &detail))
            }
            Line::Message(line) => {
                let trimmed = line.trim_ascii();
                if trimmed.is_empty() {
                    stats.blank += 1;
                    continue;
                }
                stats.messages += 1;
                match facade.handle_json(trimmed, None) {
                    Dispatch::NoReply => None,
                    Dispatch::Reply(reply) => Some(reply),
                    Dispatch::Stream(s) => {
                        stream = Some(s);
                        None
                    }
                }
            }
        };
        // A streamed answer is one line per response, all with the request's id.
        if let Some(stream) = stream {
            for item in stream.collect_until_idle(STREAM_IDLE) {
                writer.write_all(&item.response)?;
                writer.write_all(b"\n")?;
                stats.replies += 1;
            }
        }
        if let Some(reply) = reply {
            writer.write_all(&reply)?;
            writer.write_all(b"\n")?;
            stats.replies += 1;
        }
        if let Some(queue) = facade.event_queue() {
            for id in queue.buffered_subscriptions() {
                for event in queue.drain(id) {
                    serde_json::to_writer(&mut *writer, &event_notification(&event))?;
                    writer.write_all(b"\n")?;
                    stats.notifications += 1;
                }
            }
        }
        writer.flush()?;
    }
}
