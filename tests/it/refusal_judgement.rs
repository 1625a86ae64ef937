//! What counts as a refusal (docs/semantics.md#what-counts-as-a-refusal): on a data set that
//! must be refused, only the backend's own refusal passes; its failure or panic is errored,
//! and its saying the data set is unsupported makes it unsupported.

use pad_conformance::testing::{CheckOptions, Driven, Patterns, Status, check_data_set, discover};
use pad_conformance::{Backend, BackendError, BackendFailure, BackendUnsupported, Model, Tensor};

/// A backend that answers every data set the same way.
enum Answer {
    Refuse,
    Unsupported,
    Fail,
    Panic,
    Outputs,
}

impl Backend for Answer {
    fn name(&self) -> &str {
        "answer"
    }

    fn run(&self, _: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        match self {
            Answer::Refuse => Err("wrap is not allowed before Pad-19".into()),
            Answer::Unsupported => Err(BackendUnsupported("mode wrap is not implemented".into()).into()),
            Answer::Fail => Err(BackendFailure("the device went away".into()).into()),
            Answer::Panic => panic!("index out of bounds"),
            Answer::Outputs => Ok(inputs[..1].to_vec()),
        }
    }
}

impl Driven for Answer {}

fn status_of(backend: Answer) -> (Status, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended");
    let patterns = Patterns::new(&["test_ext_pad18_err_mode_wrap"]).unwrap();
    let cases = discover(&[root], &patterns).unwrap();
    assert!(cases[0].data_sets[0].expected_error.is_some(), "a must-refuse data set");
    let outcome = check_data_set(&backend, &cases[0], 0, &CheckOptions::default());
    (outcome.status(), outcome.message())
}

#[test]
fn only_the_backends_own_refusal_passes_a_must_refuse_data_set() {
    let (status, message) = status_of(Answer::Refuse);
    assert_eq!(status, Status::Passed, "{message}");
    assert!(
        message.starts_with("refused as expected: wrap is not allowed"),
        "{message}"
    );

    let (status, message) = status_of(Answer::Unsupported);
    assert_eq!(status, Status::Unsupported, "{message}");
    assert_eq!(
        message,
        "backend answer says unsupported (kind unsupported): mode wrap is not implemented"
    );

    let (status, message) = status_of(Answer::Fail);
    assert_eq!(status, Status::Errored, "{message}");
    assert!(
        message.contains("kind failed), which is not a refusal: the device went away"),
        "{message}"
    );

    let (status, message) = status_of(Answer::Panic);
    assert_eq!(status, Status::Errored, "{message}");
    assert!(
        message.contains("crashed (it panicked), which is not a refusal: index out of bounds"),
        "{message}"
    );

    let (status, message) = status_of(Answer::Outputs);
    assert_eq!(status, Status::Failed, "{message}");
}

