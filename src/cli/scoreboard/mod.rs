//! The scoreboard: one self-contained HTML page of one or more backends' results — totals
//! split into upstream releases and the extended corpus, a heatmap per backend over the
//! operator table's grid, and failures grouped by reason with every data set's message and a
//! command that reruns it — and the page of a [`crate::cli::run_diff`] of two runs.
//! docs/report-format.md ("HTML scoreboard") describes the page.

mod board;
mod diff_page;
mod escape;
mod heatmap;
mod history_page;
mod page;
mod rerun;
mod shell;

pub(super) use board::{Board, Part, pass_share};
pub(super) use diff_page::write_diff_html;
pub(super) use escape::Escaped;
pub(super) use heatmap::{HeatCell, Heatmap, Tally, mode_letter};
pub(super) use history_page::write_history_html;
pub(super) use page::write_scoreboard;
pub(super) use rerun::{Rerun, shell_quote};

#[cfg(test)]
mod tests;
