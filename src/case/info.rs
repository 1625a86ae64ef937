//! case.json: what a generated case (the extended corpus, fuzz reproducers) says it tests,
//! and the basis of its expected result. Upstream cases have none that counts: their corpus's
//! manifest decides (src/data/manifest.rs). A case.json that contradicts its model is refused, so
//! a sidecar cannot relabel a case.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::case::narrowing::Narrowing;
use crate::data::basis::BasisNote;
use crate::family::domain_name;
use crate::model::Model;

/// The file beside model.onnx that describes a generated case (the binary's `promote` writes
/// one too).
pub(crate) const CASE_INFO_FILE: &str = "case.json";

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
    /// For a case that must be refused, the rules it breaks
    /// ([`Rule`](crate::operators::Rule) ids); absent in case.json files written before them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<crate::operators::Rule>,
    /// The narrowing or representation shortcut the case's values expose; absent in case.json
    /// files written before corpus version 4, and in cases that expose none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrowing: Option<Narrowing>,
    /// For a case that must be refused, its valid twin: the directory name of a case beside
    /// it, the same operator with the one property this case breaks repaired
    /// ([`twin`](super::twin)); absent in case.json files written before corpus version 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub twin: Option<String>,
}

/// A case.json field that says otherwise than the model it describes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: its {field} is {claimed:?}, but {} says {actual:?}", crate::text::shown_path(path), if *field == "basis" { "the table of the rules it lists" } else { "the model" })]
pub struct Contradiction {
    /// The case.json.
    pub path: PathBuf,
    /// `op`, `domain`, `version`, `mode`, `dtype` or `basis`.
    pub field: &'static str,
    /// What case.json says.
    pub claimed: String,
    /// What the model says.
    pub actual: String,
}

impl CaseInfo {
    /// The first field that contradicts `model` (read from the case at `case_dir`): the
    /// operator, domain, version and mode of its first Pad-family node, and the element type
    /// its graph declares for the data input (when it declares one); and for a case that
    /// lists the rules it breaks, a basis other than the strongest of theirs (the operator
    /// table's, [`Rule::basis`](crate::operators::Rule::basis)).
    pub fn contradiction(&self, model: &Model, case_dir: &Path) -> Option<Contradiction> {
        let differs = |field, claimed: String, actual: String| {
            (claimed != actual).then(|| Contradiction {
                path: case_dir.join(CASE_INFO_FILE),
                field,
                claimed,
                actual,
            })
        };
        let (node, _) = model.pad_nodes().next()?;
        let dtype = model.graph.input_types.first().and_then(|t| t.data_type);
        differs("op", self.op.clone(), node.op_type.clone())
            .or_else(|| {
                differs(
                    "domain",
                    domain_name(&self.domain).to_owned(),
                    domain_name(&node.domain).to_owned(),
                )
            })
            .or_else(|| differs("version", self.version.to_string(), node.version.to_string()))
            .or_else(|| {
                let show = |mode: Option<String>| mode.unwrap_or_else(|| "none".to_owned());
                differs(
                    "mode",
                    show(self.mode.clone()),
                    show(node.pad_mode().map(|m| m.name().to_owned())),
                )
            })
            .or_else(|| dtype.and_then(|d| differs("dtype", self.dtype.clone(), d.name().to_owned())))
            .or_else(|| {
                // One rule of the spec broken is enough for the spec to require the refusal.
                let strongest = self.rules.iter().map(|r| r.basis().0).min()?;
                differs("basis", self.basis.kind.name().to_owned(), strongest.name().to_owned())
            })
    }
}
