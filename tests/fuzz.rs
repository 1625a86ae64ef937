//! Differential fuzzing: deterministic generation, the reference agreeing with itself, and a
//! deliberately broken backend found, shrunk and written as a reproducer that fails with it
//! and passes with the reference.

use pad_conformance::Tensor;
use pad_conformance::backend::{Backend, BackendError, BackendFailure, BackendUnsupported, ErrorKind, RefBackend};
use pad_conformance::case::{Patterns, discover};
use pad_conformance::fuzz::reproducer::write_reproducer;
use pad_conformance::fuzz::{FuzzOptions, Kind, Shape, fuzz, generate};
use pad_conformance::judge::check::{CheckOptions, Status, check_data_set};
use pad_conformance::model::{AttributeValue, Model};
use prost::Message;
use rand::SeedableRng;
use sha2::{Digest, Sha256};

#[test]
fn the_same_seed_gives_the_same_cases_on_any_machine() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut digest = Sha256::new();
    for _ in 0..1000 {
        let case = generate(&mut rng, &Shape::default());
        let (model, inputs) = case.build("test_fuzz");
        digest.update(model.encode_to_vec());
        for input in &inputs {
            digest.update(pad_conformance::tensor::encode_tensor(input, "").encode_to_vec());
        }
    }
    let hex: String = digest.finalize().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "8a0e3ca69ecc044f7c671bd32ff9a051ca36067780b60e500ab09454e8ba1d2d");
}

#[test]
fn the_reference_agrees_with_itself() {
    let options = FuzzOptions {
        cases: Some(1000),
        seed: 7,
        ..FuzzOptions::default()
    };
    let report = fuzz(&RefBackend, &options, &mut |_| {}).unwrap();
    assert_eq!(report.cases, 1000);
    let all: Vec<String> = report
        .findings
        .iter()
        .chain(&report.not_gating)
        .map(|f| format!("{} {} {}", f.signature, f.case, f.message))
        .collect();
    assert!(all.is_empty(), "{all:#?}");
}

/// Pads edge mode with the constant instead of the edge values.
struct EdgeAsConstant;

impl Backend for EdgeAsConstant {
    fn name(&self) -> &str {
        "edge-as-constant"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let mut model = model.clone();
        for node in &mut model.graph.nodes {
            for attribute in &mut node.attributes {
                if attribute.name == "mode" && attribute.value == AttributeValue::String(b"edge".to_vec()) {
                    attribute.value = AttributeValue::String(b"constant".to_vec());
                }
            }
        }
        RefBackend.run(&model, inputs)
    }
}

#[test]
fn a_broken_backend_is_found_shrunk_and_reproduced() {
    let options = FuzzOptions {
        cases: Some(1000),
        ..FuzzOptions::default()
    };
    let report = fuzz(&EdgeAsConstant, &options, &mut |_| {}).unwrap();
    let edge: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.signature.mode == "edge" && f.signature.kind == Kind::WrongValues)
        .collect();
    assert!(
        !edge.is_empty(),
        "{:#?}",
        report
            .findings
            .iter()
            .map(|f| f.signature.to_string())
            .collect::<Vec<_>>()
    );
    for finding in &edge {
        let outputs = finding.expected.as_ref().expect("the reference computes it");
        assert!(
            outputs[0].len() <= 8,
            "shrunk to {} elements: {}",
            outputs[0].len(),
            finding.case
        );
        assert!(finding.hits >= 1);
    }
    // The reproducer is a case the runner discovers: it fails with the broken backend and
    // passes with the reference.
    let dir = tempfile::tempdir().unwrap();
    let written = write_reproducer(edge[0], dir.path()).unwrap();
    let name = written.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("test_fuzz_") && name.contains("_edge_"), "{name}");
    let cases = discover(&[dir.path().to_owned()], &Patterns::default()).unwrap();
    assert_eq!(cases.len(), 1);
    let check = |backend: &dyn Backend| check_data_set(backend, &cases[0], 0, &CheckOptions::default());
    let broken = check(&EdgeAsConstant);
    assert_eq!(broken.status, Status::Failed);
    // The runner's judge gives the verdict the fuzzer found, and words it the same way.
    let verdict = broken.verdict.as_ref().unwrap();
    assert_eq!(Kind::of(verdict), Some(edge[0].signature.kind));
    assert_eq!(broken.message, edge[0].message);
    assert_eq!(check(&RefBackend).status, Status::Passed);
    assert_eq!(cases[0].basis, edge[0].basis);
}

