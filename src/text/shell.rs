//! A word as a POSIX shell reads it back: what a command shown to be pasted quotes its
//! arguments and values with.

/// `word` as one word for a POSIX shell: unchanged when it holds only characters no shell
/// treats specially, else in single quotes (a quote inside written `'\''`).
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_quote;

    #[test]
    fn quoting_keeps_plain_words_and_wraps_the_rest() {
        assert_eq!(shell_quote("ref"), "ref");
        assert_eq!(
            shell_quote("onnx-1.22.0/node/test_wrap_pad/0"),
            "onnx-1.22.0/node/test_wrap_pad/0"
        );
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's $HOME"), r"'it'\''s $HOME'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
    }
}
