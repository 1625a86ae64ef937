//! Checking one data set of one case against a backend: load, run (a panic is caught), compare.
//! The CLI and the libtest harness both call [`check_data_set`], so they cannot disagree.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::backend::Backend;
use crate::case::{Applicability, Expected, TestCase, applicability};
use crate::compare::{Tolerance, compare};
use crate::model::{AttributeValue, Model};
use crate::operators::regions::pad_regions;
use crate::opset::{domain_name, operator_label};
use crate::tensor::DEFAULT_MAX_BYTES;

/// How cases are checked.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    pub tolerance: Tolerance,
    /// The largest tensor a file may declare, in bytes.
    pub max_tensor_bytes: u64,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            tolerance: Tolerance::default(),
            max_tensor_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// What happened to one data set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Outputs matched (or the backend refused a data set that must be refused).
    Passed,
    /// Outputs differ (or the backend answered a data set that must be refused).
    Failed,
    /// The case or the backend could not run; the message says why.
    Errored,
    /// Not applicable: the graph holds no Pad-family node.
    Skipped,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Errored => "errored",
            Status::Skipped => "skipped",
        }
    }
}

/// The outcome of one data set, as reports show it.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The case id: `onnx-1.22.0/node/test_wrap_pad`.
    pub id: String,
    pub data_set: usize,
    /// The Pad-family operator checked (`Pad`, `CenterCropPad`), when the model was read.
    pub op: Option<String>,
    /// `ai.onnx` or `com.microsoft`.
    pub domain: Option<String>,
    pub version: Option<i64>,
    /// The Pad node's `mode` (`constant` when absent); none for CenterCropPad.
    pub mode: Option<String>,
    /// The element type of the data input.
    pub dtype: Option<String>,
    pub status: Status,
    /// Why it failed, errored or was skipped; empty when it passed.
    pub message: String,
    /// Whether every output was bit-identical to the expected one.
    pub bit_exact: Option<bool>,
    pub max_abs_error: Option<f64>,
    pub max_rel_error: Option<f64>,
    /// Elements differing under the comparison rule, over all outputs.
    pub mismatches: usize,
    #[serde(serialize_with = "seconds")]
    pub duration: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Outcome {
    /// `onnx-1.22.0/node/test_wrap_pad/0`: the name trials and reports use.
    pub fn name(&self) -> String {
        format!("{}/{}", self.id, self.data_set)
    }

    /// `Pad-19`, `com.microsoft.Pad-1`, or `-` when unknown.
    pub fn operator(&self) -> String {
        match (&self.op, &self.domain, self.version) {
            (Some(op), Some(domain), Some(v)) => operator_label(domain, op, v),
            _ => "-".to_owned(),
        }
    }
}

/// Checks data set `data_set` (an index into `case.data_sets`) of `case` against `backend`.
pub fn check_data_set(backend: &dyn Backend, case: &TestCase, data_set: usize, options: &CheckOptions) -> Outcome {
    let start = Instant::now();
    let mut outcome = Outcome {
        id: case.id.clone(),
        data_set: case.data_number(data_set),
        op: None,
        domain: None,
        version: None,
        mode: None,
        dtype: None,
        status: Status::Errored,
        message: String::new(),
        bit_exact: None,
        max_abs_error: None,
        max_rel_error: None,
        mismatches: 0,
        duration: Duration::ZERO,
    };
    run_check(backend, case, data_set, options, &mut outcome);
    outcome.duration = start.elapsed();
    outcome
}

fn run_check(backend: &dyn Backend, case: &TestCase, data_set: usize, options: &CheckOptions, outcome: &mut Outcome) {
    if let Some(problem) = &case.problem {
        return outcome.set(Status::Errored, problem.clone());
    }
    let decode = case.decode_options(options.max_tensor_bytes);
    let model = match case.load_model(&decode) {
        Ok(model) => model,
        Err(e) => return outcome.set(Status::Errored, e.to_string()),
    };
    describe_operator(&model, outcome);
    if let Applicability::NotApplicable(reason) = applicability(&model) {
        return outcome.set(Status::Skipped, reason);
    }
    let Some(data_set) = case.data_sets.get(data_set) else {
        return outcome.set(
            Status::Errored,
            format!("{}: no data set {data_set}", case.dir.display()),
        );
    };
    if let Some(problem) = data_set.problem_with(&model) {
        return outcome.set(Status::Errored, problem);
    }
    let loaded = match case.load_data_set(data_set, &decode) {
        Ok(loaded) => loaded,
        Err(e) => return outcome.set(Status::Errored, e.to_string()),
    };
    outcome.dtype = loaded.inputs.first().map(|t| t.data_type().name().to_owned());
    let result = catch_unwind(AssertUnwindSafe(|| backend.run(&model, &loaded.inputs)));
    let result = match result {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string panic payload".to_owned());
            return outcome.set(
                Status::Errored,
                format!("backend {} panicked: {message}", backend.name()),
            );
        }
    };
    let (expected, actual) = match (loaded.expected, result) {
        (Expected::Error(reason), Ok(_)) => {
            return outcome.set(
                Status::Failed,
                format!(
                    "backend {} returned outputs, but this data set must be refused: {reason}",
                    backend.name()
                ),
            );
        }
        (Expected::Error(_), Err(e)) => return outcome.set(Status::Passed, format!("refused as expected: {e}")),
        (Expected::Outputs(_), Err(e)) => {
            return outcome.set(Status::Errored, format!("backend {} failed: {e}", backend.name()));
        }
        (Expected::Outputs(expected), Ok(actual)) => (expected, actual),
    };
    if expected.len() != actual.len() {
        return outcome.set(
            Status::Failed,
            format!(
                "expected {} outputs, backend {} returned {}",
                expected.len(),
                backend.name(),
                actual.len()
            ),
        );
    }
    let regions = pad_regions(&model, &loaded.inputs);
    let mut reports = Vec::new();
    let mut bit_exact = true;
    for (index, (e, a)) in expected.iter().zip(&actual).enumerate() {
        let mut comparison = compare(e, a, &options.tolerance);
        if let Some(regions) = &regions {
            comparison = comparison.with_regions(regions);
        }
        bit_exact &= comparison.bit_exact;
        outcome.mismatches += comparison.differing;
        outcome.max_abs_error = max_option(outcome.max_abs_error, comparison.max_abs_error);
        outcome.max_rel_error = max_option(outcome.max_rel_error, comparison.max_rel_error);
        if !comparison.passed {
            let name = model.graph.outputs.get(index).map_or("", String::as_str);
            reports.push(comparison.report(index, name));
        }
    }
    outcome.bit_exact = Some(bit_exact);
    if reports.is_empty() {
        outcome.set(Status::Passed, String::new());
    } else {
        outcome.set(Status::Failed, reports.join("\n"));
    }
}

fn max_option(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// Records the model's Pad-family operator in the outcome.
fn describe_operator(model: &Model, outcome: &mut Outcome) {
    if let Some((node, _)) = model.pad_nodes().next() {
        outcome.op = Some(node.op_type.clone());
        outcome.domain = Some(domain_name(&node.domain).to_owned());
        outcome.version = Some(node.version);
        if node.op_type == "Pad" {
            let mode = match node.attribute("mode") {
                Some(AttributeValue::String(s)) => String::from_utf8_lossy(s).into_owned(),
                _ => "constant".to_owned(),
            };
            outcome.mode = Some(mode);
        }
    }
}

impl Outcome {
    fn set(&mut self, status: Status, message: String) {
        self.status = status;
        self.message = message;
    }
}
