//! Any bytes into the SSE parser: never a panic, and every parsed frame
//! encodes to text that parses back to the same frame.
#![no_main]

use cleveragents::a2a::SseParser;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parser = SseParser::new();
    for frame in parser.push(data) {
        if frame.data.contains('\r') {
            continue;
        }
        let mut again = SseParser::new();
        let reparsed = again.push(frame.encode().as_bytes());
        assert_eq!(reparsed.len(), 1);
        let mut expected = frame.clone();
        // Event names and ids are written up to their first line break.
        expected.event = expected.event.map(|e| e.split(['\r', '\n']).next().unwrap_or_default().to_owned());
        assert_eq!(reparsed[0].data, expected.data);
        assert_eq!(reparsed[0].event, expected.event);
    }
});
