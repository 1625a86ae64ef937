//! The exec worker's reply parser: any line, for request 7.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pad_conformance::testing::{WorkerReply, parse_reply};

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    match parse_reply(&line, 7) {
        Ok(WorkerReply::Outputs(outputs)) => assert!(outputs.iter().all(|o| {
            // A raw output's shape is bounded before any file is read.
            !o.path.as_os_str().is_empty() && o.raw.as_ref().is_none_or(|(_, shape)| shape.len() <= 1024)
        })),
        Ok(WorkerReply::Model(path)) => assert!(!path.as_os_str().is_empty()),
        Ok(WorkerReply::Error { .. }) => {}
        Err(e) => {
            // Messages stay short, whatever the line.
            assert!(e.to_string().len() < 2048, "{} bytes", e.to_string().len());
        }
    }
});
