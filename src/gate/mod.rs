//! The gate: known failures ([`baseline`]) against which a run is weighed.

pub(crate) mod baseline;
