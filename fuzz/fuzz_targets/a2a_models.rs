//! Arbitrary JSON into the A2A model readers of both versions: never a
//! panic, and whatever reads converts to the other version and back unchanged.
#![no_main]

use cleveragents::a2a::{Message, StreamEvent, Task, v1};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    if let Ok(task) = serde_json::from_value::<Task>(value.clone()) {
        assert_eq!(v1::task_from_v1(&v1::task_to_v1(&task)).expect("1.0 round trip"), task);
    }
    if let Ok(message) = serde_json::from_value::<Message>(value.clone()) {
        assert_eq!(v1::message_from_v1(&v1::message_to_v1(&message)).expect("1.0 round trip"), message);
    }
    if let Ok(event) = serde_json::from_value::<StreamEvent>(value.clone()) {
        let back = v1::stream_event_from_v1(&v1::stream_event_to_v1(&event)).expect("1.0 round trip");
        assert_eq!(serde_json::to_value(&back).ok(), serde_json::to_value(&event).ok().map(|mut v| {
            // 1.0 has no `final`: it is derived from the state on the way back.
            if let (Some(obj), StreamEvent::StatusUpdate(e)) = (v.as_object_mut(), &event) {
                let derived = e.status.state.is_terminal() || e.status.state.is_interrupted();
                obj.insert("final".into(), serde_json::Value::Bool(derived));
            }
            v
        }));
    }
    let _ = v1::task_from_v1(&value);
    let _ = v1::message_from_v1(&value);
    let _ = v1::stream_event_from_v1(&value);
    let _ = v1::push_config_from_v1(&value);
});
