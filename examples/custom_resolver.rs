//! A host resolver registered beside the built-in ones, and the chain's
//! explanation of what each resolver did.
//!
//! Run with `cargo run --example custom_resolver`.

use std::error::Error;
use std::sync::Arc;

use chrono::TimeDelta;
use cleveragents::{
    Clock, DependencyGraphResolver, FileInfo, InMemoryCoverage, InMemoryDependencyGraph,
    InMemoryFileMetadata, InMemoryPersonas, ManualClock, PersonaScope, PersonaScopeResolver,
    RecentlyModifiedResolver, ReferenceResolver, ResolutionContext, Scope, ScopeChainResolver,
    ScopeKind, ScopeRegistry, TestCoverageResolver,
};

/// Adds the files the current user touched recently, as `git blame` would tell.
#[derive(Debug)]
struct GitBlameResolver {
    mine: Vec<&'static str>,
}

impl ScopeChainResolver for GitBlameResolver {
    fn resolve(&self, mut base: Scope, _context: &ResolutionContext) -> Result<Scope, String> {
        for path in &self.mine {
            base.add(
                ScopeKind::File,
                *path,
                "my-org/git-blame-resolver",
                "last changed by you",
            );
        }
        Ok(base)
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let clock = ManualClock::default();
    let now = clock.now();
    let personas = Arc::new(InMemoryPersonas::new());
    let mut reviewer = PersonaScope::default();
    reviewer.projects = vec!["api".into()];
    personas.set_persona("reviewer", reviewer);
    personas.add_project("billing");
    let graph = InMemoryDependencyGraph::new();
    graph.add_dependency(
        (ScopeKind::Project, "api"),
        (ScopeKind::Resource, "postgres"),
    );
    let files = Arc::new(InMemoryFileMetadata::new());
    files.add_file(
        "api",
        FileInfo::new("src/auth.rs", now - TimeDelta::hours(2)),
    );
    files.add_file(
        "api",
        FileInfo::new("tests/auth.rs", now - TimeDelta::days(10)),
    );
    files.add_file(
        "api",
        FileInfo::new("src/old.rs", now - TimeDelta::days(90)),
    );

    let registry = ScopeRegistry::new();
    registry.register_resolver(
        PersonaScopeResolver::NAME,
        0,
        PersonaScopeResolver::new(personas.clone()),
    )?;
    registry.register_resolver(
        ReferenceResolver::NAME,
        10,
        ReferenceResolver::new(personas),
    )?;
    registry.register_resolver(
        DependencyGraphResolver::NAME,
        20,
        DependencyGraphResolver::new(Arc::new(graph), 3),
    )?;
    registry.register_resolver(
        RecentlyModifiedResolver::NAME,
        30,
        RecentlyModifiedResolver::new(files.clone(), Arc::new(clock), TimeDelta::days(1), 10),
    )?;
    registry.register_resolver(
        "my-org/git-blame-resolver",
        35,
        GitBlameResolver {
            mine: vec!["src/session.rs"],
        },
    )?;
    registry.register_resolver(
        TestCoverageResolver::NAME,
        40,
        TestCoverageResolver::new(Arc::new(InMemoryCoverage::new()), files),
    )?;

    let context = ResolutionContext::new(
        Some("reviewer"),
        "Harden login in @billing and @src/login.rs; ask @nobody.",
    );
    let resolution = registry.resolve(Scope::new(), &context)?;
    println!("Chain:");
    for (name, priority, enabled) in registry.resolvers() {
        println!(
            "  {priority:>3} {name}{}",
            if enabled { "" } else { " (disabled)" }
        );
    }
    println!("\nWhat each resolver did:\n{resolution}\n");
    println!("In scope:");
    for item in resolution.scope.items() {
        println!(
            "  {:<9} {:<16} by {:<31} ({})",
            item.kind.as_str(),
            item.id,
            item.added_by,
            item.reason
        );
    }
    for note in resolution.scope.notes() {
        println!("note: {note}");
    }
    Ok(())
}
