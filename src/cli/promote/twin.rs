//! The valid twin of a promoted finding that must be refused: its configuration read back from
//! the model and inputs the corpus publishes (fuzz/from_model.rs), never from a sidecar,
//! repaired (fuzz/twin.rs), and written as a case of its own beside it, `<case>_twin`, its
//! expected output the reference's.

use crate::case::TestCase;
use crate::case::info::CaseInfo;
use crate::data::basis::BasisNote;
use crate::fuzz::from_model::configuration_of;
use crate::fuzz::reproducer::twin_files;
use crate::fuzz::twin::{repair_list, twin_of};

/// A twin's directory name: its case's, then this.
pub(super) const TWIN_SUFFIX: &str = "_twin";

/// A twin, made: its files but case.json, and what case.json says it tests.
pub(super) struct MadeTwin {
    /// `<case>_twin`.
    pub name: String,
    /// The model, its data set and description.txt, by path relative to its directory.
    pub files: Vec<(String, Vec<u8>)>,
    /// What it tests.
    pub info: CaseInfo,
    /// What it has instead of what the case breaks: `mode "edge"`.
    pub repaired: String,
}

impl MadeTwin {
    /// The basis of its expected output.
    pub(super) fn basis(&self) -> &BasisNote {
        &self.info.basis
    }
}

/// The valid twin of `case`, the must-refuse case named `name` (its directory's name): an error
/// saying why there is none, naming the case.
pub(super) fn make_twin(case: &TestCase, name: &str) -> Result<MadeTwin, String> {
    let shown = crate::text::shown_path(&case.dir);
    let options = case.decode_options(crate::tensor::DEFAULT_MAX_BYTES);
    let model = case.load_model(&options).map_err(|e| format!("{shown}: {e}"))?;
    let data_set = case.data_sets.first().ok_or_else(|| format!("{shown}: no data set"))?;
    let inputs = case
        .load_data_set(data_set, &options)
        .map_err(|e| format!("{shown}: {e}"))?
        .inputs;
    let configuration = configuration_of(&model, &inputs)
        .map_err(|e| format!("{shown}: no valid twin can be made: its model is no fuzz configuration: {e}"))?;
    let twin = twin_of(&configuration).map_err(|e| format!("{shown}: no valid twin can be made: {e}"))?;
    let twin_name = format!("{name}{TWIN_SUFFIX}");
    let (files, info) = twin_files(&twin, &twin_name, name);
    Ok(MadeTwin {
        name: twin_name,
        files,
        info,
        repaired: repair_list(&twin.repairs),
    })
}
