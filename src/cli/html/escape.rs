//! Escaping text for HTML. Case names, messages and backend names come from files and worker
//! processes this program does not control, so every piece of text that enters a page goes
//! through [`Escaped`] (a name, one line) or [`Message`] (a message, its lines kept): control
//! characters are shown as escapes by the text module's rules (a message's terminal colours
//! removed first), then the five characters that can end text or a quoted attribute value
//! become character references ([`escape`]).

use std::borrow::Cow;
use std::fmt;

use crate::text::{escape_line, plain_text};

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references: safe as element
/// text and as a double- or single-quoted attribute value. Not safe inside `<script>` or
/// `<style>`, where this page puts no text from outside.
///
/// ```text
/// use crate::cli::html::escape::escape;
/// assert_eq!(escape("<b a=\"x\">&'"), "&lt;b a=&quot;x&quot;&gt;&amp;&#39;");
/// assert_eq!(escape("test_wrap_pad/0"), "test_wrap_pad/0");
/// ```
pub(super) fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    Cow::Owned(escaped)
}

/// Displays a name or one-line text escaped, for `write!(out, "<td>{}</td>", Escaped(name))`:
/// every control character, line breaks included, shown as an escape (`\u{1b}`), as every
/// other report shows a name, so that two names never look alike.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(&escape_line(self.0)))
    }
}

/// Displays a message (a worker's stderr, a traceback, a group's reason) escaped: its terminal
/// colours removed, its other control characters shown, its lines kept.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message<'a>(pub &'a str);

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(&plain_text(self.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_become_references_and_others_stay() {
        assert_eq!(
            escape("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(
            escape("\"><img src=x onerror=alert(1)>"),
            "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
        );
        // An already escaped reference is escaped again: text is text, never markup.
        assert_eq!(escape("&lt;"), "&amp;lt;");
        assert_eq!(escape("it's"), "it&#39;s");
        assert_eq!(escape("ünïcödé ✓ 1 < 2"), "ünïcödé ✓ 1 &lt; 2");
        assert_eq!(escape(""), "");
    }

    #[test]
    fn clean_text_is_borrowed_and_escaped_displays_the_same() {
        assert!(matches!(escape("onnx-1.22.0/node/test_wrap_pad/0"), Cow::Borrowed(_)));
        assert_eq!(Escaped("a<b").to_string(), "a&lt;b");
    }

    #[test]
    fn a_name_shows_its_control_characters_and_a_message_loses_its_colours() {
        assert_eq!(Escaped("w\x1b[31m<\n").to_string(), "w\\u{1b}[31m&lt;\\n");
        assert_eq!(
            Message("\x1b[1;31mTraceback\x1b[0m <b>\n  x\r").to_string(),
            "Traceback &lt;b&gt;\n  x\\r"
        );
    }

    #[test]
    fn no_output_of_escape_holds_a_markup_character() {
        // Every character that can open a tag, end an attribute or start a reference.
        let hostile: String = (0u32..0x80).filter_map(char::from_u32).collect();
        let escaped = escape(&hostile);
        assert!(!escaped.contains(['<', '>', '"', '\'']));
        assert_eq!(escaped.matches('&').count(), 5, "{escaped}");
    }
}
