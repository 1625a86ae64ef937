//! Misbehaving exec workers, written in sh (no Python: support/sh_worker.rs): each is a
//! failure of the worker, never a pass or a refusal, and never a hang; a worker cannot pass by
//! naming a file it did not write; the scratch directory is private and removed. That the
//! library kills workers only when asked is tests/kill_workers.rs, a binary of its own.

use std::path::Path;
use std::time::Duration;

use pad_conformance::testing::{DEFAULT_MAX_BYTES, ExecBackend};
use pad_conformance::{Backend, ErrorKind};

use crate::support::sh_worker::{failure, relative_expected, setup};

#[test]
fn a_worker_that_writes_its_own_output_passes() {
    let s = setup();
    let backend = s.start("copy", 60);
    assert_eq!(
        backend.run(&s.model, &s.inputs).unwrap(),
        std::slice::from_ref(&s.expected)
    );
}

#[test]
fn a_worker_cannot_pass_by_naming_a_file_it_did_not_write() {
    let s = setup();
    assert!(std::env::current_dir().unwrap().join(relative_expected()).is_file());
    for (mode, why) in [
        ("absolute", "outside the output directory"),
        ("link", "outside the output directory"),
        ("relative", "does not resolve"),
        ("dotdot", "outside the output directory"),
        ("nul", "an output path is not a non-empty string without NUL"),
        ("many", "64 outputs named, but the graph has 1"),
        ("huge", "over the limit of 4296015872 bytes for one worker reply"),
        ("longline", "a line longer than 1048576 bytes"),
    ] {
        let backend = s.start(mode, 60);
        let message = failure(backend.run(&s.model, &s.inputs));
        assert!(
            message.contains("protocol error") || mode == "huge",
            "{mode}: {message}"
        );
        assert!(message.contains(why), "{mode}: {message}");
    }
}

// Tens of seconds of waiting on a blocked pipe: a step of .ci/run, not of `cargo test`.
#[test]
#[ignore = "slow: run by .ci/run"]
fn a_worker_that_never_reads_its_input_times_out_instead_of_blocking_the_runner() {
    let s = setup();
    std::fs::write(
        s.dir.path().join("deaf.sh"),
        "read -r hello\necho '{\"type\":\"hello\",\"version\":1}'\nsleep 600\n",
    )
    .unwrap();
    let command = format!("sh {}", s.dir.path().join("deaf.sh").display());
    let backend = ExecBackend::start(&command, Duration::from_secs(1), DEFAULT_MAX_BYTES).unwrap();
    // 3,000 inputs: a request line of ~200 KB, more than a pipe holds, so writing it blocks
    // until the worker reads — which it never does.
    let mut model = s.model.clone();
    model.graph.inputs = (0..3000).map(|i| format!("input_number_{i}")).collect();
    model.graph.outputs = vec!["y".into()];
    let inputs = vec![s.inputs[1].clone(); 3000];
    let message = failure(backend.run(&model, &inputs));
    assert!(message.starts_with("timed out after 1 s"), "{message}");
}

#[test]
fn a_duplicate_reply_costs_the_worker_not_the_next_request() {
    let s = setup();
    let backend = s.start("twice", 60);
    let first = backend.run(&s.model, &s.inputs).unwrap_err();
    // The first request sees its reply, and sees the duplicate if it has arrived already.
    match first.kind() {
        ErrorKind::Refused => assert_eq!(first.to_string(), "no"),
        ErrorKind::Failed => assert!(first.to_string().contains("a reply nothing asked for"), "{first}"),
        _ => panic!("{first}"),
    }
    // The worker holding a stray line is never asked again: the next request gets a fresh
    // worker and its own reply, not the stray one.
    // (Under load a late duplicate may cost the next request its worker instead: a failure,
    // never the stray reply taken as an answer.)
    for _ in 0..3 {
        let next = backend.run(&s.model, &s.inputs).unwrap_err();
        match next.kind() {
            ErrorKind::Refused => assert_eq!(next.to_string(), "no"),
            ErrorKind::Failed => {}
            _ => panic!("{next}"),
        }
    }
}

#[test]
fn the_scratch_directory_is_private_and_removed_with_the_backend() {
    let s = setup();
    let backend = s.start("scratch", 60);
    let refused = backend.run(&s.model, &s.inputs).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Refused, "{refused}");
    let message = refused.to_string();
    let (mode, scratch) = message.split_once(" in ").unwrap();
    assert_eq!(mode, "mode 700");
    assert!(
        Path::new(scratch)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("pad-conformance-"),
        "{scratch}"
    );
    assert!(Path::new(scratch).is_dir());
    drop(backend);
    assert!(!Path::new(scratch).exists(), "{scratch} is left behind");
}