/// The reference, except that on edge mode it reports the case unsupported, or fails.
struct EdgeIs(ErrorKind);

impl Backend for EdgeIs {
    fn name(&self) -> &str {
        "edge-is"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let edge = model.graph.nodes.iter().any(|node| {
            node.attributes
                .iter()
                .any(|a| a.name == "mode" && a.value == AttributeValue::String(b"edge".to_vec()))
        });
        match self.0 {
            _ if !edge => RefBackend.run(model, inputs),
            ErrorKind::Unsupported => Err(Box::new(BackendUnsupported("no edge mode".into()))),
            ErrorKind::Failed => Err(Box::new(BackendFailure("edge mode lost the device".into()))),
            ErrorKind::Refused => Err("edge mode is refused".into()),
        }
    }
}

/// A case the backend reports unsupported is counted as unsupported, never a finding; a
/// failure is a crash, never read as the backend's refusal.
#[test]
fn unsupported_cases_are_counted_and_failures_are_crashes() {
    let options = FuzzOptions {
        cases: Some(300),
        ..FuzzOptions::default()
    };
    let unsupported = fuzz(&EdgeIs(ErrorKind::Unsupported), &options, &mut |_| {}).unwrap();
    let signatures = |findings: &[pad_conformance::fuzz::Finding]| -> Vec<String> {
        findings.iter().map(|f| f.signature.to_string()).collect()
    };
    assert!(unsupported.unsupported > 0, "the generator draws edge mode");
    assert!(unsupported.unsupported < 300, "and other modes");
    let all: Vec<_> = signatures(&unsupported.findings)
        .into_iter()
        .chain(signatures(&unsupported.not_gating))
        .collect();
    assert!(all.is_empty(), "{all:#?}");

    let failed = fuzz(&EdgeIs(ErrorKind::Failed), &options, &mut |_| {}).unwrap();
    assert_eq!(failed.unsupported, 0);
    let findings: Vec<_> = failed.findings.iter().chain(&failed.not_gating).collect();
    assert!(!findings.is_empty());
    for finding in findings {
        assert_eq!(finding.signature.kind, Kind::Crashed, "{}", finding.signature);
        assert_eq!(finding.signature.mode, "edge", "{}", finding.signature);
        // Worded by the runner's judge, as a run over the corpus words it.
        assert!(
            finding.message.starts_with("backend edge-is failed"),
            "{}",
            finding.message
        );
        assert!(
            finding.message.ends_with(": edge mode lost the device"),
            "{}",
            finding.message
        );
    }
}

/// A worker, in sh, that refuses every request: a finding for every valid case.
const REFUSER: &str = r#"exec:read hello; echo '{"type": "hello", "version": 1, "name": "refuser"}'; while read request; do id=${request#*\"id\": }; id=${id%%,*}; echo "{\"type\": \"error\", \"id\": $id, \"kind\": \"refused\", \"message\": \"no\"}"; done"#;

fn pad_conformance(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(args)
        .output()
        .unwrap()
}

/// A reproducer an earlier run left, with an input file this run's would not have.
fn earlier_finding(out: &std::path::Path) -> std::path::PathBuf {
    let earlier = out.join("test_fuzz_pad_edge_float_refused-valid_pad");
    std::fs::create_dir_all(earlier.join("test_data_set_0")).unwrap();
    for file in [
        "model.onnx",
        "case.json",
        "description.txt",
        "test_data_set_0/input_2.pb",
    ] {
        std::fs::write(earlier.join(file), "earlier").unwrap();
    }
    earlier
}

