//! The resource registry port: where `{{resource.<name>.path}}` gets its paths.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::RwLock;

/// A resource registry that could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("resource registry unavailable: {0}")]
#[non_exhaustive]
pub struct ResourceError(pub String);

/// Answers the host path of a named resource (a checkout, a data directory…).
///
/// Hosts implement it over their own resource catalogue; the in-memory
/// [`InMemoryResourceRegistry`] serves tests and simple embeddings.
pub trait ResourceRegistry: Send + Sync {
    /// The host path of `name`, or `None` when no such resource exists.
    ///
    /// # Errors
    /// [`ResourceError`] when the registry itself failed.
    fn resource_path(&self, name: &str) -> Result<Option<PathBuf>, ResourceError>;
}

impl<T: ResourceRegistry + ?Sized> ResourceRegistry for Arc<T> {
    fn resource_path(&self, name: &str) -> Result<Option<PathBuf>, ResourceError> {
        (**self).resource_path(name)
    }
}

/// A thread-safe in-memory [`ResourceRegistry`].
///
/// ```
/// use cleveragents::{InMemoryResourceRegistry, ResourceRegistry};
/// let resources = InMemoryResourceRegistry::new();
/// resources.insert("git_dir", "/srv/checkout");
/// assert_eq!(
///     resources.resource_path("git_dir").unwrap().unwrap().to_str(),
///     Some("/srv/checkout")
/// );
/// ```
#[derive(Debug, Default)]
pub struct InMemoryResourceRegistry {
    paths: RwLock<HashMap<String, PathBuf>>,
}

impl InMemoryResourceRegistry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a resource.
    pub fn insert(&self, name: impl Into<String>, path: impl Into<PathBuf>) {
        self.paths.write().insert(name.into(), path.into());
    }

    /// Removes a resource, returning its path.
    pub fn remove(&self, name: &str) -> Option<PathBuf> {
        self.paths.write().remove(name)
    }
}

impl ResourceRegistry for InMemoryResourceRegistry {
    fn resource_path(&self, name: &str) -> Result<Option<PathBuf>, ResourceError> {
        Ok(self.paths.read().get(name).cloned())
    }
}
