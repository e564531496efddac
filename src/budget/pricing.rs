//! Model pricing: prices per million tokens, with the dates they take effect.
//!
//! Costs are computed exactly in integer nano-dollars: `tokens × price per
//! million ÷ 1,000,000`, rounded half up to the nano-dollar once per call.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::money::Usd;

/// Tokens a call used, as the provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct TokenUsage {
    /// Input (prompt) tokens, cached ones included.
    pub input_tokens: u64,
    /// How many of the input tokens were served from the provider's cache.
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Output (completion) tokens.
    pub output_tokens: u64,
}

impl TokenUsage {
    /// Usage with no cached input.
    #[must_use]
    pub const fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            cached_input_tokens: 0,
            output_tokens,
        }
    }

    /// Marks `cached` of the input tokens as cached.
    #[must_use]
    pub const fn cached(mut self, cached: u64) -> Self {
        self.cached_input_tokens = cached;
        self
    }
}

/// One model's prices from a date on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ModelPrice {
    /// The first day (UTC) these prices apply.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub effective_from: NaiveDate,
    /// USD per million input tokens.
    pub input_per_million: Usd,
    /// USD per million cached input tokens (default: the input price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_per_million: Option<Usd>,
    /// USD per million output tokens.
    pub output_per_million: Usd,
    /// The most output tokens one call can produce (caps estimates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
}

/// A cost that cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PricingError {
    /// The model has no price at all.
    #[error("no price for model `{model}`; known models: {}", .known.join(", "))]
    UnknownModel {
        /// The model.
        model: String,
        /// The models the table prices.
        known: Vec<String>,
    },
    /// The model's prices start after the call.
    #[error(
        "no price for model `{model}` in force on {date}; its first price takes effect on {first}"
    )]
    NotYetPriced {
        /// The model.
        model: String,
        /// The call's date.
        date: NaiveDate,
        /// The first effective date.
        first: NaiveDate,
    },
    /// Usage that cannot be right.
    #[error("invalid usage: {0}")]
    InvalidUsage(String),
    /// An estimate needs an output cap.
    #[error(
        "cannot estimate a call to `{0}`: give the maximum output tokens (the table has no cap for it)"
    )]
    NoOutputCap(String),
    /// The cost does not fit the representable range.
    #[error("the cost overflows")]
    Overflow,
    /// A price list that breaks its rules.
    #[error("invalid pricing table: {0}")]
    InvalidTable(String),
}

/// Prices of every model, each a list ordered by effective date.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use cleveragents::{PricingTable, TokenUsage, Usd};
///
/// let table = PricingTable::from_yaml_str(
///     "models:\n  small-model:\n    - effective_from: 2025-01-01\n      input_per_million: \"0.15\"\n      output_per_million: 0.60\n      max_output_tokens: 16384\n",
/// )?;
/// let at = Utc.with_ymd_and_hms(2025, 6, 1, 0, 0, 0).unwrap();
/// let cost = table.cost("small-model", &TokenUsage::new(1_000, 500), at)?;
/// assert_eq!(cost, Usd::parse("0.00045")?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct PricingTable {
    /// Prices by model name.
    pub models: BTreeMap<String, Vec<ModelPrice>>,
}

const PER_MILLION: i128 = 1_000_000;

fn part(tokens: u64, price_per_million: Usd) -> i128 {
    i128::from(tokens) * i128::from(price_per_million.nanos())
}

impl PricingTable {
    /// An empty table.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a price for `model` (kept ordered by effective date; a price with
    /// the same date replaces the earlier one).
    pub fn add(&mut self, model: impl Into<String>, price: ModelPrice) {
        let prices = self.models.entry(model.into()).or_default();
        prices.retain(|p| p.effective_from != price.effective_from);
        prices.push(price);
        prices.sort_by_key(|p| p.effective_from);
    }

