//! What this crate's own tests, fuzz targets and gates' infrastructure checks reach inside
//! the library for; not the gate's API (hidden from the docs, no semver promise). One module,
//! so that `pub` elsewhere means the gate's API and the compiler can hold that line.

pub use crate::backend::{Driven, ExecBackend, Failure, OutputFile, WorkerReply, kill_worker_groups, parse_reply};
pub use crate::cancel::Cancel;
pub use crate::case::error::Error as DiscoveryError;
pub use crate::case::{Applicability, Expected, Patterns, TestCase, applicability, discover, discover_until};
pub use crate::data::corpus::Corpus;
pub use crate::data::digest::selection_digest;
pub use crate::data::shard::Shard;
pub use crate::data::{DataRoot, scratch_dir};
#[cfg(feature = "cli")]
pub use crate::fuzz::encoding::Encoding;
#[cfg(feature = "cli")]
pub use crate::fuzz::reproducer::write_reproducer;
#[cfg(feature = "cli")]
pub use crate::fuzz::{Finding, FuzzOptions, FuzzReport, Shape, fuzz, generate_case};
pub use crate::gate::baseline::Baseline;
pub use crate::gate::gate_result::GateResult;
pub use crate::harness::{HarnessRun, WRITE_BASELINE_ENV};
pub use crate::judge::cause_key::{CauseKey, Flavour, Pattern, Region};
pub use crate::judge::check::{CheckOptions, check_data_set};
pub use crate::judge::outcome::Outcome;
pub use crate::judge::status::Status;
pub use crate::judge::verdict::{Cause, TwinEnd, Verdict};
pub use crate::proto::*;
pub use crate::reference::{Budget, run_model_within};
#[cfg(feature = "junit")]
pub use crate::report::write_junit;
pub use crate::report::{Colors, RunFacts, RunReport, Summary, write_outcome};
pub use crate::run::runner::{jobs, run_jobs};
pub use crate::tensor::{
    DEFAULT_MAX_BYTES, DecodeOptions, FileError, FileProblem, ImpossibleValue, Stored, decode_tensor, encode_tensor,
    read_tensor_file, write_tensor_file,
};
pub use crate::text::strip_ansi;

pub use crate::model::ReadError;

use std::path::Path;

use crate::{BackendError, Error, Harness, Model};

/// How a backend's error of kind failed failed; `None` for any other error.
pub fn error_failure(error: &BackendError) -> Option<Failure> {
    match error.says() {
        crate::backend::Says::Failed(failure) => Some(*failure),
        _ => None,
    }
}

/// Every rule a refusal names: the reference names each rule the node breaks, the first
/// being the one its message states; others name one at most.
pub fn refusal_rules(error: &BackendError) -> Vec<crate::Rule> {
    error.rules().to_vec()
}

/// The harness's trials, one per case and data set, to run with libtest-mimic.
pub fn trials(harness: &Harness) -> Result<Vec<libtest_mimic::Trial>, Error> {
    harness.trials()
}

/// Runs the trials `args` selects, as [`Harness::run`] does without exiting.
pub fn execute(harness: Harness, args: &libtest_mimic::Arguments) -> Result<HarnessRun, Error> {
    harness.execute(args)
}

/// Reads and checks model.onnx.
pub fn read_model(path: &Path, options: &DecodeOptions) -> Result<Model, ReadError> {
    Model::read(path, options)
}

/// A model from its decoded protobuf message, as read from `path`.
pub fn model_from_proto(path: &Path, proto: ModelProto, options: &DecodeOptions) -> Result<Model, ReadError> {
    Model::from_proto(path, proto, options)
}
