//! Registries of tools, resources, actors, skills, actions and projects.
//!
//! One port, [`Registry`], serves all six kinds: a host wires one registry per
//! kind into the facade. Entry names may be namespaced (`my-org/python-linter`):
//! the namespace is the part before the first `/`.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::service_error::{ServiceError, ServiceResult, require_text};
use crate::string_enum::string_enum;

string_enum!(
    /// What a registry holds.
    RegistryKind, "registry kind" {
        /// Tools an agent can call.
        Tool => "tool",
        /// Resources (repositories, databases, devcontainers, …).
        Resource => "resource",
        /// Actors (LLM-backed agents).
        Actor => "actor",
        /// Skills.
        Skill => "skill",
        /// Action templates plans are created from.
        Action => "action",
        /// Projects.
        Project => "project",
    }
);

/// One registered item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RegistryEntry {
    /// Unique name within its registry, optionally `namespace/name`.
    pub name: String,
    /// One line of description.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The resource type (resources only), e.g. `git-repo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// Free-form details.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl RegistryEntry {
    /// An entry with just a name.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: String::new(),
            type_name: None,
            metadata: Map::new(),
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = text.into();
        self
    }

    /// Sets the resource type.
    #[must_use]
    pub fn type_name(mut self, type_name: impl Into<String>) -> Self {
        self.type_name = Some(type_name.into());
        self
    }

    /// The namespace: the part of the name before the first `/`, if any.
    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        self.name.split_once('/').map(|(ns, _)| ns)
    }
}

/// Which entries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct RegistryFilter {
    /// Only entries in this namespace.
    #[serde(default)]
    pub namespace: Option<String>,
    /// Only resources of this type.
    #[serde(default)]
    pub type_name: Option<String>,
}

impl RegistryFilter {
    /// Only entries in this namespace.
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Only resources of this type.
    #[must_use]
    pub fn type_name(mut self, type_name: impl Into<String>) -> Self {
        self.type_name = Some(type_name.into());
        self
    }

    /// Whether `entry` passes the filter.
    #[must_use]
    pub fn matches(&self, entry: &RegistryEntry) -> bool {
        self.namespace
            .as_deref()
            .is_none_or(|ns| entry.namespace() == Some(ns))
            && self
                .type_name
                .as_deref()
                .is_none_or(|t| entry.type_name.as_deref() == Some(t))
    }
}

/// A registry of one kind of item. Implemented by hosts; `&self` methods, safe
/// under concurrency.
pub trait Registry: Send + Sync + Debug + 'static {
    /// Entries passing `filter`, sorted by name.
    ///
    /// # Errors
    /// From the host.
    fn list(&self, filter: &RegistryFilter) -> ServiceResult<Vec<RegistryEntry>>;

    /// One entry by exact name.
    ///
    /// # Errors
    /// `NotFound` (key `name`) for an unknown name.
    fn get(&self, name: &str) -> ServiceResult<RegistryEntry>;
}

/// The in-memory [`Registry`]: a cheap `Clone` handle; clones share state.
///
/// ```
/// use cleveragents::{InMemoryRegistry, Registry, RegistryEntry, RegistryFilter, RegistryKind};
///
/// let tools = InMemoryRegistry::new(RegistryKind::Tool);
/// tools.register(RegistryEntry::new("my-org/python-linter"))?;
/// tools.register(RegistryEntry::new("read_file"))?;
/// assert_eq!(tools.list(&RegistryFilter::default().namespace("my-org"))?.len(), 1);
/// # Ok::<(), cleveragents::ServiceError>(())
/// ```
#[derive(Debug, Clone)]
pub struct InMemoryRegistry {
    kind: RegistryKind,
    entries: Arc<RwLock<BTreeMap<String, RegistryEntry>>>,
}

impl InMemoryRegistry {
    /// An empty registry of `kind`.
    #[must_use]
    pub fn new(kind: RegistryKind) -> Self {
        Self {
            kind,
            entries: Arc::default(),
        }
    }

    /// What this registry holds.
    #[must_use]
    pub fn kind(&self) -> RegistryKind {
        self.kind
    }

    /// Adds an entry.
    ///
    /// # Errors
    /// `Invalid` for a blank name, `AlreadyExists` for a taken one.
    pub fn register(&self, entry: RegistryEntry) -> ServiceResult<()> {
        require_text("name", &entry.name)?;
        let mut entries = self.entries.write();
        if entries.contains_key(&entry.name) {
            return Err(ServiceError::AlreadyExists {
                entity: self.kind.as_str(),
                key: "name",
                id: entry.name,
            });
        }
        entries.insert(entry.name.clone(), entry);
        Ok(())
    }

    /// Removes an entry, returning it.
    ///
    /// # Errors
    /// `NotFound` for an unknown name.
    pub fn unregister(&self, name: &str) -> ServiceResult<RegistryEntry> {
        self.entries
            .write()
            .remove(name)
            .ok_or_else(|| ServiceError::not_found(self.kind.as_str(), "name", name))
    }
}

impl Registry for InMemoryRegistry {
    fn list(&self, filter: &RegistryFilter) -> ServiceResult<Vec<RegistryEntry>> {
        Ok(self
            .entries
            .read()
            .values()
            .filter(|e| filter.matches(e))
            .cloned()
            .collect())
    }

    fn get(&self, name: &str) -> ServiceResult<RegistryEntry> {
        self.entries
            .read()
            .get(name)
            .cloned()
            .ok_or_else(|| ServiceError::not_found(self.kind.as_str(), "name", name))
    }
}
