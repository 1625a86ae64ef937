//! Text from outside — case directory names, a worker's name, messages and stderr — shown in
//! reports with its control characters made visible, never executed: a newline in a name
//! cannot start a forged `PASS` line, an ESC cannot recolour or erase the terminal, and a
//! bidirectional override cannot reorder what is read.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` on one line: every control character, newlines included, shown as an escape
/// (`\n`, `\r`, `\t`, `\u{1b}`). For names and one-line fields.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` keeping its line breaks (`\n`), every other control character shown as an escape.
/// For multi-line messages and stderr, whose lines the reports indent.
pub fn escape_text(text: &str) -> Cow<'_, str> {
    escape(text, true)
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

/// Keeps a cell on one row: pipes escaped, backticks neutralized, control characters (line
/// breaks included) shown as escapes.
pub fn escape_cell(text: &str) -> String {
    escape_line(text).replace('|', "\\|").replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
