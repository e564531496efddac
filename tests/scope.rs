//! Scope chain resolution through the public API.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::sync::Arc;

use chrono::TimeDelta;
use cleveragents::{
    Clock, DependencyGraphResolver, FileInfo, InMemoryCoverage, InMemoryDependencyGraph,
    InMemoryFileMetadata, InMemoryPersonas, ManualClock, PersonaScope, PersonaScopeResolver,
    PlanId, RecentlyModifiedResolver, ReferenceResolver, ResolutionContext, Scope, ScopeBounds,
    ScopeChainResolver, ScopeError, ScopeKind, ScopeRegistry, TestCoverageResolver,
    conventional_test_paths,
};
use proptest::prelude::*;

fn personas() -> InMemoryPersonas {
    let p = InMemoryPersonas::new();
    let mut scope = PersonaScope::default();
    scope.projects = vec!["api".into(), "web".into()];
    p.set_persona("reviewer", scope);
    p.add_project("billing");
    p
}

#[test]
fn persona_and_reference_resolvers() {
    let p = Arc::new(personas());
    let plan = PlanId::new();
    p.add_plan(plan);
    let registry = ScopeRegistry::new();
    registry
        .register_resolver(
            PersonaScopeResolver::NAME,
            0,
            PersonaScopeResolver::new(p.clone()),
        )
        .unwrap();
    registry
        .register_resolver(ReferenceResolver::NAME, 10, ReferenceResolver::new(p))
        .unwrap();
    let ctx = ResolutionContext::new(
        Some("reviewer"),
        format!(
            r#"Compare @billing with @api, see @plan:{plan} and @"docs/Design Notes.md"; not @nowhere or @plan:{}."#,
            PlanId::new()
        ),
    );
    let r = registry.resolve(Scope::new(), &ctx).unwrap();
    assert_eq!(r.scope.ids(ScopeKind::Project), ["api", "web", "billing"]);
    assert_eq!(r.scope.ids(ScopeKind::Plan), [plan.to_string().as_str()]);
    assert_eq!(r.scope.ids(ScopeKind::File), ["docs/Design Notes.md"]);
    let notes = r.scope.notes();
    assert_eq!(notes.len(), 2);
    assert!(notes[0].starts_with("unknown reference @nowhere"));
    assert!(notes[1].starts_with("unknown reference @plan:"));
    assert_eq!(
        r.reports[1].notes, notes,
        "the notes are in the reference resolver's report"
    );
    assert_eq!(r.scope.items()[0].added_by, "cleveragents/persona");
    assert_eq!(
        r.scope.items()[0].reason,
        "in the scope of persona `reviewer`"
    );
}

#[test]
fn dependencies_are_transitive_bounded_and_cycle_safe() {
    let g = InMemoryDependencyGraph::new();
    g.add_dependency((ScopeKind::Project, "api"), (ScopeKind::Resource, "db"));
    g.add_dependency((ScopeKind::Resource, "db"), (ScopeKind::Project, "schema"));
    g.add_dependency((ScopeKind::Project, "schema"), (ScopeKind::Project, "api"));
    g.add_dependency((ScopeKind::Project, "schema"), (ScopeKind::Project, "far"));
    let mut base = Scope::new();
    base.add(ScopeKind::Project, "api", "test/base", "given");
    let deep = DependencyGraphResolver::new(Arc::new(g.clone()), 10)
        .resolve(base.clone(), &ResolutionContext::default())
        .unwrap();
    let ids: Vec<(ScopeKind, &str)> = deep
        .items()
        .iter()
        .map(|i| (i.kind, i.id.as_str()))
        .collect();
    assert_eq!(
        ids,
        [
            (ScopeKind::Project, "api"),
            (ScopeKind::Resource, "db"),
            (ScopeKind::Project, "schema"),
            (ScopeKind::Project, "far")
        ]
    );
    assert_eq!(
        deep.items()[2].reason,
        "a dependency of resource `db` (depth 2)"
    );
    let shallow = DependencyGraphResolver::new(Arc::new(g), 1)
        .resolve(base, &ResolutionContext::default())
        .unwrap();
    assert_eq!(shallow.len(), 2);
}

#[test]
fn recent_files_newest_first_within_the_window() {
    let clock = ManualClock::default();
    let now = clock.now();
    let files = InMemoryFileMetadata::new();
    files.add_file("api", FileInfo::new("old.rs", now - TimeDelta::days(30)));
    files.add_file("api", FileInfo::new("b.rs", now - TimeDelta::hours(2)));
    files.add_file("api", FileInfo::new("a.rs", now - TimeDelta::hours(1)));
    files.add_file("api", FileInfo::new("c.rs", now - TimeDelta::hours(3)));
    files.add_file("other", FileInfo::new("x.rs", now));
    let mut base = Scope::new();
    base.add(ScopeKind::Project, "api", "test/base", "given");
    let resolver =
        RecentlyModifiedResolver::new(Arc::new(files), Arc::new(clock), TimeDelta::days(1), 2);
    let scope = resolver
        .resolve(base, &ResolutionContext::default())
        .unwrap();
    assert_eq!(scope.ids(ScopeKind::File), ["a.rs", "b.rs"]);
}

