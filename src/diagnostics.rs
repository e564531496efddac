//! Diagnostics: named self-checks a host registers, run on demand.

use std::fmt::{self, Debug};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use crate::service_error::{ServiceError, ServiceResult, require_text};
use crate::string_enum::string_enum;

string_enum!(
    /// The outcome of one check.
    CheckStatus, "check status" {
        /// Fine.
        Pass => "pass",
        /// Works, but something needs attention.
        Warn => "warn",
        /// Broken.
        Fail => "fail",
    }
);

/// The result of one diagnostic check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DiagnosticCheck {
    /// The check's name.
    pub name: String,
    /// Its outcome.
    pub status: CheckStatus,
    /// What it found.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl DiagnosticCheck {
    /// A result.
    #[must_use]
    pub fn new(name: impl Into<String>, status: CheckStatus, detail: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status,
            detail: detail.into(),
        }
    }
}

/// Runs diagnostics. Implemented by hosts; `&self`, safe under concurrency.
pub trait Diagnostics: Send + Sync + Debug + 'static {
    /// Runs every check, in a stable order.
    ///
    /// # Errors
    /// From the host.
    fn run(&self) -> ServiceResult<Vec<DiagnosticCheck>>;
}

type CheckFn = Arc<dyn Fn() -> DiagnosticCheck + Send + Sync>;

/// The in-memory [`Diagnostics`]: checks registered as closures.
///
/// Checks run outside any lock, in registration order; a check that panics is
/// reported as failed instead of taking the caller down.
///
/// ```
/// use cleveragents::{CheckStatus, DiagnosticCheck, Diagnostics, DiagnosticsRegistry};
///
/// let diagnostics = DiagnosticsRegistry::new();
/// diagnostics.add_check("disk", || DiagnosticCheck::new("disk", CheckStatus::Pass, "80 GiB free"))?;
/// assert_eq!(diagnostics.run()?[0].status, CheckStatus::Pass);
/// # Ok::<(), cleveragents::ServiceError>(())
/// ```
#[derive(Clone, Default)]
pub struct DiagnosticsRegistry {
    checks: Arc<RwLock<Vec<(String, CheckFn)>>>,
}

impl Debug for DiagnosticsRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.checks.read().iter().map(|(n, _)| n.clone()).collect();
        f.debug_struct("DiagnosticsRegistry")
            .field("checks", &names)
            .finish()
    }
}

impl DiagnosticsRegistry {
    /// No checks.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a check under a unique name.
    ///
    /// # Errors
    /// `Invalid` for a blank name, `AlreadyExists` for a taken one.
    pub fn add_check(
        &self,
        name: impl Into<String>,
        check: impl Fn() -> DiagnosticCheck + Send + Sync + 'static,
    ) -> ServiceResult<()> {
        let name = name.into();
        require_text("name", &name)?;
        let mut checks = self.checks.write();
        if checks.iter().any(|(n, _)| *n == name) {
            return Err(ServiceError::AlreadyExists {
                entity: "check",
                key: "name",
                id: name,
            });
        }
        checks.push((name, Arc::new(check)));
        Ok(())
    }
}

impl Diagnostics for DiagnosticsRegistry {
    fn run(&self) -> ServiceResult<Vec<DiagnosticCheck>> {
        // Copy the handles out so no lock is held while host code runs.
        let checks: Vec<(String, CheckFn)> = self.checks.read().clone();
        Ok(checks
            .into_iter()
            .map(|(name, check)| {
                catch_unwind(AssertUnwindSafe(|| check())).unwrap_or_else(|_| {
                    DiagnosticCheck::new(name, CheckStatus::Fail, "the check panicked")
                })
            })
            .collect())
    }
}
