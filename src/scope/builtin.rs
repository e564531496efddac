//! The built-in resolvers and the ports they read.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use super::reference::Reference;
use super::{ResolutionContext, Scope, ScopeChainResolver, ScopeKind};
use crate::clock::Clock;
use crate::ids::PlanId;

/// The projects and plans an actor (persona) works on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PersonaScope {
    /// Projects, in order.
    pub projects: Vec<String>,
    /// Plans, in order.
    pub plans: Vec<PlanId>,
}

/// Where persona scopes come from. Implemented by hosts.
pub trait PersonaStore: Send + Sync + Debug + 'static {
    /// The scope of `actor`, if it has one.
    fn persona_scope(&self, actor: &str) -> Option<PersonaScope>;
}

/// What projects and plans exist (to tell a reference from a typo).
pub trait ProjectCatalog: Send + Sync + Debug + 'static {
    /// Whether a project of that name exists.
    fn project_exists(&self, name: &str) -> bool;
    /// Whether the plan exists.
    fn plan_exists(&self, plan_id: PlanId) -> bool;
}

#[derive(Debug, Default)]
struct Catalog {
    personas: HashMap<String, PersonaScope>,
    projects: HashSet<String>,
    plans: HashSet<PlanId>,
}

/// In-memory personas and project catalog.
#[derive(Debug, Clone, Default)]
pub struct InMemoryPersonas {
    inner: Arc<RwLock<Catalog>>,
}

impl InMemoryPersonas {
    /// Nothing known.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets an actor's scope (its projects and plans become known too).
    pub fn set_persona(&self, actor: &str, scope: PersonaScope) {
        let mut inner = self.inner.write();
        inner.projects.extend(scope.projects.iter().cloned());
        inner.plans.extend(scope.plans.iter().copied());
        inner.personas.insert(actor.to_owned(), scope);
    }

    /// Makes a project known.
    pub fn add_project(&self, name: &str) {
        self.inner.write().projects.insert(name.to_owned());
    }

    /// Makes a plan known.
    pub fn add_plan(&self, plan_id: PlanId) {
        self.inner.write().plans.insert(plan_id);
    }
}

impl PersonaStore for InMemoryPersonas {
    fn persona_scope(&self, actor: &str) -> Option<PersonaScope> {
        self.inner.read().personas.get(actor).cloned()
    }
}

impl ProjectCatalog for InMemoryPersonas {
    fn project_exists(&self, name: &str) -> bool {
        self.inner.read().projects.contains(name)
    }
    fn plan_exists(&self, plan_id: PlanId) -> bool {
        self.inner.read().plans.contains(&plan_id)
    }
}

/// Adds the actor's persona-scoped projects and plans (always active).
#[derive(Debug, Clone)]
pub struct PersonaScopeResolver {
    store: Arc<dyn PersonaStore>,
}

impl PersonaScopeResolver {
    /// The name it registers under by default.
    pub const NAME: &'static str = "cleveragents/persona";

    /// Over `store`.
    #[must_use]
    pub fn new(store: Arc<dyn PersonaStore>) -> Self {
        Self { store }
    }
}

impl ScopeChainResolver for PersonaScopeResolver {
    fn resolve(&self, mut base: Scope, context: &ResolutionContext) -> Result<Scope, String> {
        let Some(actor) = &context.actor else {
            return Ok(base);
        };
        let Some(persona) = self.store.persona_scope(actor) else {
            return Ok(base);
        };
        for project in persona.projects {
            base.add(
                ScopeKind::Project,
                project,
                Self::NAME,
                format!("in the scope of persona `{actor}`"),
            );
        }
        for plan in persona.plans {
            base.add(
                ScopeKind::Plan,
                plan.to_string(),
                Self::NAME,
                format!("in the scope of persona `{actor}`"),
            );
        }
        Ok(base)
    }
}

/// Adds what the prompt `@`-references (always active). Unknown projects and
/// plans and malformed references are noted, never guessed.
#[derive(Debug, Clone)]
pub struct ReferenceResolver {
    catalog: Arc<dyn ProjectCatalog>,
}

