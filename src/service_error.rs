//! The error every service port returns.
//!
//! Ports are implemented by hosts, so the error says *what kind* of failure it
//! was (not found, wrong state, bad input, host failure) with the entity and the
//! parameter at fault; the A2A layer maps each kind to a JSON-RPC code.

use std::error::Error as StdError;

/// A service operation that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// The entity does not exist.
    #[error("{entity} `{id}` not found")]
    NotFound {
        /// What was looked up, e.g. `plan`.
        entity: &'static str,
        /// The parameter that named it, e.g. `plan_id`.
        key: &'static str,
        /// The id or name given.
        id: String,
    },
    /// An entity with that id or name exists already.
    #[error("{entity} `{id}` already exists")]
    AlreadyExists {
        /// What was being created.
        entity: &'static str,
        /// The parameter that named it.
        key: &'static str,
        /// The id or name given.
        id: String,
    },
    /// The operation is not allowed in the entity's current state.
    #[error("cannot {action} {entity} `{id}`: {reason}")]
    InvalidState {
        /// The entity, e.g. `plan`.
        entity: &'static str,
        /// The parameter that named it.
        key: &'static str,
        /// Its id.
        id: String,
        /// The refused operation, e.g. `apply`.
        action: &'static str,
        /// Why, naming the current state.
        reason: String,
    },
    /// An input value is unacceptable.
    #[error("invalid `{field}`: {message}")]
    Invalid {
        /// The parameter at fault.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The host's implementation failed.
    #[error("host service failed: {0}")]
    Host(Box<dyn StdError + Send + Sync>),
}

impl ServiceError {
    /// A [`ServiceError::NotFound`].
    #[must_use]
    pub fn not_found(entity: &'static str, key: &'static str, id: impl ToString) -> Self {
        Self::NotFound {
            entity,
            key,
            id: id.to_string(),
        }
    }

    /// A [`ServiceError::Invalid`].
    #[must_use]
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Convenience alias for service results.
pub type ServiceResult<T> = Result<T, ServiceError>;

/// Rejects blank text for a required field.
pub(crate) fn require_text(field: &str, value: &str) -> ServiceResult<()> {
    if value.trim().is_empty() {
        Err(ServiceError::invalid(field, "must not be blank"))
    } else {
        Ok(())
    }
}
