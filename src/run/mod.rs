//! A run: the selected data sets ([`selection`]) checked on worker threads ([`runner`]) into
//! a report.

pub(crate) mod runner;
pub(crate) mod selection;
