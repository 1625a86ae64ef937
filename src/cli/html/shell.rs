//! The document around a scoreboard, diff or history page: doctype, viewport, the inline style sheet
//! and the inline filter script. Nothing is fetched: the page opens from disk, offline.

use std::io::{self, Write};

use super::escape::Escaped;

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("filter.js");

/// Writes everything up to and including `<body>` and the page's `<h1>`.
pub(in crate::cli) fn write_head(title: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, "<html lang=\"en\">")?;
    writeln!(out, "<head>")?;
    writeln!(out, "<meta charset=\"utf-8\">")?;
    writeln!(
        out,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    writeln!(
        out,
        "<meta name=\"generator\" content=\"pad-conformance {}\">",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(out, "<title>{}</title>", Escaped(title))?;
    writeln!(out, "<style>\n{STYLE}</style>")?;
    writeln!(out, "</head>")?;
    writeln!(out, "<body>")?;
    writeln!(out, "<h1>{}</h1>", Escaped(title))
}

/// Writes the filter script and closes the document.
pub(in crate::cli) fn write_foot(out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<footer><p class=\"muted\">Written by pad-conformance {}. Statuses, bases, conformance and coverage: \
         docs/report-format.md.</p></footer>",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(out, "<script>\n{SCRIPT}</script>")?;
    writeln!(out, "</body>")?;
    writeln!(out, "</html>")
}

/// A filter box (hidden until the script runs, so that a page without JavaScript shows no
/// dead control) filtering the `[data-text]` items inside the element with id `scope`.
pub(in crate::cli) fn write_filter(scope: &str, placeholder: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<p class=\"filter\" hidden><input type=\"search\" data-scope=\"{}\" placeholder=\"{}\" aria-label=\"{}\"></p>",
        Escaped(scope),
        Escaped(placeholder),
        Escaped(placeholder)
    )
}
