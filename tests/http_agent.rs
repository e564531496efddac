//! Starts the `http_agent` example on a free loopback port and drives it with
//! a plain HTTP/1.1 client: card, send, stream, get, list, cancel,
//! resubscribe, push configs, an unknown version, a malformed body.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cleveragents::a2a::{SseFrame, SseParser};
use serde_json::{Value, json};

struct Agent {
    child: Child,
    port: u16,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn example_binary() -> std::path::PathBuf {
    let mut dir = std::env::current_exe().unwrap();
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples")
        .join(format!("http_agent{}", std::env::consts::EXE_SUFFIX))
}

fn start(extra: &[&str]) -> Agent {
    let binary = example_binary();
    assert!(
        binary.exists(),
        "cargo test builds examples; missing {}",
        binary.display()
    );
    // Port 0: the agent binds a free port itself and says which, so
    // parallel tests can never race for the same one.
    let mut child = Command::new(binary)
        .arg("0")
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected banner {line:?}"));
    let port: u16 = url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let agent = Agent { child, port };
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the agent did not start listening"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    agent
}

struct HttpResponse {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpResponse {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

fn send(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    stream
}

fn read_response(stream: TcpStream) -> HttpResponse {
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let mut body = Vec::new();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        reader.read_to_end(&mut body).unwrap();
    }
    HttpResponse {
        status,
        headers,
        body,
    }
}

fn rpc(port: u16, version: Option<&str>, method: &str, params: Value) -> Value {
    let body =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .unwrap();
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(v) = version {
        headers.push(("A2A-Version", v));
    }
    let response = read_response(send(port, "POST", "/", &headers, &body));
    assert_eq!(
        response.status, 200,
        "JSON-RPC answers, errors included, are HTTP 200"
    );
    response.json()
}

fn message(text: &str) -> Value {
    json!({"kind": "message", "messageId": format!("m-{text}"), "role": "user", "parts": [{"kind": "text", "text": text}]})
}

fn sse_frames(response: &HttpResponse) -> Vec<SseFrame> {
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    SseParser::new().push(&response.body)
}

#[test]
fn a_real_client_can_drive_the_http_agent() {
    let agent = start(&[]);
    let port = agent.port;

    // The card, at both well-known paths, in the version asked for.
    for path in ["/.well-known/agent-card.json", "/.well-known/agent.json"] {
        let card = read_response(send(port, "GET", path, &[], b""));
        assert_eq!(card.status, 200);
        assert_eq!(card.json()["protocolVersion"], "0.3.0");
    }
    let card = read_response(send(
        port,
        "GET",
        "/.well-known/agent-card.json",
        &[("A2A-Version", "1.0")],
        b"",
    ));
    assert_eq!(
        card.json()["supportedInterfaces"][0]["url"],
        format!("http://127.0.0.1:{port}/")
    );

    // Send, get, list.
    let task = rpc(
        port,
        None,
        "message/send",
        json!({"message": message("hello")}),
    )["result"]
        .clone();
    assert_eq!(task["status"]["state"], "completed");
    let got = rpc(port, Some("1.0"), "GetTask", json!({"id": task["id"]}));
    assert_eq!(got["result"]["status"]["state"], "TASK_STATE_COMPLETED");
    let list = rpc(port, None, "tasks/list", json!({}));
    assert_eq!(list["result"]["totalSize"], 1);

    // Stream: SSE frames whose data are JSON-RPC responses with the request id.
    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": "s1", "method": "message/stream", "params": {"message": message("streamed")}})).unwrap();
    let response = read_response(send(port, "POST", "/", &[], &body));
    let frames = sse_frames(&response);
    let kinds: Vec<&str> = frames.iter().map(|f| f.event.as_deref().unwrap()).collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "status-update"]
    );
    for frame in &frames {
        let data: Value = serde_json::from_str(&frame.data).unwrap();
        assert_eq!(data["id"], "s1");
        assert!(frame.id.is_some());
    }

    // Cancel a finished task: not cancelable.
    let cancel = rpc(port, None, "tasks/cancel", json!({"id": task["id"]}));
    assert_eq!(cancel["error"]["code"], -32002);

