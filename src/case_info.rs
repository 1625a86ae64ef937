//! case.json: what a generated case (the extended corpus, fuzz reproducers) says it tests,
//! and the basis of its expected result. Upstream cases have none.

use serde::{Deserialize, Serialize};

use crate::basis::BasisNote;

/// The file beside model.onnx that describes a generated case.
pub const CASE_INFO_FILE: &str = "case.json";

/// What a generated case says it tests (its case.json).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseInfo {
    /// `Pad` or `CenterCropPad`.
    pub op: String,
    /// `""`, `ai.onnx` or `com.microsoft`.
    pub domain: String,
    /// The operator version.
    pub version: i64,
    /// The mode, absent for CenterCropPad.
    pub mode: Option<String>,
    /// The element type of the data input.
    pub dtype: String,
    /// `output`, or `error` for a case that must be refused.
    pub expect: String,
    /// What the expected result rests on.
    pub basis: BasisNote,
}
