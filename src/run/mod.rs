//! A run: the selected data sets ([`selection`]) checked on worker threads ([`runner`]) into
//! a report.

#[cfg(test)]
mod profile_kept_from_backend;
pub(crate) mod runner;
pub(crate) mod selection;
