//! The gate: known failures ([`baseline`]) against which a run is weighed ([`judging`]) and
//! into which it is recorded ([`recording`]), each an [`entry`], applying in the
//! [`config`]urations it names; and what it makes of each data set ([`gate_result`]); what upgrading a baseline to a new corpus
//! moved, by cause ([`upgrade`]).

pub(crate) mod baseline;
pub(crate) mod config;
pub(crate) mod entry;
pub(crate) mod gate_result;
pub(crate) mod judging;
pub(crate) mod recording;
pub(crate) mod upgrade;
