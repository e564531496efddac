//! Automation guards: pure, per-tool-call checks (denylist, allowlist, budget
//! cap, tool-call limit, write and apply approval).
//!
//! [`AutomationGuard::check`] evaluates every guard; the strictest verdict
//! wins (`Allow < RequireApproval < Deny`) and every objection is listed with
//! the guard that raised it. Guards object by asking for approval; when no
//! human can answer ([`GuardContext::human_available`] is false), an approval
//! request becomes a denial. The allowed path allocates nothing.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::glob::glob_match;
use crate::money::Usd;
use crate::string_enum::string_enum;

string_enum!(
    /// What a guard check is counted against.
    GuardScope, "guard scope" {
        /// One execution step.
        Step => "step",
        /// The whole plan.
        Plan => "plan",
        /// The whole session.
        Session => "session",
    }
);

string_enum!(
    /// The guards, in the order their objections are reported.
    GuardKind, "guard" {
        /// `tool_denylist`
        Denylist => "denylist",
        /// `tool_allowlist`
        Allowlist => "allowlist",
        /// `max_total_cost`
        BudgetCap => "budget_cap",
        /// `max_tool_calls_per_step`
        ToolCallLimit => "tool_call_limit",
        /// `require_approval_for_writes`
        WriteApproval => "write_approval",
        /// `require_approval_for_apply`
        ApplyApproval => "apply_approval",
    }
);

string_enum!(
    /// A guard's verdict, from least to most strict.
    Verdict, "verdict" {
        /// Go on automatically.
        Allow => "allow",
        /// A human must approve first.
        RequireApproval => "require_approval",
        /// Stop.
        Deny => "deny",
    }
);

/// Guard configuration (the `guard:` block of an automation profile).
/// `None` means no restriction.
///
/// ```
/// use cleveragents::{AutomationGuard, GuardContext, Usd};
///
/// let mut guard = AutomationGuard::default();
/// guard.tool_denylist = Some(vec!["shell_exec".into(), "rm_*".into()]);
/// guard.max_total_cost = Some(Usd::from_cents(500));
///
/// let allowed = guard.check(&GuardContext::new("read_file"));
/// assert!(allowed.allowed);
///
/// let denied = guard.check(&GuardContext::new("shell_exec"));
/// assert_eq!(
///     denied.reason.as_deref(),
///     Some("Tool 'shell_exec' is on the denylist. Remediation: remove it from the denylist or request human approval.")
/// );
/// assert!(denied.requires_approval);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(
        description = "Per-tool-call guards; an absent field means no restriction. Tool lists accept `*` patterns."
    )
)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AutomationGuard {
    /// Most tool calls allowed per step: calls are allowed while `calls_so_far < limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls_per_step: Option<u32>,
    /// Cost cap in USD: objects once `cost_so_far > max_total_cost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_cost: Option<Usd>,
    /// When set, only these tools (names or `*` patterns) run automatically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_allowlist: Option<Vec<String>>,
    /// These tools (names or `*` patterns) never run automatically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_denylist: Option<Vec<String>>,
    /// Every write needs approval.
    #[serde(default)]
    pub require_approval_for_writes: bool,
    /// Entering the apply phase needs approval.
    #[serde(default)]
    pub require_approval_for_apply: bool,
}

/// What a guard check looks at. Borrowed, so building one allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct GuardContext<'a> {
    /// The tool about to be called.
    pub tool_name: &'a str,
    /// Whether the call writes (files, databases, …).
    pub is_write: bool,
    /// Cost spent so far, including this call's.
    pub cost_so_far: Usd,
    /// Tool calls already made in this step.
    pub calls_so_far: u32,
    /// What the counters are counted against.
    pub scope: GuardScope,
    /// Whether a human can answer an approval request.
    pub human_available: bool,
}

