//! A small synchronous HTTP server exposing the facade as an A2A agent.
//!
//! ```text
//! cargo run --example http_agent -- 8080            # echo agent
//! cargo run --example http_agent -- 8080 --approval # tasks wait for a second message
//! ```
//!
//! - `POST /` (or `/a2a`): JSON-RPC 2.0. JSON-RPC errors are HTTP 200.
//!   Streaming methods answer `text/event-stream`; each SSE `data:` is a
//!   JSON-RPC response carrying the request id.
//! - `GET /.well-known/agent-card.json` and `/.well-known/agent.json`: the
//!   agent card, in the shape of the `A2A-Version` asked for (default 0.3).
//! - `GET /events`: the vendor event feed as SSE (`Last-Event-ID` resumes).
//!
//! The `A2A-Version` request header is passed through to the facade. The
//! server binds 127.0.0.1 only; port 0 picks a free port. The first line on
//! stdout says where it listens: `listening on http://127.0.0.1:PORT/`.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use cleveragents::a2a::{
    A2aVersion, AGENT_CARD_PATH, AGENT_JSON_PATH, AgentCard, Dispatch, EchoExecutor, EventFilter,
    SseFrame, StreamNext, event_notification, sse_comment,
};
use cleveragents::{A2aLocalFacade, EventId, SystemClock};
use tiny_http::{Header, Method, Request, Response, Server};

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn request_header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

fn respond(request: Request, status: u16, content_type: &str, body: Vec<u8>) {
    let mut response = Response::from_data(body).with_status_code(status);
    if let Some(h) = header("Content-Type", content_type) {
        response.add_header(h);
    }
    // The client may have gone; nothing to do about it.
    let _ = request.respond(response);
}

/// Opens an SSE response on the raw connection and returns its writer.
fn open_sse(request: Request) -> Box<dyn Write + Send> {
    let mut writer = request.into_writer();
    let _ = writer.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
    );
    let _ = writer.flush();
    writer
}

fn serve_card(request: Request, card: &AgentCard) {
    match A2aVersion::negotiate(request_header(&request, "A2A-Version")) {
        Ok(version) => {
            let body = serde_json::to_vec(&card.to_json(version)).unwrap_or_default();
            respond(request, 200, "application/json", body);
        }
        Err(e) => respond(request, 400, "text/plain", e.to_string().into_bytes()),
    }
}

fn serve_rpc(mut request: Request, facade: &A2aLocalFacade) {
    let limit = facade.limits().max_request_bytes;
    let mut body = Vec::new();
    let read = request
        .as_reader()
        .take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut body);
    if read.is_err() {
        respond(request, 400, "text/plain", b"unreadable body".to_vec());
        return;
    }
    // An oversized body is answered by the facade's own size check (-32600).
    let version = request_header(&request, "A2A-Version").map(str::to_owned);
    match facade.handle_json(&body, version.as_deref()) {
        Dispatch::NoReply => respond(request, 204, "application/json", Vec::new()),
        Dispatch::Reply(reply) => respond(request, 200, "application/json", reply),
        Dispatch::Stream(mut stream) => {
            let mut writer = open_sse(request);
            loop {
                let written = match stream.next_item(Duration::from_secs(15)) {
                    StreamNext::Item(item) => writer.write_all(item.to_sse().encode().as_bytes()),
                    StreamNext::Idle => writer.write_all(sse_comment("keep-alive").as_bytes()),
                    _ => break,
                };
                if written.and_then(|()| writer.flush()).is_err() {
                    break;
                }
            }
        }
        _ => respond(request, 500, "text/plain", b"unexpected dispatch".to_vec()),
    }
}

fn serve_events(request: Request, facade: &A2aLocalFacade) {
    let Some(queue) = facade.event_queue() else {
        respond(request, 404, "text/plain", b"no event queue".to_vec());
        return;
    };
    let after = request_header(&request, "Last-Event-ID").and_then(|id| EventId::parse(id).ok());
    // Subscribe before replaying so nothing published in between is lost.
    let live = queue.subscribe_channel(EventFilter::default(), 1024);
    let replay = queue.events_after(after, &EventFilter::default());
    let mut writer = open_sse(request);
    let frame = |event: &cleveragents::A2aEvent| {
        SseFrame::new(
            event.event_type.clone(),
            event.event_id.to_string(),
            event_notification(event).to_string(),
        )
        .encode()
    };
    for event in &replay {
        if writer.write_all(frame(event).as_bytes()).is_err() {
            return;
        }
    }
    let _ = writer.flush();
    loop {
        let written = match live.recv_timeout(Duration::from_secs(15)) {
            Some(event) => writer.write_all(frame(&event).as_bytes()),
            None => writer.write_all(sse_comment("keep-alive").as_bytes()),
        };
        if written.and_then(|()| writer.flush()).is_err() {
            return;
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args
        .next()
        .ok_or("usage: http_agent PORT [--approval]")?
        .parse()
        .map_err(|e| format!("PORT must be a number: {e}"))?;
    let approval = args.any(|a| a == "--approval");
    let requested = format!("127.0.0.1:{port}");
    let server =
        Server::http(&requested).map_err(|e| format!("cannot listen on {requested}: {e}"))?;
    let address = server
        .server_addr()
        .to_ip()
        .ok_or("the server is not on an IP socket")?;
    let url = format!("http://{address}/");
    let executor = if approval {
        EchoExecutor::requiring_approval()
    } else {
        EchoExecutor::new()
    };
    let card = AgentCard::cleveragents(url.clone());
    let facade = A2aLocalFacade::in_memory_builder(Arc::new(SystemClock))
        .agent_executor(Arc::new(executor))
        .agent_card(card.clone())
        .extended_agent_card(card.clone())
        .build();
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on {url}")?;
    stdout.flush()?;
    drop(stdout);
    for request in server.incoming_requests() {
        let facade = facade.clone();
        let card = card.clone();
        // One thread per request: streams may stay open.
        std::thread::spawn(move || {
            let path = request
                .url()
                .split('?')
                .next()
                .unwrap_or_default()
                .to_owned();
            match (request.method(), path.as_str()) {
                (Method::Get, AGENT_CARD_PATH | AGENT_JSON_PATH) => serve_card(request, &card),
                (Method::Get, "/events") => serve_events(request, &facade),
                (Method::Post, "/" | "/a2a") => serve_rpc(request, &facade),
                _ => respond(request, 404, "text/plain", b"not found".to_vec()),
            }
        });
    }
    Ok(())
}
