//! Parsing `@`-references out of a prompt.
//!
//! The grammar, complete:
//! - a reference starts with `@` at the start of the text or after a
//!   character that is not a letter, digit, `_` or `@` (so `ada@example.com`
//!   is not one);
//! - `@"…"`: a quoted path, up to the next `"` (no escapes; spaces allowed);
//!   an unterminated quote is a malformed reference;
//! - otherwise the reference runs over letters, digits and `_ - . / : ~ +`,
//!   without trailing `.`, `:` (sentence punctuation);
//! - `@plan:<id>` names a plan (the id must be a ULID);
//! - a reference containing `/`, or starting with `.` or `~`, or with a `.`
//!   followed by an extension, names a file;
//! - anything else names a project.

use serde::{Deserialize, Serialize};

use crate::ids::PlanId;

/// One `@`-reference found in a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reference {
    /// `@project-name`
    Project {
        /// The name.
        name: String,
    },
    /// `@plan:<id>`
    Plan {
        /// The plan.
        plan_id: PlanId,
    },
    /// `@path/to/file` or `@"path with spaces"`
    File {
        /// The path.
        path: String,
    },
    /// Something after `@` that is not a valid reference (reported, never guessed).
    Malformed {
        /// The text.
        text: String,
        /// What is wrong.
        reason: String,
    },
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_ref_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '~' | '+')
}

fn classify(token: &str) -> Reference {
    if let Some(id) = token.strip_prefix("plan:") {
        return match PlanId::parse(id) {
            Ok(plan_id) => Reference::Plan { plan_id },
            Err(e) => Reference::Malformed {
                text: token.to_owned(),
                reason: e.to_string(),
            },
        };
    }
    let has_extension = token.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && !ext.is_empty() && ext.chars().all(char::is_alphanumeric)
    });
    if token.contains('/') || token.starts_with('.') || token.starts_with('~') || has_extension {
        Reference::File {
            path: token.to_owned(),
        }
    } else {
        Reference::Project {
            name: token.to_owned(),
        }
    }
}

/// Every `@`-reference in `prompt`, in order of appearance (repeats included).
///
/// ```
/// use cleveragents::{Reference, parse_references};
///
/// let refs = parse_references(r#"Fix @auth-service using @src/auth/login.rs and @"docs/Design Notes.md"; mail ada@example.com."#);
/// assert_eq!(refs, vec![
///     Reference::Project { name: "auth-service".into() },
///     Reference::File { path: "src/auth/login.rs".into() },
///     Reference::File { path: "docs/Design Notes.md".into() },
/// ]);
/// ```
#[must_use]
pub fn parse_references(prompt: &str) -> Vec<Reference> {
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    let mut chars = prompt.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let starts = c == '@' && prev.is_none_or(|p| !is_word(p) && p != '@');
        prev = Some(c);
        if !starts {
            continue;
        }
        let rest = prompt.get(at + 1..).unwrap_or_default();
        if let Some(quoted) = rest.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => {
                    let path = quoted.get(..end).unwrap_or_default();
                    if path.trim().is_empty() {
                        out.push(Reference::Malformed {
                            text: "@\"\"".to_owned(),
                            reason: "an empty quoted path".to_owned(),
                        });
                    } else {
                        out.push(Reference::File {
                            path: path.to_owned(),
                        });
                    }
                    // Skip past the closing quote.
                    let consumed = 1 + end + 1;
                    while chars.peek().is_some_and(|(i, _)| *i <= at + consumed) {
                        prev = chars.next().map(|(_, c)| c);
                    }
                }
                None => {
                    out.push(Reference::Malformed {
                        text: format!("@{}", rest.chars().take(40).collect::<String>()),
                        reason: "the quoted path is not closed".to_owned(),
                    });
                    return out;
                }
            }
            continue;
        }
        let len: usize = rest
            .chars()
            .take_while(|c| is_ref_char(*c))
            .map(char::len_utf8)
            .sum();
        let token = rest
            .get(..len)
            .unwrap_or_default()
            .trim_end_matches(['.', ':']);
        if token.is_empty() {
            continue;
        }
        out.push(classify(token));
        while chars.peek().is_some_and(|(i, _)| *i <= at + token.len()) {
            prev = chars.next().map(|(_, c)| c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        let id = PlanId::new();
        let refs = parse_references(&format!(
            "see @plan:{id}, @proj. @./rel @~/home/x @a.b @@x (@paren) @plan:nope @\"\" @"
        ));
        assert_eq!(refs[0], Reference::Plan { plan_id: id });
        assert_eq!(
            refs[1],
            Reference::Project {
                name: "proj".into()
            }
        );
        assert_eq!(
            refs[2],
            Reference::File {
                path: "./rel".into()
            }
        );
        assert_eq!(
            refs[3],
            Reference::File {
                path: "~/home/x".into()
            }
        );
        assert_eq!(refs[4], Reference::File { path: "a.b".into() });
        assert_eq!(
            refs[5],
            Reference::Project {
                name: "paren".into()
            },
            "@@x is not a reference"
        );
        assert!(matches!(refs[6], Reference::Malformed { .. }));
        assert!(matches!(refs[7], Reference::Malformed { .. }));
        assert_eq!(refs.len(), 8);
        assert!(parse_references("user@example.com").is_empty());
        assert!(matches!(
            parse_references("@\"open").as_slice(),
            [Reference::Malformed { .. }]
        ));
    }
}