    /// Checks the table: prices not negative, cached prices not above input prices.
    ///
    /// # Errors
    /// [`PricingError::InvalidTable`] naming the model and date.
    pub fn validate(&self) -> Result<(), PricingError> {
        for (model, prices) in &self.models {
            for p in prices {
                let negative = p.input_per_million.is_negative()
                    || p.output_per_million.is_negative()
                    || p.cached_input_per_million.is_some_and(Usd::is_negative);
                if negative {
                    return Err(PricingError::InvalidTable(format!(
                        "`{model}` on {}: prices must not be negative",
                        p.effective_from
                    )));
                }
            }
            if prices.is_empty() {
                return Err(PricingError::InvalidTable(format!(
                    "`{model}` has no prices"
                )));
            }
        }
        Ok(())
    }

    /// Loads a table from YAML.
    ///
    /// # Errors
    /// [`PricingError::InvalidTable`] with the field path, line and column.
    pub fn from_yaml_str(text: &str) -> Result<Self, PricingError> {
        let mut table: Self = crate::config::from_yaml_str(text)
            .map_err(|e| PricingError::InvalidTable(e.to_string()))?;
        table.normalize();
        table.validate()?;
        Ok(table)
    }

    /// Loads a table from JSON.
    ///
    /// # Errors
    /// [`PricingError::InvalidTable`] with the field path, line and column.
    pub fn from_json_str(text: &str) -> Result<Self, PricingError> {
        let mut table: Self = crate::config::from_json_str(text)
            .map_err(|e| PricingError::InvalidTable(e.to_string()))?;
        table.normalize();
        table.validate()?;
        Ok(table)
    }

    fn normalize(&mut self) {
        for prices in self.models.values_mut() {
            prices.sort_by_key(|p| p.effective_from);
            prices.dedup_by_key(|p| p.effective_from);
        }
    }

    /// The price of `model` in force at `at`.
    ///
    /// # Errors
    /// [`PricingError::UnknownModel`] or [`PricingError::NotYetPriced`].
    pub fn price(&self, model: &str, at: DateTime<Utc>) -> Result<&ModelPrice, PricingError> {
        let prices = self
            .models
            .get(model)
            .ok_or_else(|| PricingError::UnknownModel {
                model: model.to_owned(),
                known: self.models.keys().cloned().collect(),
            })?;
        let date = at.date_naive();
        prices
            .iter()
            .rev()
            .find(|p| p.effective_from <= date)
            .ok_or_else(|| PricingError::NotYetPriced {
                model: model.to_owned(),
                date,
                first: prices.first().map_or(date, |p| p.effective_from),
            })
    }

    /// The exact cost of a call.
    ///
    /// # Errors
    /// An unknown or not-yet-priced model, cached tokens above input tokens, overflow.
    pub fn cost(
        &self,
        model: &str,
        usage: &TokenUsage,
        at: DateTime<Utc>,
    ) -> Result<Usd, PricingError> {
        let price = self.price(model, at)?;
        if usage.cached_input_tokens > usage.input_tokens {
            return Err(PricingError::InvalidUsage(format!(
                "{} cached input tokens exceed the {} input tokens",
                usage.cached_input_tokens, usage.input_tokens
            )));
        }
        let uncached = usage.input_tokens - usage.cached_input_tokens;
        let cached_price = price
            .cached_input_per_million
            .unwrap_or(price.input_per_million);
        let total = part(uncached, price.input_per_million)
            + part(usage.cached_input_tokens, cached_price)
            + part(usage.output_tokens, price.output_per_million);
        // Round half up to the nano-dollar.
        let nanos = (total + PER_MILLION / 2) / PER_MILLION;
        i64::try_from(nanos)
            .map(Usd::from_nanos)
            .map_err(|_| PricingError::Overflow)
    }

