//! The encodings dimension of the fuzzer: a backend that reads only one wire form of a field
//! shows one encoding cause, apart from the Pad causes and never gating; a backend that
//! reads every form shows none; the reproducer holds the form that failed.

use std::path::Path;
use std::sync::LazyLock;

use crate::support::fuzz_shape::small_inputs;
use pad_conformance::testing::ModelProto;
use pad_conformance::testing::{
    Cause, CheckOptions, DecodeOptions, Driven, Encoding, FuzzOptions, FuzzReport, Patterns, Status, check_data_set,
    discover, fuzz, write_reproducer,
};
use pad_conformance::{Backend, BackendError, Model, RefBackend, Tensor};
use prost::Message;

/// What a strict reader refuses.
#[derive(Clone, Copy)]
enum Refuses {
    /// `AttributeProto.ints` or `floats` packed (a reader written for onnx.proto's proto2
    /// declaration only).
    PackedLists,
    /// A typed data field of an initializer written unpacked (a reader that assumes the
    /// packed form onnx.proto declares).
    UnpackedTypedData,
    /// Nothing: every legal form is read.
    Nothing,
}

/// The reference, run on the model it reads itself from `model.path`, refusing the one form
/// it does not read.
struct StrictReader(Refuses);

impl Backend for StrictReader {
    fn name(&self) -> &str {
        "strict-reader"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let bytes = std::fs::read(&model.path)?;
        if let Some(problem) = unread_form(&bytes, self.0) {
            return Err(problem.into());
        }
        let proto = ModelProto::decode(&bytes[..])?;
        let own = pad_conformance::testing::model_from_proto(&model.path, proto, &DecodeOptions::default())?;
        RefBackend.run(&own, inputs)
    }
}

impl Driven for StrictReader {}

/// The first field of `model` in the form `refuses` names, walked on the wire.
fn unread_form(model: &[u8], refuses: Refuses) -> Option<String> {
    let graph = fields(model).into_iter().find(|f| f.0 == 7)?.2;
    for (number, _, payload) in fields(graph) {
        match (number, refuses) {
            // GraphProto.node → NodeProto.attribute → floats (7) or ints (8), packed.
            (1, Refuses::PackedLists) => {
                let attributes = fields(payload).into_iter().filter(|f| f.0 == 5);
                for (_, _, attribute) in attributes {
                    if fields(attribute).iter().any(|f| matches!(f, (7 | 8, 2, _))) {
                        return Some("packed repeated fields are not supported".into());
                    }
                }
            }
            // GraphProto.initializer → a numeric data field as single values.
            (5, Refuses::UnpackedTypedData)
                if fields(payload)
                    .iter()
                    .any(|f| matches!(f, (4 | 5 | 7 | 10 | 11, 0 | 1 | 5, _))) =>
            {
                return Some("tensor data must be packed".into());
            }
            _ => {}
        }
    }
    None
}

/// A message's fields: number, wire type, payload (empty for scalars).
fn fields(mut bytes: &[u8]) -> Vec<(u64, u64, &[u8])> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let key = prost::encoding::decode_varint(&mut bytes).unwrap();
        let payload: &[u8] = match key & 7 {
            0 => {
                prost::encoding::decode_varint(&mut bytes).unwrap();
                &[]
            }
            1 => {
                bytes = &bytes[8..];
                &[]
            }
            5 => {
                bytes = &bytes[4..];
                &[]
            }
            _ => {
                let len = prost::encoding::decode_varint(&mut bytes).unwrap() as usize;
                let (payload, rest) = bytes.split_at(len);
                bytes = rest;
                payload
            }
        };
        out.push((key >> 3, key & 7, payload));
    }
    out
}

fn run(backend: &dyn Driven, check: CheckOptions, encodings: f64) -> FuzzReport {
    run_cases(backend, check, encodings, 300)
}

/// [`StrictReader`] of unpacked lists only, with half the agreeing cases handed over again in
/// another form: run once, for the tests that read the same run.
static PACKED_LISTS_REFUSED: LazyLock<FuzzReport> =
    LazyLock::new(|| run(&StrictReader(Refuses::PackedLists), CheckOptions::default(), 0.5));

fn run_cases(backend: &dyn Driven, check: CheckOptions, encodings: f64, cases: u64) -> FuzzReport {
    fuzz(backend, &options(check, encodings, cases), &mut |_| {}).unwrap()
}

fn options(check: CheckOptions, encodings: f64, cases: u64) -> FuzzOptions {
    FuzzOptions {
        cases: Some(cases),
        seed: 3,
        encodings,
        check,
        threads: 2,
        shape: small_inputs(),
        ..FuzzOptions::default()
    }
}

