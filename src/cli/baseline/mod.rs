//! `pad-conformance baseline`: baselines across corpus versions. `upgrade` re-records one over
//! the corpus at hand and says why each entry moved.

mod upgrade;

use std::process::ExitCode;

use crate::cli::args::{BaselineArgs, BaselineVerb};
use crate::cli::fatal::Fatal;

pub(super) fn baseline(args: &BaselineArgs) -> Result<ExitCode, Fatal> {
    match &args.verb {
        BaselineVerb::Upgrade(args) => upgrade::upgrade(args),
    }
}
