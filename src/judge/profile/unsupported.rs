//! Why a data set is outside a profile: the reason each part of the profile gives.

use std::fmt;

use super::storage::ValueOutside;

/// Why a data set is outside a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unsupported {
    /// A key of the profile excludes what the data set is (its operator, element type, mode,
    /// inputs, axes, model format or an `[[except]]`), worded.
    Excluded(String),
    /// Unsupported (value range): a value the declared `[storage]` cannot hold.
    ValueRange(ValueOutside),
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Excluded(reason) => write!(f, "outside the backend's profile: {reason}"),
            Unsupported::ValueRange(value) => write!(f, "outside the backend's profile: {value}"),
        }
    }
}
