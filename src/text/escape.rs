//! Text from outside — case directory names, a worker's name, messages and stderr — shown in
//! reports with its control characters made visible, never executed: a newline in a name
//! cannot start a forged `PASS` line, an ESC cannot recolour or erase the terminal, and a
//! bidirectional override cannot reorder what is read.

use std::borrow::Cow;
use std::fmt::Write;
use std::path::Path;

use super::strip_ansi;

/// `text` on one line: every control character, newlines included, shown as an escape
/// (`\n`, `\r`, `\t`, `\u{1b}`). For names and one-line fields.
pub(crate) fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` keeping its line breaks (`\n`), every other control character shown as an escape.
/// For multi-line messages and stderr, whose lines the reports indent.
pub(crate) fn escape_text(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// A message from outside (a worker's stderr, a backend's error) as a report shows it: its
/// terminal escape sequences (a coloured log) removed ([`strip_ansi`]), every other control
/// character shown as an escape, line breaks kept. For the HTML page, the JUnit XML's text and
/// Markdown's messages, which no terminal reads: colours there are noise, never meaning.
pub(crate) fn plain_text(text: &str) -> Cow<'_, str> {
    match strip_ansi(text) {
        Cow::Borrowed(text) => escape_text(text),
        Cow::Owned(text) => Cow::Owned(escape_text(&text).into_owned()),
    }
}

/// [`plain_text`] on one line: line breaks shown as `\n` too.
pub(crate) fn plain_line(text: &str) -> Cow<'_, str> {
    match strip_ansi(text) {
        Cow::Borrowed(text) => escape_line(text),
        Cow::Owned(text) => Cow::Owned(escape_line(&text).into_owned()),
    }
}

/// A path as errors and reports print it: on one line, its control characters shown as escapes,
/// so that a directory named `x\npromoted …` cannot forge a line of its own.
pub(crate) fn shown_path(path: &Path) -> String {
    escape_line(&path.to_string_lossy()).into_owned()
}

/// Characters that move the cursor, change the terminal's state or reorder text.
fn is_hostile(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let hostile = |c: char| is_hostile(c) && !(keep_newlines && c == '\n');
    if !text.chars().any(hostile) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            _ if !hostile(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

/// Text for Markdown — a table cell, a list item, a code span: kept on one row (control
/// characters, line breaks included, shown as escapes), pipes escaped, backticks neutralized,
/// and `&`, `<`, `>` written as HTML entities, so that no `<img onerror>`, `<script>` or
/// `<!--` is ever markup. Every Markdown writer uses it for text from outside.
pub(crate) fn escape_cell(text: &str) -> String {
    let line = escape_line(text);
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push('\''),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// A URL as the destination of a Markdown link, `[text](HERE)`: every byte outside the
/// characters a URL needs is percent-encoded — `()[]<>`, spaces, backticks, quotes, pipes,
/// backslashes and control characters among them — so that a link read from a file can
/// neither close the link early and open a second one (`…/1)[x](javascript:…)`) nor leave its
/// table cell. `%` is kept: a URL already encoded stays as it is.
pub(crate) fn escape_link_target(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if c.is_ascii_alphanumeric() || "-._~:/?#@!$&*+,;=%".contains(c) {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_target_cannot_close_its_link_or_its_cell() {
        assert_eq!(
            escape_link_target("https://bugs.example/7?a=1&b=%20"),
            "https://bugs.example/7?a=1&b=%20"
        );
        assert_eq!(
            escape_link_target("https://bugs.example/1)[click-me](javascript:alert(1)"),
            "https://bugs.example/1%29%5Bclick-me%5D%28javascript:alert%281%29"
        );
        assert_eq!(
            escape_link_target("https://x/<a> |`'\"\\\n"),
            "https://x/%3Ca%3E%20%7C%60%27%22%5C%0A"
        );
        assert_eq!(escape_link_target("https://x/é"), "https://x/%C3%A9");
    }

    #[test]
    fn control_characters_are_shown_not_executed() {
        assert_eq!(escape_line("test_pad"), "test_pad");
        assert!(matches!(escape_line("plain"), Cow::Borrowed(_)));
        assert_eq!(
            escape_line("x\nPASS  fake/0\r\x1b[2K\t\u{202e}"),
            "x\\nPASS  fake/0\\r\\u{1b}[2K\\t\\u{202e}"
        );
        assert_eq!(escape_text("a\nb\x1b[31m\r"), "a\nb\\u{1b}[31m\\r");
        assert_eq!(escape_line("\u{7f}\u{85}é"), "\\u{7f}\\u{85}é");
    }

    #[test]
    fn a_message_loses_its_colours_and_shows_its_other_control_characters() {
        assert!(matches!(plain_text("plain\nlines"), Cow::Borrowed("plain\nlines")));
        assert_eq!(
            plain_text("\x1b[1;31mError\x1b[0m: boom\r\n  at x\x07"),
            "Error: boom\\r\n  at x\\u{7}"
        );
        assert_eq!(plain_line("\x1b[31ma\nb\x1b[m"), "a\\nb");
        // A lone ESC that starts no sequence still cannot reach a terminal.
        assert_eq!(plain_line("a\x1b"), "a");
    }

    #[test]
    fn a_markdown_cell_holds_no_markup_and_stays_on_its_row() {
        assert_eq!(
            escape_cell("w|<img src=x onerror=alert(1)>\n| PASS |`x`<!-- & <script>\x1b[2J\r"),
            "w\\|&lt;img src=x onerror=alert(1)&gt;\\n\\| PASS \\|'x'&lt;!-- &amp; &lt;script&gt;\\u{1b}[2J\\r"
        );
        assert_eq!(escape_cell("test_pad/0"), "test_pad/0");
    }
}
