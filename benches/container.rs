//! Container tools: loading the YAML definition, the executor's own cost per
//! call (on the fake runtime, which does no work) and, when bubblewrap is
//! available with the `bwrap` feature, a real sandboxed `true`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::hint::black_box;
use std::sync::Arc;

use cleveragents::{
    ContainerRuntime, ContainerToolExecutor, ContainerToolSpec, FakeRuntime,
    InMemoryResourceRegistry, ToolInvocation,
};
use criterion::{Criterion, criterion_main};

const TOOL: &str = r#"
name: my-org/python-linter
type: container-tool
image: "python:3.12-slim"
command: ["python", "-m", "pylint"]
mounts:
  - source: "{{resource.git_dir.path}}"
    target: "/workspace"
    readonly: true
environment:
  PYTHONPATH: "/workspace/src"
timeout: 60
"#;

fn executor(runtime: Arc<dyn ContainerRuntime>, yaml: &str) -> ContainerToolExecutor {
    let resources = Arc::new(InMemoryResourceRegistry::new());
    resources.insert("git_dir", "/usr");
    let ex = ContainerToolExecutor::new(runtime, resources);
    ex.register(ContainerToolSpec::from_yaml_str(yaml).unwrap())
        .unwrap();
    ex
}

fn bench(c: &mut Criterion) {
    c.bench_function("container_tool/load_yaml", |b| {
        b.iter(|| ContainerToolSpec::from_yaml_str(black_box(TOOL)).unwrap());
    });

    // A fresh fake per batch keeps its call log from growing without bound.
    let call = ToolInvocation::new("my-org/python-linter".parse().unwrap()).arg("src");
    c.bench_function("container_tool/execute_on_fake", |b| {
        b.iter_batched_ref(
            || executor(Arc::new(FakeRuntime::new()), TOOL),
            |ex| ex.execute(black_box(&call)).unwrap(),
            criterion::BatchSize::SmallInput,
        );
    });

    #[cfg(feature = "bwrap")]
    {
        let bwrap = cleveragents::BwrapRuntime::new();
        if bwrap.is_available() {
            let yaml = TOOL
                .replace("\"python:3.12-slim\"", "host")
                .replace("[\"python\", \"-m\", \"pylint\"]", "[\"/usr/bin/true\"]");
            let ex = executor(Arc::new(bwrap), &yaml);
            let mut group = c.benchmark_group("container_tool");
            group.sample_size(20);
            group.bench_function("execute_true_under_bwrap", |b| {
                b.iter(|| assert!(ex.execute(&call).unwrap().result.succeeded()));
            });
            group.finish();
        } else {
            eprintln!("bwrap benchmark skipped: bubblewrap unavailable");
        }
    }
}

/// Criterion's generated entry points (kept private, so no docs are required).
mod harness {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(harness::benches);
