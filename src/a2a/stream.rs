//! Streamed answers: a request whose method streams yields a sequence of
//! JSON-RPC responses carrying the request's id (what A2A clients expect in
//! each SSE `data:` line).

use std::collections::VecDeque;
use std::time::Duration;

use super::events::EventReceiver;
use super::sse::SseFrame;
use super::standard::StreamPlan;
use super::task::StreamEvent;
use super::v1;
use super::version::A2aVersion;
use super::wire::result_reply;

/// The outcome of [`A2aLocalFacade::handle_json`](super::A2aLocalFacade::handle_json).
#[derive(Debug)]
#[non_exhaustive]
pub enum Dispatch {
    /// Nothing to send back (notifications only).
    NoReply,
    /// One reply (a response or a batch of them).
    Reply(Vec<u8>),
    /// A stream of responses to one request.
    Stream(ResponseStream),
}

/// One streamed response.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamItem {
    /// The payload's kind: `task`, `message`, `status-update`, `artifact-update`.
    pub event: &'static str,
    /// A unique id (the SSE `id:`).
    pub id: String,
    /// The JSON-RPC response bytes (the SSE `data:`).
    pub response: Vec<u8>,
}

impl StreamItem {
    /// The item as an SSE frame.
    #[must_use]
    pub fn to_sse(&self) -> SseFrame {
        SseFrame::new(
            self.event,
            self.id.clone(),
            String::from_utf8_lossy(&self.response).into_owned(),
        )
    }
}

/// What [`ResponseStream::next_item`] found.
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamNext {
    /// A response.
    Item(StreamItem),
    /// Nothing arrived within the wait; the stream is still open.
    Idle,
    /// The stream is over.
    End,
}

/// The responses to one streaming request. Events known when the request was
/// handled come first; a resubscription then waits for live events until the
/// task reaches a final state.
#[derive(Debug)]
pub struct ResponseStream {
    id: String,
    version: A2aVersion,
    pending: VecDeque<StreamEvent>,
    live: Option<EventReceiver>,
    finished: bool,
}

impl ResponseStream {
    pub(crate) fn new(id: &str, version: A2aVersion, plan: StreamPlan) -> Self {
        Self {
            id: id.to_owned(),
            version,
            pending: plan.initial.into(),
            live: plan.live,
            finished: false,
        }
    }

    fn item(&mut self, event: &StreamEvent, id: String) -> StreamItem {
        if event.is_final() {
            self.finished = true;
        }
        let json = match self.version {
            A2aVersion::V0_3 => serde_json::to_string(event),
            A2aVersion::V1_0 => serde_json::to_string(&v1::stream_event_to_v1(event)),
        }
        .unwrap_or_else(|_| "null".to_owned());
        StreamItem {
            event: event.kind(),
            id,
            response: result_reply(&self.id, &json),
        }
    }

    /// The next response, waiting at most `wait` for a live event.
    pub fn next_item(&mut self, wait: Duration) -> StreamNext {
        if self.finished {
            return StreamNext::End;
        }
        if let Some(event) = self.pending.pop_front() {
            return StreamNext::Item(self.item(&event, ulid::Ulid::new().to_string()));
        }
        let Some(live) = &self.live else {
            self.finished = true;
            return StreamNext::End;
        };
        match live.recv_timeout(wait) {
            Some(a2a_event) => {
                let id = a2a_event.event_id.to_string();
                match serde_json::from_value::<StreamEvent>(serde_json::Value::Object(
                    a2a_event.data,
                )) {
                    Ok(event) => StreamNext::Item(self.item(&event, id)),
                    Err(_) => StreamNext::Idle,
                }
            }
            None => StreamNext::Idle,
        }
    }

    /// Every response until the stream ends or stays idle for `idle`.
    #[must_use]
    pub fn collect_until_idle(mut self, idle: Duration) -> Vec<StreamItem> {
        let mut out = Vec::new();
        while let StreamNext::Item(item) = self.next_item(idle) {
            out.push(item);
        }
        out
    }
}
