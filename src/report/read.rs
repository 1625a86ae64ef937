//! Reading a JSON report (`--format json`, docs/report-format.md) back into a [`RunReport`],
//! for `pad-conformance diff` and the scoreboard of a past run: the cases are read as the
//! very [`Outcome`]s the writer wrote. The summary in the file is not trusted: it is
//! recomputed from the cases.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::RunReport;
use super::json::{JsonReport, REPORT_FORMAT};
use crate::data::json_file::{JsonFileError, read_json};
use crate::data::side_file::MAX_REPORT_BYTES;
use crate::judge::check::{Outcome, Status};
use crate::text::shown_path;

/// Why a JSON report cannot be read back: the file, or a case in it that contradicts itself.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReportError {
    /// Unreadable, or not a report.
    #[error(transparent)]
    File(#[from] JsonFileError),
    /// A case whose status is not the one its verdict decides (an edited report).
    #[error(
        "{}: case {case}: status {status:?}, but its verdict is {decided:?}: the report was edited",
        shown_path(path)
    )]
    StatusDisagrees {
        path: PathBuf,
        case: String,
        status: Status,
        decided: Status,
    },
    /// A data set reported twice.
    #[error("{}: case {case} is reported twice", shown_path(path))]
    Repeated { path: PathBuf, case: String },
}

