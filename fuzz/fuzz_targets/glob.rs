//! The glob matcher against a simple recursive oracle of the specification.
#![no_main]

use cleveragents::glob_match;
use libfuzzer_sys::fuzz_target;

/// `*` matches any run of characters; everything else matches itself.
fn oracle(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|skip| oracle(rest, &name[skip..])),
        Some((c, rest)) => name.split_first().is_some_and(|(n, tail)| n == c && oracle(rest, tail)),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // First line is the pattern, the rest the name; keep the oracle's
    // exponential worst case small.
    let (pattern, name) = text.split_once('\n').unwrap_or((text, ""));
    if pattern.chars().filter(|c| *c == '*').count() > 6 || name.len() > 64 {
        return;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    assert_eq!(glob_match(pattern, name), oracle(&p, &n), "pattern {pattern:?} name {name:?}");
});