impl ReferenceResolver {
    /// The name it registers under by default.
    pub const NAME: &'static str = "cleveragents/reference";

    /// Over `catalog`.
    #[must_use]
    pub fn new(catalog: Arc<dyn ProjectCatalog>) -> Self {
        Self { catalog }
    }
}

impl ScopeChainResolver for ReferenceResolver {
    fn resolve(&self, mut base: Scope, context: &ResolutionContext) -> Result<Scope, String> {
        for reference in context.references() {
            match reference {
                Reference::Project { name } if self.catalog.project_exists(&name) => {
                    base.add(
                        ScopeKind::Project,
                        name.clone(),
                        Self::NAME,
                        format!("referenced as @{name}"),
                    );
                }
                Reference::Project { name } => base.note(format!(
                    "unknown reference @{name}: no project of that name"
                )),
                Reference::Plan { plan_id } if self.catalog.plan_exists(plan_id) => {
                    base.add(
                        ScopeKind::Plan,
                        plan_id.to_string(),
                        Self::NAME,
                        format!("referenced as @plan:{plan_id}"),
                    );
                }
                Reference::Plan { plan_id } => {
                    base.note(format!("unknown reference @plan:{plan_id}: no such plan"))
                }
                Reference::File { path } => {
                    base.add(
                        ScopeKind::File,
                        path.clone(),
                        Self::NAME,
                        format!("referenced as @{path}"),
                    );
                }
                Reference::Malformed { text, reason } => {
                    base.note(format!("malformed reference {text}: {reason}"))
                }
            }
        }
        Ok(base)
    }
}

/// What depends on what. Implemented by hosts.
pub trait DependencyGraph: Send + Sync + Debug + 'static {
    /// The direct dependencies of an item.
    fn dependencies(&self, kind: ScopeKind, id: &str) -> Vec<(ScopeKind, String)>;
}

/// A graph node: a kind and an id.
type Node = (ScopeKind, String);

/// An in-memory dependency graph.
#[derive(Debug, Clone, Default)]
pub struct InMemoryDependencyGraph {
    edges: Arc<RwLock<HashMap<Node, Vec<Node>>>>,
}

impl InMemoryDependencyGraph {
    /// No edges.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `from` depends on `to`.
    pub fn add_dependency(&self, from: (ScopeKind, &str), to: (ScopeKind, &str)) {
        let mut edges = self.edges.write();
        let list = edges.entry((from.0, from.1.to_owned())).or_default();
        let to = (to.0, to.1.to_owned());
        if !list.contains(&to) {
            list.push(to);
        }
    }
}

impl DependencyGraph for InMemoryDependencyGraph {
    fn dependencies(&self, kind: ScopeKind, id: &str) -> Vec<(ScopeKind, String)> {
        self.edges
            .read()
            .get(&(kind, id.to_owned()))
            .cloned()
            .unwrap_or_default()
    }
}

/// Adds the transitive dependencies of in-scope projects and resources,
/// breadth first, up to a depth; cycles end where they close.
#[derive(Debug, Clone)]
pub struct DependencyGraphResolver {
    graph: Arc<dyn DependencyGraph>,
    max_depth: usize,
}

impl DependencyGraphResolver {
    /// The name it registers under by default.
    pub const NAME: &'static str = "cleveragents/dependency-graph";

    /// Over `graph`, following at most `max_depth` edges from an in-scope item.
    #[must_use]
    pub fn new(graph: Arc<dyn DependencyGraph>, max_depth: usize) -> Self {
        Self { graph, max_depth }
    }
}

