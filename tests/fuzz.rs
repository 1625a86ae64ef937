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