impl<'a> GuardContext<'a> {
    /// A read-only call of `tool_name`, nothing spent, no calls yet, plan scope,
    /// with a human available.
    #[must_use]
    pub const fn new(tool_name: &'a str) -> Self {
        Self {
            tool_name,
            is_write: false,
            cost_so_far: Usd::ZERO,
            calls_so_far: 0,
            scope: GuardScope::Plan,
            human_available: true,
        }
    }

    /// Marks the call as a write (or not).
    #[must_use]
    pub const fn write(mut self, is_write: bool) -> Self {
        self.is_write = is_write;
        self
    }

    /// Sets the cost spent so far.
    #[must_use]
    pub const fn cost_so_far(mut self, cost: Usd) -> Self {
        self.cost_so_far = cost;
        self
    }

    /// Sets the calls already made.
    #[must_use]
    pub const fn calls_so_far(mut self, calls: u32) -> Self {
        self.calls_so_far = calls;
        self
    }

    /// Sets the scope.
    #[must_use]
    pub const fn scope(mut self, scope: GuardScope) -> Self {
        self.scope = scope;
        self
    }

    /// Says whether a human can answer approval requests.
    #[must_use]
    pub const fn human_available(mut self, available: bool) -> Self {
        self.human_available = available;
        self
    }
}

/// One guard's objection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Objection {
    /// The guard.
    pub guard: GuardKind,
    /// Why, ending with a remediation.
    pub reason: String,
}

/// The outcome of a guard check, in the specification's shape (`allowed`, `reason`,
/// `requires_approval`) plus the verdict and every objection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GuardResult {
    /// Whether the call may go on automatically.
    pub allowed: bool,
    /// The first objection's reason (order: denylist, allowlist, budget cap,
    /// tool-call limit, write approval).
    pub reason: Option<String>,
    /// Whether a human's approval would let it go on.
    pub requires_approval: bool,
    /// The strictest verdict.
    pub verdict: Verdict,
    /// Every objection, in report order.
    pub objections: Vec<Objection>,
}

impl GuardResult {
    /// The allowed result (allocates nothing).
    #[must_use]
    pub const fn allow() -> Self {
        Self {
            allowed: true,
            reason: None,
            requires_approval: false,
            verdict: Verdict::Allow,
            objections: Vec::new(),
        }
    }

    fn from_objections(objections: Vec<Objection>, human_available: bool) -> Self {
        if objections.is_empty() {
            return Self::allow();
        }
        let verdict = if human_available {
            Verdict::RequireApproval
        } else {
            Verdict::Deny
        };
        Self {
            allowed: false,
            reason: objections.first().map(|o| o.reason.clone()),
            requires_approval: verdict == Verdict::RequireApproval,
            verdict,
            objections,
        }
    }
}

impl fmt::Display for GuardResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            Some(reason) => write!(f, "{}: {reason}", self.verdict),
            None => f.write_str(self.verdict.as_str()),
        }
    }
}

fn listed(patterns: &[String], tool: &str) -> bool {
    patterns.iter().any(|p| glob_match(p, tool))
}