#[test]
fn an_out_directory_is_checked_before_the_run_and_cleared_of_earlier_findings_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("findings");
    let earlier = earlier_finding(&out);
    let args = |out: &std::path::Path| {
        let out = out.to_str().unwrap().to_owned();
        move |extra: &[&str]| {
            let mut all = vec![
                "fuzz",
                "--backend",
                REFUSER,
                "--cases",
                "30",
                "--jobs",
                "1",
                "--out",
                &out,
            ];
            all.extend_from_slice(extra);
            pad_conformance(&all)
        }
    };
    let run = args(&out)(&[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut reported: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("wrote "))
        .map(|p| {
            std::path::Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    reported.sort();
    assert!(!written.is_empty());
    // Only this run's findings: the earlier one, and its stale input, are gone.
    assert_eq!(written, reported);
    assert!(!earlier.join("test_data_set_0/input_2.pb").exists());

    // A directory holding anything else is refused before the run, and left as it was.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let refused = args(&out)(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("holds \"notes.txt\", which is no finding of `fuzz`"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert!(out.join(&written[0]).exists());

    // Under a regular file: refused before the run, naming --out.
    let under_file = out.join("notes.txt").join("sub");
    let refused = args(&under_file)(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--out ") && stderr.contains("cannot make the directory"),
        "{stderr}"
    );
    assert!(!stderr.contains("wrote"), "{stderr}");
}

#[test]
fn numeric_arguments_out_of_range_are_refused_before_the_run() {
    for (args, message) in [
        (
            &["--max-elements", "18446744073709551615"][..],
            "--max-elements 18446744073709551615 is over the limit of 16777216",
        ),
        (
            &["--max-elements", "1099511627776"],
            "--max-elements 1099511627776 is over the limit",
        ),
        (&["--max-elements", "0"], "--max-elements 0 leaves nothing to generate"),
        (&["--cases", "0"], "--cases 0 leaves nothing to run"),
        (&["--time", "0"], "--time 0 is not a positive number of seconds"),
    ] {
        let mut all = vec!["fuzz"];
        all.extend_from_slice(args);
        let out = pad_conformance(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
    let options = FuzzOptions {
        shape: Shape {
            max_elements: usize::MAX,
            ..Shape::default()
        },
        ..FuzzOptions::default()
    };
    let error = fuzz(&RefBackend, &options, &mut |_| {}).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("max_elements 18446744073709551615 is not from 1 to 16777216"),
        "{error}"
    );
}

/// `--time` is a deadline for the case in flight too: a worker that never answers is killed
/// then, whatever `--timeout` allows it. (Were it not, this run would last 600 s.)
#[test]
fn time_cuts_short_the_case_in_flight() {
    let hang = r#"exec:read hello; echo '{"type": "hello", "version": 1, "name": "hang"}'; read request; sleep 600"#;
    let out = pad_conformance(&[
        "fuzz",
        "--backend",
        hang,
        "--time",
        "1",
        "--timeout",
        "600",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The case cut short is not counted, and is no finding.
    assert_eq!(report["cases"], 0, "{report}");
    assert_eq!(report["findings"].as_array().map(Vec::len), Some(0), "{report}");
}

/// Findings past the budget of stored elements are counted, not kept: memory stays bounded
/// however many distinct disagreements a long run meets.
#[test]
fn findings_past_the_memory_budget_are_counted_as_dropped() {
    let run = |stored_elements| {
        let options = FuzzOptions {
            cases: Some(300),
            shrink_runs: 0,
            stored_elements,
            ..FuzzOptions::default()
        };
        fuzz(&EdgeIs(ErrorKind::Failed), &options, &mut |_| {}).unwrap()
    };
    let all = run(usize::MAX);
    let kept = all.findings.len() + all.not_gating.len();
    assert!(kept >= 2, "{kept}");
    assert_eq!(all.dropped, 0);
    // A budget of one element: the first finding fills it, every other is dropped.
    let one = run(1);
    assert_eq!(one.findings.len() + one.not_gating.len(), 1);
    assert_eq!(one.dropped as usize, kept - 1);
}
