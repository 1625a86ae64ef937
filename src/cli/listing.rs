//! `--list`: one line per case and data set, saying what would run.

use std::fmt::Write as _;

use crate::case::{CaseError, TestCase};
use crate::model::Model;
use crate::tensor::{FileError, read_limited, read_tensor_file};

/// The listing of one case: one line per data set, or one line saying why it does not run.
#[derive(Clone, Debug, Default)]
pub(super) struct CaseListing {
    /// The lines to print, in order.
    pub lines: Vec<String>,
    /// Whether the case, or one of its data sets, failed to load: unreadable or misnumbered
    /// files, a model or tensor that does not decode. A case that is not applicable (no
    /// Pad-family node) has not failed.
    pub failed: bool,
}

impl CaseListing {
    fn one(line: String, failed: bool) -> CaseListing {
        CaseListing {
            lines: vec![line],
            failed,
        }
    }
}

/// Lists one case. Each data set's line gives the inputs that decode, in order (`[error]` in
/// place of one that does not), then each file that failed to load, labelled
/// `error in input_0.pb: …`. Expected outputs are decoded too, so that a listing without
/// errors means every data set loads.
pub(super) fn list_case(case: &TestCase, max_bytes: u64) -> CaseListing {
    let options = case.decode_options(max_bytes);
    let model = match case.runnable_model(&options) {
        Ok(model) => model,
        Err(CaseError::NotApplicable(reason)) => {
            return CaseListing::one(format!("{}  not applicable: {reason}", case.id), false);
        }
        Err(e) => return CaseListing::one(format!("{}  error: {e}", case.id), true),
    };
    if case.data_sets.is_empty() {
        return CaseListing::one(
            format!(
                "{}  {}  error: no test_data_set_N directories",
                case.id,
                operator(&model)
            ),
            true,
        );
    }
    let mut listing = CaseListing::default();
    for data_set in &case.data_sets {
        let mut line = format!("{}/{}  {}", case.id, data_set.index, operator(&model));
        if let Some(problem) = data_set.problem_with(&model) {
            write!(line, "  error: {problem}").unwrap();
            listing.lines.push(line);
            listing.failed = true;
            continue;
        }
        let mut errors = Vec::new();
        line.push_str("  inputs:");
        for path in &data_set.inputs {
            match read_tensor_file(path, &options) {
                Ok(tensor) => write!(line, " {}", tensor.describe()).unwrap(),
                Err(e) => {
                    line.push_str(" [error]");
                    errors.push(file_error(&e));
                }
            }
        }
        match &data_set.expected_error {
            Some(path) => {
                line.push_str("  (must be refused)");
                if let Err(e) = read_limited(path, 1 << 16) {
                    errors.push(file_error(&e));
                }
            }
            None => {
                for path in &data_set.outputs {
                    if let Err(e) = read_tensor_file(path, &options) {
                        errors.push(file_error(&e));
                    }
                }
            }
        }
        listing.failed |= !errors.is_empty();
        for error in errors {
            write!(line, "  {error}").unwrap();
        }
        listing.lines.push(line);
    }
    listing
}

/// `error in input_0.pb: <problem>`: the file name and the line's data set say where it is.
fn file_error(error: &FileError) -> String {
    let path = &error.path;
    let name = path
        .file_name()
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    format!("error in {name}: {}", error.problem)
}

/// `Pad-19`, or every Pad-family node's label when there are several different ones.
fn operator(model: &Model) -> String {
    let mut labels: Vec<String> = Vec::new();
    for (node, _) in model.pad_nodes() {
        let label = node.label();
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    labels.join(", ")
}
