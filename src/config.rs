//! Loading configuration documents (YAML and JSON) with precise errors.
//!
//! This is the only module that uses the YAML library, so replacing it is a
//! one-file change. Every load error names the field path (`safety.max_retries_per_step`)
//! and, where the format gives one, the line and column.

use std::fmt;
use std::path::Path;

use serde::de::DeserializeOwned;

/// The format of a configuration document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// YAML 1.2 (a single document).
    Yaml,
    /// JSON.
    Json,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Yaml => "YAML",
            Self::Json => "JSON",
        })
    }
}

/// A configuration document that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read `{path}`: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The document is malformed or does not fit the expected shape.
    #[error("invalid {format} at {}: {message}", location(.path, *.line, *.column))]
    Invalid {
        /// YAML or JSON.
        format: Format,
        /// Dotted path of the field at fault (`.` for the document itself).
        path: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// 1-based column, when known.
        column: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// The YAML loader is compiled out (feature `yaml` disabled).
    #[error("YAML support is disabled; enable the `yaml` feature")]
    YamlDisabled,
}

fn location(path: &str, line: Option<usize>, column: Option<usize>) -> String {
    let mut out = format!("`{path}`");
    if let Some(line) = line {
        out.push_str(&format!(" (line {line}"));
        if let Some(column) = column {
            out.push_str(&format!(", column {column}"));
        }
        out.push(')');
    }
    out
}

/// Largest document accepted, in bytes (config files are small; this bounds
/// what a hostile file can make the parser do).
pub const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

fn too_large(format: Format, len: usize) -> ConfigError {
    ConfigError::Invalid {
        format,
        path: ".".to_owned(),
        line: None,
        column: None,
        message: format!("document of {len} bytes exceeds the limit of {MAX_DOCUMENT_BYTES} bytes"),
    }
}

/// Parses a JSON document into `T`.
///
/// # Errors
/// [`ConfigError::Invalid`] with the field path, line and column.
pub fn from_json_str<T: DeserializeOwned>(text: &str) -> Result<T, ConfigError> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(too_large(Format::Json, text.len()));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        ConfigError::Invalid {
            format: Format::Json,
            path,
            line: Some(inner.line()).filter(|l| *l > 0),
            column: Some(inner.column()).filter(|c| *c > 0),
            message: strip_json_position(&inner.to_string()),
        }
    })?;
    de.end().map_err(|e| ConfigError::Invalid {
        format: Format::Json,
        path: ".".to_owned(),
        line: Some(e.line()),
        column: Some(e.column()),
        message: strip_json_position(&e.to_string()),
    })?;
    Ok(value)
}

fn strip_json_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message.get(..at).unwrap_or(message).to_owned(),
        None => message.to_owned(),
    }
}

/// Parses a YAML document into `T`.
///
/// # Errors
/// [`ConfigError::Invalid`] with the field path, line and column, or
/// [`ConfigError::YamlDisabled`] without the `yaml` feature.
#[cfg(feature = "yaml")]
pub fn from_yaml_str<T: DeserializeOwned>(text: &str) -> Result<T, ConfigError> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(too_large(Format::Yaml, text.len()));
    }
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let location = inner.location();
        let message = inner.to_string();
        // serde_yaml appends " at line L column C"; the location is reported separately.
        let message = match message.rfind(" at line ") {
            Some(at) => message.get(..at).unwrap_or(&message).to_owned(),
            None => message,
        };
        // serde_yaml also prefixes the path, which is reported separately.
        let message = message
            .strip_prefix(&format!("{path}: "))
            .map_or_else(|| message.clone(), str::to_owned);
        ConfigError::Invalid {
            format: Format::Yaml,
            path,
            line: location.as_ref().map(serde_yaml::Location::line),
            column: location.as_ref().map(serde_yaml::Location::column),
            message,
        }
    })
}

/// Parses a YAML document into `T` (the `yaml` feature is disabled).
///
/// # Errors
/// Always [`ConfigError::YamlDisabled`].
#[cfg(not(feature = "yaml"))]
pub fn from_yaml_str<T: DeserializeOwned>(_text: &str) -> Result<T, ConfigError> {
    Err(ConfigError::YamlDisabled)
}

/// Serializes `value` as YAML.
///
/// # Errors
/// [`ConfigError::YamlDisabled`] without the `yaml` feature; otherwise only
/// for values YAML cannot represent.
pub fn to_yaml_string<T: serde::Serialize>(value: &T) -> Result<String, ConfigError> {
    #[cfg(feature = "yaml")]
    {
        serde_yaml::to_string(value).map_err(|e| ConfigError::Invalid {
            format: Format::Yaml,
            path: ".".to_owned(),
            line: None,
            column: None,
            message: e.to_string(),
        })
    }
    #[cfg(not(feature = "yaml"))]
    {
        let _ = value;
        Err(ConfigError::YamlDisabled)
    }
}

/// Reads a file and parses it by extension: `.json` as JSON, anything else as YAML.
///
/// # Errors
/// [`ConfigError::Io`] when the file cannot be read; otherwise as the parsers.
pub fn from_path<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        from_json_str(&text)
    } else {
        from_yaml_str(&text)
    }
}