    /// What a call may cost at most: its input plus the most output it can
    /// produce (`max_output_tokens`, capped by the model's limit).
    ///
    /// # Errors
    /// As [`cost`](Self::cost), or [`PricingError::NoOutputCap`] when neither gives a cap.
    pub fn estimate(
        &self,
        model: &str,
        input_tokens: u64,
        max_output_tokens: Option<u64>,
        at: DateTime<Utc>,
    ) -> Result<Usd, PricingError> {
        let cap = self.price(model, at)?.max_output_tokens;
        let output = match (max_output_tokens, cap) {
            (Some(asked), Some(cap)) => asked.min(cap),
            (Some(asked), None) => asked,
            (None, Some(cap)) => cap,
            (None, None) => return Err(PricingError::NoOutputCap(model.to_owned())),
        };
        self.cost(model, &TokenUsage::new(input_tokens, output), at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn table() -> PricingTable {
        let mut t = PricingTable::new();
        let price = |day: u32, input: &str, output: &str| ModelPrice {
            effective_from: NaiveDate::from_ymd_opt(2025, 1, day).unwrap(),
            input_per_million: Usd::parse(input).unwrap(),
            cached_input_per_million: Some(Usd::parse("0.075").unwrap()),
            output_per_million: Usd::parse(output).unwrap(),
            max_output_tokens: Some(100),
        };
        t.add("m", price(10, "0.30", "1.20"));
        t.add("m", price(1, "0.15", "0.60"));
        t
    }

    #[test]
    fn the_price_in_force_applies() {
        let t = table();
        let early = Utc.with_ymd_and_hms(2025, 1, 5, 12, 0, 0).unwrap();
        let late = Utc.with_ymd_and_hms(2025, 1, 10, 0, 0, 0).unwrap();
        assert_eq!(
            t.cost("m", &TokenUsage::new(1_000_000, 0), early).unwrap(),
            Usd::parse("0.15").unwrap()
        );
        assert_eq!(
            t.cost("m", &TokenUsage::new(1_000_000, 0), late).unwrap(),
            Usd::parse("0.30").unwrap()
        );
        let before = Utc.with_ymd_and_hms(2024, 12, 31, 0, 0, 0).unwrap();
        assert!(matches!(
            t.cost("m", &TokenUsage::new(1, 1), before),
            Err(PricingError::NotYetPriced { .. })
        ));
        let err = t.cost("gpt-9", &TokenUsage::new(1, 1), late).unwrap_err();
        assert_eq!(
            err.to_string(),
            "no price for model `gpt-9`; known models: m"
        );
    }

    #[test]
    fn cached_tokens_rounding_and_estimates() {
        let t = table();
        let at = Utc.with_ymd_and_hms(2025, 1, 5, 0, 0, 0).unwrap();
        // $0.15 per million tokens is exactly 150 nano-dollars a token.
        assert_eq!(
            t.cost("m", &TokenUsage::new(1, 0), at).unwrap().nanos(),
            150
        );
        // At $0.0015 per million a token is 1.5 nano-dollars: one call rounds half up.
        let mut cheap = PricingTable::new();
        cheap.add(
            "c",
            ModelPrice {
                effective_from: NaiveDate::from_ymd_opt(2025, 1, 1).unwrap(),
                input_per_million: Usd::parse("0.0015").unwrap(),
                cached_input_per_million: None,
                output_per_million: Usd::parse("0.0012").unwrap(),
                max_output_tokens: None,
            },
        );
        assert_eq!(
            cheap.cost("c", &TokenUsage::new(1, 0), at).unwrap().nanos(),
            2
        );
        assert_eq!(
            cheap.cost("c", &TokenUsage::new(0, 1), at).unwrap().nanos(),
            1
        );
        assert_eq!(
            cheap.cost("c", &TokenUsage::new(1, 1), at).unwrap().nanos(),
            3,
            "rounded once per call"
        );
        assert!(matches!(
            cheap.estimate("c", 1, None, at),
            Err(PricingError::NoOutputCap(_))
        ));
        let cached = t
            .cost("m", &TokenUsage::new(1_000_000, 0).cached(1_000_000), at)
            .unwrap();
        assert_eq!(cached, Usd::parse("0.075").unwrap());
        assert!(t.cost("m", &TokenUsage::new(1, 0).cached(2), at).is_err());
        // The estimate caps output at the model's max.
        assert_eq!(
            t.estimate("m", 0, Some(1_000_000), at).unwrap(),
            t.cost("m", &TokenUsage::new(0, 100), at).unwrap()
        );
    }
}
