//! Every method name the facade answers, as one table.
//!
//! [`Method`] is the canonical operation; [`LEGACY_ALIASES`] maps each
//! deprecated proprietary name to its replacement. A legacy name is routed to
//! exactly the handler of its replacement, so it answers exactly the same.

use std::fmt;

use super::error::ErrorFamily;

macro_rules! methods {
    ($($(#[$meta:meta])* $variant:ident => $name:literal, $service:literal;)+) => {
        /// A canonical operation of the facade.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Method {
            $($(#[$meta])* $variant,)+
        }

        impl Method {
            /// Every canonical method, in table order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)+];

            /// The method's wire name.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self { $(Self::$variant => $name,)+ }
            }

            /// The service key the method needs (as reported in `data.service`
            /// when that service is not wired).
            #[must_use]
            pub const fn service(self) -> &'static str {
                match self { $(Self::$variant => $service,)+ }
            }

            fn from_canonical(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

methods! {
    /// `session.create`
    SessionCreate => "session.create", "session_service";
    /// `session.close`
    SessionClose => "session.close", "session_service";
    /// `_cleveragents/plan/use`
    PlanUse => "_cleveragents/plan/use", "plan_lifecycle_service";
    /// `_cleveragents/plan/execute`
    PlanExecute => "_cleveragents/plan/execute", "plan_lifecycle_service";
    /// `_cleveragents/plan/apply`
    PlanApply => "_cleveragents/plan/apply", "plan_lifecycle_service";
    /// `_cleveragents/plan/cancel`
    PlanCancel => "_cleveragents/plan/cancel", "plan_lifecycle_service";
    /// `_cleveragents/plan/status`
    PlanStatus => "_cleveragents/plan/status", "plan_lifecycle_service";
    /// `_cleveragents/plan/tree`
    PlanTree => "_cleveragents/plan/tree", "plan_lifecycle_service";
    /// `_cleveragents/plan/explain`
    PlanExplain => "_cleveragents/plan/explain", "plan_lifecycle_service";
    /// `_cleveragents/plan/correct`
    PlanCorrect => "_cleveragents/plan/correct", "plan_lifecycle_service";
    /// `_cleveragents/plan/diff`
    PlanDiff => "_cleveragents/plan/diff", "plan_lifecycle_service";
    /// `_cleveragents/plan/artifacts`
    PlanArtifacts => "_cleveragents/plan/artifacts", "plan_lifecycle_service";
    /// `_cleveragents/plan/prompt`
    PlanPrompt => "_cleveragents/plan/prompt", "plan_lifecycle_service";
    /// `_cleveragents/plan/rollback`
    PlanRollback => "_cleveragents/plan/rollback", "plan_lifecycle_service";
    /// `_cleveragents/plan/list`
    PlanList => "_cleveragents/plan/list", "plan_lifecycle_service";
    /// `_cleveragents/registry/tool/list`
    RegistryToolList => "_cleveragents/registry/tool/list", "tool_registry";
    /// `_cleveragents/registry/resource/list`
    RegistryResourceList => "_cleveragents/registry/resource/list", "resource_registry_service";
    /// `_cleveragents/registry/actor/list`
    RegistryActorList => "_cleveragents/registry/actor/list", "actor_registry";
    /// `_cleveragents/registry/skill/list`
    RegistrySkillList => "_cleveragents/registry/skill/list", "skill_registry";
    /// `_cleveragents/registry/action/list`
    RegistryActionList => "_cleveragents/registry/action/list", "action_registry";
    /// `_cleveragents/registry/project/list`
    RegistryProjectList => "_cleveragents/registry/project/list", "project_registry";
    /// `_cleveragents/context/show`
    ContextShow => "_cleveragents/context/show", "context_service";
    /// `_cleveragents/context/inspect`
    ContextInspect => "_cleveragents/context/inspect", "context_service";
    /// `_cleveragents/context/simulate`
    ContextSimulate => "_cleveragents/context/simulate", "context_service";
    /// `_cleveragents/context/set`
    ContextSet => "_cleveragents/context/set", "context_service";
    /// `_cleveragents/health/check`
    HealthCheck => "_cleveragents/health/check", "facade";
    /// `_cleveragents/diagnostics/run`
    DiagnosticsRun => "_cleveragents/diagnostics/run", "diagnostics_service";
    /// `_cleveragents/sync/pull`
    SyncPull => "_cleveragents/sync/pull", "sync_service";
    /// `_cleveragents/sync/push`
    SyncPush => "_cleveragents/sync/push", "sync_service";
    /// `_cleveragents/sync/status`
    SyncStatus => "_cleveragents/sync/status", "sync_service";
    /// `_cleveragents/namespace/list`
    NamespaceList => "_cleveragents/namespace/list", "sync_service";
    /// `_cleveragents/namespace/show`
    NamespaceShow => "_cleveragents/namespace/show", "sync_service";
    /// `_cleveragents/namespace/members`
    NamespaceMembers => "_cleveragents/namespace/members", "sync_service";
    /// `_cleveragents/event/subscribe`
    EventSubscribe => "_cleveragents/event/subscribe", "event_queue";
    /// `_cleveragents/plan/approve`: a human approves what a waiting plan asks.
    PlanApprove => "_cleveragents/plan/approve", "plan_engine";
    /// `_cleveragents/plan/resume` (`plan resume`): continue a paused plan.
    PlanResume => "_cleveragents/plan/resume", "plan_engine";
    /// `_cleveragents/plan/step`: start the next execution step.
    PlanStep => "_cleveragents/plan/step", "plan_engine";
    /// `_cleveragents/plan/tool/call`: decide one tool call.
    PlanToolCall => "_cleveragents/plan/tool/call", "plan_engine";
    /// `_cleveragents/plan/retry`: decide one retry.
    PlanRetry => "_cleveragents/plan/retry", "plan_engine";
    /// `_cleveragents/plan/llm/reserve`: pre-flight reservation of an LLM call.
    PlanLlmReserve => "_cleveragents/plan/llm/reserve", "plan_engine";
    /// `_cleveragents/plan/llm/commit`: settle an LLM call at its actual cost.
    PlanLlmCommit => "_cleveragents/plan/llm/commit", "plan_engine";
    /// `_cleveragents/plan/llm/release`: release an unused reservation.
    PlanLlmRelease => "_cleveragents/plan/llm/release", "plan_engine";
    /// `_cleveragents/plan/cost` (`plan cost`).
    PlanCost => "_cleveragents/plan/cost", "plan_engine";
    /// `_cleveragents/session/cost` (`session cost [--all]`).
    SessionCost => "_cleveragents/session/cost", "plan_engine";
    /// `_cleveragents/config/get` (`config get`).
    ConfigGet => "_cleveragents/config/get", "plan_engine";
    /// `_cleveragents/config/set` (`config set`).
    ConfigSet => "_cleveragents/config/set", "plan_engine";
    /// `_cleveragents/plan/guard/show` (`plan guard show`).
    PlanGuardShow => "_cleveragents/plan/guard/show", "plan_engine";
    /// `_cleveragents/plan/guard/audit` (`plan guard audit`).
    PlanGuardAudit => "_cleveragents/plan/guard/audit", "plan_engine";
    /// `_cleveragents/plan/guard/set` (`plan guard set`).
    PlanGuardSet => "_cleveragents/plan/guard/set", "plan_engine";
    /// `_cleveragents/plan/guard/denylist/add` (`plan guard denylist add`).
    PlanGuardDenylistAdd => "_cleveragents/plan/guard/denylist/add", "plan_engine";
    /// `_cleveragents/plan/guard/denylist/remove` (`plan guard denylist remove`).
    PlanGuardDenylistRemove => "_cleveragents/plan/guard/denylist/remove", "plan_engine";
    /// `_cleveragents/plan/profile/show` (`plan profile show`).
    PlanProfileShow => "_cleveragents/plan/profile/show", "plan_engine";
    /// `_cleveragents/automation-profile/list`.
    ProfileList => "_cleveragents/automation-profile/list", "plan_engine";
    /// `_cleveragents/automation-profile/show`.
    ProfileShow => "_cleveragents/automation-profile/show", "plan_engine";
    /// `_cleveragents/automation-profile/add`.
    ProfileAdd => "_cleveragents/automation-profile/add", "plan_engine";
    /// `_cleveragents/automation-profile/update`.
    ProfileUpdate => "_cleveragents/automation-profile/update", "plan_engine";
    /// `_cleveragents/automation-profile/delete`.
    ProfileDelete => "_cleveragents/automation-profile/delete", "plan_engine";
    /// `message/send` (1.0: `SendMessage`)
    MessageSend => "message/send", "agent_executor";
    /// `message/stream` (1.0: `SendStreamingMessage`)
    MessageStream => "message/stream", "agent_executor";
    /// `tasks/get` (1.0: `GetTask`)
    TasksGet => "tasks/get", "task_store";
    /// `tasks/list` (1.0: `ListTasks`)
    TasksList => "tasks/list", "task_store";
    /// `tasks/cancel` (1.0: `CancelTask`)
    TasksCancel => "tasks/cancel", "task_store";
    /// `tasks/resubscribe` (1.0: `SubscribeToTask`; also `tasks/subscribe`)
    TasksResubscribe => "tasks/resubscribe", "event_queue";
    /// `tasks/pushNotificationConfig/set` (1.0: `CreateTaskPushNotificationConfig`)
    PushConfigSet => "tasks/pushNotificationConfig/set", "push_notifier";
    /// `tasks/pushNotificationConfig/get` (1.0: `GetTaskPushNotificationConfig`)
    PushConfigGet => "tasks/pushNotificationConfig/get", "push_notifier";
    /// `tasks/pushNotificationConfig/list` (1.0: `ListTaskPushNotificationConfigs`)
    PushConfigList => "tasks/pushNotificationConfig/list", "push_notifier";
    /// `tasks/pushNotificationConfig/delete` (1.0: `DeleteTaskPushNotificationConfig`)
    PushConfigDelete => "tasks/pushNotificationConfig/delete", "push_notifier";
    /// `agent/getAuthenticatedExtendedCard` (1.0: `GetExtendedAgentCard`)
    ExtendedCard => "agent/getAuthenticatedExtendedCard", "extended_agent_card";
}

/// Other spellings of the standard operations: the A2A 1.0 names and the
/// specification's own short names. Not deprecated: every spelling is current.
pub const STANDARD_ALIASES: &[(&str, Method)] = &[
    ("SendMessage", Method::MessageSend),
    ("SendStreamingMessage", Method::MessageStream),
    ("GetTask", Method::TasksGet),
    ("ListTasks", Method::TasksList),
    ("CancelTask", Method::TasksCancel),
    ("SubscribeToTask", Method::TasksResubscribe),
    ("tasks/subscribe", Method::TasksResubscribe),
    ("CreateTaskPushNotificationConfig", Method::PushConfigSet),
    ("GetTaskPushNotificationConfig", Method::PushConfigGet),
    ("ListTaskPushNotificationConfigs", Method::PushConfigList),
    ("DeleteTaskPushNotificationConfig", Method::PushConfigDelete),
    ("pushNotificationConfig/set", Method::PushConfigSet),
    ("pushNotificationConfig/get", Method::PushConfigGet),
    ("pushNotificationConfig/list", Method::PushConfigList),
    ("pushNotificationConfig/delete", Method::PushConfigDelete),
    ("GetExtendedAgentCard", Method::ExtendedCard),
    ("getExtendedAgentCard", Method::ExtendedCard),
];

/// Deprecated proprietary names and their replacements (the specification's table;
/// `session.create` and `session.close` are unchanged and so are canonical).
pub const LEGACY_ALIASES: &[(&str, Method)] = &[
    ("plan.create", Method::PlanUse),
    ("plan.execute", Method::PlanExecute),
    ("plan.status", Method::PlanStatus),
    ("plan.diff", Method::PlanDiff),
    ("plan.apply", Method::PlanApply),
    ("registry.list_tools", Method::RegistryToolList),
    ("registry.list_resources", Method::RegistryResourceList),
    ("context.get", Method::ContextShow),
    ("event.subscribe", Method::EventSubscribe),
];

/// A method name resolved to its operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Resolved {
    /// The operation.
    pub method: Method,
    /// Whether the name used was a deprecated legacy alias.
    pub legacy: bool,
}

impl Method {
    /// Resolves a wire name (canonical or legacy) to its operation.
    ///
    /// ```
    /// use cleveragents::a2a::Method;
    ///
    /// let legacy = Method::resolve("plan.create").unwrap();
    /// assert_eq!(legacy.method, Method::PlanUse);
    /// assert!(legacy.legacy);
    /// assert!(Method::resolve("rpc.discover").is_none());
    /// ```
    #[must_use]
    pub fn resolve(name: &str) -> Option<Resolved> {
        if let Some(method) = Self::from_canonical(name) {
            return Some(Resolved {
                method,
                legacy: false,
            });
        }
        if let Some(&(_, method)) = STANDARD_ALIASES.iter().find(|(alias, _)| *alias == name) {
            return Some(Resolved {
                method,
                legacy: false,
            });
        }
        LEGACY_ALIASES
            .iter()
            .find(|(legacy, _)| *legacy == name)
            .map(|&(_, method)| Resolved {
                method,
                legacy: true,
            })
    }

    /// Whether this is a standard A2A operation (answered with the A2A
    /// standard's error codes).
    #[must_use]
    pub const fn is_standard(self) -> bool {
        matches!(
            self,
            Self::MessageSend
                | Self::MessageStream
                | Self::TasksGet
                | Self::TasksList
                | Self::TasksCancel
                | Self::TasksResubscribe
                | Self::PushConfigSet
                | Self::PushConfigGet
                | Self::PushConfigList
                | Self::PushConfigDelete
                | Self::ExtendedCard
        )
    }

    /// Whether the operation answers with a stream of responses.
    #[must_use]
    pub const fn is_streaming(self) -> bool {
        matches!(self, Self::MessageStream | Self::TasksResubscribe)
    }

    /// The error-code family of this method.
    #[must_use]
    pub const fn family(self) -> ErrorFamily {
        if self.is_standard() {
            ErrorFamily::Standard
        } else {
            ErrorFamily::Vendor
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_to_itself() {
        for method in Method::ALL {
            assert_eq!(Method::resolve(method.name()).unwrap().method, *method);
        }
        assert_eq!(Method::ALL.len(), 2 + 13 + 6 + 4 + 2 + 6 + 1 + 23 + 11);
        for (alias, method) in STANDARD_ALIASES {
            assert_eq!(Method::resolve(alias).unwrap().method, *method);
            assert!(method.is_standard());
        }
    }

    #[test]
    fn legacy_names_are_not_canonical() {
        for (legacy, _) in LEGACY_ALIASES {
            assert!(Method::resolve(legacy).unwrap().legacy);
        }
    }
}
