//! Judging: one data set run against a backend and its answer compared with the expected
//! one ([`check`], [`compare`]), within what the backend declares it supports ([`profile`]),
//! into a [`verdict`]; a baseline weighs that into a [`gate_result`].

pub mod cause_key;
pub mod check;
pub mod compare;
pub mod gate_result;
pub mod profile;
pub mod setup;
pub(crate) mod ulps;
pub mod verdict;