/// Reads a JSON report written by `--format json`; an unreadable file or one of another
/// shape is an error naming the file, and so is a case whose status its verdict does not
/// decide, or a data set reported twice. A case's message is its verdict's, worded again for
/// the report's backend (a report of format 1, without verdicts, keeps its own). The per-case
/// `gate` is dropped: a gate result is recomputed from a baseline, never trusted from a file.
pub(crate) fn read_json_report(path: &Path) -> Result<RunReport, ReportError> {
    let report: JsonReport<'static> = read_json(path, MAX_REPORT_BYTES)?;
    if let Some(format) = report.format.filter(|f| *f > REPORT_FORMAT) {
        return Err(JsonFileError::Format {
            path: path.to_owned(),
            format,
            supported: REPORT_FORMAT,
        }
        .into());
    }
    let mut outcomes = Vec::with_capacity(report.cases.len());
    let mut names = HashSet::new();
    for case in report.cases {
        if let (status, Some(decided)) = case.statuses()
            && decided != status
        {
            return Err(ReportError::StatusDisagrees {
                path: path.to_owned(),
                case: case.name(),
                status,
                decided,
            });
        }
        if !names.insert(case.name()) {
            return Err(ReportError::Repeated {
                path: path.to_owned(),
                case: case.name(),
            });
        }
        outcomes.push(case.into_outcome(&report.backend));
    }
    let duration = outcomes.iter().map(Outcome::duration).sum();
    Ok(RunReport {
        backend: report.backend.into_owned(),
        outcomes,
        gates: BTreeMap::new(),
        duration,
        baseline: report.baseline.map(Cow::into_owned),
        runtime: report.runtime.map(Cow::into_owned),
        shard: report.shard,
        run: report.run.map(Cow::into_owned),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::backend::RuntimeInfo;
    use crate::data::basis::Basis;
    use crate::data::basis::BasisNote;
    use crate::data::shard::Shard;
    use crate::judge::check::{Outcome, Status};
    use crate::judge::outcome::Measured;
    use crate::operators::{ModeAttribute, PadMode, PadOp};
    use crate::report::write_json;
    use crate::tensor::DataType;

    fn outcome(id: &str, status: Status) -> Outcome {
        let message = "output 0 \"y\": 1 of 6 elements differ\n  [0, 1] expected 1 actual 2";
        Outcome::example_said(id, status, message)
            .with_id(id.into(), 2)
            .with_operator((Some(PadOp::Pad), Some(19), Some(PadMode::Wrap.into())))
            .with_input(Some(DataType::Int4), Some(vec![2, 3]))
            .with_basis(BasisNote {
                kind: Basis::Rule,
                section: "#removal".into(),
            })
            .with_gates(false)
            .with_measured(Measured {
                bit_exact: Some(false),
                mismatches: 1,
                ..Measured::default()
            })
            .with_duration(Duration::from_millis(250))
    }

    #[test]
    fn a_written_report_reads_back_with_every_field() {
        let report = RunReport {
            backend: "tract <0.21>".into(),
            outcomes: vec![
                outcome("extended/a", Status::Failed),
                outcome("onnx-1.22.0/b", Status::Passed),
            ],
            gates: BTreeMap::new(),
            duration: Duration::from_secs(1),
            baseline: None,
            runtime: Some(RuntimeInfo::new("tract").version("0.21.7").build("<x>")),
            shard: Some(Shard::new(2, 3).unwrap()),
            run: None,
        };
        let mut json = Vec::new();
        write_json(&report, &mut json).unwrap();
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, &json).unwrap();
        let read = read_json_report(&path).unwrap();
        assert_eq!(read.backend, "tract <0.21>");
        assert_eq!(read.runtime, report.runtime);
        assert_eq!(read.shard, report.shard);
        let text = String::from_utf8(json.clone()).unwrap();
        assert!(
            text.contains(r#""shard": {"#) && text.contains(r#""version": "0.21.7""#),
            "{text}"
        );
        assert_eq!(read.outcomes.len(), 2);
        let first = &read.outcomes[0];
        assert_eq!(first.name(), "extended/a/2");
        assert_eq!(first.shape(), Some(&[2, 3][..]));
        assert_eq!(first.status(), Status::Failed);
        assert_eq!(first.basis().kind, Basis::Rule);
        assert!(first.is_non_gating_failure());
        assert_eq!(first.message(), report.outcomes[0].message());
        assert_eq!(first.duration(), Duration::from_millis(250));
        assert_eq!(read.summary(), report.summary());
        // The typed fields read back as written, and the JSON keeps the names it always had.
        assert_eq!((first.op(), first.version()), (Some(PadOp::Pad), Some(19)));
        assert_eq!(first.mode(), Some(&PadMode::Wrap.into()));
        assert_eq!(first.dtype(), Some(DataType::Int4));
        assert!(
            text.contains(
                r#""op": "Pad",
      "domain": "ai.onnx",
      "version": 19,
      "mode": "wrap",
      "dtype": "int4","#
            ),
            "{text}"
        );
    }

    /// The JSON report of backend `x` over `outcomes`.
    fn json_of(outcomes: Vec<Outcome>) -> Vec<u8> {
        let mut json = Vec::new();
        write_json(&RunReport::of("x", outcomes), &mut json).unwrap();
        json
    }

    #[test]
    fn a_mismatch_reads_back_with_its_root_cause() {
        use crate::judge::cause_key::{Flavour, Pattern, Region};
        use crate::judge::verdict::Verdict;
        let pattern = Pattern::Values {
            region: Region::Padding(Some(PadMode::Constant)),
            flavour: Flavour::SignOfZero,
        };
        let outcome = Outcome::example_judged(
            "extended/z",
            Verdict::Mismatch {
                shape: false,
                report: "output 0: 1 of 6 elements differ".into(),
                deviation: None,
            },
        )
        .with_difference(Some(pattern.clone()));
        let written = outcome.cause_key().unwrap();
        assert_eq!(written.to_string(), "wrong-values: constant padding, sign of zero");
        let json = json_of(vec![outcome]);
        let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(
            value["cases"][0]["difference"],
            serde_json::json!({"values": {"region": {"padding": "constant"}, "flavour": "sign-of-zero"}})
        );
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, &json).unwrap();
        let read = read_json_report(&path).unwrap();
        assert_eq!(read.outcomes[0].difference(), Some(&pattern));
        assert_eq!(read.outcomes[0].cause_key(), Some(written));
    }

    #[test]
    fn operators_modes_and_types_read_from_their_names() {
        let dir = crate::data::scratch_dir().unwrap();
        let case = |fields: &str| {
            format!(
                r#"{{"backend":"ref","cases":[{{"id":"x","data_set":0,{fields},"version":1,"status":"passed",
                   "basis":{{"kind":"spec","section":"s"}},"gates":true,"bit_exact":true,
                   "max_abs_error":null,"max_rel_error":null,"duration":0}}]}}"#
            )
        };
        let path = dir.path().join("r.json");
        std::fs::write(
            &path,
            case(r#""op":"Pad","domain":"com.microsoft","mode":"Mirror","dtype":"bfloat16""#),
        )
        .unwrap();
        let read = read_json_report(&path).unwrap();
        let outcome = &read.outcomes[0];
        assert_eq!(outcome.op(), Some(PadOp::MicrosoftPad));
        // A mode no version defines is kept as the node spelled it.
        assert_eq!(outcome.mode(), Some(&ModeAttribute::Unknown("Mirror".into())));
        assert_eq!(outcome.dtype(), Some(DataType::Bfloat16));
        for (fields, quoted) in [
            (
                r#""op":"Conv","domain":"ai.onnx","mode":null,"dtype":null"#,
                "unknown operator \"Conv\"",
            ),
            (
                r#""op":"Pad","domain":"ai.onnx","mode":null,"dtype":"float128""#,
                "unknown element type \"float128\"",
            ),
        ] {
            std::fs::write(&path, case(fields)).unwrap();
            let error = read_json_report(&path).err().unwrap().to_string();
            assert!(error.contains("r.json") && error.contains(quoted), "{error}");
        }
    }

    #[test]
    fn a_report_without_shapes_still_reads_and_garbage_names_the_file() {
        let dir = crate::data::scratch_dir().unwrap();
        let old = dir.path().join("old.json");
        std::fs::write(
            &old,
            r#"{"backend":"ref","summary":{},"cases":[{"id":"x","data_set":0,"op":null,"domain":null,
               "version":null,"mode":null,"dtype":null,"status":"errored",
               "basis":{"kind":"spec","section":"s"},"gates":true,"message":"boom",
               "bit_exact":null,"max_abs_error":null,"max_rel_error":null,"mismatches":0,"duration":0.5}]}"#,
        )
        .unwrap();
        let read = read_json_report(&old).unwrap();
        assert_eq!(read.outcomes[0].shape(), None);
        // No verdict: the status and message it wrote stand for one.
        assert_eq!(
            (read.outcomes[0].verdict(), read.outcomes[0].message()),
            (None, "boom".to_owned())
        );
        assert_eq!(read.summary().errored, 1);
        assert!(read.baseline.is_none());
        assert_eq!((read.runtime, read.shard), (None, None));
        // A format newer than this reader is refused, naming the file and both formats.
        let newer = dir.path().join("newer.json");
        std::fs::write(&newer, r#"{"format": 99, "backend": "ref", "cases": []}"#).unwrap();
        let error = read_json_report(&newer).err().unwrap().to_string();
        assert!(
            error.contains(&format!(
                "{}: format 99 is newer than this pad-conformance reads (3)",
                newer.display()
            )),
            "{error}"
        );
        // A duration past the bound would overflow the run's sum: refused, naming file and field.
        let long = dir.path().join("long.json");
        let text = std::fs::read_to_string(&old)
            .unwrap()
            .replace(r#""duration":0.5"#, r#""duration":1e19"#);
        std::fs::write(&long, text).unwrap();
        let error = read_json_report(&long).err().unwrap().to_string();
        assert!(
            error.contains("long.json") && error.contains("duration 10000000000000000000 is not a number of seconds"),
            "{error}"
        );
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, r#"{"backend": 3}"#).unwrap();
        let error = read_json_report(&bad).unwrap_err().to_string();
        assert!(error.contains("bad.json"), "{error}");
    }

    #[test]
    fn an_edited_status_a_repeated_case_and_a_claimed_gate_are_not_believed() {
        use crate::judge::verdict::Verdict;
        let dir = crate::data::scratch_dir().unwrap();
        let mismatch = Outcome::example_judged(
            "extended/z",
            Verdict::Mismatch {
                shape: false,
                report: "output 0: 1 of 6 elements differ".into(),
                deviation: None,
            },
        );
        let claimed = crate::gate::gate_result::GateResult::KnownFailure {
            reason: "claimed".into(),
            tracking: None,
        };
        let write = |json: &[u8]| {
            let path = dir.path().join("run.json");
            std::fs::write(&path, json).unwrap();
            path
        };
        let mut report = RunReport::of("x", vec![mismatch.clone()]);
        report.gates.insert(mismatch.name(), claimed);
        let mut json = Vec::new();
        write_json(&report, &mut json).unwrap();
        let text = String::from_utf8(json).unwrap();
        assert!(text.contains(r#""result": "known-failure""#), "{text}");
        // As written: read back, its gate result dropped (a baseline recomputes it).
        let read = read_json_report(&write(text.as_bytes())).unwrap();
        assert_eq!(read.outcomes[0].status(), Status::Failed);
        assert!(read.gates.is_empty(), "{:?}", read.gates);
        // A mismatch edited to "passed".
        let edited = text.replace(r#""status": "failed""#, r#""status": "passed""#);
        let error = read_json_report(&write(edited.as_bytes())).unwrap_err().to_string();
        assert!(
            error.ends_with(
                "run.json: case extended/z/0: status Passed, but its verdict is Failed: the report was edited"
            ),
            "{error}"
        );
        let error = read_json_report(&write(&json_of(vec![mismatch.clone(), mismatch])))
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with("run.json: case extended/z/0 is reported twice"),
            "{error}"
        );
    }
}