    // Push configuration CRUD.
    let set = rpc(
        port,
        None,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": task["id"], "pushNotificationConfig": {"id": "p1", "url": "https://example.com/hook"}}),
    );
    assert_eq!(set["result"]["pushNotificationConfig"]["id"], "p1");
    let listed = rpc(
        port,
        Some("1.0"),
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task["id"]}),
    );
    assert_eq!(listed["result"]["configs"][0]["id"], "p1");
    let got = rpc(
        port,
        None,
        "tasks/pushNotificationConfig/get",
        json!({"id": task["id"], "pushNotificationConfigId": "p1"}),
    );
    assert_eq!(
        got["result"]["pushNotificationConfig"]["url"],
        "https://example.com/hook"
    );
    let deleted = rpc(
        port,
        None,
        "tasks/pushNotificationConfig/delete",
        json!({"id": task["id"], "pushNotificationConfigId": "p1"}),
    );
    assert_eq!(deleted["result"], Value::Null);

    // An unknown version, a malformed body, an oversized body, a notification.
    let wrong = rpc(
        port,
        Some("9.9"),
        "message/send",
        json!({"message": message("x")}),
    );
    assert_eq!(wrong["error"]["code"], -32009);
    let malformed = read_response(send(port, "POST", "/", &[], b"{not json"));
    assert_eq!(
        (malformed.status, malformed.json()["error"]["code"].as_i64()),
        (200, Some(-32700))
    );
    let huge = vec![b' '; 5 * 1024 * 1024];
    let oversized = read_response(send(port, "POST", "/", &[], &huge));
    assert_eq!(oversized.json()["error"]["code"], -32600);
    let silent = read_response(send(
        port,
        "POST",
        "/",
        &[],
        br#"{"jsonrpc":"2.0","method":"tasks/list"}"#,
    ));
    assert_eq!(silent.status, 204);
    let missing = read_response(send(port, "GET", "/nowhere", &[], b""));
    assert_eq!(missing.status, 404);
}

#[test]
fn resubscribe_streams_until_another_client_finishes_the_task() {
    let agent = start(&["--approval"]);
    let port = agent.port;
    let task = rpc(
        port,
        None,
        "message/send",
        json!({"message": message("deploy")}),
    )["result"]
        .clone();
    assert_eq!(task["status"]["state"], "input-required");

    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/resubscribe", "params": {"id": task["id"]}})).unwrap();
    let stream = send(port, "POST", "/", &[], &body);
    // Read the snapshot first, so the subscription is known to be live.
    let mut reader = BufReader::new(stream);
    let mut parser = SseParser::new();
    let mut frames = Vec::new();
    let mut line = String::new();
    while frames.is_empty() {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the stream ended early"
        );
        frames.extend(parser.push(line.as_bytes()));
    }
    assert_eq!(frames[0].event.as_deref(), Some("task"));

    let mut answer = message("approved");
    answer["contextId"] = task["contextId"].clone();
    let done = rpc(port, None, "message/send", json!({"message": answer}));
    assert_eq!(done["result"]["status"]["state"], "completed");

    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
    frames.extend(parser.push(&rest));
    let kinds: Vec<&str> = frames.iter().filter_map(|f| f.event.as_deref()).collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "status-update"]
    );
    let last: Value = serde_json::from_str(&frames.last().unwrap().data).unwrap();
    assert_eq!(
        (last["id"].as_i64(), last["result"]["final"].as_bool()),
        (Some(5), Some(true))
    );
}

#[test]
fn the_event_feed_resumes_from_last_event_id() {
    let agent = start(&[]);
    let port = agent.port;
    for text in ["one", "two"] {
        rpc(
            port,
            None,
            "message/send",
            json!({"message": message(text)}),
        );
    }
    // Read the replayed history from a fresh feed, then close it.
    let mut reader = BufReader::new(send(port, "GET", "/events", &[], b""));
    let mut parser = SseParser::new();
    let mut frames = Vec::new();
    let mut line = String::new();
    while frames.len() < 6 {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        frames.extend(parser.push(line.as_bytes()));
    }
    drop(reader);
    let first: Value = serde_json::from_str(&frames[0].data).unwrap();
    assert_eq!(first["method"], "task/statusUpdate");
    // Resume after the third event: the next one replayed is the fourth.
    let third = frames[2].id.clone().unwrap();
    let mut reader = BufReader::new(send(
        port,
        "GET",
        "/events",
        &[("Last-Event-ID", &third)],
        b"",
    ));
    let mut parser = SseParser::new();
    let mut resumed = Vec::new();
    while resumed.is_empty() {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0);
        resumed.extend(parser.push(line.as_bytes()));
    }
    assert_eq!(resumed[0].id, frames[3].id);
}
