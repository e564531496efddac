//! Scope chain resolution: which projects, plans, resources and files are in
//! scope for an actor invocation, decided by a chain of resolvers hosts extend.

mod builtin;
mod reference;

use std::collections::HashSet;
use std::fmt::{self, Debug};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use crate::ids::{PlanId, SessionId};
use crate::string_enum::string_enum;

pub use builtin::{
    CoverageMap, DependencyGraph, DependencyGraphResolver, FileInfo, FileMetadata,
    InMemoryCoverage, InMemoryDependencyGraph, InMemoryFileMetadata, InMemoryPersonas,
    PersonaScope, PersonaScopeResolver, PersonaStore, ProjectCatalog, RecentlyModifiedResolver,
    ReferenceResolver, TestCoverageResolver, conventional_test_paths,
};
pub use reference::{Reference, parse_references};

string_enum!(
    /// What kind of thing a scope item is.
    ScopeKind, "scope kind" {
        /// A project.
        Project => "project",
        /// A plan.
        Plan => "plan",
        /// A resource (repository, database, …).
        Resource => "resource",
        /// A file.
        File => "file",
    }
);

/// One thing in scope, with who added it and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScopeItem {
    /// What kind.
    pub kind: ScopeKind,
    /// Its id, name or path.
    pub id: String,
    /// The resolver that added it.
    pub added_by: String,
    /// Why.
    pub reason: String,
}

impl ScopeItem {
    /// An item.
    #[must_use]
    pub fn new(
        kind: ScopeKind,
        id: impl Into<String>,
        added_by: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            kind,
            id: id.into(),
            added_by: added_by.into(),
            reason: reason.into(),
        }
    }
}

/// An ordered, de-duplicated collection of scope items (an item is its kind
/// and id; the first addition is kept).
///
/// ```
/// use cleveragents::{Scope, ScopeKind};
///
/// let mut scope = Scope::new();
/// assert!(scope.add(ScopeKind::Project, "api", "me/resolver", "asked for"));
/// assert!(!scope.add(ScopeKind::Project, "api", "other/resolver", "again"));
/// assert_eq!(scope.len(), 1);
/// assert_eq!(scope.items()[0].added_by, "me/resolver");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope {
    items: Vec<ScopeItem>,
    /// Things resolvers want a person to know (unknown references, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

impl Scope {
    /// An empty scope.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The items, in order.
    #[must_use]
    pub fn items(&self) -> &[ScopeItem] {
        &self.items
    }

    /// How many items.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether it is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether an item of `kind` and `id` is in scope.
    #[must_use]
    pub fn contains(&self, kind: ScopeKind, id: &str) -> bool {
        self.items.iter().any(|i| i.kind == kind && i.id == id)
    }

    /// The ids of the items of `kind`, in order.
    #[must_use]
    pub fn ids(&self, kind: ScopeKind) -> Vec<&str> {
        self.items
            .iter()
            .filter(|i| i.kind == kind)
            .map(|i| i.id.as_str())
            .collect()
    }

    /// Adds an item at the end unless it is there already; `true` when added.
    pub fn add(
        &mut self,
        kind: ScopeKind,
        id: impl Into<String>,
        added_by: &str,
        reason: impl Into<String>,
    ) -> bool {
        let id = id.into();
        if self.contains(kind, &id) {
            return false;
        }
        self.items.push(ScopeItem::new(kind, id, added_by, reason));
        true
    }

    /// Notes left by resolvers, in order.
    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Leaves a note for a person (an unknown reference, say).
    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    /// Removes an item; `true` when it was there.
    pub fn remove(&mut self, kind: ScopeKind, id: &str) -> bool {
        let before = self.items.len();
        self.items.retain(|i| !(i.kind == kind && i.id == id));
        self.items.len() != before
    }

    /// Reorders items with a stable sort by `key`.
    pub fn sort_by_key<K: Ord>(&mut self, key: impl FnMut(&ScopeItem) -> K) {
        self.items.sort_by_key(key);
    }

    fn dedup(&mut self) {
        let mut seen = HashSet::new();
        self.items.retain(|i| seen.insert((i.kind, i.id.clone())));
    }

    fn keys(&self) -> Vec<(ScopeKind, String)> {
        self.items.iter().map(|i| (i.kind, i.id.clone())).collect()
    }
}

/// What the chain resolves scope for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResolutionContext {
    /// The session.
    pub session_id: Option<SessionId>,
    /// The plan.
    pub plan_id: Option<PlanId>,
    /// The actor (persona) being invoked.
    pub actor: Option<String>,
    /// The prompt.
    pub prompt: String,
}

impl ResolutionContext {
    /// A context for `actor` with `prompt`.
    #[must_use]
    pub fn new(actor: Option<&str>, prompt: impl Into<String>) -> Self {
        Self {
            session_id: None,
            plan_id: None,
            actor: actor.map(str::to_owned),
            prompt: prompt.into(),
        }
    }

