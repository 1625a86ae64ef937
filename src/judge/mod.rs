//! Judging: one data set run against a backend and its answer compared with the expected
//! one ([`check`], [`compare`]: each pair of elements by [`element_check`] under the run's
//! [`tolerance`], the floating differences measured as a [`deviation`]), within what the
//! backend declares it supports ([`profile`]), into a [`verdict`] and the [`outcome`] record
//! reports show; after the run, a refusal weighed by its valid twin's outcome ([`twin_check`]).
//! How a baseline weighs it is the gate's (`gate::gate_result`), kept beside the outcome, not
//! in it.

pub(crate) mod cause_key;
pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod deviation;
pub(crate) mod element_check;
pub(crate) mod outcome;
pub(crate) mod profile;
pub(crate) mod retried;
pub(crate) mod retry;
pub(crate) mod setup;
pub(crate) mod status;
pub(crate) mod survival;
pub(crate) mod tolerance;
pub(crate) mod twin_check;
pub(crate) mod ulps;
pub(crate) mod verdict;
