//! Typed identifiers.
//!
//! Every entity id is a [ULID](https://github.com/ulid/spec) wrapped in its own
//! newtype, so a `PlanId` can never be passed where a `SessionId` is expected.
//! All of them print, parse and serialize as the canonical 26-character
//! Crockford base32 string (parsing is case-insensitive, printing uppercase).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ulid::Ulid;

/// An identifier string that is not a valid ULID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {kind} `{value}`: expected a 26-character ULID")]
#[non_exhaustive]
pub struct IdError {
    /// Which id type was being parsed, e.g. `plan id`.
    pub kind: &'static str,
    /// The rejected input (truncated to 64 characters).
    pub value: String,
}

impl IdError {
    fn new(kind: &'static str, value: &str) -> Self {
        Self {
            kind,
            value: value.chars().take(64).collect(),
        }
    }
}

macro_rules! ulid_id {
    ($(#[$meta:meta])* $name:ident, $kind:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(Ulid);

        impl $name {
            /// A fresh id from the current time and a random component.
            #[must_use]
            pub fn new() -> Self {
                Self(Ulid::new())
            }

            /// Wraps an existing ULID.
            #[must_use]
            pub const fn from_ulid(ulid: Ulid) -> Self {
                Self(ulid)
            }

            /// The underlying ULID.
            #[must_use]
            pub const fn as_ulid(&self) -> Ulid {
                self.0
            }

            /// Parses the 26-character ULID form (case-insensitive).
            ///
            /// # Errors
            /// [`IdError`] when `s` is not a valid ULID.
            pub fn parse(s: &str) -> Result<Self, IdError> {
                // A leading digit above 7 would overflow 128 bits; the ulid crate
                // wraps it silently, which would break the Display round trip.
                if !s.as_bytes().first().is_some_and(|b| (b'0'..=b'7').contains(b)) {
                    return Err(IdError::new($kind, s));
                }
                Ulid::from_string(s)
                    .map(Self)
                    .map_err(|_| IdError::new($kind, s))
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut buf = [0_u8; ulid::ULID_LEN];
                f.write_str(self.0.array_to_str(&mut buf))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self)
            }
        }

        impl FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }

        impl From<Ulid> for $name {
            fn from(ulid: Ulid) -> Self {
                Self(ulid)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut buf = [0_u8; ulid::ULID_LEN];
                serializer.serialize_str(self.0.array_to_str(&mut buf))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visit;
                impl serde::de::Visitor<'_> for Visit {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", $kind, " (26-character ULID string)"))
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        $name::parse(v).map_err(E::custom)
                    }
                }
                deserializer.deserialize_str(Visit)
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "pattern": "^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$",
                    "description": concat!("A ", $kind, ": a 26-character ULID")
                })
            }
        }
    };
}

ulid_id!(
    /// Identifies a session (one conversation between a frontend and the agent).
    SessionId, "session id"
);
ulid_id!(
    /// Identifies a plan (one action being strategized, executed and applied).
    PlanId, "plan id"
);
ulid_id!(
    /// Identifies an [`A2aEvent`](crate::A2aEvent).
    EventId, "event id"
);
ulid_id!(
    /// Identifies a decision in a plan's decision tree.
    DecisionId, "decision id"
);
ulid_id!(
    /// Identifies an artifact a plan produced.
    ArtifactId, "artifact id"
);
ulid_id!(
    /// Identifies a checkpoint a plan can be rolled back to.
    CheckpointId, "checkpoint id"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_parse_round_trip_and_case_insensitive() {
        let id = PlanId::new();
        let text = id.to_string();
        assert_eq!(text.len(), 26);
        assert_eq!(text.parse::<PlanId>().unwrap(), id);
        assert_eq!(PlanId::parse(&text.to_lowercase()).unwrap(), id);
    }

    #[test]
    fn rejects_bad_input_with_kind_and_value() {
        let err = SessionId::parse("session-abc").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid session id `session-abc`: expected a 26-character ULID"
        );
        assert!(PlanId::parse("").is_err());
        // Overflowing first character.
        assert!(PlanId::parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ").is_err());
    }

    #[test]
    fn serde_is_the_string_form() {
        let id = EventId::new();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, format!("\"{id}\""));
        assert_eq!(serde_json::from_str::<EventId>(&json).unwrap(), id);
        assert!(serde_json::from_str::<EventId>("42").is_err());
    }
}
