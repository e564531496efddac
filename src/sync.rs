//! Synchronisation with a remote and the namespaces that group shared items.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use crate::service_error::{ServiceError, ServiceResult, require_text};

/// Where a namespace stands against its remote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SyncStatus {
    /// The namespace.
    pub namespace: String,
    /// Revision of the local copy.
    pub local_revision: u64,
    /// Revision of the remote copy.
    pub remote_revision: u64,
    /// Local changes not yet pushed.
    pub ahead: u64,
    /// Remote changes not yet pulled.
    pub behind: u64,
}

impl SyncStatus {
    /// The status of `namespace` at the two revisions; `ahead` and `behind` follow.
    #[must_use]
    pub fn new(namespace: impl Into<String>, local_revision: u64, remote_revision: u64) -> Self {
        Self {
            namespace: namespace.into(),
            local_revision,
            remote_revision,
            ahead: local_revision.saturating_sub(remote_revision),
            behind: remote_revision.saturating_sub(local_revision),
        }
    }
}

/// A namespace: a named group of shared items with members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Namespace {
    /// Its name.
    pub name: String,
    /// One line of description.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// How many members it has.
    pub member_count: usize,
}

impl Namespace {
    /// A namespace record.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        member_count: usize,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            member_count,
        }
    }
}

/// A member of a namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NamespaceMember {
    /// Who.
    pub name: String,
    /// Their role, e.g. `owner`.
    pub role: String,
}

impl NamespaceMember {
    /// A member.
    #[must_use]
    pub fn new(name: impl Into<String>, role: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            role: role.into(),
        }
    }
}

