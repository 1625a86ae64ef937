//! Differential fuzzing: deterministic generation, the reference agreeing with itself, a
//! deliberately broken backend found, shrunk and written as a reproducer that fails with it
//! and passes with the reference, findings grouped by root cause, faithful shrinking, and
//! shards whose findings together are the unsharded run's.

use std::sync::LazyLock;

use pad_conformance::testing::{
    Cause, CauseKey, CheckOptions, Driven, Finding, Flavour, FuzzOptions, FuzzReport, ModelProto, Pattern, Patterns,
    Region, Shape, Shard, Status, check_data_set, discover, fuzz, generate_case, write_reproducer,
};
use pad_conformance::{
    AttributeValue, Backend, BackendError, BackendFailure, BackendUnsupported, Basis, ErrorKind, Model, PadMode,
    RefBackend, Rule, Tensor, Tolerance,
};
use prost::Message;
use sha2::{Digest, Sha256};

use crate::support::fuzz_shape::small_inputs;
use crate::support::hanging_worker::{IN_REQUEST, Mark};

#[test]
fn the_same_seed_gives_the_same_cases_on_any_machine() {
    let mut digest = Sha256::new();
    for index in 0..1000 {
        let case = generate_case(1, index, &Shape::default());
        let (model, inputs) = case.build("test_fuzz");
        digest.update(model.encode_to_vec());
        for input in &inputs {
            digest.update(pad_conformance::testing::encode_tensor(input, "").encode_to_vec());
        }
    }
    let hex: String = digest.finalize().iter().map(|b| format!("{b:02x}")).collect();
    // Since corpus version 5 the models declare their output with one symbolic dimension per axis.
    assert_eq!(hex, "a80f41a53d7ae629ebb16c23aa0fb70827932d9d26fe78348519f829bcff764d");
}

/// A few hundred cases: .ci/run fuzzes the reference against itself for a hundred thousand,
/// optimized.
#[test]
fn the_reference_agrees_with_itself() {
    let options = FuzzOptions {
        cases: Some(300),
        seed: 7,
        shape: small_inputs(),
        ..FuzzOptions::default()
    };
    let report = fuzz(&RefBackend, &options, &mut |_| {}).unwrap();
    assert_eq!(report.cases, 300);
    let all: Vec<String> = report
        .findings
        .iter()
        .chain(&report.not_gating)
        .map(|f| format!("{} {} {}", f.key, f.case, f.message))
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

impl Driven for EdgeAsConstant {}

#[test]
fn a_broken_backend_is_found_shrunk_and_reproduced() {
    let options = FuzzOptions {
        cases: Some(300),
        shape: small_inputs(),
        ..FuzzOptions::default()
    };
    let report = fuzz(&EdgeAsConstant, &options, &mut |_| {}).unwrap();
    let edge: Vec<_> = report
        .findings
        .iter()
        .filter(|f| {
            f.key.cause == Cause::WrongValues
                && matches!(
                    f.key.pattern,
                    Pattern::Values {
                        region: Region::Padding(Some(PadMode::Edge)),
                        ..
                    }
                )
        })
        .collect();
    assert!(
        !edge.is_empty(),
        "{:#?}",
        report.findings.iter().map(|f| f.key.to_string()).collect::<Vec<_>>()
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
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let written = write_reproducer(edge[0], dir.path()).unwrap();
    let name = written.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("test_fuzz_wrong-values_edge-padding"), "{name}");
    // Its model declares the output shape the reference computed (onnx.checker requires one).
    let model = ModelProto::decode(&std::fs::read(written.join("model.onnx")).unwrap()[..]).unwrap();
    let output = &model.graph.unwrap().output[0];
    let shape = output
        .r#type
        .as_ref()
        .unwrap()
        .tensor_type
        .as_ref()
        .unwrap()
        .shape
        .as_ref()
        .unwrap();
    let dims: Vec<Option<i64>> = shape.dim.iter().map(|d| d.dim_value).collect();
    let expected = edge[0].expected.as_ref().unwrap()[0].shape();
    assert_eq!(dims, expected.iter().map(|&d| Some(d as i64)).collect::<Vec<_>>());
    let cases = discover(&[dir.path().to_owned()], &Patterns::default()).unwrap();
    assert_eq!(cases.len(), 1);
    let check = |backend: &dyn Driven| check_data_set(backend, &cases[0], 0, &CheckOptions::default());
    let broken = check(&EdgeAsConstant);
    assert_eq!(broken.status(), Status::Failed);
    // The runner's judge gives the verdict the fuzzer found, and words it the same way.
    let verdict = broken.verdict().unwrap();
    assert_eq!(verdict.cause(), Some(edge[0].key.cause));
    assert_eq!(broken.message(), edge[0].message);
    assert_eq!(check(&RefBackend).status(), Status::Passed);
    assert_eq!(cases[0].basis, edge[0].basis);
    // A second finding whose name reads alike gets a directory of its own, never the first's.
    let again = write_reproducer(edge[0], dir.path()).unwrap();
    let second = format!("{}_2_pad", name.strip_suffix("_pad").unwrap());
    assert_eq!(again.file_name().unwrap().to_str().unwrap(), second);
    assert_eq!(
        discover(&[dir.path().to_owned()], &Patterns::default()).unwrap().len(),
        2
    );
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
            ErrorKind::Unsupported => Err(BackendUnsupported("no edge mode".into()).into()),
            ErrorKind::Failed => Err(BackendFailure("edge mode lost the device".into()).into()),
            ErrorKind::Refused => Err("edge mode is refused".into()),
            other => panic!("no error of kind {other}"),
        }
    }
}