impl ScopeChainResolver for DependencyGraphResolver {
    fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        let mut queue: VecDeque<((ScopeKind, String), usize)> = base
            .items()
            .iter()
            .filter(|i| matches!(i.kind, ScopeKind::Project | ScopeKind::Resource))
            .map(|i| ((i.kind, i.id.clone()), 0))
            .collect();
        let mut seen: HashSet<(ScopeKind, String)> = queue.iter().map(|(k, _)| k.clone()).collect();
        while let Some(((kind, id), depth)) = queue.pop_front() {
            if depth >= self.max_depth {
                continue;
            }
            for dep in self.graph.dependencies(kind, &id) {
                if seen.insert(dep.clone()) {
                    base.add(
                        dep.0,
                        dep.1.clone(),
                        Self::NAME,
                        format!("a dependency of {kind} `{id}` (depth {})", depth + 1),
                    );
                    queue.push_back((dep, depth + 1));
                }
            }
        }
        Ok(base)
    }
}

/// A file and when it last changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileInfo {
    /// Project-relative path.
    pub path: String,
    /// Last modification.
    pub modified: DateTime<Utc>,
}

impl FileInfo {
    /// A file record.
    #[must_use]
    pub fn new(path: impl Into<String>, modified: DateTime<Utc>) -> Self {
        Self {
            path: path.into(),
            modified,
        }
    }
}

/// The files of projects. Implemented by hosts.
pub trait FileMetadata: Send + Sync + Debug + 'static {
    /// Every file of `project`.
    fn files(&self, project: &str) -> Vec<FileInfo>;
}

/// In-memory file metadata.
#[derive(Debug, Clone, Default)]
pub struct InMemoryFileMetadata {
    files: Arc<RwLock<BTreeMap<String, Vec<FileInfo>>>>,
}

impl InMemoryFileMetadata {
    /// No files.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file to a project.
    pub fn add_file(&self, project: &str, file: FileInfo) {
        self.files
            .write()
            .entry(project.to_owned())
            .or_default()
            .push(file);
    }
}

impl FileMetadata for InMemoryFileMetadata {
    fn files(&self, project: &str) -> Vec<FileInfo> {
        self.files.read().get(project).cloned().unwrap_or_default()
    }
}

/// Adds files of in-scope projects modified within a window, newest first, capped.
#[derive(Debug, Clone)]
pub struct RecentlyModifiedResolver {
    files: Arc<dyn FileMetadata>,
    clock: Arc<dyn Clock>,
    window: TimeDelta,
    max_files: usize,
}

impl RecentlyModifiedResolver {
    /// The name it registers under by default.
    pub const NAME: &'static str = "cleveragents/recently-modified";

    /// Files changed within `window` of the clock's now, at most `max_files`.
    #[must_use]
    pub fn new(
        files: Arc<dyn FileMetadata>,
        clock: Arc<dyn Clock>,
        window: TimeDelta,
        max_files: usize,
    ) -> Self {
        Self {
            files,
            clock,
            window,
            max_files,
        }
    }
}

impl ScopeChainResolver for RecentlyModifiedResolver {
    fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        let now = self.clock.now();
        let mut recent: Vec<(String, FileInfo)> = base
            .ids(ScopeKind::Project)
            .into_iter()
            .flat_map(|p| {
                self.files
                    .files(p)
                    .into_iter()
                    .map(move |f| (p.to_owned(), f))
            })
            .filter(|(_, f)| f.modified <= now && now - f.modified <= self.window)
            .collect();
        recent.sort_by(|a, b| {
            b.1.modified
                .cmp(&a.1.modified)
                .then_with(|| a.1.path.cmp(&b.1.path))
        });
        for (project, file) in recent.into_iter().take(self.max_files) {
            base.add(
                ScopeKind::File,
                file.path,
                Self::NAME,
                format!("modified recently in `{project}`"),
            );
        }
        Ok(base)
    }
}

/// Which tests cover which source files. Implemented by hosts.
pub trait CoverageMap: Send + Sync + Debug + 'static {
    /// The tests covering `source`; `None` when coverage is unknown for it.
    fn tests_for(&self, source: &str) -> Option<Vec<String>>;
}

/// An in-memory coverage map.
#[derive(Debug, Clone, Default)]
pub struct InMemoryCoverage {
    map: Arc<RwLock<HashMap<String, Vec<String>>>>,
}

