//! What a run records of itself ([`RunFacts`]), decided here for the command line, the matrix
//! and the harness alike, so that `merge`, `diff` and `matrix --report` check the same facts
//! whichever face wrote the report.

use crate::data::DataRoot;
use crate::data::corpus_versions;
use crate::data::digest::selection_digest;
use crate::gate::config::ConfigName;
use crate::judge::check::CheckOptions;
use crate::report::RunFacts;

/// The facts of a run under `options` over `roots` in `config`, with `retries`: `selected`
/// names every data set the whole run selected (before any shard), and `complete` says whether
/// every one of them ran.
pub(crate) fn run_facts<S: AsRef<str>>(
    options: &CheckOptions,
    roots: &[DataRoot],
    selected: impl IntoIterator<Item = S>,
    config: Option<&ConfigName>,
    retries: u32,
    complete: bool,
) -> RunFacts {
    RunFacts {
        complete,
        gating: options.gating.names(),
        tolerance: options.tolerance.to_string(),
        profile: options.profile.digest.0.clone(),
        inputs_as_constants: options.inputs_as_constants,
        strict_rules: options.strict_rules,
        corpora: corpus_versions(roots),
        selection: selection_digest(selected),
        config: config.map(ToString::to_string),
        retries,
    }
}
