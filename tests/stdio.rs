//! The local stdio transport under hostile input, in-process and as the
//! `stdio_agent` example binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

mod common;

use std::io::{BufReader, Cursor, Write};
use std::process::{Command, Stdio};

use cleveragents::A2aLocalFacade;
use cleveragents::a2a::serve_lines;
use serde_json::Value;

const PLAN_LIST: &str = r#"{"jsonrpc":"2.0","id":"next","method":"_cleveragents/plan/list"}"#;

fn serve(input: Vec<u8>) -> (Vec<Value>, cleveragents::a2a::ServeStats) {
    let facade = A2aLocalFacade::in_memory();
    let mut reader = BufReader::with_capacity(4096, Cursor::new(input));
    let mut out = Vec::new();
    let stats = serve_lines(&facade, &mut reader, &mut out).unwrap();
    let lines = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (lines, stats)
}

fn hostile_then_valid(hostile: &[u8]) -> Vec<Value> {
    let mut input = hostile.to_vec();
    input.push(b'\n');
    input.extend_from_slice(PLAN_LIST.as_bytes());
    input.push(b'\n');
    let (replies, _) = serve(input);
    let last = replies.last().unwrap();
    assert_eq!(
        last["id"], "next",
        "the request after hostile input is served"
    );
    assert_eq!(last["result"]["plans"], serde_json::json!([]));
    replies
}

#[test]
fn deep_nesting_gets_an_error_and_the_next_request_works() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let replies = hostile_then_valid(deep.as_bytes());
    assert_eq!(replies[0]["error"]["code"], -32600);
    let unclosed = "{\"a\":".repeat(100_000);
    let replies = hostile_then_valid(unclosed.as_bytes());
    assert_eq!(replies.len(), 2);
}

#[test]
fn a_ten_megabyte_line_gets_an_error_and_the_next_request_works() {
    let mut huge = br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'a', 10 * 1024 * 1024));
    huge.extend_from_slice(br#""}}"#);
    let replies = hostile_then_valid(&huge);
    assert_eq!(replies[0]["error"]["code"], -32600);
    assert!(
        replies[0]["error"]["data"]["reason"]
            .as_str()
            .unwrap()
            .contains("exceeds the limit")
    );
    // A huge line with no newline at all before the end of input.
    let (replies, stats) = serve(vec![b'x'; 5 * 1024 * 1024]);
    assert_eq!(replies.len(), 1);
    assert_eq!(stats.oversized, 1);
}

#[test]
fn invalid_utf8_gets_a_parse_error_and_the_next_request_works() {
    let replies = hostile_then_valid(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\x28\"}");
    assert_eq!(replies[0]["error"]["code"], -32700);
}

#[test]
fn empty_lines_are_skipped() {
    let (replies, stats) = serve(format!("\n\r\n   \n{PLAN_LIST}\n\n").into_bytes());
    assert_eq!(replies.len(), 1);
    assert_eq!(stats.blank, 4);
    assert_eq!(stats.messages, 1);
}

#[test]
fn notifications_are_silent_and_subscriptions_stream() {
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"_cleveragents/event/subscribe","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"_cleveragents/plan/use","params":{"action_name":"a"}}"#,
    ]
    .join("\n");
    let (lines, stats) = serve(input.into_bytes());
    assert_eq!(stats.replies, 1);
    assert_eq!(stats.notifications, 1);
    assert_eq!(lines[1]["method"], "task/statusUpdate");
    assert_eq!(lines[1]["params"]["state"], "completed");
    assert!(lines[1].get("id").is_none());
}

/// The example binary sits next to the test binaries' directory.
fn example_binary() -> std::path::PathBuf {
    let mut dir = std::env::current_exe().unwrap();
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join("examples")
        .join(format!("stdio_agent{}", std::env::consts::EXE_SUFFIX))
}

#[test]
fn the_stdio_agent_example_survives_bad_input_until_stdin_closes() {
    let binary = example_binary();
    assert!(
        binary.exists(),
        "cargo test builds examples; missing {}",
        binary.display()
    );
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(b"not json\n\n\xff\xfe\n").unwrap();
        stdin.write_all("[".repeat(100_000).as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.write_all(&vec![b' '; 10 * 1024 * 1024]).unwrap();
        stdin.write_all(b"x\n").unwrap();
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"_cleveragents/plan/list\"}\n")
            .unwrap();
        stdin.write_all(PLAN_LIST.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        // Dropping stdin closes it; the agent must then exit.
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(output.status.success());
    let replies: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let codes: Vec<Option<i64>> = replies
        .iter()
        .map(|r| r["error"]["code"].as_i64())
        .collect();
    assert_eq!(
        codes,
        [Some(-32700), Some(-32700), Some(-32600), Some(-32600), None]
    );
    assert_eq!(replies[4]["id"], "next");
}
