//! One backend's part of the scoreboard: its totals over the whole corpus and each part of
//! it, its heatmap and its failure groups, computed from a run report.

use crate::cli::failure_groups::{FailureGroup, group_failures};
use crate::report::{RunReport, Summary};

use super::heatmap::Heatmap;
use super::rerun::Rerun;

/// Where a data set comes from, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Part {
    /// An upstream onnx release: names starting `onnx-`.
    Upstream,
    /// The project's generated corpus: names starting `extended/`.
    Extended,
    /// Anything else (cases under another root).
    Other,
}

impl Part {
    /// Every part, in the order the page lists them.
    pub(crate) const ALL: [Part; 3] = [Part::Upstream, Part::Extended, Part::Other];

    /// The part data set `name` (`onnx-1.22.0/node/test_wrap_pad/0`) belongs to.
    pub(crate) fn of(name: &str) -> Part {
        if name.starts_with("onnx-") {
            Part::Upstream
        } else if name.starts_with("extended/") {
            Part::Extended
        } else {
            Part::Other
        }
    }

    /// How the page names it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Part::Upstream => "upstream releases",
            Part::Extended => "extended corpus",
            Part::Other => "other",
        }
    }
}

/// One backend on the scoreboard.
#[derive(Clone, Debug)]
pub(crate) struct Board<'a> {
    /// The run.
    pub report: &'a RunReport,
    /// How to rerun one of its data sets.
    pub rerun: Rerun,
    /// Totals over every data set.
    pub total: Summary,
    /// Totals per part, for the parts holding data sets.
    pub parts: Vec<(Part, Summary)>,
    /// The (operator version × element type) grid.
    pub heatmap: Heatmap,
    /// Its failures and errors, grouped by reason.
    pub groups: Vec<FailureGroup<'a>>,
}

impl<'a> Board<'a> {
    /// Computes a backend's board from its report.
    pub(crate) fn new(report: &'a RunReport, rerun: Rerun) -> Board<'a> {
        let parts = Part::ALL
            .into_iter()
            .filter_map(|part| {
                let mut outcomes = report.outcomes.iter().filter(|o| Part::of(o.id()) == part).peekable();
                outcomes.peek()?;
                Some((part, Summary::of(outcomes)))
            })
            .collect();
        Board {
            report,
            rerun,
            total: report.summary(),
            parts,
            heatmap: Heatmap::new(&report.outcomes),
            groups: group_failures(&report.outcomes),
        }
    }

    /// The backend's name.
    pub(crate) fn name(&self) -> &str {
        &self.report.backend
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fall_into_parts() {
        assert_eq!(Part::of("onnx-1.22.0/node/test_wrap_pad/0"), Part::Upstream);
        assert_eq!(Part::of("extended/test_ext_pad19_wrap/0"), Part::Extended);
        assert_eq!(Part::of("mine/onnx-x/0"), Part::Other);
    }
}
