//! Running a runtime's program with a timeout and capped output capture.

use std::io::{self, Read};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::runtime::RunOutcome;

/// Reads `stream` to its end, keeping at most `cap` bytes; reading on past the
/// cap keeps the child from blocking on a full pipe.
fn drain(mut stream: impl Read, cap: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut over = false;
    let mut buf = [0_u8; 8192];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let chunk = buf.get(..n).unwrap_or_default();
                let room = cap.saturating_sub(kept.len());
                if chunk.len() > room {
                    over = true;
                }
                kept.extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    (kept, over)
}

fn wait_until(
    child: &mut Child,
    deadline: Instant,
) -> io::Result<Option<std::process::ExitStatus>> {
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Spawns `command` with stdin closed and both outputs captured; kills it
/// (after calling `before_kill`, for runtimes that must stop a container by
/// name) when `timeout` passes.
pub(crate) fn run_captured(
    mut command: Command,
    timeout: Duration,
    cap: usize,
    before_kill: impl FnOnce(),
) -> io::Result<RunOutcome> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let out_reader = thread::spawn(move || stdout.map(|s| drain(s, cap)).unwrap_or_default());
    let err_reader = thread::spawn(move || stderr.map(|s| drain(s, cap)).unwrap_or_default());

    // Timeouts are validated to at most a day; the clamp only guards the addition.
    let start = Instant::now();
    let deadline = start
        .checked_add(timeout.min(Duration::from_secs(7 * 86_400)))
        .unwrap_or(start);
    let (status, timed_out) = match wait_until(&mut child, deadline) {
        Ok(Some(status)) => (Some(status), false),
        Ok(None) => {
            before_kill();
            let _ = child.kill();
            (child.wait().ok(), true)
        }
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
    };
    let (stdout, t1) = out_reader.join().unwrap_or_default();
    let (stderr, t2) = err_reader.join().unwrap_or_default();
    Ok(RunOutcome {
        exit_code: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        stdout,
        stderr,
        truncated: t1 || t2,
        timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drain_caps_and_flags() {
        let data = vec![7_u8; 20_000];
        let (kept, over) = drain(&data[..], 100);
        assert_eq!(kept.len(), 100);
        assert!(over);
        let (kept, over) = drain(&data[..], 20_000);
        assert_eq!(kept.len(), 20_000);
        assert!(!over);
    }
}
