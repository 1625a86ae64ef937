//! Test cases: what a case and its data sets are, and loading them.
//!
//! A case is a directory holding model.onnx whose name matches one of the patterns (by
//! default `test_*_pad*`, `test_center_crop_pad_*` and, for pytorch exports, `test_*Pad*`),
//! with data sets `test_data_set_N/` holding `input_K.pb` and `output_K.pb`. The roots are
//! walked for cases by [`discover`](discover::discover); each case directory is listed by
//! [`listing`].

use std::path::PathBuf;
use std::sync::Arc;

mod bundled_copy;
pub(crate) mod bundled_origin;
pub(crate) mod content_digest;
pub(crate) mod discover;
pub(crate) mod error;
pub(crate) mod info;
pub(crate) mod listing;
pub(crate) mod narrowing;
pub(crate) mod shared_model;
pub(crate) mod twin;

use crate::case::bundled_origin::{BundledOrigin, BundledOriginError, Disagreement};
use crate::case::error::Error;
use crate::case::error::TwinError;
use crate::case::info::{CaseInfo, Contradiction};
use crate::data::basis::BasisNote;
use crate::data::json_file::JsonFileError;
use crate::data::manifest::Tampered;
use crate::model::Model;
use crate::tensor::{DecodeOptions, Tensor, group_limit, read_small_file, read_tensor_group};

pub(crate) use discover::discover_in;
pub use discover::{Patterns, discover, discover_until};

/// The file in a data set that replaces the expected outputs when the case must be refused.
pub(crate) const EXPECTED_ERROR_FILE: &str = "expected_error.txt";

/// A discovered test case: its directory and data sets, not yet loaded.
#[derive(Clone, Debug)]
pub struct TestCase {
    /// The path relative to the root it was found under: `onnx-1.22.0/node/test_wrap_pad`;
    /// prefixed with the root as given and `:` (`../other:node/test_wrap_pad`) when another
    /// root of the same discovery holds a case of that path too, so that a run never names
    /// two data sets alike (reports, `diff` and baselines key data sets by name).
    pub id: String,
    /// The case directory, holding model.onnx.
    pub dir: PathBuf,
    /// Its `test_data_set_N` directories, in numeric order of N.
    pub data_sets: Vec<DataSet>,
    /// Why the case directory could not be listed (or, for a directory that could not be
    /// walked at all, why): the case is errored with this message, the others run on.
    pub problem: Option<ListingProblem>,
    /// What its expected results rest on: its case.json's, or the spec for upstream cases
    /// (any case its corpus's root manifest lists, and any case without a case.json). A data
    /// set that is a copy of a bundled one rests on the bundled one's instead: judge by
    /// [`TestCase::basis_of`].
    pub basis: BasisNote,
    /// Its case.json, when it has one that counts (upstream cases' never does); for a copy of
    /// a bundled data set, the bundled one's counts ([`TestCase::info_of`]).
    pub info: Option<Arc<CaseInfo>>,
    /// For a case that must be refused, the id of its valid twin (its case.json's `twin`,
    /// resolved at discovery beside this case's id): the twin of its data set N is the twin's
    /// data set N ([`TestCase::twin_of`]).
    pub twin: Option<String>,
}

/// One `test_data_set_N` directory.
#[derive(Clone, Debug)]
pub struct DataSet {
    /// The N of `test_data_set_N`.
    pub index: usize,
    /// The data set directory.
    pub dir: PathBuf,
    /// `input_K.pb` files, in numeric order of K.
    pub inputs: Vec<PathBuf>,
    /// `output_K.pb` files, in numeric order of K.
    pub outputs: Vec<PathBuf>,
    /// `expected_error.txt`: the data set must be refused; the file says why.
    pub expected_error: Option<PathBuf>,
    /// Why the data set cannot run as listed (unreadable, or a gap in the file numbering).
    pub problem: Option<ListingProblem>,
    /// The bundled data set it is by content, outside the bundled corpus: its basis and
    /// expectation hold (`outputs` and `expected_error` are then the bundled files).
    pub bundled: Option<Arc<BundledOrigin>>,
}

impl DataSet {
    /// Why the data set cannot run with `model`, if it cannot: its own listing problem, or
    /// files that do not match the graph.
    pub fn problem_with(&self, model: &Model) -> Option<ListingProblem> {
        self.problem.clone().or_else(|| self.unlike(model))
    }

    /// Says so when the data set holds more or fewer input_K.pb or output_K.pb files than the
    /// graph has inputs or outputs: a file is missing or stray, and no backend is to blame.
    fn unlike(&self, model: &Model) -> Option<ListingProblem> {
        let mismatch = |files: &[PathBuf], prefix: &'static str, names: &[String], what: &'static str| {
            (files.len() != names.len()).then(|| ListingProblem::UnlikeGraph {
                dir: self.dir.clone(),
                prefix,
                files: files.len(),
                what,
                names: names.to_vec(),
            })
        };
        let outputs = || match self.expected_error {
            Some(_) => None,
            None => mismatch(&self.outputs, "output_", &model.graph.outputs, "output"),
        };
        mismatch(&self.inputs, "input_", &model.graph.inputs, "input").or_else(outputs)
    }
}

