//! The gate: known failures ([`baseline`]) against which a run is weighed.

pub mod baseline;
