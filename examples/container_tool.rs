//! A container tool declared in YAML, run under bubblewrap when it is
//! available (feature `bwrap` and a working `bwrap`), under the fake runtime
//! otherwise; the output says which.
//!
//! Run with `cargo run --example container_tool --features bwrap`
//! (or without the feature to see the fake runtime).

use std::error::Error;
use std::sync::Arc;

use cleveragents::{
    ContainerRuntime, ContainerToolExecutor, ContainerToolSpec, ExecutorConfig, FakeRuntime,
    InMemoryResourceRegistry, ToolInvocation,
};

const TOOL: &str = r#"
name: demo/word-count
type: container-tool
image: host
command: ["/usr/bin/wc", "-w"]
mounts:
  - source: "{{resource.docs.path}}"
    target: "/docs"
    readonly: true
workdir: /docs
environment:
  LC_ALL: "C"
timeout: 10
"#;

fn runtime() -> (Arc<dyn ContainerRuntime>, &'static str) {
    #[cfg(feature = "bwrap")]
    {
        let bwrap = cleveragents::BwrapRuntime::new();
        if bwrap.is_available() {
            return (Arc::new(bwrap), "bubblewrap (real sandbox)");
        }
    }
    (
        Arc::new(FakeRuntime::new()),
        "the fake runtime (nothing executed; build with `--features bwrap` and install bubblewrap for a real sandbox)",
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    // A directory the tool may read, registered as the resource `docs`.
    let docs = std::env::temp_dir().join(format!("cleveragents-example-{}", std::process::id()));
    std::fs::create_dir_all(&docs)?;
    std::fs::write(
        docs.join("README.txt"),
        "tools run isolated behind one interface\n",
    )?;
    let resources = Arc::new(InMemoryResourceRegistry::new());
    resources.insert("docs", &docs);

    let (runtime, which) = runtime();
    println!("running under {which}");
    let executor = ContainerToolExecutor::new(runtime, resources)
        .with_config(ExecutorConfig::default().output_cap(64 * 1024));
    executor.register(ContainerToolSpec::from_yaml_str(TOOL)?)?;

    let call = ToolInvocation::new("demo/word-count".parse()?).arg("README.txt");
    let run = executor.execute(&call)?;
    println!("steps:     {:?}", run.steps);
    println!("container: {} (removed: {})", run.container, run.removed);
    println!(
        "exit:      {:?} after {:?}",
        run.result.exit_code, run.result.duration
    );
    println!("stdout:    {}", run.result.stdout.trim_end());

    // Arguments reach the program as argv entries: no shell interprets them.
    let hostile = ToolInvocation::new("demo/word-count".parse()?).arg("$(touch /tmp/pwned)");
    let run = executor.execute(&hostile)?;
    println!(
        "hostile argument: exit {:?}, stderr: {}",
        run.result.exit_code,
        run.result.stderr.trim_end()
    );

    std::fs::remove_dir_all(&docs)?;
    Ok(())
}
