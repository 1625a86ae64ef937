//! Baseline parsing: any bytes as a baseline file, then the lookups a run makes with it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pad_conformance::testing::{Baseline, Status};

fuzz_target!(|data: &[u8]| {
    let Ok(baseline) = serde_json::from_slice::<Baseline>(data) else {
        return;
    };
    for status in [Status::Passed, Status::Failed, Status::Errored, Status::Skipped] {
        let _ = baseline.finding("onnx-1.22.0/node/test_wrap_pad/0", status);
    }
    let _ = baseline.stale(|name| name.len() % 2 == 0);
    let _ = serde_json::to_string(&baseline).unwrap();
});
