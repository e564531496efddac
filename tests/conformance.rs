//! The public conformance checks, run against the in-memory implementations.
#![cfg(feature = "testing")]

use cleveragents::testing::{check_context_service, check_plan_lifecycle, check_session_service};
use cleveragents::{InMemoryContextService, InMemoryPlanLifecycle, InMemorySessionService};

#[test]
fn in_memory_sessions_conform() {
    assert_eq!(
        check_session_service(&InMemorySessionService::new()),
        Ok(())
    );
}

#[test]
fn in_memory_plans_conform() {
    assert_eq!(check_plan_lifecycle(&InMemoryPlanLifecycle::new()), Ok(()));
}

#[test]
fn in_memory_context_conforms() {
    assert_eq!(
        check_context_service(&InMemoryContextService::new()),
        Ok(())
    );
}