#[test]
fn tests_from_coverage_or_convention() {
    let clock = ManualClock::default();
    let files = InMemoryFileMetadata::new();
    for path in [
        "src/auth.rs",
        "tests/auth.rs",
        "pkg/util.py",
        "tests/test_util.py",
        "web/app.ts",
        "web/app.spec.ts",
    ] {
        files.add_file("api", FileInfo::new(path, clock.now()));
    }
    let coverage = InMemoryCoverage::new();
    coverage.add("src/login.rs", "tests/login_flow.rs");
    let mut base = Scope::new();
    base.add(ScopeKind::Project, "api", "test/base", "given");
    for f in [
        "src/auth.rs",
        "pkg/util.py",
        "web/app.ts",
        "src/login.rs",
        "src/untested.rs",
    ] {
        base.add(ScopeKind::File, f, "test/base", "given");
    }
    let scope = TestCoverageResolver::new(Arc::new(coverage), Arc::new(files))
        .resolve(base, &ResolutionContext::default())
        .unwrap();
    let added: Vec<&str> = scope
        .items()
        .iter()
        .filter(|i| i.added_by == TestCoverageResolver::NAME)
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(
        added,
        [
            "tests/auth.rs",
            "tests/test_util.py",
            "web/app.spec.ts",
            "tests/login_flow.rs"
        ]
    );
    assert_eq!(conventional_test_paths("pkg/x.go"), ["pkg/x_test.go"]);
    assert!(conventional_test_paths("README.md").is_empty());
}

#[derive(Debug)]
struct Adds(&'static str);

impl ScopeChainResolver for Adds {
    fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        base.add(ScopeKind::File, self.0, "test/adds", "for the test");
        Ok(base)
    }
}

#[derive(Debug)]
struct Fails;

impl ScopeChainResolver for Fails {
    fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        base.add(ScopeKind::File, "poison", "test/fails", "half done");
        Err("the index is offline".to_owned())
    }
}

#[derive(Debug)]
struct Panics;

impl ScopeChainResolver for Panics {
    fn resolve(&self, _: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        panic!("resolver bug")
    }
}

#[derive(Debug)]
struct Reverses;

impl ScopeChainResolver for Reverses {
    fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        base.sort_by_key(|i| i.id.clone());
        base.remove(ScopeKind::File, "b");
        Ok(base)
    }
}

#[test]
fn order_isolation_strict_mode_and_explanations() {
    let registry = ScopeRegistry::new();
    registry
        .register_resolver("z-org/first", 1, Adds("a"))
        .unwrap();
    registry
        .register_resolver("a-org/second", 1, Adds("b"))
        .unwrap();
    registry
        .register_resolver("m-org/early", 0, Adds("c"))
        .unwrap();
    registry.register_resolver("x-org/fails", 2, Fails).unwrap();
    registry
        .register_resolver("x-org/panics", 3, Panics)
        .unwrap();
    registry
        .register_resolver("x-org/reverses", 4, Reverses)
        .unwrap();
    let names: Vec<String> = registry
        .resolvers()
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(
        names,
        [
            "m-org/early",
            "a-org/second",
            "z-org/first",
            "x-org/fails",
            "x-org/panics",
            "x-org/reverses"
        ]
    );
    let r = registry
        .resolve(Scope::new(), &ResolutionContext::default())
        .unwrap();
    assert_eq!(
        r.scope.ids(ScopeKind::File),
        ["a", "c"],
        "sorted, b removed, nothing from the failures"
    );
    assert_eq!(r.reports[3].error.as_deref(), Some("the index is offline"));
    assert_eq!(r.reports[4].error.as_deref(), Some("the resolver panicked"));
    assert!(r.reports[5].reordered);
    assert_eq!(r.reports[5].removed, ["file:b"]);
    let text = r.to_string();
    assert!(
        text.contains("x-org/fails: failed (the index is offline); its changes were discarded"),
        "{text}"
    );
    assert!(text.ends_with("2 item(s) in scope"));

    let strict = ScopeRegistry::new().strict(true);
    strict.register_resolver("x-org/fails", 0, Fails).unwrap();
    assert_eq!(
        strict
            .resolve(Scope::new(), &ResolutionContext::default())
            .unwrap_err(),
        ScopeError::Resolver {
            resolver: "x-org/fails".into(),
            reason: "the index is offline".into()
        }
    );
    registry.set_enabled("x-org/fails", false).unwrap();
    assert_eq!(
        registry
            .resolve(Scope::new(), &ResolutionContext::default())
            .unwrap()
            .reports
            .len(),
        5
    );
    assert!(matches!(
        registry.register_resolver("z-org/first", 0, Fails),
        Err(ScopeError::Registration { .. })
    ));
    for bad in ["noslash", "Upper/case", "a/", "/b", "a b/c"] {
        assert!(registry.register_resolver(bad, 0, Fails).is_err(), "{bad}");
    }
    assert!(matches!(
        registry.set_enabled("no/such", true),
        Err(ScopeError::UnknownResolver(_))
    ));
}

