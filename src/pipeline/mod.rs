//! One run, the same for both faces — the command line's main command (and `merge`) and the
//! harness: [`prepare::prepare`] before the first data set, [`gating::gate_once`] as each
//! outcome arrives, and [`finish::finish`] after the last, where the run is decided. Each face
//! keeps its own loop: the command line runs the data sets on its threads and streams its
//! lines; libtest-mimic runs the harness's trials.

pub(crate) mod error;
pub(crate) mod finish;
pub(crate) mod gating;
pub(crate) mod output;
pub(crate) mod prepare;
pub(crate) mod report_format;
pub(crate) mod reports;
pub(crate) mod run_facts;
