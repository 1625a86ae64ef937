//! A data set whose content is a bundled one, wherever it lies. A data set's content — its
//! model, inputs and expected files — is known by the digests the build carries
//! (src/data/bundled_content.rs); a copy of a bundled data set keeps that data set's basis and
//! what its case.json says it expects (`expect`, and for a must-refuse one the `rules` it
//! breaks), whatever root it lies under and whatever case.json lies beside it. A copy of
//! `test_wrap_pad` beside a case.json saying `undefined` gated nothing, and `--write-baseline`
//! recorded nothing for it.
//!
//! A case.json that says otherwise than the bundled data set's does not count for that data
//! set; each field it disagrees on is a [`Disagreement`], which the command line and the
//! harness print as a warning. A data set whose expected files differ is no copy: it is a
//! data set of its own, judged by its own case.json.

use std::path::PathBuf;
use std::sync::Arc;

use super::info::CaseInfo;
use crate::data::basis::BasisNote;
use crate::data::bundled_content::BundledCorpusError;
use crate::data::json_file::JsonFileError;

/// What a data set whose content is a bundled one rests on.
#[derive(Clone, Debug)]
pub struct BundledOrigin {
    /// The bundled data set's name in the bundled corpus: `onnx-1.22.0/node/test_wrap_pad/0`.
    pub name: String,
    /// Its basis: the spec for an upstream case, its case.json's for a generated one.
    pub basis: BasisNote,
    /// Its case.json (a generated case's).
    pub info: Option<Arc<CaseInfo>>,
    /// What the copy's own case.json said otherwise; the bundled data set's holds.
    pub disagreements: Vec<Disagreement>,
}

/// A field of a copy's case.json that says otherwise than the bundled data set it is a copy of.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}: its {field} is {claimed}, but {} is the bundled {bundled_name} by content, whose {field} is {bundled}: the bundled {field} holds",
    crate::text::shown_path(path),
    crate::text::shown_path(data_set)
)]
pub struct Disagreement {
    /// The copy's case.json.
    pub path: PathBuf,
    /// `basis` (its kind), `expect` or `rules`.
    pub field: &'static str,
    /// What it says.
    pub claimed: String,
    /// What the bundled data set's says (an upstream one has no case.json: its basis is the
    /// spec, it expects what its files say, and it lists no rules).
    pub bundled: String,
    /// The copy's data set directory.
    pub data_set: PathBuf,
    /// The bundled data set's name.
    pub bundled_name: String,
}

/// Why a copy of a bundled data set cannot take the bundled data set's case.json: it would
/// otherwise run on what its own says, which is what this module exists to prevent.
#[derive(Debug, thiserror::Error)]
pub enum BundledOriginError {
    /// The bundled case.json cannot be found as this build carries it.
    #[error(
        "{}: is the bundled {name} by content, whose case.json cannot be had: {source}",
        crate::text::shown_path(data_set)
    )]
    Corpus {
        /// The copy's data set directory.
        data_set: PathBuf,
        /// The bundled data set's name.
        name: String,
        /// Why.
        #[source]
        source: BundledCorpusError,
    },
    /// A case.json of the digest this build carries that does not read.
    #[error(
        "{}: is the bundled {name} by content, whose case.json cannot be read: {source}",
        crate::text::shown_path(data_set)
    )]
    CaseInfo {
        /// The copy's data set directory.
        data_set: PathBuf,
        /// The bundled data set's name.
        name: String,
        /// Why (boxed: a path and a JSON error are too large for every `Result` on Windows).
        #[source]
        source: Box<JsonFileError>,
    },
}