#[derive(Debug)]
struct Many(usize, &'static str);

impl ScopeChainResolver for Many {
    fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        for i in 0..self.0 {
            base.add(
                ScopeKind::File,
                format!("{}-{i}", self.1),
                "test/many",
                "lots",
            );
        }
        Ok(base)
    }
}

#[test]
fn bounds_truncate_and_say_so() {
    let mut bounds = ScopeBounds::default();
    bounds.max_items = 7;
    bounds.max_added_per_resolver = 5;
    let registry = ScopeRegistry::new().with_bounds(bounds);
    registry
        .register_resolver("t-org/a", 0, Many(8, "a"))
        .unwrap();
    registry
        .register_resolver("t-org/b", 1, Many(4, "b"))
        .unwrap();
    let r = registry
        .resolve(Scope::new(), &ResolutionContext::default())
        .unwrap();
    assert_eq!(r.reports[0].truncated, 3);
    assert_eq!(r.scope.len(), 7);
    assert_eq!(r.truncated, 2);
    assert!(r.to_string().contains("(2 dropped by the scope limit)"));
}

fn graph_strategy() -> impl Strategy<Value = Vec<(u8, u8)>> {
    prop::collection::vec((0_u8..12, 0_u8..12), 0..40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn resolution_is_deterministic_whatever_the_registration_order(order in Just(vec![0_usize, 1, 2, 3]).prop_shuffle()) {
        let build = |order: &[usize]| {
            let registry = ScopeRegistry::new();
            let all: [(&str, &'static str); 4] = [("p-org/a", "a"), ("p-org/b", "b"), ("p-org/c", "c"), ("p-org/d", "d")];
            for i in order {
                let (name, file) = all[*i];
                registry.register_resolver(name, 5, Adds(file)).unwrap();
            }
            registry.resolve(Scope::new(), &ResolutionContext::default()).unwrap()
        };
        prop_assert_eq!(build(&order), build(&[0, 1, 2, 3]));
    }

    #[test]
    fn the_scope_never_exceeds_its_bound(max in 0_usize..20, per in 0_usize..20, counts in prop::collection::vec(0_usize..15, 1..4)) {
        let mut bounds = ScopeBounds::default();
        bounds.max_items = max;
        bounds.max_added_per_resolver = per;
        let registry = ScopeRegistry::new().with_bounds(bounds);
        let labels = ["x", "y", "z", "w"];
        for (i, n) in counts.iter().enumerate() {
            registry.register_resolver(&format!("b-org/r{i}"), 0, Many(*n, labels[i])).unwrap();
        }
        let r = registry.resolve(Scope::new(), &ResolutionContext::default()).unwrap();
        prop_assert!(r.scope.len() <= max);
        for report in &r.reports {
            prop_assert!(report.added.len() <= per);
        }
    }

    #[test]
    fn persona_and_reference_resolution_are_idempotent(prompt in "[ a-z@/.\"-]{0,60}", actor in prop::option::of(Just("reviewer"))) {
        let p = Arc::new(personas());
        let ctx = ResolutionContext::new(actor, prompt);
        let persona = PersonaScopeResolver::new(p.clone());
        let reference = ReferenceResolver::new(p);
        let once = reference.resolve(persona.resolve(Scope::new(), &ctx).unwrap(), &ctx).unwrap();
        let twice = reference.resolve(persona.resolve(once.clone(), &ctx).unwrap(), &ctx).unwrap();
        prop_assert_eq!(once.items(), twice.items());
    }

    #[test]
    fn dependency_resolution_terminates_on_any_graph(edges in graph_strategy(), depth in 0_usize..20) {
        let g = InMemoryDependencyGraph::new();
        for (a, b) in &edges {
            g.add_dependency((ScopeKind::Project, &a.to_string()), (ScopeKind::Project, &b.to_string()));
        }
        let mut base = Scope::new();
        base.add(ScopeKind::Project, "0", "test/base", "given");
        let scope = DependencyGraphResolver::new(Arc::new(g), depth).resolve(base, &ResolutionContext::default()).unwrap();
        prop_assert!(scope.len() <= 12);
    }
}