#[test]
fn an_exec_worker_that_crashes_on_a_must_refuse_data_set_is_errored_not_passed() {
    use pad_conformance::testing::{ExecBackend, Failure, error_failure};
    use std::time::Duration;
    // Answers the handshake, then exits on the first request: a crash, not a refusal.
    let crash = r#"read hello; echo '{"type": "hello", "version": 1, "name": "crash"}'; read request; exit 3"#;
    // Not plain words, so the runner starts it through `sh -c`.
    let backend = ExecBackend::start(crash, Duration::from_secs(60), 1 << 20);
    let backend = match backend {
        Ok(backend) => backend,
        Err(e) => panic!("the worker starts: {e}"),
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended");
    let patterns = Patterns::new(&["test_ext_pad18_err_mode_wrap"]).unwrap();
    let cases = discover(&[root], &patterns).unwrap();
    let outcome = check_data_set(&backend, &cases[0], 0, &CheckOptions::default());
    assert_eq!(outcome.status(), Status::Errored, "{}", outcome.message());
    assert!(outcome.message().contains("worker exited"), "{}", outcome.message());
    // The error it returned says which it was.
    let model = cases[0].load_model(&cases[0].decode_options(1 << 20)).unwrap();
    let error = backend.run(&model, &[]).unwrap_err();
    assert_eq!(
        error_failure(&error),
        Some(Failure::Crash {
            code: Some(3),
            signal: None
        }),
        "{error}"
    );
}

/// Every extended data set that must be refused lists, in its case.json, the rule the
/// reference refuses it by: the generator's rules and the reference's agree.
#[test]
fn every_extended_refusal_lists_the_rule_the_reference_reports() {
    use pad_conformance::RefBackend;
    use pad_conformance::testing::Verdict;

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended");
    let cases = discover(&[root], &Patterns::default()).unwrap();
    let mut checked = 0;
    for case in &cases {
        let Some(info) = case.info.as_deref() else { continue };
        if info.expect != "error" {
            assert!(info.rules.is_empty(), "{}: rules on a case with an output", case.id);
            continue;
        }
        assert!(
            !info.rules.is_empty(),
            "{}: a case that must be refused lists no rule",
            case.id
        );
        let outcome = check_data_set(&RefBackend, case, 0, &CheckOptions::default());
        let Some(Verdict::RefusedAsRequired { rule, expected, .. }) = outcome.verdict() else {
            panic!("{}: {:?}", case.id, outcome.verdict());
        };
        assert_eq!(expected, &info.rules, "{}", case.id);
        let rule = rule.unwrap_or_else(|| panic!("{}: the reference names no rule", case.id));
        assert!(
            info.rules.contains(&rule),
            "{}: the reference refuses by {rule}, the case lists {:?}",
            case.id,
            info.rules
        );
        checked += 1;
    }
    assert!(checked >= 60, "{checked} refusals checked");
    // The rule is read from the reference's typed error, never from its message.
    let refused: BackendError =
        pad_conformance::Refusal::new(pad_conformance::Rule::AxisRepeated, "nothing about axes here").into();
    assert_eq!(refused.rule(), Some(pad_conformance::Rule::AxisRepeated));
}

/// A backend that refuses every data set naming `rule`.
struct Names(pad_conformance::Rule);

impl Backend for Names {
    fn name(&self) -> &str {
        "names"
    }

    fn run(&self, _: &Model, _: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        Err(pad_conformance::Refusal::new(self.0, "refused").into())
    }
}

impl Driven for Names {}

#[test]
fn a_refusal_for_another_spec_reason_is_a_note_and_under_strict_rules_a_failure() {
    use pad_conformance::Rule;

    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended/test_ext_pad11_err_mode_wrap");
    let cases = discover(&[root], &Patterns::default()).unwrap();
    let strict = CheckOptions {
        strict_rules: true,
        ..CheckOptions::default()
    };
    let check = |rule, options: &CheckOptions| check_data_set(&Names(rule), &cases[0], 0, options);
    let right = check(Rule::ModeNotInVersion, &strict);
    assert_eq!(
        (right.status(), right.message().as_str()),
        (Status::Passed, "refused as expected: refused")
    );
    let other = check(Rule::DataType, &CheckOptions::default());
    assert_eq!(other.status(), Status::Passed);
    assert_eq!(
        other.message(),
        "refused as expected, for another reason: names data-type, the data set breaks mode-not-in-version: refused"
    );
    // The note is seen, not buried in a passing line's message: the human report prints it,
    // the summary counts it.
    let mut line = Vec::new();
    pad_conformance::testing::write_outcome(&other, None, pad_conformance::testing::Colors::Never, &mut line).unwrap();
    let line = String::from_utf8(line).unwrap();
    assert!(
        line.contains(
            "\n      note: refused for another reason: names data-type, the data set breaks mode-not-in-version\n"
        ),
        "{line}"
    );
    let summary = pad_conformance::testing::Summary::of([&other, &right]);
    assert_eq!((summary.passed, summary.notes), (2, 1));
    assert!(
        summary.line().ends_with(", 1 refused for another reason (noted)"),
        "{}",
        summary.line()
    );
    let failed = check(Rule::DataType, &strict);
    assert_eq!(failed.status(), Status::Failed);
    assert!(
        failed
            .message()
            .starts_with("backend names refused for another rule (kind refused)"),
        "{}",
        failed.message()
    );
}

/// A runtime with fewer element types, as rten is: it keeps int64 as int32 (wrapping, as
/// `Tensor::cast` does), computes the other types in float, and has no float8 at all.
struct Narrowing;

impl Backend for Narrowing {
    fn name(&self) -> &str {
        "narrowing"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        use pad_conformance::{DataType, RefBackend};
        let mut held = Vec::new();
        for input in inputs {
            let stored = match input.data_type() {
                DataType::Int64 => input.cast(DataType::Int32)?,
                _ => input.cast(DataType::Float)?,
            };
            held.push(stored.cast(input.data_type())?);
        }
        RefBackend.run(model, &held)
    }
}

impl Driven for Narrowing {}

fn judged(backend: &dyn Driven, case: &str) -> (Status, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended");
    let cases = discover(&[root], &Patterns::new(&[case]).unwrap()).unwrap();
    assert_eq!(cases.len(), 1, "{case}");
    let outcome = check_data_set(backend, &cases[0], 0, &CheckOptions::default());
    (outcome.status(), outcome.message())
}

#[test]
fn a_lossy_narrowing_is_a_wrong_value_and_a_missing_element_type_is_unsupported_never_a_refusal() {
    // int64 data over the whole range: wrapped into int32, the values come back wrong.
    let (status, message) = judged(&Narrowing, "test_ext_pad11_edge_int64_r4");
    assert_eq!(status, Status::Failed, "{message}");
    assert!(
        message.contains("expected 3313422303895007914 actual -1232817494"),
        "{message}"
    );
    // No float8 in this runtime: a data set that must be refused is not passed by the
    // conversion's error, nor is a valid one failed.
    let (status, message) = judged(&Narrowing, "test_ext_pad13_err_dtype_float8e5m2");
    assert_eq!(status, Status::Unsupported, "{message}");
    assert!(message.contains("no conversion from float8e5m2 to float"), "{message}");
    let (status, message) = judged(&Narrowing, "test_ext_pad21_constant_float8e5m2_default_value");
    assert_eq!(status, Status::Unsupported, "{message}");
    // What converts without loss passes.
    let (status, message) = judged(&Narrowing, "test_ext_pad13_edge_uint8_r3");
    assert_eq!(status, Status::Passed, "{message}");
}
