//! `--list`: one line per selected data set, saying what would run, and with `--profile`
//! whether the profile keeps it or which of its keys excludes it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::case::{CaseError, TestCase};
use crate::judge::profile::{Profile, ProfileKey};
use crate::model::Model;
use crate::tensor::{FileError, Tensor, read_small_file, read_tensor_file};

/// The listing of one case: one line per data set, or one line saying why it does not run.
#[derive(Clone, Debug, Default)]
pub(super) struct CaseListing {
    /// The lines to print, in order.
    pub lines: Vec<String>,
    /// Whether the case, or one of its data sets, failed to load: unreadable or misnumbered
    /// files, a model or tensor that does not decode. A case that is not applicable (no
    /// Pad-family node) has not failed.
    pub failed: bool,
    /// How many data sets it would run (none when it is not applicable or does not load).
    pub data_sets: usize,
    /// Of them, how many must be refused.
    pub must_refuse: usize,
    /// Whether the case is not applicable (no Pad-family node).
    pub not_applicable: bool,
    /// With a profile: of the data sets it would run, those the profile keeps and, per key,
    /// those it excludes.
    pub profile: ProfileCounts,
}

/// What a profile does to the data sets listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ProfileCounts {
    /// Kept: run by the backend.
    kept: usize,
    /// Excluded (unsupported, never run), per key of the profile.
    excluded: BTreeMap<ProfileKey, usize>,
}

impl ProfileCounts {
    fn add(&mut self, other: &ProfileCounts) {
        self.kept += other.kept;
        for (key, n) in &other.excluded {
            *self.excluded.entry(*key).or_default() += n;
        }
    }

    /// `profile: 20 kept, 3 excluded (dtypes 2, modes 1)`.
    fn line(&self) -> String {
        let excluded: usize = self.excluded.values().sum();
        let mut line = format!("profile: {} kept, {excluded} excluded", self.kept);
        if excluded > 0 {
            let keys: Vec<String> = self.excluded.iter().map(|(key, n)| format!("{key} {n}")).collect();
            write!(line, " ({})", keys.join(", ")).unwrap();
        }
        line
    }
}

impl CaseListing {
    fn one(line: String, failed: bool) -> CaseListing {
        CaseListing {
            lines: vec![line],
            failed,
            not_applicable: !failed,
            ..CaseListing::default()
        }
    }
}

/// The totals of a listing, its last line: what a run of it would hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ListingTotals {
    cases: usize,
    data_sets: usize,
    must_refuse: usize,
    not_applicable: usize,
    failed: usize,
    /// With a profile, what it does to the data sets.
    profile: Option<ProfileCounts>,
}

impl ListingTotals {
    /// The totals of a listing with `profile` (one with none says nothing of a profile).
    pub(super) fn new(profile: Option<&Profile>) -> ListingTotals {
        ListingTotals {
            profile: profile.map(|_| ProfileCounts::default()),
            ..ListingTotals::default()
        }
    }

    /// Counts one case's listing in.
    pub(super) fn add(&mut self, listing: &CaseListing) {
        self.cases += 1;
        self.data_sets += listing.data_sets;
        self.must_refuse += listing.must_refuse;
        self.not_applicable += usize::from(listing.not_applicable);
        self.failed += usize::from(listing.failed);
        if let Some(profile) = &mut self.profile {
            profile.add(&listing.profile);
        }
    }

    /// The cases listed.
    pub(super) fn cases(&self) -> usize {
        self.cases
    }

    /// The cases that failed to load.
    pub(super) fn failed(&self) -> usize {
        self.failed
    }

    /// `total: 23 data sets (5 must be refused) in 14 cases; 1 not applicable; 0 failed to
    /// load`, and with a profile `; profile: 20 kept, 3 excluded (dtypes 2, modes 1)`.
    pub(super) fn line(&self) -> String {
        let mut line = format!(
            "total: {} data set{} ({} must be refused) in {} case{}; {} not applicable; {} failed to load",
            self.data_sets,
            if self.data_sets == 1 { "" } else { "s" },
            self.must_refuse,
            self.cases,
            if self.cases == 1 { "" } else { "s" },
            self.not_applicable,
            self.failed
        );
        if let Some(profile) = &self.profile {
            write!(line, "; {}", profile.line()).unwrap();
        }
        line
    }
}

/// Lists data sets `indices` (indices into `case.data_sets`, in order) of one case. Each data
/// set's line gives the inputs that decode, in order (`[error]` in place of one that does
/// not), then each file that failed to load, labelled `error in input_0.pb: …`. Expected
/// outputs are decoded too, so that a listing without errors means every data set loads. With
/// `profile`, a data set that loads ends its line with `profile: kept` or `profile: excluded
/// by KEY: REASON`, decided as a run decides it.
pub(super) fn list_case(case: &TestCase, indices: &[usize], max_bytes: u64, profile: Option<&Profile>) -> CaseListing {
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
    for &index in indices {
        let Some(data_set) = case.data_sets.get(index) else {
            continue;
        };
        let mut line = format!("{}/{}  {}", case.id, data_set.index, operator(&model));
        if let Some(problem) = data_set.problem_with(&model) {
            write!(line, "  error: {problem}").unwrap();
            listing.lines.push(line);
            listing.failed = true;
            continue;
        }
        let mut errors = Vec::new();
        let mut inputs: Vec<Tensor> = Vec::new();
        let mut outputs: Vec<Tensor> = Vec::new();
        line.push_str("  inputs:");
        for path in &data_set.inputs {
            match read_tensor_file(path, &options) {
                Ok(tensor) => {
                    write!(line, " {}", tensor.describe()).unwrap();
                    inputs.push(tensor);
                }
                Err(e) => {
                    line.push_str(" [error]");
                    errors.push(file_error(&e));
                }
            }
        }
        match &data_set.expected_error {
            Some(path) => {
                match case.twin_of(index) {
                    Some(twin) => write!(line, "  (must be refused; twin {twin})").unwrap(),
                    None => line.push_str("  (must be refused)"),
                }
                if let Err(e) = read_small_file(path, 1 << 16) {
                    errors.push(file_error(&e));
                }
            }
            None => {
                for path in &data_set.outputs {
                    match read_tensor_file(path, &options) {
                        Ok(tensor) => outputs.push(tensor),
                        Err(e) => errors.push(file_error(&e)),
                    }
                }
            }
        }
        listing.failed |= !errors.is_empty();
        if errors.is_empty() {
            listing.data_sets += 1;
            listing.must_refuse += usize::from(data_set.expected_error.is_some());
            if let Some(profile) = profile {
                match profile.excludes_data_set(&model, &inputs, &outputs) {
                    Some(unsupported) => {
                        write!(
                            line,
                            "  profile: excluded by {}: {}",
                            unsupported.key(),
                            unsupported.reason()
                        )
                        .unwrap();
                        *listing.profile.excluded.entry(unsupported.key()).or_default() += 1;
                    }
                    None => {
                        line.push_str("  profile: kept");
                        listing.profile.kept += 1;
                    }
                }
            }
        }
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

/// `Pad-19`, or every Pad-family node's label when there are several different ones; with
/// `graph of 13 nodes` when the model has helper ops around them.
fn operator(model: &Model) -> String {
    let mut labels: Vec<String> = Vec::new();
    for (node, _) in model.pad_nodes() {
        let label = node.label();
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    crate::model::opset::graph_label(labels.join(", "), model.graph_nodes())
}