impl Driven for EdgeIs {
    // Runs the loaded model: the fuzzer need not write each case's model to disk (the
    // broken backend above keeps the default, so that path stays tested).
    fn reads_model_file(&self) -> bool {
        false
    }
}

/// A case the backend reports unsupported is counted as unsupported, never a finding; a
/// failure is a crash, never read as the backend's refusal.
#[test]
fn unsupported_cases_are_counted_and_failures_are_crashes() {
    let options = FuzzOptions {
        cases: Some(300),
        shape: small_inputs(),
        ..FuzzOptions::default()
    };
    let unsupported = fuzz(&EdgeIs(ErrorKind::Unsupported), &options, &mut |_| {}).unwrap();
    let signatures = |findings: &[Finding]| -> Vec<String> { findings.iter().map(|f| f.key.to_string()).collect() };
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
    // One cause, however many operators, versions and element types it was seen in.
    assert_eq!(signatures(&failed.findings), ["crash: reported a failure"]);
    assert!(failed.findings[0].seen_in.len() > 3, "{:?}", failed.findings[0].seen_in);
    for finding in findings {
        assert_eq!(finding.key.cause, Cause::Crash, "{}", finding.key);
        assert_eq!(finding.case.mode.as_deref(), Some("edge"), "{}", finding.case);
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

/// The reference, except for three defects a runtime might have: a −0.0 constant written as
/// +0.0 (ai.onnx Pad), reflect padding taken as edge padding when a pad is longer than the
/// extent − 1, and wrap accepted before Pad-19 (padded as constant).
struct ThreeDefects;

impl ThreeDefects {
    /// The (begin, end) pads and input extent of each padded axis of a Pad node.
    fn pads_and_extents(model: &Model, inputs: &[Tensor]) -> Vec<(i64, i64, i64)> {
        let node = &model.graph.nodes[0];
        let input = |name: &str| {
            let at = model.graph.inputs.iter().position(|n| n == name)?;
            let t = &inputs[at];
            t.as_slice::<i64>()
                .map(<[i64]>::to_vec)
                .or_else(|| t.as_slice::<i32>().map(|v| v.iter().map(|&x| i64::from(x)).collect()))
        };
        let pads = match node.attribute("pads").or(node.attribute("paddings")) {
            Some(AttributeValue::Ints(pads)) => pads.clone(),
            _ => input("pads").unwrap_or_default(),
        };
        let dims = inputs[0].shape();
        let rank = dims.len() as i64;
        let axes: Vec<usize> = match input("axes") {
            Some(axes) => axes.iter().map(|a| a.rem_euclid(rank.max(1)) as usize).collect(),
            None => (0..dims.len()).collect(),
        };
        let n = axes.len();
        if pads.len() != 2 * n {
            return Vec::new();
        }
        (0..n).map(|i| (pads[i], pads[i + n], dims[axes[i]] as i64)).collect()
    }

    fn with_mode(model: &Model, mode: &str) -> Model {
        let mut model = model.clone();
        for attribute in &mut model.graph.nodes[0].attributes {
            if attribute.name == "mode" {
                attribute.value = AttributeValue::String(mode.as_bytes().to_vec());
            }
        }
        model
    }
}

/// +0.0 for a floating −0.0 scalar, else `None`.
fn positive_zero(tensor: &Tensor) -> Option<Tensor> {
    let negative = |v: f64| v == 0.0 && v.is_sign_negative();
    match tensor {
        Tensor::Float(a) if a.iter().all(|&v| negative(f64::from(v))) && a.len() == 1 => {
            Some(Tensor::from_array(a.mapv(|_| 0.0f32)))
        }
        Tensor::Double(a) if a.iter().all(|&v| negative(v)) && a.len() == 1 => {
            Some(Tensor::from_array(a.mapv(|_| 0.0f64)))
        }
        Tensor::Float16(a) if a.iter().all(|v| negative(v.to_f64())) && a.len() == 1 => {
            Some(Tensor::from_array(a.mapv(|_| half::f16::ZERO)))
        }
        Tensor::Bfloat16(a) if a.iter().all(|v| negative(v.to_f64())) && a.len() == 1 => {
            Some(Tensor::from_array(a.mapv(|_| half::bf16::ZERO)))
        }
        _ => None,
    }
}

impl Backend for ThreeDefects {
    fn name(&self) -> &str {
        "three-defects"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let node = &model.graph.nodes[0];
        let mode = node.pad_mode().and_then(|m| m.mode());
        let onnx_pad = node.domain.is_empty() && node.op_type == "Pad";
        // Defect 1: the constant's sign of zero is lost.
        if onnx_pad && mode == Some(PadMode::Constant) {
            let mut model = model.clone();
            let mut inputs = inputs.to_vec();
            let at = model.graph.inputs.iter().position(|n| n == "value");
            if let Some(zero) = at.and_then(|at| positive_zero(&inputs[at])) {
                inputs[at.unwrap()] = zero;
            }
            for attribute in &mut model.graph.nodes[0].attributes {
                if attribute.name == "value" && attribute.value == AttributeValue::Float(-0.0) {
                    attribute.value = AttributeValue::Float(0.0);
                }
            }
            return RefBackend.run(&model, &inputs);
        }
        let answer = RefBackend.run(model, inputs);
        match (&answer, mode) {
            // Defect 2: reflect beyond one period is padded as edge.
            (Ok(_), Some(PadMode::Reflect))
                if Self::pads_and_extents(model, inputs)
                    .iter()
                    .any(|&(begin, end, extent)| begin.max(end) > (extent - 1).max(0)) =>
            {
                RefBackend.run(&Self::with_mode(model, "edge"), inputs)
            }
            // Defect 3: wrap accepted before Pad-19.
            (Err(e), Some(PadMode::Wrap))
                if onnx_pad && pad_conformance::testing::refusal_rules(e) == [Rule::ModeNotInVersion] =>
            {
                RefBackend.run(&Self::with_mode(model, "constant"), inputs)
            }
            _ => answer,
        }
    }
}

impl Driven for ThreeDefects {
    // Runs the loaded model: the fuzzer need not write each case's model to disk (the
    // broken backend above keeps the default, so that path stays tested).
    fn reads_model_file(&self) -> bool {
        false
    }
}

/// `cases` of seed 2 (one whose first 500 cases show each of the three defects), compared as the
/// default compares: exactly, a zero's sign included.
fn exact_options(cases: u64) -> FuzzOptions {
    let options = FuzzOptions {
        cases: Some(cases),
        seed: 2,
        shape: small_inputs(),
        ..FuzzOptions::default()
    };
    assert_eq!(options.check.tolerance, Tolerance::Exact);
    options
}

fn keys(report: &FuzzReport) -> Vec<String> {
    report
        .findings
        .iter()
        .chain(&report.not_gating)
        .map(|f| f.key.to_string())
        .collect()
}

/// The cases of [`THREE_DEFECTS`].
const THREE_DEFECTS_CASES: u64 = 500;

/// [`ThreeDefects`] fuzzed with `exact_options(THREE_DEFECTS_CASES)`: computed once, for the
/// tests that read the same run.
static THREE_DEFECTS: LazyLock<FuzzReport> =
    LazyLock::new(|| fuzz(&ThreeDefects, &exact_options(THREE_DEFECTS_CASES), &mut |_| {}).unwrap());

#[test]
fn three_injected_defects_are_three_causes() {
    let report = &*THREE_DEFECTS;
    let mut all = keys(report);
    all.sort();
    assert_eq!(
        all,
        [
            "accepts-forbidden: breaks mode-not-in-version",
            "wrong-values: constant padding, sign of zero",
            "wrong-values: reflect padding, other values",
        ],
        "{:#?}",
        report
            .findings
            .iter()
            .chain(&report.not_gating)
            .map(|f| (&f.key, f.hits, f.case.to_string()))
            .collect::<Vec<_>>()
    );
    for finding in report.findings.iter().chain(&report.not_gating) {
        // Each is shown by its smallest case, on the same or a stronger basis than the case
        // drawn, and every drawn case showing it is counted.
        assert_eq!(finding.seen_in.values().sum::<u64>(), finding.hits, "{}", finding.key);
        assert!(finding.basis.kind <= finding.drawn_basis, "{}", finding.key);
        assert!(
            finding.case.data_len() <= finding.original.data_len(),
            "{}",
            finding.key
        );
    }
    // Shrinking stops short of an empty data input, which would show the same cause on
    // ONNX's reference behaviour (docs/semantics.md#empty-axes) rather than the spec.
    let sign = report
        .findings
        .iter()
        .find(|f| {
            f.key.pattern
                == Pattern::Values {
                    region: Region::Padding(Some(PadMode::Constant)),
                    flavour: Flavour::SignOfZero,
                }
        })
        .expect("the sign of zero rests on the spec");
    assert_eq!(sign.basis.kind, Basis::Spec);
    assert_eq!(sign.case.data_len(), 1, "shrunk: {}", sign.case);
}

/// Shards of one seed draw disjoint cases whose findings, merged, are the unsharded run's:
/// the same causes, the same smallest cases, the same counts.
#[test]
fn shards_together_find_what_one_run_finds() {
    let options = exact_options(THREE_DEFECTS_CASES);
    let whole = &*THREE_DEFECTS;
    let shards: Vec<FuzzReport> = (1..=3)
        .map(|index| {
            let options = FuzzOptions {
                shard: Shard::new(index, 3).unwrap(),
                ..options.clone()
            };
            fuzz(&ThreeDefects, &options, &mut |_| {}).unwrap()
        })
        .collect();
    assert_eq!(shards.iter().map(|s| s.cases).collect::<Vec<_>>(), [167, 167, 166]);
    let merged = FuzzReport::merge(shards, &options.check.gating);
    let summary = |report: &FuzzReport| -> Vec<(CauseKey, u64, u64, String, String, Vec<String>)> {
        report
            .findings
            .iter()
            .chain(&report.not_gating)
            .map(|f| {
                (
                    f.key.clone(),
                    f.hits,
                    f.case_index,
                    f.case.to_string(),
                    f.message.clone(),
                    f.seen_in.iter().map(|(s, n)| format!("{s} {n}")).collect(),
                )
            })
            .collect()
    };
    assert!(!whole.findings.is_empty());
    assert_eq!(summary(&merged), summary(whole));
    assert_eq!((merged.cases, merged.unsupported), (whole.cases, whole.unsupported));
}

/// Case i of a seed is the same case whether drawn alone, in a run or in a shard.
#[test]
fn a_case_is_drawn_again_alone_by_its_index() {
    let report = &*THREE_DEFECTS;
    let found: Vec<&Finding> = report.findings.iter().chain(&report.not_gating).collect();
    assert_eq!(found.len(), 3);
    for finding in found {
        assert_eq!(
            generate_case(2, finding.case_index, &small_inputs()),
            finding.original,
            "{}",
            finding.key
        );
    }
    assert_ne!(
        generate_case(3, 0, &Shape::default()),
        generate_case(3, 1, &Shape::default())
    );
    assert_ne!(
        generate_case(3, 0, &Shape::default()),
        generate_case(4, 0, &Shape::default())
    );
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
    let dir = pad_conformance::testing::scratch_dir().unwrap();
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
        (
            &["--time", "1e19"],
            "--time 10000000000000000000 is over the bound of 2592000 seconds",
        ),
        (
            &["--timeout", "1e20"],
            "--timeout 100000000000000000000 is over the bound",
        ),
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
    let mark = Mark::new();
    let out = mark
        .pass_to(&mut std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance")))
        .args([
            "fuzz",
            "--backend",
            IN_REQUEST,
            "--time",
            "1",
            "--timeout",
            "600",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(mark.path().exists(), "the worker never held a case: {stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The case cut short is not counted, and is no finding.
    assert_eq!(report["cases"], 0, "{report}");
    assert_eq!(report["findings"].as_array().map(Vec::len), Some(0), "{report}");
}

/// Findings past the budget of stored elements are counted, not kept: memory stays bounded
/// however many distinct disagreements a long run meets.
#[test]
fn findings_past_the_memory_budget_are_counted_as_dropped() {
    // Three root causes (a backend failing on one mode is one cause, however many), all kept
    // within the default budget.
    let all = &*THREE_DEFECTS;
    let kept = all.findings.len() + all.not_gating.len();
    assert_eq!(kept, 3);
    assert_eq!(all.dropped, 0);
    // A budget of one element: the first finding fills it, every other is dropped. The cases
    // up to the last that shows a cause in the full run meet all three.
    let last = all.findings.iter().chain(&all.not_gating).map(|f| f.case_index).max();
    let options = FuzzOptions {
        shrink_runs: 0,
        stored_elements: 1,
        ..exact_options(last.unwrap() + 1)
    };
    let one = fuzz(&ThreeDefects, &options, &mut |_| {}).unwrap();
    assert_eq!(one.findings.len() + one.not_gating.len(), 1);
    assert_eq!(one.dropped as usize, kept - 1);
}
