//! A run: the selected data sets ([`selection`]), or one shard of them ([`shard`]), checked on
//! worker threads ([`runner`]) into a report.

pub mod runner;
pub mod selection;
pub mod shard;