#[test]
fn a_reader_of_unpacked_lists_only_shows_one_encoding_cause_apart_from_pad_causes() {
    let report = &*PACKED_LISTS_REFUSED;
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert!(report.not_gating.is_empty(), "{:?}", report.not_gating);
    let [finding] = &report.encodings[..] else {
        panic!("one encoding cause: {:?}", report.encodings);
    };
    assert_eq!(finding.encoding, Encoding::PackedLists);
    assert_eq!(finding.key.cause, Cause::RefusesValid);
    assert!(finding.hits >= 2, "{}", finding.hits);
    // Only Pad-1/2's pads and CenterCropPad's axes are lists.
    let shrunk = finding.case.to_string();
    assert!(
        shrunk.starts_with("Pad-1 ") || shrunk.starts_with("Pad-2 ") || shrunk.starts_with("CenterCropPad"),
        "{shrunk}"
    );

    // The reproducer holds the packed form: it fails with the strict reader and passes with
    // a reader of every form.
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let written = write_reproducer(finding, dir.path()).unwrap();
    let name = written.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("test_fuzz_packed-lists_refuses-valid"), "{name}");
    let model = std::fs::read(written.join("model.onnx")).unwrap();
    assert!(unread_form(&model, Refuses::PackedLists).is_some());
    let description = std::fs::read_to_string(written.join("description.txt")).unwrap();
    assert!(description.starts_with("encoding packed-lists"), "{description}");
    let cases = discover(&[dir.path().to_owned()], &Patterns::default()).unwrap();
    assert_eq!(cases.len(), 1);
    let check = |backend: &dyn Driven| check_data_set(backend, &cases[0], 0, &CheckOptions::default());
    let strict = check(&StrictReader(Refuses::PackedLists));
    // A valid case refused: errored, with the cause the fuzzer found.
    assert_eq!(strict.status(), Status::Errored);
    assert_eq!(strict.verdict().unwrap().cause(), Some(finding.key.cause));
    assert_eq!(check(&StrictReader(Refuses::Nothing)).status(), Status::Passed);
}

#[test]
fn the_dimension_off_or_a_reader_of_every_form_shows_no_encoding_cause() {
    // The cases where the first test finds the packed-lists cause.
    let off = run(&StrictReader(Refuses::PackedLists), CheckOptions::default(), 0.0);
    assert!(off.encodings.is_empty() && off.findings.is_empty());
    let every = run_cases(&StrictReader(Refuses::Nothing), CheckOptions::default(), 1.0, 300);
    assert!(every.encodings.is_empty(), "{:?}", every.encodings);
    assert!(every.findings.is_empty() && every.not_gating.is_empty());
    // Inputs folded into initializers, where typed data fields reach the reader.
    let folded = CheckOptions {
        inputs_as_constants: true,
        ..CheckOptions::default()
    };
    let every = run_cases(&StrictReader(Refuses::Nothing), folded, 1.0, 300);
    assert!(every.encodings.is_empty(), "{:?}", every.encodings);
}

#[test]
fn a_reader_of_packed_tensor_data_only_fails_on_folded_inputs_written_unpacked() {
    let folded = CheckOptions {
        inputs_as_constants: true,
        ..CheckOptions::default()
    };
    let report = run(&StrictReader(Refuses::UnpackedTypedData), folded.clone(), 0.5);
    assert!(report.findings.is_empty() && report.not_gating.is_empty());
    let [finding] = &report.encodings[..] else {
        panic!("one encoding cause: {:?}", report.encodings);
    };
    assert_eq!(finding.encoding, Encoding::UnpackedTypedData);
    // The reproducer is the folded model the reader read, its pads an unpacked initializer;
    // it still fails when the runner folds the inputs (there are none left to fold).
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let written = write_reproducer(finding, dir.path()).unwrap();
    let model = std::fs::read(written.join("model.onnx")).unwrap();
    assert!(unread_form(&model, Refuses::UnpackedTypedData).is_some());
    assert!(Path::new(&written.join("test_data_set_0/input_0.pb")).exists());
    assert!(!written.join("test_data_set_0/input_1.pb").exists());
    let cases = discover(&[dir.path().to_owned()], &Patterns::default()).unwrap();
    let check = |backend: &dyn Driven, options: &CheckOptions| check_data_set(backend, &cases[0], 0, options).status();
    assert_eq!(
        check(&StrictReader(Refuses::UnpackedTypedData), &folded),
        Status::Errored
    );
    assert_eq!(check(&StrictReader(Refuses::Nothing), &folded), Status::Passed);
    assert_eq!(
        check(&StrictReader(Refuses::Nothing), &CheckOptions::default()),
        Status::Passed
    );
}

#[test]
fn the_command_line_takes_a_share_and_reports_encoding_causes_apart() {
    let fuzz = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args(["fuzz", "--cases", "20"])
            .args(args)
            .output()
            .unwrap()
    };
    for bad in ["1.5", "-0.1", "NaN"] {
        let out = fuzz(&[&format!("--encodings={bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("--encodings {bad} is not a share from 0 to 1")),
            "{stderr}"
        );
    }
    let out = fuzz(&["--encodings", "0.5", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["run"]["encodings"], 0.5);
    assert_eq!(report["encodings"], serde_json::json!([]));
    let out = fuzz(&[]);
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("0 gating, 0 not gating\n"), "{human}");
    assert!(!human.contains("encoding cause"), "{human}");
}

#[test]
fn shards_merged_find_the_encoding_causes_of_the_unsharded_run() {
    use pad_conformance::Gating;
    use pad_conformance::testing::Shard;
    let strict = StrictReader(Refuses::PackedLists);
    // The run of [`PACKED_LISTS_REFUSED`], in shards.
    let sharded = |shard: Shard| FuzzOptions {
        shard,
        ..options(CheckOptions::default(), 0.5, 300)
    };
    let whole = &*PACKED_LISTS_REFUSED;
    let shards = ["1/2", "2/2"].map(|s| fuzz(&strict, &sharded(s.parse().unwrap()), &mut |_| {}).unwrap());
    let merged = FuzzReport::merge(shards.to_vec(), &Gating::default());
    assert_eq!(merged.reencoded, whole.reencoded);
    assert!(whole.reencoded > 0);
    let summary = |r: &FuzzReport| -> Vec<_> {
        r.encodings
            .iter()
            .map(|f| (f.encoding, f.key.clone(), f.hits, f.case_index, f.case.to_string()))
            .collect()
    };
    assert_eq!(summary(&merged), summary(whole));
    assert_eq!(whole.encodings.len(), 1);
}