impl AutomationGuard {
    /// Evaluates every guard for one tool call.
    #[must_use]
    pub fn check(&self, ctx: &GuardContext<'_>) -> GuardResult {
        let denied = self
            .tool_denylist
            .as_deref()
            .is_some_and(|l| listed(l, ctx.tool_name));
        let not_allowed = self
            .tool_allowlist
            .as_deref()
            .is_some_and(|l| !listed(l, ctx.tool_name));
        let over_budget = self.max_total_cost.is_some_and(|cap| ctx.cost_so_far > cap);
        let at_limit = self
            .max_tool_calls_per_step
            .is_some_and(|limit| ctx.calls_so_far >= limit);
        let write = self.require_approval_for_writes && ctx.is_write;
        if !(denied || not_allowed || over_budget || at_limit || write) {
            return GuardResult::allow();
        }
        let tool = ctx.tool_name;
        let mut objections = Vec::with_capacity(5);
        if denied {
            objections.push(Objection {
                guard: GuardKind::Denylist,
                reason: format!(
                    "Tool '{tool}' is on the denylist. Remediation: remove it from the denylist or request human approval."
                ),
            });
        }
        if not_allowed {
            objections.push(Objection {
                guard: GuardKind::Allowlist,
                reason: format!(
                    "Tool '{tool}' is not on the allowlist. Remediation: add it to the allowlist or request human approval."
                ),
            });
        }
        if let (true, Some(cap)) = (over_budget, self.max_total_cost) {
            objections.push(Objection {
                guard: GuardKind::BudgetCap,
                reason: format!(
                    "Budget cap exceeded: {} > {cap}. Remediation: raise max_total_cost, lower cost, or request human approval.",
                    ctx.cost_so_far
                ),
            });
        }
        if let (true, Some(limit)) = (at_limit, self.max_tool_calls_per_step) {
            objections.push(Objection {
                guard: GuardKind::ToolCallLimit,
                reason: format!(
                    "Tool call limit reached: {}/{limit}. Remediation: increase max_tool_calls_per_step, reduce tool usage, or request human approval.",
                    ctx.calls_so_far
                ),
            });
        }
        if write {
            objections.push(Objection {
                guard: GuardKind::WriteApproval,
                reason: format!(
                    "Tool '{tool}' writes and writes require approval. Remediation: set require_approval_for_writes to false or request human approval."
                ),
            });
        }
        GuardResult::from_objections(objections, ctx.human_available)
    }

    /// Checks the transition to the apply phase.
    #[must_use]
    pub fn check_apply(&self, human_available: bool) -> GuardResult {
        if !self.require_approval_for_apply {
            return GuardResult::allow();
        }
        GuardResult::from_objections(
            vec![Objection {
                guard: GuardKind::ApplyApproval,
                reason: "Applying the plan requires approval. Remediation: set require_approval_for_apply to false or request human approval."
                    .to_owned(),
            }],
            human_available,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> AutomationGuard {
        AutomationGuard {
            max_tool_calls_per_step: Some(10),
            max_total_cost: Some(Usd::from_cents(500)),
            tool_allowlist: None,
            tool_denylist: Some(vec!["shell_exec".into(), "network_*".into()]),
            require_approval_for_writes: true,
            require_approval_for_apply: true,
        }
    }

    #[test]
    fn specified_reasons_are_exact() {
        let g = guard();
        let r = g.check(&GuardContext::new("read_file").cost_so_far(Usd::from_cents(523)));
        assert_eq!(
            r.reason.as_deref(),
            Some(
                "Budget cap exceeded: $5.23 > $5.00. Remediation: raise max_total_cost, lower cost, or request human approval."
            )
        );
        let r = g.check(&GuardContext::new("read_file").calls_so_far(10));
        assert_eq!(
            r.reason.as_deref(),
            Some(
                "Tool call limit reached: 10/10. Remediation: increase max_tool_calls_per_step, reduce tool usage, or request human approval."
            )
        );
        assert!(
            g.check(&GuardContext::new("read_file").calls_so_far(9))
                .allowed
        );
        assert!(
            g.check(&GuardContext::new("read_file").cost_so_far(Usd::from_cents(500)))
                .allowed
        );
    }

    #[test]
    fn every_objection_is_listed_and_no_human_means_deny() {
        let g = guard();
        let ctx = GuardContext::new("network_request")
            .write(true)
            .calls_so_far(11)
            .cost_so_far(Usd::from_dollars(6))
            .human_available(false);
        let r = g.check(&ctx);
        let kinds: Vec<GuardKind> = r.objections.iter().map(|o| o.guard).collect();
        assert_eq!(
            kinds,
            [
                GuardKind::Denylist,
                GuardKind::BudgetCap,
                GuardKind::ToolCallLimit,
                GuardKind::WriteApproval
            ]
        );
        assert_eq!(r.verdict, Verdict::Deny);
        assert!(!r.requires_approval && !r.allowed);
        assert_eq!(g.check_apply(true).verdict, Verdict::RequireApproval);
        assert!(AutomationGuard::default().check_apply(false).allowed);
    }
}
