//! What a profile says about the inputs after the data — in which form a backend takes each
//! (a runtime input, only an initializer, not at all), of which ranks, within which values —
//! and about the axes a mode may pad.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::operators::PadMode;
use crate::operators::params::abbreviated;

use super::input_role::InputRole;
use super::subject::Subject;
use super::unsupported::{ProfileKey, Unsupported};

/// In which form a backend takes an input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum InputForm {
    /// As the case gives it: a graph input fed at run time, or an initializer.
    #[default]
    Any,
    /// Only as an initializer: a data set that feeds it at run time is handed to the backend
    /// with it made an initializer holding the data set's value.
    Initializer,
    /// Not at all: a data set whose node is given it is outside the profile.
    Absent,
}

/// What a backend supports of one input after the data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputLimits {
    /// The form it takes the input in.
    pub(crate) form: InputForm,
    /// The ranks it supports; `None`: all.
    pub(crate) ranks: Option<BTreeSet<usize>>,
    /// The smallest value it supports (integer inputs; for pads, the attribute of Pad-1 and
    /// Pad-2 too).
    pub(crate) min: Option<i64>,
    /// The largest value it supports.
    pub(crate) max: Option<i64>,
}

impl InputLimits {
    /// Taken in any form, every rank and value.
    pub fn any() -> InputLimits {
        InputLimits::default()
    }

    /// Taken only as an initializer.
    pub fn initializer() -> InputLimits {
        InputLimits {
            form: InputForm::Initializer,
            ..InputLimits::default()
        }
    }

    /// Not taken at all.
    pub fn absent() -> InputLimits {
        InputLimits {
            form: InputForm::Absent,
            ..InputLimits::default()
        }
    }

    /// Of these ranks only.
    pub fn ranks(mut self, ranks: impl IntoIterator<Item = usize>) -> InputLimits {
        self.ranks = Some(ranks.into_iter().collect());
        self
    }

    /// With values in `min..=max` only (`pads` within i32: `i32::MIN.into()`,
    /// `i32::MAX.into()`).
    pub fn within(mut self, min: i64, max: i64) -> InputLimits {
        self.min = Some(min);
        self.max = Some(max);
        self
    }

    /// Why the input of `role` of `subject` is outside these limits, if it is.
    pub(super) fn excludes(&self, role: InputRole, subject: &Subject) -> Option<Unsupported> {
        let given = subject.input(role);
        if self.form == InputForm::Absent && given.is_some() {
            return Some(Unsupported::Excluded(
                ProfileKey::Input(role),
                format!("the {role} input (not supported)"),
            ));
        }
        if let (Some(ranks), Some(rank)) = (&self.ranks, given.and_then(|g| g.rank))
            && !ranks.contains(&rank)
        {
            return Some(Unsupported::Excluded(
                ProfileKey::Input(role),
                format!("a {rank}-D {role} input (supported ranks: {})", list(ranks)),
            ));
        }
        let values = subject.values(role)?;
        if let Some(min) = self.min
            && let Some(low) = values.iter().find(|&&v| v < min)
        {
            return Some(Unsupported::Excluded(
                ProfileKey::Input(role),
                format!("{role} {} holds {low}, below {min}", abbreviated(values)),
            ));
        }
        if let Some(max) = self.max
            && let Some(high) = values.iter().find(|&&v| v > max)
        {
            return Some(Unsupported::Excluded(
                ProfileKey::Input(role),
                format!("{role} {} holds {high}, above {max}", abbreviated(values)),
            ));
        }
        None
    }
}

/// Modes a backend supports on some axes only ("reflect on the last two axes").
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ModeAxes {
    /// The modes limited.
    pub(crate) modes: BTreeSet<PadMode>,
    /// The only axes they may pad: non-negative from the first, negative from the last
    /// (`[-2, -1]`: the last two).
    pub(crate) axes: Vec<i64>,
}

impl ModeAxes {
    /// Why `subject` is outside this limit, if it is: its mode is limited and it pads an
    /// axis not listed. A data set whose padded axes are unknown is not excluded.
    pub(super) fn excludes(&self, subject: &Subject) -> Option<Unsupported> {
        let mode = subject.known_mode().filter(|m| self.modes.contains(m))?;
        let (rank, padded) = subject.padded_axes.as_ref()?;
        let allowed = |axis: usize| {
            self.axes
                .iter()
                .any(|&a| usize::try_from(if a < 0 { a + *rank as i64 } else { a }) == Ok(axis))
        };
        let outside = padded.iter().find(|&&axis| !allowed(axis))?;
        Some(Unsupported::Excluded(
            ProfileKey::ModeAxes,
            format!(
                "mode {mode} padding axis {outside} of rank-{rank} data (supported on axes {} only)",
                abbreviated(&self.axes)
            ),
        ))
    }
}

fn list(values: &BTreeSet<usize>) -> String {
    values.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}
