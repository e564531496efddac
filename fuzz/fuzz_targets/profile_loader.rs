//! Any bytes into the YAML and JSON profile loaders: never a panic, and a
//! profile that loads is valid and round-trips through both formats.
#![no_main]

use cleveragents::AutomationProfile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for loaded in [AutomationProfile::from_yaml_str(text), AutomationProfile::from_json_str(text)] {
        if let Ok(profile) = loaded {
            assert!(profile.violations().is_empty());
            let json = serde_json::to_string(&profile).expect("serializable");
            assert_eq!(AutomationProfile::from_json_str(&json).expect("json round trip"), profile);
            let yaml = profile.to_yaml_string().expect("yaml");
            assert_eq!(AutomationProfile::from_yaml_str(&yaml).expect("yaml round trip"), profile);
        }
    }
});