/// Sync and namespaces. Implemented by hosts; `&self`, safe under concurrency.
///
/// Operations naming a namespace fail with `NotFound` (key `namespace`) for an
/// unknown one; `None` means the default namespace.
pub trait SyncService: Send + Sync + Debug + 'static {
    /// Brings remote changes into the local copy.
    ///
    /// # Errors
    /// See the trait documentation.
    fn pull(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus>;
    /// Sends local changes to the remote.
    ///
    /// # Errors
    /// See the trait documentation.
    fn push(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus>;
    /// Where the namespace stands.
    ///
    /// # Errors
    /// See the trait documentation.
    fn status(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus>;
    /// All namespaces, by name.
    ///
    /// # Errors
    /// From the host.
    fn namespaces(&self) -> ServiceResult<Vec<Namespace>>;
    /// One namespace.
    ///
    /// # Errors
    /// See the trait documentation.
    fn namespace(&self, name: &str) -> ServiceResult<Namespace>;
    /// A namespace's members, by name.
    ///
    /// # Errors
    /// See the trait documentation.
    fn members(&self, name: &str) -> ServiceResult<Vec<NamespaceMember>>;
}

#[derive(Debug, Clone, Default)]
struct NamespaceState {
    description: String,
    members: BTreeMap<String, String>,
    local_revision: u64,
    remote_revision: u64,
}

impl NamespaceState {
    fn status(&self, name: &str) -> SyncStatus {
        SyncStatus::new(name, self.local_revision, self.remote_revision)
    }

    fn describe(&self, name: &str) -> Namespace {
        Namespace::new(name, self.description.clone(), self.members.len())
    }
}

/// The name used when an operation names no namespace.
pub const DEFAULT_NAMESPACE: &str = "default";

/// The in-memory [`SyncService`]: local and remote copies are revision counters,
/// so hosts and tests can model "changed here" and "changed there".
///
/// ```
/// use cleveragents::{InMemorySync, SyncService};
///
/// let sync = InMemorySync::new();
/// sync.record_local_change(None)?;
/// assert_eq!(sync.status(None)?.ahead, 1);
/// assert_eq!(sync.push(None)?.ahead, 0);
/// # Ok::<(), cleveragents::ServiceError>(())
/// ```
#[derive(Debug, Clone)]
pub struct InMemorySync {
    namespaces: Arc<RwLock<BTreeMap<String, NamespaceState>>>,
}

impl InMemorySync {
    /// Only the default namespace, empty and in sync.
    #[must_use]
    pub fn new() -> Self {
        let mut namespaces = BTreeMap::new();
        namespaces.insert(DEFAULT_NAMESPACE.to_owned(), NamespaceState::default());
        Self {
            namespaces: Arc::new(RwLock::new(namespaces)),
        }
    }

    /// Adds a namespace.
    ///
    /// # Errors
    /// `Invalid` for a blank name, `AlreadyExists` for a taken one.
    pub fn add_namespace(&self, name: &str, description: &str) -> ServiceResult<()> {
        require_text("namespace", name)?;
        let mut namespaces = self.namespaces.write();
        if namespaces.contains_key(name) {
            return Err(ServiceError::AlreadyExists {
                entity: "namespace",
                key: "namespace",
                id: name.to_owned(),
            });
        }
        namespaces.insert(
            name.to_owned(),
            NamespaceState {
                description: description.to_owned(),
                ..NamespaceState::default()
            },
        );
        Ok(())
    }

    /// Adds or updates a member.
    ///
    /// # Errors
    /// `NotFound` for an unknown namespace, `Invalid` for a blank member name.
    pub fn add_member(&self, namespace: &str, member: NamespaceMember) -> ServiceResult<()> {
        require_text("member", &member.name)?;
        self.with(Some(namespace), |state, _| {
            state.members.insert(member.name, member.role);
        })
    }

    /// Marks a change made locally.
    ///
    /// # Errors
    /// `NotFound` for an unknown namespace.
    pub fn record_local_change(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus> {
        self.with(namespace, |state, name| {
            state.local_revision = state.local_revision.saturating_add(1);
            state.status(name)
        })
    }

    /// Marks a change made on the remote.
    ///
    /// # Errors
    /// `NotFound` for an unknown namespace.
    pub fn record_remote_change(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus> {
        self.with(namespace, |state, name| {
            state.remote_revision = state.remote_revision.saturating_add(1);
            state.status(name)
        })
    }

    fn with<T>(
        &self,
        namespace: Option<&str>,
        f: impl FnOnce(&mut NamespaceState, &str) -> T,
    ) -> ServiceResult<T> {
        let name = namespace.unwrap_or(DEFAULT_NAMESPACE);
        let mut namespaces = self.namespaces.write();
        let state = namespaces
            .get_mut(name)
            .ok_or_else(|| ServiceError::not_found("namespace", "namespace", name))?;
        Ok(f(state, name))
    }
}

impl Default for InMemorySync {
    fn default() -> Self {
        Self::new()
    }
}

impl SyncService for InMemorySync {
    fn pull(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus> {
        self.with(namespace, |state, name| {
            state.local_revision = state.local_revision.max(state.remote_revision);
            state.status(name)
        })
    }

    fn push(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus> {
        self.with(namespace, |state, name| {
            if state.behind_remote() {
                return Err(ServiceError::InvalidState {
                    entity: "namespace",
                    key: "namespace",
                    id: name.to_owned(),
                    action: "push",
                    reason: "the remote has changes not pulled yet; pull first".to_owned(),
                });
            }
            state.remote_revision = state.local_revision;
            Ok(state.status(name))
        })?
    }

    fn status(&self, namespace: Option<&str>) -> ServiceResult<SyncStatus> {
        self.with(namespace, |state, name| state.status(name))
    }

    fn namespaces(&self) -> ServiceResult<Vec<Namespace>> {
        Ok(self
            .namespaces
            .read()
            .iter()
            .map(|(name, state)| state.describe(name))
            .collect())
    }

    fn namespace(&self, name: &str) -> ServiceResult<Namespace> {
        self.with(Some(name), |state, name| state.describe(name))
    }

    fn members(&self, name: &str) -> ServiceResult<Vec<NamespaceMember>> {
        self.with(Some(name), |state, _| {
            state
                .members
                .iter()
                .map(|(name, role)| NamespaceMember::new(name.clone(), role.clone()))
                .collect()
        })
    }
}

impl NamespaceState {
    fn behind_remote(&self) -> bool {
        self.remote_revision > self.local_revision
    }
}
