//! The gate: known failures ([`baseline`]) against which a run is weighed, each an
//! [`entry`], applying in the [`config`]urations it names.

pub(crate) mod baseline;
pub(crate) mod config;
pub(crate) mod entry;
