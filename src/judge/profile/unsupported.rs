//! Why a data set is outside a profile: the reason each part of the profile gives.

use std::fmt;

/// Why a data set is outside a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "outside the backend's profile: {}", self.0)
    }
}