    /// The prompt's `@`-references.
    #[must_use]
    pub fn references(&self) -> Vec<Reference> {
        parse_references(&self.prompt)
    }
}

/// A resolver that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScopeError {
    /// A resolver reported a failure.
    #[error("resolver `{resolver}` failed: {reason}")]
    Resolver {
        /// The resolver.
        resolver: String,
        /// What it said.
        reason: String,
    },
    /// A registration that breaks the rules.
    #[error("cannot register resolver `{name}`: {reason}")]
    Registration {
        /// The name given.
        name: String,
        /// Why.
        reason: String,
    },
    /// No resolver of that name.
    #[error("no resolver named `{0}`")]
    UnknownResolver(String),
}

/// One link of the scope chain. Implemented by hosts; `&self`, safe under
/// concurrency. It may add, remove or reorder items of `base`.
pub trait ScopeChainResolver: Send + Sync + Debug + 'static {
    /// Extends or modifies `base` for `context`.
    ///
    /// # Errors
    /// Any error: reported with the resolver's name; in lenient mode the
    /// chain goes on with the scope as it was before this resolver.
    fn resolve(&self, base: Scope, context: &ResolutionContext) -> Result<Scope, String>;
}

/// Limits on what the chain may build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScopeBounds {
    /// Most items in the final scope (default 500).
    pub max_items: usize,
    /// Most items one resolver may add (default 200).
    pub max_added_per_resolver: usize,
}

impl Default for ScopeBounds {
    fn default() -> Self {
        Self {
            max_items: 500,
            max_added_per_resolver: 200,
        }
    }
}

/// What one resolver did, for a frontend to show.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResolverReport {
    /// The resolver.
    pub resolver: String,
    /// Items it added (`kind:id`).
    pub added: Vec<String>,
    /// Items it removed.
    pub removed: Vec<String>,
    /// Whether it reordered what was there.
    pub reordered: bool,
    /// How many of its additions were dropped by `max_added_per_resolver`.
    pub truncated: usize,
    /// Its error, when it failed (its changes were discarded).
    pub error: Option<String>,
    /// Notes it left.
    pub notes: Vec<String>,
}

/// The chain's result and its explanation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Resolution {
    /// The resolved scope.
    pub scope: Scope,
    /// What each enabled resolver did, in chain order.
    pub reports: Vec<ResolverReport>,
    /// How many items `max_items` cut from the end.
    pub truncated: usize,
}

impl fmt::Display for Resolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.reports {
            match &r.error {
                Some(e) => writeln!(
                    f,
                    "{}: failed ({e}); its changes were discarded",
                    r.resolver
                )?,
                None => {
                    write!(f, "{}: +{} -{}", r.resolver, r.added.len(), r.removed.len())?;
                    if r.reordered {
                        write!(f, ", reordered")?;
                    }
                    if r.truncated > 0 {
                        write!(f, ", {} over its limit dropped", r.truncated)?;
                    }
                    writeln!(f)?;
                }
            }
        }
        write!(f, "{} item(s) in scope", self.scope.len())?;
        if self.truncated > 0 {
            write!(f, " ({} dropped by the scope limit)", self.truncated)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct Registered {
    name: String,
    priority: i32,
    enabled: bool,
    resolver: Arc<dyn ScopeChainResolver>,
}

/// Names are `namespace/name`: lowercase letters, digits, `-`, `_`, `.`.
fn valid_name(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')
            })
    };
    matches!(name.split_once('/'), Some((ns, rest)) if part(ns) && part(rest))
}

/// The registry of resolvers, run as a chain in order of priority, then name.
/// A cheap `Clone` handle.
///
/// ```
/// use cleveragents::{ResolutionContext, Scope, ScopeChainResolver, ScopeKind, ScopeRegistry};
///
/// #[derive(Debug)]
/// struct Docs;
/// impl ScopeChainResolver for Docs {
///     fn resolve(&self, mut base: Scope, _: &ResolutionContext) -> Result<Scope, String> {
///         base.add(ScopeKind::File, "README.md", "my-org/docs", "always useful");
///         Ok(base)
///     }
/// }
///
/// let registry = ScopeRegistry::new();
/// registry.register_resolver("my-org/docs", 50, Docs)?;
/// let resolution = registry.resolve(Scope::new(), &ResolutionContext::new(None, "hi"))?;
/// assert!(resolution.scope.contains(ScopeKind::File, "README.md"));
/// assert_eq!(resolution.reports[0].added, vec!["file:README.md"]);
/// # Ok::<(), cleveragents::ScopeError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScopeRegistry {
    resolvers: Arc<RwLock<Vec<Registered>>>,
    bounds: ScopeBounds,
    strict: bool,
}

impl ScopeRegistry {
    /// No resolvers, default bounds, lenient (a failing resolver is skipped).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the bounds.
    #[must_use]
    pub fn with_bounds(mut self, bounds: ScopeBounds) -> Self {
        self.bounds = bounds;
        self
    }

