//! What every HTML page of the tool shares — the scoreboard, the diff page, the history page:
//! the one escaper every piece of outside text goes through (escape.rs), and the document
//! around a page, with its inline style sheet and filter script (shell.rs).

pub(super) mod escape;
pub(super) mod shell;
