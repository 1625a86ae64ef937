//! Why a data set is outside a profile: the key of the profile that excludes it, and the
//! reason that key gives.

use std::fmt;

use super::input_role::InputRole;
use super::storage::ValueOutside;

/// Why a data set is outside a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unsupported {
    /// `key` excludes what the data set is (its operator, element type, mode, inputs, axes,
    /// model format or an `[[except]]`), worded.
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
    /// `modes`.
    Modes,
    /// `inputs.pads`, `inputs.axes`, …
    Input(InputRole),
    /// `mode_axes`.
    ModeAxes,
    /// `except`.
    Except,
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
            ProfileKey::Modes => f.write_str("modes"),
            ProfileKey::Input(role) => write!(f, "inputs.{role}"),
            ProfileKey::ModeAxes => f.write_str("mode_axes"),
            ProfileKey::Except => f.write_str("except"),
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
