//! The local A2A transport: a frontend spawns this agent and speaks
//! newline-delimited JSON-RPC 2.0 on its stdin and stdout.
//!
//! ```text
//! $ echo '{"jsonrpc":"2.0","id":1,"method":"session.create","params":{}}' | cargo run --example stdio_agent
//! {"jsonrpc":"2.0","id":1,"result":{"session_id":"01J…","status":"created"}}
//! ```
//!
//! Every service is the in-memory implementation. The agent runs until stdin
//! closes; bad input gets an error reply and never stops it.

use std::io::{self, BufWriter};

use cleveragents::A2aLocalFacade;
use cleveragents::a2a::serve_lines;

fn main() -> io::Result<()> {
    let facade = A2aLocalFacade::in_memory();
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut output = BufWriter::new(io::stdout().lock());
    let stats = serve_lines(&facade, &mut input, &mut output)?;
    eprintln!(
        "stdio agent: {} message(s), {} repl(ies), {} notification(s), {} oversized line(s)",
        stats.messages, stats.replies, stats.notifications, stats.oversized
    );
    Ok(())
}
