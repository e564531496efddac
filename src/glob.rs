//! Tool-name patterns.
//!
//! The specification, complete: a pattern is a string in which `*` matches
//! any run of characters (including none) and every other character matches
//! itself exactly (case-sensitive, by Unicode scalar value). Nothing else is
//! special: `?`, `[`, `\` and `/` are ordinary characters. A pattern without
//! `*` is an exact name.
//!
//! Matching is iterative (no recursion, no allocation) and takes at most
//! `O(pattern × name)` steps.

/// Whether `name` matches `pattern` (see the module documentation).
///
/// ```
/// use cleveragents::glob_match;
///
/// assert!(glob_match("shell_*", "shell_exec"));
/// assert!(glob_match("*_file", "rm_file"));
/// assert!(glob_match("my-org/*", "my-org/python-linter"));
/// assert!(!glob_match("read_file", "read_files"));
/// assert!(glob_match("a*b*c", "abbbc"));
/// ```
#[must_use]
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p = pattern.as_bytes();
    let n = name.as_bytes();
    // Byte-wise matching is exact for UTF-8: `*` is ASCII and can only ever be
    // matched against whole runs, and literal bytes compare equal only when the
    // characters they encode do.
    let (mut pi, mut ni) = (0_usize, 0_usize);
    // Where to resume after the last `*`: its position in the pattern and the
    // name position it is currently absorbing up to.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if Some(&c) == n.get(ni) => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    // Let the star absorb one more byte and retry.
                    star = Some((sp, sn + 1));
                    pi = sp + 1;
                    ni = sn + 1;
                }
                None => return false,
            },
        }
    }
    p.get(pi..)
        .is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn specification_examples() {
        assert!(glob_match("", ""));
        assert!(!glob_match("", "a"));
        assert!(glob_match("*", ""));
        assert!(glob_match("*", "anything at all"));
        assert!(glob_match("**", "x"));
        assert!(glob_match("shell_exec", "shell_exec"));
        assert!(!glob_match("shell_exec", "Shell_exec"));
        assert!(glob_match("*exec*", "shell_exec_v2"));
        assert!(!glob_match("a*b", "ac"));
        assert!(glob_match("a?b", "a?b"));
        assert!(!glob_match("a?b", "axb"));
        assert!(glob_match("[x]", "[x]"));
        assert!(glob_match("é*", "éa"));
        assert!(!glob_match("*a", "é"));
        assert!(glob_match("*aaa*b", "aaaaaaaaab"));
    }
}