    /// Strict mode: a failing resolver fails the whole resolution.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Registers a resolver under a namespaced name (`my-org/git-blame-resolver`).
    /// Lower priorities run first; equal priorities run by name.
    ///
    /// # Errors
    /// [`ScopeError::Registration`] for a malformed or taken name.
    pub fn register_resolver(
        &self,
        name: &str,
        priority: i32,
        resolver: impl ScopeChainResolver,
    ) -> Result<(), ScopeError> {
        if !valid_name(name) {
            return Err(ScopeError::Registration {
                name: name.to_owned(),
                reason: "names are `namespace/name` in lowercase letters, digits, `-`, `_`, `.`"
                    .to_owned(),
            });
        }
        let mut resolvers = self.resolvers.write();
        if resolvers.iter().any(|r| r.name == name) {
            return Err(ScopeError::Registration {
                name: name.to_owned(),
                reason: "the name is taken".to_owned(),
            });
        }
        resolvers.push(Registered {
            name: name.to_owned(),
            priority,
            enabled: true,
            resolver: Arc::new(resolver),
        });
        resolvers.sort_by(|a, b| {
            a.priority
                .cmp(&b.priority)
                .then_with(|| a.name.cmp(&b.name))
        });
        Ok(())
    }

    /// Enables or disables a resolver.
    ///
    /// # Errors
    /// [`ScopeError::UnknownResolver`].
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), ScopeError> {
        let mut resolvers = self.resolvers.write();
        let entry = resolvers
            .iter_mut()
            .find(|r| r.name == name)
            .ok_or_else(|| ScopeError::UnknownResolver(name.to_owned()))?;
        entry.enabled = enabled;
        Ok(())
    }

    /// The resolvers in chain order: name, priority, enabled.
    #[must_use]
    pub fn resolvers(&self) -> Vec<(String, i32, bool)> {
        self.resolvers
            .read()
            .iter()
            .map(|r| (r.name.clone(), r.priority, r.enabled))
            .collect()
    }

    /// Runs the enabled resolvers in order over `base`.
    ///
    /// # Errors
    /// In strict mode, the first resolver failure.
    pub fn resolve(
        &self,
        base: Scope,
        context: &ResolutionContext,
    ) -> Result<Resolution, ScopeError> {
        // Resolvers are host code: run them outside the lock.
        let chain: Vec<Registered> = self
            .resolvers
            .read()
            .iter()
            .filter(|r| r.enabled)
            .cloned()
            .collect();
        let mut scope = base;
        scope.dedup();
        let mut reports = Vec::with_capacity(chain.len());
        for entry in chain {
            let before = scope.clone();
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                entry.resolver.resolve(scope.clone(), context)
            }))
            .unwrap_or_else(|_| Err("the resolver panicked".to_owned()));
            let mut report = ResolverReport {
                resolver: entry.name.clone(),
                ..ResolverReport::default()
            };
            match outcome {
                Ok(mut next) => {
                    next.dedup();
                    let old: HashSet<(ScopeKind, String)> = before.keys().into_iter().collect();
                    // Keep at most `max_added_per_resolver` new items, in the resolver's order.
                    let mut added = 0;
                    let mut dropped = 0;
                    next.items.retain(|i| {
                        if old.contains(&(i.kind, i.id.clone())) {
                            return true;
                        }
                        added += 1;
                        let keep = added <= self.bounds.max_added_per_resolver;
                        if !keep {
                            dropped += 1;
                        }
                        keep
                    });
                    let new: HashSet<(ScopeKind, String)> = next.keys().into_iter().collect();
                    report.added = next
                        .items
                        .iter()
                        .filter(|i| !old.contains(&(i.kind, i.id.clone())))
                        .map(|i| format!("{}:{}", i.kind, i.id))
                        .collect();
                    report.removed = before
                        .items
                        .iter()
                        .filter(|i| !new.contains(&(i.kind, i.id.clone())))
                        .map(|i| format!("{}:{}", i.kind, i.id))
                        .collect();
                    let kept_before: Vec<_> = before
                        .keys()
                        .into_iter()
                        .filter(|k| new.contains(k))
                        .collect();
                    let kept_after: Vec<_> = next
                        .keys()
                        .into_iter()
                        .filter(|k| old.contains(k))
                        .collect();
                    report.reordered = kept_before != kept_after;
                    report.notes = next
                        .notes
                        .get(before.notes.len()..)
                        .unwrap_or_default()
                        .to_vec();
                    report.truncated = dropped;
                    scope = next;
                }
                Err(reason) => {
                    if self.strict {
                        return Err(ScopeError::Resolver {
                            resolver: entry.name,
                            reason,
                        });
                    }
                    report.error = Some(reason);
                    scope = before;
                }
            }
            reports.push(report);
        }
        let truncated = scope.len().saturating_sub(self.bounds.max_items);
        scope.items.truncate(self.bounds.max_items);
        Ok(Resolution {
            scope,
            reports,
            truncated,
        })
    }
}
