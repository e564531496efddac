//! Exact money.
//!
//! [`Usd`] stores US dollars as a whole number of nano-dollars (10⁻⁹ USD) in an
//! `i64`, so sums are exact: a million charges of `$0.000001615` add up to exactly
//! `$1.615`. Floating-point dollars are accepted only at the edges (JSON/YAML
//! numbers), where they are converted through their shortest decimal form — the
//! digits the user wrote — never by scaling the binary value.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

const NANOS_PER_DOLLAR: i64 = 1_000_000_000;
const FRACTION_DIGITS: usize = 9;
/// Magnitude (in nanos) below which the `f64` form prints back to the same
/// decimal: any decimal of at most 15 significant digits survives a round trip
/// through `f64` and its shortest printing; 16 digits do not always.
const EXACT_F64_NANOS: i64 = 1_000_000_000_000_000;

/// An amount of money that could not be parsed or computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MoneyError {
    /// The text is not a decimal dollar amount.
    #[error("invalid amount `{0}`: expected a decimal number of dollars such as `5.23`")]
    Invalid(String),
    /// More than nine decimal places (finer than a nano-dollar).
    #[error("invalid amount `{0}`: at most 9 decimal places are supported")]
    TooPrecise(String),
    /// The amount does not fit in the representable range (about ±9.2 billion dollars).
    #[error("amount `{0}` is out of range")]
    OutOfRange(String),
}

/// An exact amount of US dollars, stored as integer nano-dollars.
///
/// ```
/// use cleveragents::Usd;
///
/// let price: Usd = "0.000001615".parse()?;
/// let mut total = Usd::ZERO;
/// for _ in 0..1_000 {
///     total = total.checked_add(price).expect("no overflow");
/// }
/// assert_eq!(total.to_string(), "$0.001615");
/// assert_eq!(Usd::from_cents(523).to_string(), "$5.23");
/// # Ok::<(), cleveragents::MoneyError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Usd(i64);

impl Usd {
    /// Zero dollars.
    pub const ZERO: Self = Self(0);
    /// The largest representable amount.
    pub const MAX: Self = Self(i64::MAX);

    /// An amount of nano-dollars (10⁻⁹ USD).
    #[must_use]
    pub const fn from_nanos(nanos: i64) -> Self {
        Self(nanos)
    }

    /// An amount of cents, saturating at the representable range.
    #[must_use]
    pub const fn from_cents(cents: i64) -> Self {
        Self(cents.saturating_mul(NANOS_PER_DOLLAR / 100))
    }

    /// A whole number of dollars, saturating at the representable range.
    #[must_use]
    pub const fn from_dollars(dollars: i64) -> Self {
        Self(dollars.saturating_mul(NANOS_PER_DOLLAR))
    }

    /// The amount in nano-dollars.
    #[must_use]
    pub const fn nanos(self) -> i64 {
        self.0
    }

