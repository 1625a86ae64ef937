//! Why a data set is outside a profile: the key of the profile that excludes it, and the
//! reason that key gives.

use std::fmt;

use super::input_role::InputRole;
use super::storage::ValueOutside;

/// Why a data set is outside a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unsupported {
    /// `key` excludes what the data set is (its operator, element type, rank, mode, inputs,
    /// axes, graph, model format, empty tensors or an `[[except]]`), or what of it could not be
    /// read, worded.
    Excluded(ProfileKey, String),
    /// Unsupported (value range): a value the declared `[storage]` cannot hold.
    ValueRange(ValueOutside),
}

/// The key of a profile file that excludes a data set, as the file spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum ProfileKey {
    /// `max_ir_version`.
    MaxIrVersion,
    /// `max_opset`.
    MaxOpset,
    /// `operators`.
    Operators,
    /// `dtypes`.
    Dtypes,
    /// `ranks`: the data input's.
    Ranks,
    /// `max_rank`: the data input's.
    MaxRank,
    /// `modes`.
    Modes,
    /// `inputs.pads`, `inputs.axes`, …
    Input(InputRole),
    /// `mode_axes`.
    ModeAxes,
    /// `except`.
    Except,
    /// `single_node`.
    SingleNode,
    /// `empty_tensors`.
    EmptyTensors,
    /// `storage`.
    Storage,
}

impl fmt::Display for ProfileKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileKey::MaxIrVersion => f.write_str("max_ir_version"),
            ProfileKey::MaxOpset => f.write_str("max_opset"),
            ProfileKey::Operators => f.write_str("operators"),
            ProfileKey::Dtypes => f.write_str("dtypes"),
            ProfileKey::Ranks => f.write_str("ranks"),
            ProfileKey::MaxRank => f.write_str("max_rank"),
            ProfileKey::Modes => f.write_str("modes"),
            ProfileKey::Input(role) => write!(f, "inputs.{role}"),
            ProfileKey::ModeAxes => f.write_str("mode_axes"),
            ProfileKey::Except => f.write_str("except"),
            ProfileKey::SingleNode => f.write_str("single_node"),
            ProfileKey::EmptyTensors => f.write_str("empty_tensors"),
            ProfileKey::Storage => f.write_str("storage"),
        }
    }
}

impl Unsupported {
    /// The profile key that excludes the data set.
    pub(crate) fn key(&self) -> ProfileKey {
        match self {
            Unsupported::Excluded(key, _) => *key,
            Unsupported::ValueRange(_) => ProfileKey::Storage,
        }
    }

    /// Why, as the key says it: `element type int4`.
    pub(crate) fn reason(&self) -> String {
        match self {
            Unsupported::Excluded(_, reason) => reason.clone(),
            Unsupported::ValueRange(value) => value.to_string(),
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "outside the backend's profile: {}", self.reason())
    }
}
