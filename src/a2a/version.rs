//! A2A protocol version negotiation.

use std::fmt;

use super::error::A2aVersionMismatchError;

/// An A2A protocol version this crate speaks: the current one and one prior.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[non_exhaustive]
pub enum A2aVersion {
    /// A2A 0.3 (`message/send`, lowercase states, `kind` fields). The default
    /// when the client names no version.
    #[default]
    V0_3,
    /// A2A 1.0 (`SendMessage`, `TASK_STATE_*`, protojson).
    V1_0,
}

/// The versions accepted, newest first.
pub const SUPPORTED_VERSIONS: &[&str] = &["1.0", "0.3"];

impl A2aVersion {
    /// The `A2A-Version` header value: `None` (absent) means 0.3; `1.0`,
    /// `1.0.x`, `0.3` and `0.3.x` are accepted.
    ///
    /// ```
    /// use cleveragents::a2a::A2aVersion;
    ///
    /// assert_eq!(A2aVersion::negotiate(None).unwrap(), A2aVersion::V0_3);
    /// assert_eq!(A2aVersion::negotiate(Some("1.0")).unwrap(), A2aVersion::V1_0);
    /// assert!(A2aVersion::negotiate(Some("2.0")).is_err());
    /// ```
    ///
    /// # Errors
    /// [`A2aVersionMismatchError`] for any other value.
    pub fn negotiate(header: Option<&str>) -> Result<Self, A2aVersionMismatchError> {
        let Some(raw) = header else {
            return Ok(Self::V0_3);
        };
        let value = raw.trim();
        let mut parts = value.split('.');
        let version = match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(major), Some(minor), patch, None)
                if patch.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) =>
            {
                match (major, minor) {
                    ("1", "0") => Some(Self::V1_0),
                    ("0", "3") => Some(Self::V0_3),
                    _ => None,
                }
            }
            _ => None,
        };
        version.ok_or_else(|| A2aVersionMismatchError {
            requested: value.chars().take(32).collect(),
            supported: SUPPORTED_VERSIONS.iter().map(|v| (*v).to_owned()).collect(),
        })
    }

    /// The version as `major.minor`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V0_3 => "0.3",
            Self::V1_0 => "1.0",
        }
    }
}

impl fmt::Display for A2aVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation() {
        for ok in ["0.3", "0.3.0", " 1.0 ", "1.0.1"] {
            assert!(A2aVersion::negotiate(Some(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "", "1", "1.1", "0.2", "2.0", "1.0.", "1.0.x", "1.0.0.0", "v1.0",
        ] {
            assert!(A2aVersion::negotiate(Some(bad)).is_err(), "{bad}");
        }
        let err = A2aVersion::negotiate(Some("2.0")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "protocol version `2.0` is not supported; supported: 1.0, 0.3"
        );
    }
}