/// Why a case or data set cannot run as its directory lists it; no backend is to blame.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ListingProblem {
    /// A case.json that cannot be read.
    #[error(transparent)]
    CaseInfo(Arc<JsonFileError>),
    /// A file of a case its corpus's manifest lists that is not as listed.
    #[error(transparent)]
    Tampered(Arc<Tampered>),
    /// A case.json that contradicts the model it describes.
    #[error(transparent)]
    Contradicts(Arc<Contradiction>),
    /// A case.json whose `twin` names no valid twin.
    #[error(transparent)]
    Twin(Arc<TwinError>),
    /// A copy of a bundled data set whose bundled expectation cannot be read.
    #[error(transparent)]
    Bundled(Arc<BundledOriginError>),
    /// A directory that cannot be read.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Unreadable {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// Two files with the same number (`output_0.pb`, `output_00.pb`).
    #[error("{}: {first} and {second} are both number {number}", crate::text::shown_path(dir))]
    DuplicateNumber {
        /// The data set directory.
        dir: PathBuf,
        /// The first file's name.
        first: String,
        /// The second file's name.
        second: String,
        /// Their number.
        number: usize,
    },
    /// A gap in the numbering: later files would shift onto the wrong input or output.
    #[error("{}: {prefix}{position}.pb is missing (found {found})", crate::text::shown_path(dir))]
    MissingNumber {
        /// The data set directory.
        dir: PathBuf,
        /// `input_` or `output_`.
        prefix: &'static str,
        /// The missing number.
        position: usize,
        /// The file found in its place.
        found: String,
    },
    /// An entry named like a numbered one whose number does not parse (or does not fit).
    #[error(
        "{}: the number in the name is not a non-negative integer that fits",
        crate::text::shown_path(path)
    )]
    BadNumber {
        /// The entry.
        path: PathBuf,
    },
    /// A `test_data_set_N` that is not a directory.
    #[error("{}: not a directory", crate::text::shown_path(path))]
    NotADirectory {
        /// The entry.
        path: PathBuf,
    },
    /// Both expected_error.txt and output files.
    #[error(
        "{}: holds both {EXPECTED_ERROR_FILE} and output_K.pb files; a data set expects one or the other",
        crate::text::shown_path(dir)
    )]
    BothExpectations {
        /// The data set directory.
        dir: PathBuf,
    },
    /// More or fewer files than the graph has inputs or outputs.
    #[error(
        "{}: {files} {prefix}K.pb files for {} graph {what}{} ({})",
        crate::text::shown_path(dir),
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    )]
    UnlikeGraph {
        /// The data set directory.
        dir: PathBuf,
        /// `input_` or `output_`.
        prefix: &'static str,
        /// How many files there are.
        files: usize,
        /// `input` or `output`.
        what: &'static str,
        /// The graph's input or output names.
        names: Vec<String>,
    },
}

/// A data set's tensors, decoded.
#[derive(Clone, Debug)]
pub struct LoadedDataSet {
    /// The decoded `input_K.pb` tensors, in order of K.
    pub inputs: Vec<Tensor>,
    /// What the backend must produce.
    pub expected: Expected,
}

/// What a data set expects of the backend.
#[derive(Clone, Debug)]
pub enum Expected {
    /// The decoded `output_K.pb` tensors the backend must produce, in order of K.
    Outputs(Vec<Tensor>),
    /// The backend must refuse; the string is the reason from expected_error.txt.
    Error(String),
}

/// Why a case cannot run at all, before any data set is read.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// Its directory could not be listed.
    #[error(transparent)]
    Listing(ListingProblem),
    /// model.onnx does not load.
    #[error(transparent)]
    Model(Error),
    /// The graph holds no Pad-family node; the string names the ops it does hold.
    #[error("{0}")]
    NotApplicable(String),
}

/// Whether a case's graph holds something this project checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applicability {
    /// The graph holds a Pad-family node.
    Applicable,
    /// The graph holds no Pad-family node; the string names the ops it does hold.
    NotApplicable(String),
}

impl TestCase {
    /// The indices of the data sets to run: every one, or for a case without any, the one
    /// entry (`…/0`) that reports why it cannot run.
    pub fn job_indices(&self) -> std::ops::Range<usize> {
        0..self.data_sets.len().max(1)
    }

    /// `onnx-1.22.0/node/test_wrap_pad/0`: the name of data set `index` (an index into
    /// `data_sets`) in trials, reports and baselines. A case without data sets still has
    /// one entry, `…/0`, which says why it cannot run.
    pub fn data_set_name(&self, index: usize) -> String {
        format!("{}/{}", self.id, self.data_number(index))
    }

