//! Sessions: one conversation between a frontend and the agent.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::clock::{Clock, SystemClock};
use crate::ids::SessionId;
use crate::service_error::{ServiceError, ServiceResult};

/// Whether a session is still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SessionStatus {
    /// Accepting work.
    Open,
    /// Closed; kept for reference.
    Closed,
}

/// A session record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Session {
    /// Its id.
    pub session_id: SessionId,
    /// The actor driving it, e.g. `openai/gpt-4o`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_name: Option<String>,
    /// Open or closed.
    pub status: SessionStatus,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<DateTime<Utc>>,
    /// Free-form host metadata.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl Session {
    /// An open session with no actor and no metadata.
    #[must_use]
    pub fn new(session_id: SessionId, created_at: DateTime<Utc>) -> Self {
        Self {
            session_id,
            actor_name: None,
            status: SessionStatus::Open,
            created_at,
            closed_at: None,
            metadata: Map::new(),
        }
    }
}

/// What `session.create` asks for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct CreateSession {
    /// When given, creation is idempotent: an existing session with this id is
    /// returned unchanged, otherwise one is created with exactly this id.
    #[serde(default)]
    pub session_id: Option<SessionId>,
    /// The actor driving the session.
    #[serde(default)]
    pub actor_name: Option<String>,
    /// Free-form host metadata.
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

impl CreateSession {
    /// A request for a new session.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the actor name.
    #[must_use]
    pub fn actor_name(mut self, name: impl Into<String>) -> Self {
        self.actor_name = Some(name.into());
        self
    }

    /// Makes creation idempotent on this id.
    #[must_use]
    pub fn session_id(mut self, id: SessionId) -> Self {
        self.session_id = Some(id);
        self
    }
}

/// The outcome of a create: the session and whether it was new.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionCreation {
    /// The session.
    pub session: Session,
    /// `false` when an existing session was returned (idempotent create).
    pub created: bool,
}

impl SessionCreation {
    /// The outcome of a create.
    #[must_use]
    pub fn new(session: Session, created: bool) -> Self {
        Self { session, created }
    }
}

/// Told when a session closes, so resources tied to it (devcontainers,
/// kept containers) can be released.
///
/// Hooks run after the close has been stored, outside every lock. They must
/// not fail the close: problems are theirs to report (as events, logs).
pub trait SessionCloseHook: Send + Sync + Debug {
    /// `session` has just been closed.
    fn session_closed(&self, session: SessionId);
}

/// Storage and lifecycle of sessions. Implemented by hosts; methods take `&self`,
/// so implementations use interior mutability and must be safe under concurrency.
pub trait SessionService: Send + Sync + Debug + 'static {
    /// Creates a session, or returns the existing one when `request.session_id`
    /// names a session that exists.
    ///
    /// # Errors
    /// [`ServiceError`] from the host.
    fn create(&self, request: CreateSession) -> ServiceResult<SessionCreation>;

    /// Closes a session; closing a closed session returns it unchanged.
    ///
    /// # Errors
    /// [`ServiceError::NotFound`] for an unknown id.
    fn close(&self, id: SessionId) -> ServiceResult<Session>;

    /// Looks a session up.
    ///
    /// # Errors
    /// [`ServiceError::NotFound`] for an unknown id.
    fn get(&self, id: SessionId) -> ServiceResult<Session>;

    /// All sessions, oldest first.
    ///
    /// # Errors
    /// [`ServiceError`] from the host.
    fn list(&self) -> ServiceResult<Vec<Session>>;
}

/// The in-memory [`SessionService`]: a cheap `Clone` handle; clones share state.
///
/// ```
/// use cleveragents::{CreateSession, InMemorySessionService, SessionService};
///
/// let sessions = InMemorySessionService::new();
/// let first = sessions.create(CreateSession::new().actor_name("openai/gpt-4o"))?;
/// let again = sessions.create(CreateSession::new().session_id(first.session.session_id))?;
/// assert!(!again.created);
/// assert_eq!(sessions.list()?.len(), 1);
/// # Ok::<(), cleveragents::ServiceError>(())
/// ```
#[derive(Debug, Clone)]
pub struct InMemorySessionService {
    sessions: Arc<RwLock<HashMap<SessionId, Session>>>,
    clock: Arc<dyn Clock>,
}

impl InMemorySessionService {
    /// An empty store using the system clock.
    #[must_use]
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// An empty store using `clock` for timestamps.
    #[must_use]
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            sessions: Arc::default(),
            clock,
        }
    }
}

impl Default for InMemorySessionService {
    fn default() -> Self {
        Self::new()
    }
}

impl SessionService for InMemorySessionService {
    fn create(&self, request: CreateSession) -> ServiceResult<SessionCreation> {
        let now = self.clock.now();
        let mut sessions = self.sessions.write();
        if let Some(existing) = request.session_id.and_then(|id| sessions.get(&id)) {
            return Ok(SessionCreation::new(existing.clone(), false));
        }
        let mut session = Session::new(request.session_id.unwrap_or_default(), now);
        session.actor_name = request.actor_name;
        session.metadata = request.metadata;
        sessions.insert(session.session_id, session.clone());
        Ok(SessionCreation::new(session, true))
    }

    fn close(&self, id: SessionId) -> ServiceResult<Session> {
        let now = self.clock.now();
        let mut sessions = self.sessions.write();
        let session = sessions
            .get_mut(&id)
            .ok_or_else(|| ServiceError::not_found("session", "session_id", id))?;
        if session.status == SessionStatus::Open {
            session.status = SessionStatus::Closed;
            session.closed_at = Some(now);
        }
        Ok(session.clone())
    }

    fn get(&self, id: SessionId) -> ServiceResult<Session> {
        self.sessions
            .read()
            .get(&id)
            .cloned()
            .ok_or_else(|| ServiceError::not_found("session", "session_id", id))
    }

    fn list(&self) -> ServiceResult<Vec<Session>> {
        let mut all: Vec<Session> = self.sessions.read().values().cloned().collect();
        all.sort_by_key(|s| (s.created_at, s.session_id));
        Ok(all)
    }
}
