//! Isolation of the bubblewrap runtime, tested for real.
//!
//! These tests need a working `bwrap`. When it is missing they say so and
//! pass, unless `CLEVERAGENTS_REQUIRE_BWRAP=1` is set (as the CI script does),
//! in which case its absence is a failure.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]
#![cfg(feature = "bwrap")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use cleveragents::{
    BwrapRuntime, ContainerRuntime, ContainerToolExecutor, ContainerToolSpec, ExecutorConfig,
    HOST_IMAGE, InMemoryResourceRegistry, Mount, RunOutcome, RunSpec, ToolInvocation,
};

fn runtime() -> Option<BwrapRuntime> {
    let rt = BwrapRuntime::new();
    if rt.is_available() {
        return Some(rt);
    }
    assert!(
        std::env::var_os("CLEVERAGENTS_REQUIRE_BWRAP").is_none(),
        "bwrap is required (CLEVERAGENTS_REQUIRE_BWRAP is set) but cannot create a sandbox"
    );
    eprintln!(
        "bubblewrap isolation test DID NOT RUN: `bwrap` is missing or cannot create a sandbox here"
    );
    None
}

/// A fresh host directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "cleveragents-bwrap-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sh(script: &str) -> RunSpec {
    let mut spec = RunSpec::new(
        "t",
        HOST_IMAGE,
        vec!["/bin/sh".into(), "-c".into(), script.into()],
    );
    spec.timeout = Duration::from_secs(20);
    spec
}

fn run(rt: &BwrapRuntime, spec: &RunSpec) -> RunOutcome {
    let out = rt.run(spec).unwrap();
    eprintln!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.exit_code,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn runs_with_only_the_given_environment() {
    let Some(rt) = runtime() else { return };
    let mut spec = sh("echo \"[$FOO][$HOME][$USER]\"; echo err >&2; exit 7");
    spec.env.insert("FOO".into(), "bar baz".into());
    let out = run(&rt, &spec);
    assert_eq!(out.exit_code, Some(7));
    assert_eq!(out.stdout, b"[bar baz][][]\n");
    assert_eq!(out.stderr, b"err\n");
    assert!(!out.timed_out && !out.truncated);
}

#[test]
fn read_only_mounts_refuse_writes_and_read_write_mounts_accept_them() {
    let Some(rt) = runtime() else { return };
    let ro = TempDir::new();
    let rw = TempDir::new();
    std::fs::write(ro.path().join("input.txt"), "hello").unwrap();
    let mut spec = sh("cat /in/input.txt; \
         if echo x > /in/new.txt 2>/dev/null; then echo ro-write-succeeded; fi; \
         echo written > /out/result.txt");
    spec.mounts.push(Mount::new(ro.path(), "/in", true));
    spec.mounts.push(Mount::new(rw.path(), "/out", false));
    let out = run(&rt, &spec);
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout, b"hello");
    assert!(!ro.path().join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(rw.path().join("result.txt")).unwrap(),
        "written\n"
    );
}

#[test]
fn the_host_filesystem_outside_mounts_is_invisible() {
    let Some(rt) = runtime() else { return };
    let secret = TempDir::new();
    std::fs::write(secret.path().join("secret"), "s3cret").unwrap();
    let host_path = secret.path().join("secret");
    let out = run(
        &rt,
        &sh(&format!(
            "ls -A /; for p in '{}' /etc/passwd /root /home; do \
               if [ -e \"$p\" ]; then echo \"VISIBLE $p\"; fi; done",
            host_path.display()
        )),
    );
    assert_eq!(out.exit_code, Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("VISIBLE"), "{stdout}");
    let mut top: Vec<&str> = stdout.lines().collect();
    top.sort_unstable();
    for entry in &top {
        assert!(
            [
                "bin", "dev", "lib", "lib32", "lib64", "proc", "sbin", "tmp", "usr"
            ]
            .contains(entry),
            "unexpected top-level entry `{entry}` in {top:?}"
        );
    }
}

#[test]
fn the_network_is_down() {
    let Some(rt) = runtime() else { return };
    let out = run(&rt, &sh("cat /proc/net/dev"));
    assert_eq!(out.exit_code, Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let interfaces: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once(':').map(|(name, _)| name.trim()))
        .collect();
    assert_eq!(
        interfaces,
        ["lo"],
        "only loopback, in a namespace of its own: {stdout}"
    );
}

fn processes_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(needle) {
                found.push(format!(
                    "{}: {cmdline}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

#[test]
fn the_timeout_kills_the_tool_and_leaves_no_process_behind() {
    let Some(rt) = runtime() else { return };
    // A sleep whose argument is unique to this run, to find it among processes.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let marker = format!("30.{}{nanos}", std::process::id());
    let mut spec = sh(&format!("sleep {marker} & sleep {marker}; echo never"));
    spec.timeout = Duration::from_millis(500);
    let started = Instant::now();
    let out = run(&rt, &spec);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("never"));
    let needle = format!("sleep {marker}");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_with(&needle);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "processes left behind: {left:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn output_over_the_cap_is_truncated_and_flagged() {
    let Some(rt) = runtime() else { return };
    let mut spec = sh("head -c 300000 /dev/zero | tr '\\0' x; echo done >&2");
    spec.output_cap = 1000;
    let out = run(&rt, &spec);
    assert_eq!(out.exit_code, Some(0), "the tool is not blocked by the cap");
    assert_eq!(out.stdout.len(), 1000);
    assert!(out.stdout.iter().all(|b| *b == b'x'));
    assert!(out.truncated);
    assert_eq!(out.stderr, b"done\n");
}

#[test]
fn a_yaml_container_tool_runs_under_bubblewrap() {
    let Some(rt) = runtime() else { return };
    let repo = TempDir::new();
    std::fs::create_dir_all(repo.path().join("src")).unwrap();
    std::fs::write(repo.path().join("src/main.py"), "print('hi')\n").unwrap();
    let resources = Arc::new(InMemoryResourceRegistry::new());
    resources.insert("git_dir", repo.path());
    let ex = ContainerToolExecutor::new(Arc::new(rt), resources)
        .with_config(ExecutorConfig::default().output_cap(4096));
    ex.register(
        ContainerToolSpec::from_yaml_str(
            r#"
name: my-org/count-lines
type: container-tool
image: host
command: ["/usr/bin/wc", "-l"]
mounts:
  - source: "{{resource.git_dir.path}}/src"
    target: "/workspace"
    readonly: true
workdir: /workspace
timeout: 20
"#,
        )
        .unwrap(),
    )
    .unwrap();
    let run = ex
        .execute(&ToolInvocation::new("my-org/count-lines".parse().unwrap()).arg("main.py"))
        .unwrap();
    assert!(run.result.succeeded(), "{:?}", run.result);
    assert_eq!(run.result.stdout, "1 main.py\n");
}