    /// Whether the amount is below zero.
    #[must_use]
    pub const fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// `self + rhs`, or `None` on overflow.
    #[must_use]
    pub const fn checked_add(self, rhs: Self) -> Option<Self> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self - rhs`, or `None` on overflow.
    #[must_use]
    pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self × factor`, or `None` on overflow.
    #[must_use]
    pub const fn checked_mul(self, factor: i64) -> Option<Self> {
        match self.0.checked_mul(factor) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self + rhs`, clamped to the representable range.
    #[must_use]
    pub const fn saturating_add(self, rhs: Self) -> Self {
        Self(self.0.saturating_add(rhs.0))
    }

    /// `self - rhs`, clamped to the representable range.
    #[must_use]
    pub const fn saturating_sub(self, rhs: Self) -> Self {
        Self(self.0.saturating_sub(rhs.0))
    }

    /// Parses a decimal dollar amount: an optional `-`, an optional `$`, digits,
    /// and at most nine decimal places (`5`, `5.23`, `$0.000001615`, `-1.5`).
    ///
    /// # Errors
    /// [`MoneyError`] naming the input when it is not such an amount or does not fit.
    pub fn parse(text: &str) -> Result<Self, MoneyError> {
        let invalid = || MoneyError::Invalid(truncate(text));
        let trimmed = text.trim();
        let (negative, rest) = match trimmed.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let rest = rest.strip_prefix('$').unwrap_or(rest);
        let (whole, fraction) = match rest.split_once('.') {
            Some((w, f)) => (w, f),
            None => (rest, ""),
        };
        let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if (whole.is_empty() && fraction.is_empty())
            || !digits_only(whole)
            || !digits_only(fraction)
            || (rest.contains('.') && fraction.is_empty() && whole.is_empty())
        {
            return Err(invalid());
        }
        let significant = fraction.trim_end_matches('0');
        if significant.len() > FRACTION_DIGITS {
            return Err(MoneyError::TooPrecise(truncate(text)));
        }
        let out_of_range = || MoneyError::OutOfRange(truncate(text));
        // i128 holds any 19-digit whole part times 10^9, so only the final
        // conversion can overflow (and i64::MIN stays reachable).
        let mut nanos: i128 = 0;
        for b in whole.bytes() {
            nanos = nanos
                .checked_mul(10)
                .and_then(|n| n.checked_add(i128::from(b - b'0')))
                .filter(|n| *n <= i128::from(i64::MAX) + 1)
                .ok_or_else(out_of_range)?;
        }
        nanos *= i128::from(NANOS_PER_DOLLAR);
        let mut scale = i128::from(NANOS_PER_DOLLAR / 10);
        for b in significant.bytes() {
            nanos += i128::from(b - b'0') * scale;
            scale /= 10;
        }
        let signed = if negative { -nanos } else { nanos };
        i64::try_from(signed).map(Self).map_err(|_| out_of_range())
    }

    /// Converts a floating-point dollar amount through its shortest decimal form,
    /// so `0.1` becomes exactly ten cents.
    ///
    /// # Errors
    /// [`MoneyError`] for NaN, infinities, more than nine decimal places, or out of range.
    pub fn from_f64(dollars: f64) -> Result<Self, MoneyError> {
        if !dollars.is_finite() {
            return Err(MoneyError::Invalid(dollars.to_string()));
        }
        // `{}` on f64 prints the shortest string that reads back to the same value,
        // and never uses an exponent.
        Self::parse(&dollars.to_string())
    }

    /// The amount as a floating-point number of dollars (for display or ratios
    /// only; never sum these).
    #[must_use]
    #[expect(clippy::cast_precision_loss, reason = "documented as approximate")]
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_DOLLAR as f64
    }
}

fn truncate(text: &str) -> String {
    text.chars().take(64).collect()
}

impl fmt::Display for Usd {
    /// `$5.23`, `$0.000001615`, `-$1.00`: at least two decimals, more when needed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let per = NANOS_PER_DOLLAR.unsigned_abs();
        let whole = abs / per;
        let frac = abs % per;
        let mut digits = [b'0'; FRACTION_DIGITS];
        let mut rem = frac;
        for slot in digits.iter_mut().rev() {
            *slot = b'0' + u8::try_from(rem % 10).unwrap_or(0);
            rem /= 10;
        }
        let mut len = FRACTION_DIGITS;
        while len > 2 && digits.get(len - 1) == Some(&b'0') {
            len -= 1;
        }
        let shown = std::str::from_utf8(digits.get(..len).unwrap_or(&[])).unwrap_or("00");
        write!(f, "{sign}${whole}.{shown}")
    }
}

impl fmt::Debug for Usd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Usd({self})")
    }
}

impl FromStr for Usd {
    type Err = MoneyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for Usd {
    /// A JSON number while that number reads back exactly (below one million
    /// dollars: at most 15 significant digits), otherwise a decimal string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.unsigned_abs() < EXACT_F64_NANOS.unsigned_abs() {
            if self.0 % NANOS_PER_DOLLAR == 0 {
                return serializer.serialize_i64(self.0 / NANOS_PER_DOLLAR);
            }
            serializer.serialize_f64(self.to_f64())
        } else {
            let text = self.to_string().replacen('$', "", 1);
            serializer.serialize_str(&text)
        }
    }
}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Usd;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a dollar amount (number or decimal string)")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Usd, E> {
                v.checked_mul(NANOS_PER_DOLLAR)
                    .map(Usd)
                    .ok_or_else(|| E::custom(MoneyError::OutOfRange(v.to_string())))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Usd, E> {
                i64::try_from(v)
                    .ok()
                    .and_then(|v| v.checked_mul(NANOS_PER_DOLLAR))
                    .map(Usd)
                    .ok_or_else(|| E::custom(MoneyError::OutOfRange(v.to_string())))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Usd, E> {
                Usd::from_f64(v).map_err(E::custom)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Usd, E> {
                Usd::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Usd {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Usd".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "US dollars: a number or a decimal string, at most 9 decimal places",
            "anyOf": [
                { "type": "number" },
                { "type": "string", "pattern": "^-?\\$?[0-9]*(\\.[0-9]{0,9})?$" }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_and_displays() {
        assert_eq!(Usd::parse("5.23").unwrap(), Usd::from_cents(523));
        assert_eq!(Usd::parse("$5.00").unwrap().to_string(), "$5.00");
        assert_eq!(Usd::parse("5").unwrap().to_string(), "$5.00");
        assert_eq!(Usd::parse(".5").unwrap().to_string(), "$0.50");
        assert_eq!(Usd::parse("0.000001615").unwrap().nanos(), 1615);
        assert_eq!(Usd::parse("-1.5").unwrap().to_string(), "-$1.50");
        assert_eq!(Usd::parse("1.1000000000000").unwrap().to_string(), "$1.10");
    }

    #[test]
    fn rejects_bad_amounts_naming_them() {
        for bad in ["", ".", "$", "abc", "1.2.3", "1e3", "--1", "1,5", " - 1"] {
            assert!(Usd::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Usd::parse("0.0000000001").unwrap_err().to_string(),
            "invalid amount `0.0000000001`: at most 9 decimal places are supported"
        );
        assert!(matches!(
            Usd::parse("99999999999"),
            Err(MoneyError::OutOfRange(_))
        ));
        assert!(Usd::from_f64(f64::NAN).is_err());
    }

    #[test]
    fn million_small_charges_sum_exactly() {
        let price = Usd::parse("0.000001615").unwrap();
        let mut total = Usd::ZERO;
        for _ in 0..1_000_000 {
            total = total.checked_add(price).unwrap();
        }
        assert_eq!(total, Usd::parse("1.615").unwrap());
    }

    #[test]
    fn json_forms() {
        assert_eq!(
            serde_json::to_string(&Usd::from_cents(523)).unwrap(),
            "5.23"
        );
        assert_eq!(serde_json::to_string(&Usd::from_dollars(2)).unwrap(), "2");
        assert_eq!(
            serde_json::from_str::<Usd>("0.1").unwrap(),
            Usd::from_cents(10)
        );
        assert_eq!(
            serde_json::from_str::<Usd>("\"0.1\"").unwrap(),
            Usd::from_cents(10)
        );
        assert_eq!(
            serde_json::from_str::<Usd>("3").unwrap(),
            Usd::from_dollars(3)
        );
        let big = Usd::from_dollars(1_000_000_000);
        let json = serde_json::to_string(&big).unwrap();
        assert_eq!(json, "\"1000000000.00\"");
        assert_eq!(
            serde_json::to_string(&Usd::from_nanos(999_999_999_999_999)).unwrap(),
            "999999.999999999"
        );
        assert_eq!(
            serde_json::to_string(&Usd::from_dollars(1_000_000)).unwrap(),
            "\"1000000.00\""
        );
        assert_eq!(serde_json::from_str::<Usd>(&json).unwrap(), big);
    }

    proptest! {
        #[test]
        fn json_round_trip_is_identity(nanos in any::<i64>()) {
            let usd = Usd::from_nanos(nanos);
            let json = serde_json::to_string(&usd).unwrap();
            prop_assert_eq!(serde_json::from_str::<Usd>(&json).unwrap(), usd);
        }

        #[test]
        fn json_round_trip_near_the_number_string_boundary(nanos in -2_000_000_000_000_000_i64..2_000_000_000_000_000) {
            let usd = Usd::from_nanos(nanos);
            let json = serde_json::to_string(&usd).unwrap();
            prop_assert_eq!(serde_json::from_str::<Usd>(&json).unwrap(), usd);
        }

        #[test]
        fn display_parse_round_trip(nanos in any::<i64>()) {
            let usd = Usd::from_nanos(nanos);
            prop_assert_eq!(Usd::parse(&usd.to_string()).unwrap(), usd);
        }
    }
}
