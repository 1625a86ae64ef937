//! One backend's results on the grid of `pad-conformance coverage`: operator version
//! (columns, [`OpVersion::all`]) × element type (rows, [`DataType::ALL`]), each cell tallying
//! its data sets by mode.

use std::collections::BTreeMap;

use crate::cli::shares::ShareCounts;
use crate::judge::check::{Outcome, Status};
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::tensor::DataType;

/// Data sets counted by what happened to them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Passed.
    pub passed: usize,
    /// Failed or errored, on any basis.
    pub failed: usize,
    /// Outside the backend's profile.
    pub unsupported: usize,
    /// Not applicable (no Pad-family node).
    pub skipped: usize,
    /// Refused as required, the refusal not verified by its twin: not passed.
    pub not_verified: usize,
}

impl Tally {
    /// Counts one outcome.
    pub(crate) fn add(&mut self, status: Status) {
        *match status {
            Status::Passed => &mut self.passed,
            Status::Failed | Status::Errored => &mut self.failed,
            Status::Unsupported => &mut self.unsupported,
            Status::Skipped => &mut self.skipped,
            Status::NotVerified => &mut self.not_verified,
        } += 1;
    }

    /// The applicable data sets: all but the skipped ones. An unsupported data set, or a
    /// refusal not verified, counts as not passed: the page shows how much of the suite a
    /// backend passes, and says apart how much it declares unsupported.
    pub(crate) fn counted(&self) -> usize {
        self.passed + self.failed + self.unsupported + self.not_verified
    }

    /// The cell's conformance ([`ShareCounts`]): passed ÷ applicable, or none when nothing is.
    pub(crate) fn share(&self) -> Option<f64> {
        ShareCounts {
            passed: self.passed,
            applicable: self.counted(),
            supported: self.counted() - self.unsupported,
        }
        .conformance()
    }
}

/// One cell: the data sets of one (operator version, element type), by mode (`None` for
/// CenterCropPad, which has none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeatCell {
    /// Per mode.
    pub modes: BTreeMap<Option<PadMode>, Tally>,
}

impl HeatCell {
    /// All modes together.
    pub(crate) fn total(&self) -> Tally {
        let mut total = Tally::default();
        for tally in self.modes.values() {
            total.passed += tally.passed;
            total.failed += tally.failed;
            total.unsupported += tally.unsupported;
            total.skipped += tally.skipped;
            total.not_verified += tally.not_verified;
        }
        total
    }
}

/// A backend's cells, and the data sets that fit no cell (the model did not load, or an
/// operator, mode or element type this project does not know).
#[derive(Clone, Debug, Default)]
pub(crate) struct Heatmap {
    /// Cells with at least one data set.
    pub cells: BTreeMap<(OpVersion, DataType), HeatCell>,
    /// Data sets placed in no cell.
    pub unplaced: Tally,
}

impl Heatmap {
    /// Tallies `outcomes` into their cells.
    pub(crate) fn new<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Heatmap {
        let mut heatmap = Heatmap::default();
        for outcome in outcomes {
            match place(outcome) {
                Some((key, mode)) => heatmap
                    .cells
                    .entry(key)
                    .or_default()
                    .modes
                    .entry(mode)
                    .or_default()
                    .add(outcome.status()),
                None => heatmap.unplaced.add(outcome.status()),
            }
        }
        heatmap
    }

    /// The cell of (`op`, `data_type`), if any data set falls in it.
    pub(crate) fn cell(&self, op: OpVersion, data_type: DataType) -> Option<&HeatCell> {
        self.cells.get(&(op, data_type))
    }
}

/// The cell and mode of an outcome, if its operator, version, mode and element type are known.
fn place(outcome: &Outcome) -> Option<((OpVersion, DataType), Option<PadMode>)> {
    let op = outcome.op()?;
    let version = outcome.version()?;
    if !op.versions().contains(&version) {
        return None;
    }
    let data_type = outcome.dtype()?;
    let mode = match (op, outcome.mode()) {
        (PadOp::CenterCropPad, _) => None,
        (_, None) => Some(PadMode::Constant),
        (_, Some(mode)) => Some(mode.mode()?),
    };
    Some(((OpVersion { op, version }, data_type), mode))
}

/// The label of a mode in a cell, as the coverage table writes it: `c`, `r`, `e`, `w`, or
/// `✓` for CenterCropPad.
pub(crate) fn mode_letter(mode: Option<PadMode>) -> &'static str {
    match mode {
        None => "✓",
        Some(m) => &m.name()[..1],
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::operators::ModeAttribute;

    fn outcome(op: &str, domain: &str, version: i64, mode: Option<&str>, dtype: &str, status: Status) -> Outcome {
        Outcome::example("x", status)
            .with_operator((PadOp::of(domain, op), Some(version), mode.map(ModeAttribute::from_name)))
            .with_input(DataType::from_name(dtype), None)
    }

    #[test]
    fn outcomes_land_in_their_cell_and_mode() {
        let outcomes = [
            outcome("Pad", "ai.onnx", 19, Some("wrap"), "float", Status::Passed),
            outcome("Pad", "ai.onnx", 19, Some("wrap"), "float", Status::Failed),
            outcome("Pad", "ai.onnx", 19, Some("edge"), "float", Status::Passed),
            outcome("CenterCropPad", "ai.onnx", 18, None, "int8", Status::Unsupported),
            outcome("Pad", "com.microsoft", 1, Some("constant"), "double", Status::Errored),
            outcome("Pad", "ai.onnx", 7, Some("edge"), "float", Status::Passed),
            outcome("Pad", "ai.onnx", 19, Some("spiral"), "float", Status::Passed),
        ];
        let heatmap = Heatmap::new(&outcomes);
        let pad19 = OpVersion {
            op: PadOp::Pad,
            version: 19,
        };
        let cell = heatmap.cell(pad19, DataType::Float).unwrap();
        assert_eq!(cell.total().passed, 2);
        assert_eq!(cell.total().share(), Some(2.0 / 3.0));
        assert_eq!(cell.modes[&Some(PadMode::Wrap)].failed, 1);
        let ccp = OpVersion {
            op: PadOp::CenterCropPad,
            version: 18,
        };
        let ccp_cell = heatmap.cell(ccp, DataType::Int8).unwrap();
        assert_eq!(ccp_cell.modes[&None].unsupported, 1);
        assert_eq!(ccp_cell.total().share(), Some(0.0));
        let ms = OpVersion {
            op: PadOp::MicrosoftPad,
            version: 1,
        };
        assert_eq!(heatmap.cell(ms, DataType::Double).unwrap().total().failed, 1);
        assert_eq!(heatmap.cells.len(), 3);
        assert_eq!(heatmap.unplaced.passed, 2, "Pad-7 and the unknown mode fit no cell");
    }

    #[test]
    fn skipped_data_sets_do_not_count_towards_the_share() {
        let mut tally = Tally::default();
        assert_eq!(tally.share(), None);
        tally.add(Status::Skipped);
        assert_eq!(tally.share(), None);
        tally.add(Status::Passed);
        tally.add(Status::Errored);
        assert_eq!(tally.share(), Some(0.5));
        assert_eq!(mode_letter(Some(PadMode::Reflect)), "r");
        assert_eq!(mode_letter(None), "✓");
    }
}