impl InMemoryCoverage {
    /// Nothing known.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `test` covers `source`.
    pub fn add(&self, source: &str, test: &str) {
        self.map
            .write()
            .entry(source.to_owned())
            .or_default()
            .push(test.to_owned());
    }
}

impl CoverageMap for InMemoryCoverage {
    fn tests_for(&self, source: &str) -> Option<Vec<String>> {
        self.map.read().get(source).cloned()
    }
}

/// Test files a naming convention would put beside `source`:
/// Rust `src/a/b.rs` → `tests/b.rs`; Python `pkg/m.py` → `tests/test_m.py`,
/// `pkg/test_m.py`; Go `pkg/x.go` → `pkg/x_test.go`; JS/TS `src/x.ts` →
/// `src/x.test.ts`, `src/x.spec.ts`, `src/__tests__/x.test.ts` (same for
/// `.js`, `.jsx`, `.tsx`, `.mjs`). Other files have none.
#[must_use]
pub fn conventional_test_paths(source: &str) -> Vec<String> {
    let (dir, file) = source
        .rsplit_once('/')
        .map_or(("", source), |(d, f)| (d, f));
    let Some((stem, ext)) = file.rsplit_once('.') else {
        return Vec::new();
    };
    let join = |d: &str, f: String| if d.is_empty() { f } else { format!("{d}/{f}") };
    match ext {
        "rs" if !dir.starts_with("tests") => vec![format!("tests/{stem}.rs")],
        "py" if !stem.starts_with("test_") => vec![
            format!("tests/test_{stem}.py"),
            join(dir, format!("test_{stem}.py")),
        ],
        "go" if !stem.ends_with("_test") => vec![join(dir, format!("{stem}_test.go"))],
        "js" | "jsx" | "ts" | "tsx" | "mjs"
            if !stem.ends_with(".test") && !stem.ends_with(".spec") =>
        {
            vec![
                join(dir, format!("{stem}.test.{ext}")),
                join(dir, format!("{stem}.spec.{ext}")),
                join(
                    &join(dir, "__tests__".to_owned()),
                    format!("{stem}.test.{ext}"),
                ),
            ]
        }
        _ => Vec::new(),
    }
}

/// Adds the tests that cover in-scope files: from the coverage map when it
/// knows the file, else by naming convention, keeping only test files that
/// exist in an in-scope project.
#[derive(Debug, Clone)]
pub struct TestCoverageResolver {
    coverage: Arc<dyn CoverageMap>,
    files: Arc<dyn FileMetadata>,
}

impl TestCoverageResolver {
    /// The name it registers under by default.
    pub const NAME: &'static str = "cleveragents/test-coverage";

    /// Over a coverage map, with `files` to check conventional test paths against.
    #[must_use]
    pub fn new(coverage: Arc<dyn CoverageMap>, files: Arc<dyn FileMetadata>) -> Self {
        Self { coverage, files }
    }
}

impl ScopeChainResolver for TestCoverageResolver {
    fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
        let known: HashSet<String> = base
            .ids(ScopeKind::Project)
            .into_iter()
            .flat_map(|p| self.files.files(p))
            .map(|f| f.path)
            .collect();
        let sources: Vec<String> = base
            .ids(ScopeKind::File)
            .into_iter()
            .map(str::to_owned)
            .collect();
        for source in sources {
            match self.coverage.tests_for(&source) {
                Some(tests) => {
                    for test in tests {
                        base.add(
                            ScopeKind::File,
                            test,
                            Self::NAME,
                            format!("covers `{source}`"),
                        );
                    }
                }
                None => {
                    for test in conventional_test_paths(&source)
                        .into_iter()
                        .filter(|t| known.contains(t))
                    {
                        base.add(
                            ScopeKind::File,
                            test,
                            Self::NAME,
                            format!("named after `{source}`"),
                        );
                    }
                }
            }
        }
        Ok(base)
    }
}
