//! The scoreboard: one self-contained HTML page of one or more backends' results — where it
//! comes from, the gate of a run weighed against a baseline, totals split into upstream
//! releases and the extended corpus, a heatmap per backend over the operator table's grid, and
//! failures grouped by reason, each group with its reproducer's message and the command that
//! reruns it. The document around it and its escaper are every page's (html/).
//! docs/report-format.md ("HTML scoreboard") describes the page.

mod board;
mod failures;
mod gate;
mod heatmap;
mod page;
mod provenance;
mod rerun;

pub(super) use board::Board;
pub(super) use page::write_scoreboard;
pub(super) use provenance::Provenance;
pub(super) use rerun::{Rerun, shell_quote};

#[cfg(test)]
pub(super) mod tests;
