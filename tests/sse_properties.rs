//! SSE frames survive encoding and incremental parsing, however the bytes
//! are split.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use cleveragents::a2a::{SseFrame, SseParser};
use proptest::prelude::*;

fn frame() -> impl Strategy<Value = SseFrame> {
    (
        prop::option::of("[a-zA-Z0-9_./-]{0,16}"),
        prop::option::of("[a-zA-Z0-9_:-]{0,26}"),
        // Any text without carriage returns (SSE reads `\r` as a line break).
        "[^\r]{0,200}",
        prop::option::of(any::<u32>()),
    )
        .prop_map(|(event, id, data, retry)| {
            let mut f = SseFrame::default();
            f.event = event;
            f.id = id;
            f.data = data;
            f.retry = retry.map(u64::from);
            f
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn frames_round_trip_through_any_chunking(frames in prop::collection::vec(frame(), 1..6), cut in 1_usize..64) {
        let text: String = frames.iter().map(SseFrame::encode).collect();
        let mut parser = SseParser::new();
        let mut parsed = Vec::new();
        for chunk in text.as_bytes().chunks(cut) {
            parsed.extend(parser.push(chunk));
        }
        // Every frame writes at least one `data:` line, so even an empty one
        // comes back.
        prop_assert_eq!(parsed, frames);
    }

    #[test]
    fn the_parser_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let mut parser = SseParser::new();
        let _ = parser.push(&bytes);
    }
}
