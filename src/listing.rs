//! `--list`: one line per case and data set, saying what would run.

use std::fmt::Write as _;

use crate::case::{Applicability, TestCase, applicability};
use crate::model::Model;
use crate::tensor::read_tensor_file;

/// The listing lines for one case: one per data set, or one line saying why it does not run.
pub fn list_case(case: &TestCase, max_bytes: u64) -> Vec<String> {
    if let Some(problem) = &case.problem {
        return vec![format!("{}  error: {problem}", case.id)];
    }
    let options = case.decode_options(max_bytes);
    let model = match case.load_model(&options) {
        Ok(model) => model,
        Err(e) => return vec![format!("{}  error: {e}", case.id)],
    };
    if let Applicability::NotApplicable(reason) = applicability(&model) {
        return vec![format!("{}  not applicable: {reason}", case.id)];
    }
    if case.data_sets.is_empty() {
        return vec![format!(
            "{}  {}  error: no test_data_set_N directories",
            case.id,
            operator(&model)
        )];
    }
    case.data_sets
        .iter()
        .map(|data_set| {
            let mut line = format!("{}/{}  {}", case.id, data_set.index, operator(&model));
            if let Some(problem) = &data_set.problem {
                write!(line, "  error: {problem}").unwrap();
                return line;
            }
            line.push_str("  inputs:");
            for path in &data_set.inputs {
                match read_tensor_file(path, &options) {
                    Ok(tensor) => write!(line, " {}", tensor.describe()).unwrap(),
                    Err(e) => write!(line, " error: {e}").unwrap(),
                }
            }
            if data_set.expected_error.is_some() {
                line.push_str("  (must be refused)");
            }
            line
        })
        .collect()
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
