#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod a2a;
mod budget;
mod clock;
pub mod config;
mod container;
mod context;
mod diagnostics;
mod engine;
mod event_bus;
mod glob;
mod guard;
mod guardrails;
mod ids;
mod money;
mod plan;
mod profile;
mod registry;
mod scope;
mod service_error;
mod session;
mod string_enum;
mod sync;
#[cfg(feature = "testing")]
pub mod testing;
mod tool;

pub use a2a::{
    A2aError, A2aErrorDetail, A2aEvent, A2aLocalFacade, A2aRequest, A2aResponse, ErrorCode,
    ModelError, RequestId,
};
pub use budget::{
    BillingConfig, BudgetExceeded, BudgetLevel, BudgetSnapshot, CostBudgetService, CostLedger,
    CostRecord, DEFAULT_LEDGER_CAPACITY, DEFAULT_WARN_AT_PERCENT, InMemoryCostLedger, ModelCost,
    ModelPrice, PlanBudget, PricingError, PricingTable, Reservation, ResolvedBilling, TokenUsage,
    resolve_billing,
};
pub use clock::{Clock, ManualClock, SystemClock, from_unix_nanos, iso8601};
#[cfg(feature = "docker")]
pub use container::DockerCliRuntime;
#[cfg(feature = "bwrap")]
pub use container::{BwrapRuntime, DEFAULT_SANDBOX_PATH, HOST_IMAGE};
pub use container::{
    CONTAINER_TOOL_TYPE, CleanupMode, CleanupModeError, ContainerRuntime, ContainerToolError,
    ContainerToolExecutor, ContainerToolSpec, DEFAULT_OUTPUT_CAP, DEFAULT_TIMEOUT_SECS,
    DEVCONTAINER_RESOURCE_TYPE, DevcontainerBuild, DevcontainerConfig, DevcontainerResource,
    Execution, ExecutionStep, ExecutorConfig, FakeCall, FakeRun, FakeRuntime, ImageBuild,
    ImageStatus, InMemoryResourceRegistry, MAX_TIMEOUT_SECS, Mount, MountSpec, ResourceError,
    ResourceRegistry, RunOutcome, RunSpec, RuntimeError, SUPPORTED_DEVCONTAINER_KEYS,
};
pub use context::{
    ContextEntry, ContextScope, ContextService, ContextTier, InMemoryContextService, TierView,
};
pub use diagnostics::{CheckStatus, DiagnosticCheck, Diagnostics, DiagnosticsRegistry};
pub use engine::{
    BUDGET_EXCEEDED, CONFIG_KEYS, EngineError, EngineUse, LIFETIME_ORG, LlmCall, PlanEngine,
    PlanEngineBuilder, StepDecision, StepVerdict, ToolCall,
};
pub use event_bus::{
    BusSubscription, DomainEvent, DomainEventType, DomainHandler, EventBus, InMemoryEventBus,
};
pub use glob::glob_match;
pub use guard::{
    AutomationGuard, GuardContext, GuardKind, GuardResult, GuardScope, Objection, Verdict,
};
pub use guardrails::{
    AUDIT_TRAIL_KEY, ActorLimits, AuditContext, AuditHash, AuditSink, AuditVerifyError,
    AutonomyGuardrailService, AutonomyGuardrailServiceBuilder, AutonomyGuardrails, BudgetCheck,
    DEFAULT_AUDIT_CAPACITY, GUARDRAILS_KEY, GuardrailAuditEntry, GuardrailAuditTrail,
    GuardrailDecision, GuardrailError, GuardrailEventType, GuardrailResult, InMemoryAuditSink,
    MAX_AUDIT_SEQUENCE, SinkMode,
};
pub use ids::{ArtifactId, CheckpointId, DecisionId, EventId, IdError, PlanId, SessionId};
pub use money::{MoneyError, Usd};
pub use plan::{
    Artifact, ChangeKind, Correction, Decision, DecisionKind, FileChange, InMemoryPlanLifecycle,
    PlanFilter, PlanLifecycle, PlanPhase, PlanState, PlanStatus, PlanSummary, UsePlan,
};
pub use profile::{
    AutomationDecision, AutomationProfile, AutomationProfileService,
    AutomationProfileServiceBuilder, BUILTIN_PROFILE_NAMES, CheckpointConfig, Environment,
    GateDecision, InMemoryProfileRepository, MAX_RETRIES_LIMIT, MapEnvironment,
    NAMED_SAFETY_PROFILES, PROFILE_ENV_VAR, ProcessEnvironment, ProfileError, ProfileLevel,
    ProfileRepository, ProfileSource, Resolved, ResolvedProfile, SafetyProfile, SafetyProfileError,
    SafetyProfileRef, SandboxConfig, SandboxStrategy, Threshold, ThresholdError, Violation,
    builtin_profile, builtin_profiles, is_builtin,
};
pub use registry::{InMemoryRegistry, Registry, RegistryEntry, RegistryFilter, RegistryKind};
pub use scope::{
    CoverageMap, DependencyGraph, DependencyGraphResolver, FileInfo, FileMetadata,
    InMemoryCoverage, InMemoryDependencyGraph, InMemoryFileMetadata, InMemoryPersonas,
    PersonaScope, PersonaScopeResolver, PersonaStore, ProjectCatalog, RecentlyModifiedResolver,
    Reference, ReferenceResolver, Resolution, ResolutionContext, ResolverReport, Scope,
    ScopeBounds, ScopeChainResolver, ScopeError, ScopeItem, ScopeKind, ScopeRegistry,
    TestCoverageResolver, conventional_test_paths, parse_references,
};
pub use service_error::{ServiceError, ServiceResult};
pub use session::{
    CreateSession, InMemorySessionService, Session, SessionCloseHook, SessionCreation,
    SessionService, SessionStatus,
};
pub use string_enum::UnknownVariant;
pub use sync::{
    DEFAULT_NAMESPACE, InMemorySync, Namespace, NamespaceMember, SyncService, SyncStatus,
};
pub use tool::{
    MAX_TOOL_NAME_LEN, ToolDefinition, ToolError, ToolInvocation, ToolKind, ToolName,
    ToolNameError, ToolResult, ToolRuntime,
};

/// The guides in `docs/`, compiled here so their Rust examples run as doc tests.
#[cfg(doctest)]
mod guides {
    #[doc = include_str!("../docs/a2a-protocol.md")]
    struct A2aProtocol;
    #[doc = include_str!("../docs/automation-profiles.md")]
    struct AutomationProfiles;
    #[doc = include_str!("../docs/guards.md")]
    struct Guards;
    #[doc = include_str!("../docs/budgets.md")]
    struct Budgets;
    #[doc = include_str!("../docs/scope-chain.md")]
    struct ScopeChain;
    #[doc = include_str!("../docs/container-tools.md")]
    struct ContainerTools;
}
