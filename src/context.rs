//! Context assembly: the key/value context an agent sees, layered in tiers.
//!
//! Tiers override each other from broad to narrow: `global` < `session` < `plan`.
//! Every assembled entry records the tier it came from, so a frontend can show
//! why a value is what it is.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::Arc;

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ids::{PlanId, SessionId};
use crate::service_error::{ServiceResult, require_text};
use crate::string_enum::string_enum;

string_enum!(
    /// A context layer, from broad to narrow.
    ContextTier, "context tier" {
        /// Applies everywhere.
        Global => "global",
        /// Applies to one session.
        Session => "session",
        /// Applies to one plan.
        Plan => "plan",
    }
);

/// Whose context: a session, a plan, both or neither (global only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextScope {
    /// The session, if any.
    #[serde(default)]
    pub session_id: Option<SessionId>,
    /// The plan, if any.
    #[serde(default)]
    pub plan_id: Option<PlanId>,
}

impl ContextScope {
    /// A scope naming a session and/or a plan.
    #[must_use]
    pub const fn new(session_id: Option<SessionId>, plan_id: Option<PlanId>) -> Self {
        Self {
            session_id,
            plan_id,
        }
    }

    /// The narrowest tier this scope names.
    #[must_use]
    pub fn narrowest_tier(&self) -> ContextTier {
        if self.plan_id.is_some() {
            ContextTier::Plan
        } else if self.session_id.is_some() {
            ContextTier::Session
        } else {
            ContextTier::Global
        }
    }
}

/// One assembled value and the tier that supplied it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextEntry {
    /// The key.
    pub key: String,
    /// The value.
    pub value: Value,
    /// Where it came from; `None` for a simulation override.
    #[serde(default)]
    pub tier: Option<ContextTier>,
}

impl ContextEntry {
    /// An entry.
    #[must_use]
    pub fn new(key: impl Into<String>, value: Value, tier: Option<ContextTier>) -> Self {
        Self {
            key: key.into(),
            value,
            tier,
        }
    }
}

/// The values of one tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TierView {
    /// Which tier.
    pub tier: ContextTier,
    /// Its values.
    pub values: Map<String, Value>,
}

impl TierView {
    /// A tier's values.
    #[must_use]
    pub fn new(tier: ContextTier, values: Map<String, Value>) -> Self {
        Self { tier, values }
    }
}

/// Context assembly. Implemented by hosts; `&self` methods, safe under concurrency.
pub trait ContextService: Send + Sync + Debug + 'static {
    /// The assembled context for `scope`, sorted by key.
    ///
    /// # Errors
    /// From the host.
    fn show(&self, scope: &ContextScope) -> ServiceResult<Vec<ContextEntry>>;
    /// Each tier that applies to `scope`, broad to narrow.
    ///
    /// # Errors
    /// From the host.
    fn inspect(&self, scope: &ContextScope) -> ServiceResult<Vec<TierView>>;
    /// What `show` would answer with `overrides` applied on top; stores nothing.
    ///
    /// # Errors
    /// From the host.
    fn simulate(
        &self,
        scope: &ContextScope,
        overrides: &Map<String, Value>,
    ) -> ServiceResult<Vec<ContextEntry>>;
    /// Sets `key` in the narrowest tier of `scope`.
    ///
    /// # Errors
    /// `Invalid` for a blank key.
    fn set(&self, scope: &ContextScope, key: &str, value: Value) -> ServiceResult<()>;
}

#[derive(Debug, Default)]
struct Tiers {
    global: Map<String, Value>,
    sessions: HashMap<SessionId, Map<String, Value>>,
    plans: HashMap<PlanId, Map<String, Value>>,
}

impl Tiers {
    fn views(&self, scope: &ContextScope) -> Vec<TierView> {
        let mut views = vec![TierView::new(ContextTier::Global, self.global.clone())];
        if let Some(id) = scope.session_id {
            let values = self.sessions.get(&id).cloned().unwrap_or_default();
            views.push(TierView::new(ContextTier::Session, values));
        }
        if let Some(id) = scope.plan_id {
            let values = self.plans.get(&id).cloned().unwrap_or_default();
            views.push(TierView::new(ContextTier::Plan, values));
        }
        views
    }
}

fn assemble(views: Vec<TierView>, overrides: Option<&Map<String, Value>>) -> Vec<ContextEntry> {
    let mut merged: BTreeMap<String, (Value, Option<ContextTier>)> = BTreeMap::new();
    for view in views {
        for (key, value) in view.values {
            merged.insert(key, (value, Some(view.tier)));
        }
    }
    for (key, value) in overrides.into_iter().flatten() {
        merged.insert(key.clone(), (value.clone(), None));
    }
    merged
        .into_iter()
        .map(|(key, (value, tier))| ContextEntry::new(key, value, tier))
        .collect()
}

/// The in-memory [`ContextService`]: a cheap `Clone` handle; clones share state.
///
/// ```
/// use cleveragents::{ContextScope, ContextService, ContextTier, InMemoryContextService, SessionId};
/// use serde_json::json;
///
/// let context = InMemoryContextService::new();
/// context.set(&ContextScope::default(), "language", json!("rust"))?;
/// let session = ContextScope::new(Some(SessionId::new()), None);
/// context.set(&session, "language", json!("python"))?;
/// let shown = context.show(&session)?;
/// assert_eq!(shown[0].value, json!("python"));
/// assert_eq!(shown[0].tier, Some(ContextTier::Session));
/// # Ok::<(), cleveragents::ServiceError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct InMemoryContextService {
    tiers: Arc<RwLock<Tiers>>,
}

impl InMemoryContextService {
    /// An empty context.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl ContextService for InMemoryContextService {
    fn show(&self, scope: &ContextScope) -> ServiceResult<Vec<ContextEntry>> {
        let views = self.tiers.read().views(scope);
        Ok(assemble(views, None))
    }

    fn inspect(&self, scope: &ContextScope) -> ServiceResult<Vec<TierView>> {
        Ok(self.tiers.read().views(scope))
    }

    fn simulate(
        &self,
        scope: &ContextScope,
        overrides: &Map<String, Value>,
    ) -> ServiceResult<Vec<ContextEntry>> {
        let views = self.tiers.read().views(scope);
        Ok(assemble(views, Some(overrides)))
    }

    fn set(&self, scope: &ContextScope, key: &str, value: Value) -> ServiceResult<()> {
        require_text("key", key)?;
        let mut tiers = self.tiers.write();
        let tier = match (scope.plan_id, scope.session_id) {
            (Some(plan), _) => tiers.plans.entry(plan).or_default(),
            (None, Some(session)) => tiers.sessions.entry(session).or_default(),
            (None, None) => &mut tiers.global,
        };
        if value.is_null() {
            tier.remove(key);
        } else {
            tier.insert(key.to_owned(), value);
        }
        Ok(())
    }
}
