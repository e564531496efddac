//! Confidence thresholds and the proceed / ask decision.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::string_enum::string_enum;

/// A threshold outside 0.0–1.0 (or not a number).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("a threshold must be a number from 0.0 to 1.0, got `{0}`")]
#[non_exhaustive]
pub struct ThresholdError(pub f64);

/// A confidence threshold in 0.0–1.0.
///
/// - `0.0`: always proceed automatically (confidence is not consulted);
/// - `1.0`: always ask a human, even at confidence 1.0;
/// - otherwise: proceed iff the confidence is known and `confidence >= threshold`.
///
/// A confidence that is missing, NaN or outside 0.0–1.0 is *unknown* and never
/// proceeds under a threshold above 0.0.
///
/// ```
/// use cleveragents::Threshold;
///
/// let t = Threshold::new(0.7)?;
/// assert!(t.allows(Some(0.7)));
/// assert!(!t.allows(Some(0.69)));
/// assert!(!t.allows(None));
/// assert!(!Threshold::ALWAYS_ASK.allows(Some(1.0)));
/// assert!(Threshold::ALWAYS_PROCEED.allows(None));
/// assert!(Threshold::new(f64::NAN).is_err());
/// # Ok::<(), cleveragents::ThresholdError>(())
/// ```
#[derive(Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(into = "f64")]
pub struct Threshold(f64);

impl<'de> Deserialize<'de> for Threshold {
    // A visitor (rather than `try_from`) raises the range error while the
    // parser still sits on the number, so YAML errors point at its line and column.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Threshold;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number from 0.0 to 1.0")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Threshold, E> {
                Threshold::new(v).map_err(E::custom)
            }
            #[expect(
                clippy::cast_precision_loss,
                reason = "only 0 and 1 are in range; others are reported"
            )]
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Threshold, E> {
                self.visit_f64(v as f64)
            }
            #[expect(
                clippy::cast_precision_loss,
                reason = "only 0 and 1 are in range; others are reported"
            )]
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Threshold, E> {
                self.visit_f64(v as f64)
            }
        }
        deserializer.deserialize_f64(Visit)
    }
}

impl Threshold {
    /// `0.0`: always proceed.
    pub const ALWAYS_PROCEED: Self = Self(0.0);
    /// `1.0`: always ask a human.
    pub const ALWAYS_ASK: Self = Self(1.0);

    /// A threshold, validated.
    ///
    /// # Errors
    /// [`ThresholdError`] for NaN, infinities and values outside 0.0–1.0.
    pub fn new(value: f64) -> Result<Self, ThresholdError> {
        if (0.0..=1.0).contains(&value) {
            // Normalise -0.0 so equal thresholds serialize identically.
            Ok(Self(value + 0.0))
        } else {
            Err(ThresholdError(value))
        }
    }

    /// The value.
    #[must_use]
    pub const fn get(self) -> f64 {
        self.0
    }

    /// Whether a decision at `confidence` may proceed without a human.
    #[inline]
    #[must_use]
    pub fn allows(self, confidence: Option<f64>) -> bool {
        if self.0 <= 0.0 {
            return true;
        }
        if self.0 >= 1.0 {
            return false;
        }
        match confidence {
            // NaN fails the range check, so it counts as unknown.
            Some(c) if (0.0..=1.0).contains(&c) => c >= self.0,
            _ => false,
        }
    }
}

impl TryFrom<f64> for Threshold {
    type Error = ThresholdError;
    fn try_from(value: f64) -> Result<Self, Self::Error> {
        Self::new(value)
    }
}

impl From<Threshold> for f64 {
    fn from(t: Threshold) -> Self {
        t.0
    }
}

impl fmt::Debug for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Threshold({})", self.0)
    }
}

impl fmt::Display for Threshold {
    /// One decimal when that is exact (`0.7`, `1.0`), otherwise every digit (`0.75`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if (self.0 * 10.0).fract() == 0.0 {
            write!(f, "{:.1}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Threshold {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Threshold".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Confidence threshold: 0.0 always proceeds, 1.0 always asks a human, otherwise proceed iff confidence >= threshold",
            "type": "number",
            "minimum": 0.0,
            "maximum": 1.0
        })
    }
}

string_enum!(
    /// The decisions an automation profile gates, one threshold each (the
    /// specification's field names and meanings).
    AutomationDecision, "automation decision" {
        /// Auto-enter Strategize after `plan use`.
        DecomposeTask => "decompose_task",
        /// Auto-proceed from Strategize to Execute.
        CreateTool => "create_tool",
        /// Auto-proceed from Execute to Apply.
        SelectTool => "select_tool",
        /// Auto-make decisions during Strategize.
        EditCode => "edit_code",
        /// Auto-make decisions during Execute.
        ExecuteCommand => "execute_command",
        /// Auto-attempt to fix validation failures.
        CreateFile => "create_file",
        /// Auto-revise strategy when Execute hits constraints.
        DeleteContent => "delete_content",
        /// Auto-revert from Apply (`constrained`) to Strategize.
        AccessNetwork => "access_network",
        /// Auto-spawn and execute child plans.
        InstallDependency => "install_dependency",
        /// Auto-retry on transient failures.
        ModifyConfig => "modify_config",
        /// Auto-restore from checkpoint on failure.
        ApprovePlan => "approve_plan",
    }
);

string_enum!(
    /// What a threshold gate answers.
    GateDecision, "gate decision" {
        /// Go on automatically.
        Proceed => "proceed",
        /// Ask a human first.
        AskHuman => "ask_human",
        /// Stop: a human would be needed and none can answer.
        Deny => "deny",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_out_of_range_naming_the_value() {
        for bad in [-0.1, 1.000_001, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(Threshold::new(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Threshold::new(1.5).unwrap_err().to_string(),
            "a threshold must be a number from 0.0 to 1.0, got `1.5`"
        );
        assert_eq!(
            Threshold::new(-0.0).unwrap().get().to_bits(),
            0.0_f64.to_bits()
        );
    }

    #[test]
    fn display_is_short() {
        assert_eq!(Threshold::new(0.7).unwrap().to_string(), "0.7");
        assert_eq!(Threshold::new(0.75).unwrap().to_string(), "0.75");
        assert_eq!(Threshold::ALWAYS_ASK.to_string(), "1.0");
    }

    #[test]
    fn unknown_confidence_never_proceeds_between_the_extremes() {
        let t = Threshold::new(0.5).unwrap();
        for unknown in [None, Some(f64::NAN), Some(-0.1), Some(1.1)] {
            assert!(!t.allows(unknown));
        }
    }
}
