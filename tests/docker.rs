//! The docker CLI runtime against a live daemon, when one answers.
//!
//! Argument construction is unit-tested beside the runtime; this test needs a
//! daemon and an `alpine` image it can pull or already has. Without them it
//! says plainly that it did not run.
#![cfg(feature = "docker")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::time::Duration;

use cleveragents::{ContainerRuntime, DockerCliRuntime, RunSpec};

#[test]
fn runs_a_container_when_a_daemon_answers() {
    let rt = DockerCliRuntime::docker();
    if !rt.is_available() {
        eprintln!("docker live test DID NOT RUN: no docker daemon answered");
        return;
    }
    if let Err(e) = rt.ensure_image("alpine:3") {
        eprintln!("docker live test DID NOT RUN: image unavailable ({e})");
        return;
    }
    let mut spec = RunSpec::new(
        format!("cleveragents-live-{}", std::process::id()),
        "alpine:3",
        vec![
            "sh".into(),
            "-c".into(),
            "echo \"$GREETING\"; exit 3".into(),
        ],
    );
    spec.env.insert("GREETING".into(), "hello; world".into());
    spec.timeout = Duration::from_secs(60);
    let out = rt.run(&spec).unwrap();
    rt.remove(&spec.name).unwrap();
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(out.stdout, b"hello; world\n");
    // Removing twice is fine.
    rt.remove(&spec.name).unwrap();
}
