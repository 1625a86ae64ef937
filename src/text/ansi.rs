//! Removing terminal escape sequences from text a backend wrote (a worker's coloured log on
//! stderr), so reports carry the words and not the codes.

use std::borrow::Cow;

/// `text` without ANSI escape sequences: CSI (`ESC [ … final byte`, colours and cursor
/// moves), OSC (`ESC ] … BEL` or `ESC \`, titles and links) and two-byte escapes.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates, up to a final byte in @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or the string terminator ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Any other escape is two characters long.
            Some(_) | None => {}
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_titles_and_cursor_moves_go_and_the_words_stay() {
        assert_eq!(strip_ansi("plain"), "plain");
        assert_eq!(strip_ansi("\x1b[1;33mwarn\x1b[0m x\x1b[2K"), "warn x");
        assert_eq!(strip_ansi("\x1b]0;title\x07a\x1b]8;;http://x\x1b\\b"), "ab");
        assert_eq!(strip_ansi("a\x1b7b\x1b"), "ab");
        assert_eq!(strip_ansi("é\x1b[31m→\x1b[m"), "é→");
    }
}
