//! Server-Sent Events: frame encoding and an incremental parser.
//!
//! Encoding then parsing gives back the same frame for any data without a
//! carriage return (SSE treats `\r`, `\n` and `\r\n` all as line breaks, and
//! data lines are joined with `\n`). The parser follows the HTML standard's
//! event-stream rules: comments start with `:`, a field's value loses one
//! leading space, unknown fields are ignored, a blank line dispatches.

use std::fmt::Write as _;

/// One SSE event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SseFrame {
    /// The `event:` name (`message` when absent).
    pub event: Option<String>,
    /// The `id:`, which clients send back as `Last-Event-ID` to resume.
    pub id: Option<String>,
    /// The `data:` payload (lines joined with `\n`).
    pub data: String,
    /// The `retry:` reconnection delay in milliseconds.
    pub retry: Option<u64>,
}

impl SseFrame {
    /// A frame with an event name, an id and data.
    #[must_use]
    pub fn new(event: impl Into<String>, id: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            event: Some(event.into()),
            id: Some(id.into()),
            data: data.into(),
            retry: None,
        }
    }

    /// The wire form, ending with the blank line that dispatches it.
    ///
    /// ```
    /// use cleveragents::a2a::{SseFrame, SseParser};
    ///
    /// let frame = SseFrame::new("status-update", "01J", "{\"a\":1}\n{\"b\":2}");
    /// let text = frame.encode();
    /// assert_eq!(text, "event: status-update\nid: 01J\ndata: {\"a\":1}\ndata: {\"b\":2}\n\n");
    /// let mut parser = SseParser::new();
    /// assert_eq!(parser.push(text.as_bytes()), vec![frame]);
    /// ```
    #[must_use]
    pub fn encode(&self) -> String {
        let mut out = String::with_capacity(self.data.len() + 64);
        // Names and ids cannot hold line breaks; they are cut at the first one.
        let single_line = |s: &str| s.split(['\r', '\n']).next().unwrap_or_default().to_owned();
        if let Some(event) = &self.event {
            let _ = writeln!(out, "event: {}", single_line(event));
        }
        if let Some(id) = &self.id {
            let _ = writeln!(out, "id: {}", single_line(id).replace('\0', ""));
        }
        if let Some(retry) = self.retry {
            let _ = writeln!(out, "retry: {retry}");
        }
        for line in split_lines(&self.data) {
            let _ = writeln!(out, "data: {line}");
        }
        out.push('\n');
        out
    }
}

/// A comment line (ignored by clients), e.g. a keep-alive.
#[must_use]
pub fn sse_comment(text: &str) -> String {
    let mut out = String::new();
    for line in split_lines(text) {
        let _ = writeln!(out, ": {line}");
    }
    out
}

fn split_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    loop {
        match rest.find(['\r', '\n']) {
            Some(at) => {
                lines.push(rest.get(..at).unwrap_or_default());
                let skip = if rest.get(at..at + 2) == Some("\r\n") {
                    2
                } else {
                    1
                };
                rest = rest.get(at + skip..).unwrap_or_default();
            }
            None => {
                lines.push(rest);
                return lines;
            }
        }
    }
}

/// An incremental SSE parser: feed bytes as they arrive, collect frames.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    after_cr: bool,
    event: Option<String>,
    data: Vec<String>,
    id: Option<String>,
    retry: Option<u64>,
    last_event_id: Option<String>,
    pending: bool,
}

/// Most bytes one line may hold; longer lines are cut (bounded memory).
pub const MAX_SSE_LINE: usize = 4 * 1024 * 1024;

impl SseParser {
    /// A parser at the start of a stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The last event id seen (what a client sends as `Last-Event-ID`).
    #[must_use]
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// Feeds bytes; returns the frames they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseFrame> {
        let mut out = Vec::new();
        for &b in bytes {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\r' | b'\n' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(frame) = self.line_done(&line) {
                        out.push(frame);
                    }
                }
                _ => {
                    self.after_cr = false;
                    if self.line.len() < MAX_SSE_LINE {
                        self.line.push(b);
                    }
                }
            }
        }
        out
    }

    fn line_done(&mut self, line: &[u8]) -> Option<SseFrame> {
        let line = String::from_utf8_lossy(line);
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => {
                self.event = Some(value.to_owned());
                self.pending = true;
            }
            "data" => {
                self.data.push(value.to_owned());
                self.pending = true;
            }
            "id" if !value.contains('\0') => {
                self.id = Some(value.to_owned());
                self.pending = true;
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
                self.pending = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseFrame> {
        if !self.pending {
            return None;
        }
        self.pending = false;
        let frame = SseFrame {
            event: self.event.take(),
            id: self.id.take(),
            data: std::mem::take(&mut self.data).join("\n"),
            retry: self.retry.take(),
        };
        if frame.id.is_some() {
            self.last_event_id.clone_from(&frame.id);
        }
        Some(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_standard_examples() {
        let mut p = SseParser::new();
        let frames = p.push(b": comment\r\ndata: first\r\ndata:second\r\n\r\nevent: x\nid: 7\nretry: 1000\ndata\n\n");
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].data, "first\nsecond");
        assert_eq!(frames[1].event.as_deref(), Some("x"));
        assert_eq!(frames[1].retry, Some(1000));
        assert_eq!(frames[1].data, "");
        assert_eq!(p.last_event_id(), Some("7"));
        // Bytes split anywhere, even inside a CRLF.
        let mut p = SseParser::new();
        let text = b"data: a\r\n\r\ndata: b\r\n\r\n";
        let mut frames = Vec::new();
        for chunk in text.chunks(1) {
            frames.extend(p.push(chunk));
        }
        assert_eq!(
            frames.iter().map(|f| f.data.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(sse_comment("keep-alive").starts_with(": keep-alive"));
    }
}
