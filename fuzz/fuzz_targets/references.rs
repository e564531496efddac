//! Any text into the `@`-reference parser: never a panic; every file or
//! project reference it returns appears in the text after an `@`.
#![no_main]

use cleveragents::{Reference, parse_references};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for reference in parse_references(text) {
        match reference {
            Reference::Project { name } => assert!(text.contains(&format!("@{name}"))),
            Reference::File { path } => {
                assert!(text.contains(&format!("@{path}")) || text.contains(&format!("@\"{path}\"")));
            }
            _ => {}
        }
    }
});