    /// What data set `index` rests on: the bundled data set's basis when it is a copy of one
    /// by content, else the case's.
    pub fn basis_of(&self, index: usize) -> &BasisNote {
        self.bundled(index).map_or(&self.basis, |b| &b.basis)
    }

    /// The case.json that says what data set `index` tests (the rules a must-refuse one
    /// breaks): the bundled data set's when it is a copy of one by content, else the case's.
    pub fn info_of(&self, index: usize) -> Option<&CaseInfo> {
        match self.bundled(index) {
            Some(bundled) => bundled.info.as_deref(),
            None => self.info.as_deref(),
        }
    }

    /// `extended/test_ext_pad18_err_axes_repeated_twin/0`: the name of the valid twin of data
    /// set `index`, when the case names one.
    pub fn twin_of(&self, index: usize) -> Option<String> {
        let twin = self.twin.as_ref()?;
        Some(format!("{twin}/{}", self.data_number(index)))
    }

    /// The bundled data set that data set `index` is by content, if any.
    pub fn bundled(&self, index: usize) -> Option<&BundledOrigin> {
        self.data_sets.get(index)?.bundled.as_deref()
    }

    /// Where this case's copies of bundled data sets said otherwise than the bundled ones:
    /// the warnings the command line and the harness print.
    pub fn disagreements(&self) -> impl Iterator<Item = &Disagreement> {
        self.data_sets
            .iter()
            .filter_map(|d| d.bundled.as_deref())
            .flat_map(|b| &b.disagreements)
    }

    /// The N of `test_data_set_N` for data set `index`, or `index` itself past the end.
    pub fn data_number(&self, index: usize) -> usize {
        self.data_sets.get(index).map_or(index, |d| d.index)
    }

    /// The decoding options for this case: external data resolves against its directory.
    pub fn decode_options(&self, max_bytes: u64) -> DecodeOptions {
        DecodeOptions {
            base_dir: Some(self.dir.clone()),
            max_bytes,
        }
    }

    /// Reads model.onnx.
    pub fn load_model(&self, options: &DecodeOptions) -> Result<Model, Error> {
        Ok(Model::read(&self.dir.join("model.onnx"), options)?)
    }

    /// The first steps every use of a case takes, the run and the listing alike: the case's
    /// directory listed without a problem, model.onnx loaded, and a Pad-family node in it.
    pub fn runnable_model(&self, options: &DecodeOptions) -> Result<Model, CaseError> {
        if let Some(problem) = &self.problem {
            return Err(CaseError::Listing(problem.clone()));
        }
        let model = self.load_model(options).map_err(CaseError::Model)?;
        if let Some(info) = &self.info
            && let Some(contradiction) = info.contradiction(&model, &self.dir)
        {
            return Err(CaseError::Listing(ListingProblem::Contradicts(Arc::new(contradiction))));
        }
        match applicability(&model) {
            Applicability::Applicable => Ok(model),
            Applicability::NotApplicable(reason) => Err(CaseError::NotApplicable(reason)),
        }
    }

    /// Reads one data set's inputs and expected outputs. Each tensor may take
    /// `options.max_bytes`, and the data set's files together twice that
    /// ([`crate::tensor::group_limit`]), checked from their sizes before any is read.
    pub fn load_data_set(&self, data_set: &DataSet, options: &DecodeOptions) -> Result<LoadedDataSet, Error> {
        let expected_outputs = match data_set.expected_error {
            Some(_) => &[][..],
            None => &data_set.outputs[..],
        };
        let paths: Vec<PathBuf> = data_set.inputs.iter().chain(expected_outputs).cloned().collect();
        let mut tensors = read_tensor_group(&paths, options, group_limit(options.max_bytes), "data set")?;
        let outputs = tensors.split_off(data_set.inputs.len());
        let expected = match &data_set.expected_error {
            Some(path) => {
                let reason = read_small_file(path, 1 << 16)?;
                Expected::Error(String::from_utf8_lossy(&reason).trim().to_owned())
            }
            None => Expected::Outputs(outputs),
        };
        Ok(LoadedDataSet {
            inputs: tensors,
            expected,
        })
    }
}

/// Whether `model` holds a Pad-family node; if not, names the ops it holds.
pub fn applicability(model: &Model) -> Applicability {
    if model.pad_nodes().next().is_some() {
        Applicability::Applicable
    } else {
        let ops = model.op_types();
        let ops = if ops.is_empty() {
            "no ops".to_owned()
        } else {
            ops.join(", ")
        };
        Applicability::NotApplicable(format!(
            "no Pad, CenterCropPad or com.microsoft Pad node (graph holds {ops})"
        ))
    }
}
