//! Judging: one data set run against a backend and its answer compared with the expected
//! one ([`check`], [`compare`]), within what the backend declares it supports ([`profile`]).

pub mod cause_key;
pub mod check;
pub mod compare;
pub mod profile;
pub mod verdict;
