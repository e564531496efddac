//! The eight built-in automation profiles.

use std::sync::LazyLock;

use super::{AutomationProfile, SafetyProfile, SandboxConfig, Threshold};

/// Built-in profile names, from most to least human control. Reserved: custom
/// profiles may not use them.
pub const BUILTIN_PROFILE_NAMES: &[&str] = &[
    "manual",
    "review",
    "supervised",
    "cautious",
    "trusted",
    "auto",
    "ci",
    "full-auto",
];

fn t(value: f64) -> Threshold {
    Threshold::new(value).unwrap_or(Threshold::ALWAYS_ASK)
}

fn build() -> Vec<AutomationProfile> {
    let mut manual = AutomationProfile::uniform("manual", Threshold::ALWAYS_ASK);
    manual.description = "Human controls everything".into();

    // Strategize runs by itself; a human reviews before execute and before apply.
    let mut review = AutomationProfile::uniform("review", t(0.9));
    review.description = "Auto-strategize, human reviews before execute and apply".into();
    review.decompose_task = Threshold::ALWAYS_PROCEED;
    review.edit_code = t(0.5);
    review.create_tool = Threshold::ALWAYS_ASK;
    review.select_tool = Threshold::ALWAYS_ASK;

    let mut supervised = AutomationProfile::uniform("supervised", t(0.2));
    supervised.description = "Auto through strategize and execute, human approves apply".into();
    supervised.select_tool = Threshold::ALWAYS_ASK;

    let mut cautious = AutomationProfile::uniform("cautious", t(0.7));
    cautious.description = "Mostly automatic with conservative thresholds".into();

    let mut trusted = AutomationProfile::uniform("trusted", t(0.3));
    trusted.description = "Fully automatic for well-tested domains".into();

    let mut auto = AutomationProfile::uniform("auto", Threshold::ALWAYS_PROCEED);
    auto.description = "Fully automatic with safety nets".into();

    let mut ci = AutomationProfile::uniform("ci", Threshold::ALWAYS_PROCEED);
    ci.description = "CI/CD pipeline automation; no human present".into();
    ci.interactive = false;

    let mut full_auto = AutomationProfile::uniform("full-auto", Threshold::ALWAYS_PROCEED);
    full_auto.description = "Maximum autonomy, minimal guardrails".into();
    full_auto.interactive = false;
    full_auto.safety = SafetyProfile {
        require_sandbox: false,
        allow_unsafe_tools: true,
        ..SafetyProfile::default()
    };
    full_auto.sandbox = SandboxConfig::none(true);

    vec![
        manual, review, supervised, cautious, trusted, auto, ci, full_auto,
    ]
}

static BUILTINS: LazyLock<Vec<std::sync::Arc<AutomationProfile>>> =
    LazyLock::new(|| build().into_iter().map(std::sync::Arc::new).collect());

/// The built-in profile called `name`, shared (built-ins never change).
#[must_use]
pub fn builtin_profile(name: &str) -> Option<std::sync::Arc<AutomationProfile>> {
    let index = BUILTIN_PROFILE_NAMES.iter().position(|n| *n == name)?;
    BUILTINS.get(index).cloned()
}

/// Every built-in profile, in [`BUILTIN_PROFILE_NAMES`] order.
#[must_use]
pub fn builtin_profiles() -> Vec<AutomationProfile> {
    BUILTINS.iter().map(|p| (**p).clone()).collect()
}

/// Whether `name` is a built-in (and so reserved) profile name.
#[must_use]
pub fn is_builtin(name: &str) -> bool {
    BUILTIN_PROFILE_NAMES.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_line_up_and_all_are_valid() {
        let all = builtin_profiles();
        assert_eq!(all.len(), BUILTIN_PROFILE_NAMES.len());
        for (profile, name) in all.iter().zip(BUILTIN_PROFILE_NAMES) {
            assert_eq!(profile.name, *name);
            assert_eq!(profile.violations(), vec![], "{name}");
        }
    }
}
