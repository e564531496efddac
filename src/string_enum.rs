//! Enums with fixed string spellings (the specification's names), generated uniformly:
//! `as_str`, `ALL`, `Display`, `FromStr` and serde all use the same spelling.

/// Text that is not one of an enum's spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} `{value}`; expected one of: {}", .expected.join(", "))]
#[non_exhaustive]
pub struct UnknownVariant {
    /// Which enum, e.g. `plan phase`.
    pub kind: &'static str,
    /// The rejected text.
    pub value: String,
    /// The accepted spellings.
    pub expected: &'static [&'static str],
}

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident, $kind:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// Every variant, in order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The wire spelling.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),+ }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::UnknownVariant;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok(Self::$variant),)+
                    _ => Err($crate::UnknownVariant {
                        kind: $kind,
                        value: s.chars().take(64).collect(),
                        expected: &[$($text),+],
                    }),
                }
            }
        }
    };
}
pub(crate) use string_enum;
