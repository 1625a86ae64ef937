//! Which data sets a command's [`Selection`] names: its roots, the cases found under them, and
//! of their data sets those the filter passes, the shard's part.

use crate::case::{Patterns, TestCase, discover_until};
use crate::cli::args::Selection;
use crate::cli::fatal::Fatal;
use crate::cli::signals;
use crate::data::DataRoot;
use crate::run::runner::{Job, jobs};
use crate::run::selection::NameSelection;

impl Selection {
    /// The roots, resolved as the harness resolves them (no paths: the default data).
    pub(super) fn roots(&self) -> Result<Vec<DataRoot>, Fatal> {
        Ok(DataRoot::resolve(&self.paths)?)
    }

    /// Discovers the cases under `roots`; zero cases is an error. Where a copy of a bundled
    /// data set said otherwise than the bundled one, a warning says which file and field.
    pub(super) fn cases(&self, roots: &[DataRoot]) -> Result<Vec<TestCase>, Fatal> {
        let cases = discover_until(roots, &Patterns::new(&self.patterns)?, &signals::cancel())?;
        for disagreement in cases.iter().flat_map(TestCase::disagreements) {
            eprintln!(
                "pad-conformance: warning: {}",
                crate::text::escape_line(&disagreement.to_string())
            );
        }
        Ok(cases)
    }

    /// What `--filter` and `--skip` select by name.
    fn names(&self) -> Result<NameSelection, Fatal> {
        Ok(NameSelection::new(&self.filter, &self.skip)?)
    }

    /// The data sets of `cases` that `--filter` and `--skip` select, before the shard: the
    /// whole run's selection, which every part records. None selected is an error.
    pub(super) fn whole<'a>(&self, cases: &'a [TestCase]) -> Result<Vec<Job<'a>>, Fatal> {
        Ok(self.names()?.select(jobs(cases))?)
    }

    /// The data sets of `cases` that `--filter` and `--skip` select (none is an error), and of
    /// those the shard's part, which may be empty: a part of a small selection can be.
    pub(super) fn jobs<'a>(&self, cases: &'a [TestCase]) -> Result<Vec<Job<'a>>, Fatal> {
        let selected = self.whole(cases)?;
        let Some(shard) = self.shard else {
            return Ok(selected);
        };
        let total = selected.len();
        let part: Vec<Job<'a>> = selected.into_iter().filter(|job| shard.contains(&job.name())).collect();
        eprintln!(
            "pad-conformance: shard {shard}: {} of the {total} selected data sets",
            part.len()
        );
        Ok(part)
    }
}
