//! Any bytes into the container-tool loaders (YAML and JSON), the
//! devcontainer.json reader and the devcontainer resource loader: never a
//! panic; what loads is valid, round-trips, and binds only absolute mounts.
#![no_main]

use std::path::{Component, Path};
use std::sync::Arc;

use cleveragents::{
    ContainerToolExecutor, ContainerToolSpec, DevcontainerConfig, DevcontainerResource,
    FakeCall, FakeRuntime, InMemoryResourceRegistry, ToolInvocation,
};
use libfuzzer_sys::fuzz_target;

fn safe(path: &Path) -> bool {
    path.is_absolute() && !path.components().any(|c| matches!(c, Component::ParentDir))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for loaded in [ContainerToolSpec::from_yaml_str(text), ContainerToolSpec::from_json_str(text)] {
        let Ok(spec) = loaded else { continue };
        assert!(spec.validate().is_ok());
        let json = serde_json::to_string(&spec).expect("serializable");
        assert_eq!(ContainerToolSpec::from_json_str(&json).expect("round trip"), spec);

        let resources = Arc::new(InMemoryResourceRegistry::new());
        for name in spec.referenced_resources() {
            resources.insert(name, "/r");
        }
        let fake = FakeRuntime::new();
        let executor = ContainerToolExecutor::new(Arc::new(fake.clone()), resources);
        let tool = spec.name.clone();
        executor.register(spec).expect("a valid spec registers");
        executor.execute(&ToolInvocation::new(tool)).expect("runs on the fake");
        for call in fake.calls() {
            if let FakeCall::Run { spec } = call {
                assert!(spec.mounts.iter().all(|m| safe(&m.source)));
            }
        }
    }
    if let Ok(dc) = DevcontainerConfig::from_jsonc_str(text, Path::new("/project")) {
        assert!(dc.image.is_some() || dc.build.is_some());
        assert!(dc.mounts.iter().all(|m| safe(&m.source) && safe(Path::new(&m.target))));
    }
    if let Ok(resource) = DevcontainerResource::from_yaml_str(text) {
        assert!(resource.validate().is_ok());
    }
});
