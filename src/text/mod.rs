//! Text that reaches a terminal or a report: control characters shown, never executed
//! ([`escape_line`], [`escape_text`]), a worker's colours dropped ([`strip_ansi`]), a message
//! cut to its first line ([`first_line`]) or to a bound ([`excerpt`]), names in natural order
//! ([`natural_cmp`]), a word quoted for a shell ([`shell_quote`]).

mod ansi;
mod escape;
mod excerpt;
mod natural;
mod shell;

pub use ansi::strip_ansi;
pub(crate) use escape::{
    escape_cell, escape_line, escape_link_target, escape_text, plain_line, plain_text, shown_path,
};
pub(crate) use excerpt::{Bound, excerpt};
pub(crate) use natural::natural_cmp;
pub(crate) use shell::shell_quote;

/// The first line of `text`, cut to `max_chars` characters with `…`: how a reason fits a
/// baseline entry or a table cell.
pub(crate) fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max_chars {
        format!("{}…", line.chars().take(max_chars).collect::<String>())
    } else {
        line.to_owned()
    }
}
