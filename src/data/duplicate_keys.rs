//! JSON objects that name a key twice. serde_json keeps the last value of a repeated key and
//! drops the first without a word: a baseline listing a data set twice would lose the first
//! entry, and `--write-baseline` would then rewrite the file without it and its hand-written
//! reason. Every JSON file the runner reads is checked for it first ([`read_json`]).
//!
//! [`read_json`]: super::json_file::read_json

use std::collections::HashMap;

/// A key an object names twice, with the lines of both.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct DuplicateKey {
    /// The key, unescaped.
    pub key: String,
    /// The line of its first occurrence (1-based).
    pub first_line: usize,
    /// The line of its second.
    pub second_line: usize,
}

enum Frame {
    Object {
        keys: HashMap<String, usize>,
        expecting_key: bool,
    },
    Array,
}

/// The first key that an object of the JSON `text` names twice, if any. One pass over the
/// bytes, holding the keys of the open objects only; what is not JSON is left for the parser
/// to refuse. Keys are compared unescaped: `"a"` and `"\u0061"` are one key.
pub(crate) fn first_duplicate_key(text: &str) -> Option<DuplicateKey> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'{' => stack.push(Frame::Object {
                keys: HashMap::new(),
                expecting_key: true,
            }),
            b'[' => stack.push(Frame::Array),
            b'}' | b']' => {
                stack.pop();
            }
            b':' | b',' => {
                if let Some(Frame::Object { expecting_key, .. }) = stack.last_mut() {
                    *expecting_key = bytes[i] == b',';
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if i >= bytes.len() {
                    return None;
                }
                if let Some(Frame::Object {
                    keys,
                    expecting_key: true,
                }) = stack.last_mut()
                {
                    let raw = &text[start..=i];
                    let key = serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.to_owned());
                    if let Some(first_line) = keys.insert(key.clone(), line) {
                        return Some(DuplicateKey {
                            key,
                            first_line,
                            second_line: line,
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_named_twice_in_one_object_is_found_with_both_lines() {
        let baseline = "{\n  \"format\": 3,\n  \"expected\": {\n    \"a/0\": {\"status\": \"failed\", \"reason\": \"first\"},\n    \"b/0\": {\"status\": \"failed\", \"reason\": \"b\"},\n    \"a/0\": {\"status\": \"errored\", \"reason\": \"second\"}\n  }\n}";
        assert_eq!(
            first_duplicate_key(baseline),
            Some(DuplicateKey {
                key: "a/0".into(),
                first_line: 4,
                second_line: 6
            })
        );
        // Escaped spellings of one key are one key.
        assert_eq!(
            first_duplicate_key(r#"{"a": 1, "\u0061": 2}"#).map(|d| d.key),
            Some("a".to_owned())
        );
    }

    #[test]
    fn the_same_key_in_other_objects_or_as_a_value_is_not_a_duplicate() {
        for text in [
            r#"{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]}"#,
            r#"{"a": "a", "b": ["a", "a"], "c": "\"a\": 1, \"a\""}"#,
            r#"[{"status": "failed"}, {"status": "failed"}]"#,
            "{\"a\": \"unterminated",
            "",
        ] {
            assert_eq!(first_duplicate_key(text), None, "{text}");
        }
    }
}
