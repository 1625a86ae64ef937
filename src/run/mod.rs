//! A run: the selected data sets ([`selection`]) checked on worker threads ([`runner`]) into
//! a report.

pub mod runner;
pub mod selection;
