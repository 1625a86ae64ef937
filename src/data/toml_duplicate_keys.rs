//! TOML keys defined twice. The toml crate refuses them, but its error points at the second
//! definition alone and does not name the key (`duplicate key` under a caret): a profile of
//! a hundred `[[except]]` tables leaves the reader to hunt for the first. This finds it, by
//! toml's own reading of the document, so that the refusal names the key and both lines as a
//! JSON file's does ([`super::duplicate_keys`]).

use std::ops::Range;

use toml::de::{DeTable, DeValue};

use super::duplicate_keys::DuplicateKey;

/// A bare key no document names: the second definition is renamed to it.
const PROBE: &str = "pad-conformance-second-definition";

/// One step from a document's root to a key: a table's key, or an element of an array.
enum Step {
    Key(String),
    Index(usize),
}

/// The key that `text` defines twice when toml's parser stopped at `span` (what its error
/// gives): found when the document with the key at `span` renamed holds another key of that
/// name in the same table as the renamed one, which is then the first definition. `None` when
/// the error at `span` is of another kind (no such other key), or `span` is no key.
///
/// The same key in other tables (`modes` in two `[[except]]` tables) is no duplicate, and is
/// never taken for the first definition: only the renamed key's own table is searched.
pub(crate) fn duplicate_at(text: &str, span: Range<usize>) -> Option<DuplicateKey> {
    let written = text.get(span.clone())?;
    // The key as TOML reads it, whatever its quoting ("a", 'a' and a are one key).
    let key = decoded_key(written)?;
    let mut probe = PROBE.to_owned();
    while text.contains(probe.as_str()) {
        probe.push('-');
    }
    let renamed = format!("{}{probe}{}", &text[..span.start], &text[span.end..]);
    // Other errors later in the document leave the part read so far as it was.
    let (document, _) = DeTable::parse_recoverable(&renamed);
    let mut path = Vec::new();
    let table = table_holding(document.get_ref(), &probe, &mut path)?;
    let (first, _) = table.get_key_value(key.as_str())?;
    // Back to the original text's offsets: only what follows the renamed key moved.
    let shift = |offset: usize| {
        if offset >= span.start + probe.len() {
            offset - probe.len() + written.len()
        } else {
            offset
        }
    };
    let line = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
    path.push(Step::Key(key));
    Some(DuplicateKey {
        key: dotted(&path),
        first_line: line(shift(first.span().start)),
        second_line: line(span.start),
    })
}

/// `written` (a key as the document spells it) as TOML decodes it.
fn decoded_key(written: &str) -> Option<String> {
    let line = format!("{written} = 0");
    let document = DeTable::parse(&line).ok()?;
    let mut keys = document.get_ref().keys();
    match (keys.next(), keys.next()) {
        (Some(key), None) => Some(key.get_ref().to_string()),
        _ => None,
    }
}

/// The table under `table` holding `key`, with the steps that lead to it pushed onto `path`.
fn table_holding<'t, 'i>(table: &'t DeTable<'i>, key: &str, path: &mut Vec<Step>) -> Option<&'t DeTable<'i>> {
    if table.contains_key(key) {
        return Some(table);
    }
    for (name, value) in table.iter() {
        path.push(Step::Key(name.get_ref().to_string()));
        if let Some(found) = value_holding(value.get_ref(), key, path) {
            return Some(found);
        }
        path.pop();
    }
    None
}

fn value_holding<'t, 'i>(value: &'t DeValue<'i>, key: &str, path: &mut Vec<Step>) -> Option<&'t DeTable<'i>> {
    match value {
        DeValue::Table(table) => table_holding(table, key, path),
        DeValue::Array(array) => {
            for (index, element) in array.iter().enumerate() {
                path.push(Step::Index(index));
                if let Some(found) = value_holding(element.get_ref(), key, path) {
                    return Some(found);
                }
                path.pop();
            }
            None
        }
        _ => None,
    }
}

/// `inputs.pads`, `except[1].modes`: the key's place as a profile's errors name fields.
fn dotted(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(index) => out.push_str(&format!("[{index}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// toml's error on `text`: where it stopped.
    fn stopped_at(text: &str) -> Range<usize> {
        toml::from_str::<toml::Table>(text).unwrap_err().span().unwrap()
    }

    fn found(text: &str) -> Option<DuplicateKey> {
        duplicate_at(text, stopped_at(text))
    }

    #[test]
    fn a_key_defined_twice_is_found_with_both_lines_wherever_it_is() {
        let cases = [
            (
                "# profile\noperators = [\"Pad-18\"]\n\ndtypes = [\"float\"]\noperators = []\n",
                "operators",
                2,
                5,
            ),
            (
                "[inputs.pads]\nranks = [1]\n[inputs.pads]\nranks = [2]\n",
                "inputs.pads",
                1,
                3,
            ),
            (
                "[[except]]\nmodes = [\"wrap\"]\n[[except]]\nmodes = [\"edge\"]\nmodes = [\"reflect\"]\n",
                "except[1].modes",
                4,
                5,
            ),
            (
                "inputs = {pads = {ranks = [1]},\n  pads = {ranks = [2]}}\n",
                "inputs.pads",
                1,
                2,
            ),
            (
                "[inputs]\npads.ranks = [1]\n\npads.ranks = [2]\n",
                "inputs.pads.ranks",
                2,
                4,
            ),
            // Quoted or bare, one key; a key whose first definition lies after a long value.
            (
                "\"dtypes\" = [\n  \"float\",\n  \"int32\",\n]\ndtypes = []\n",
                "dtypes",
                1,
                5,
            ),
            ("modes = [\"edge\"]\n'modes' = []\n", "modes", 1, 2),
        ];
        for (text, key, first_line, second_line) in cases {
            assert_eq!(
                found(text),
                Some(DuplicateKey {
                    key: key.to_owned(),
                    first_line,
                    second_line
                }),
                "{text}"
            );
        }
    }

    #[test]
    fn another_error_at_a_key_is_no_duplicate() {
        // A key of the same name in another table is not the first definition of this one.
        let text = "[[except]]\nmodes = [\"wrap\"]\n[[except]]\nmodes = 1\n";
        let span = text.rfind("modes").unwrap();
        assert_eq!(duplicate_at(text, span..span + 5), None);
        // A span that is no key, or outside the text.
        assert_eq!(duplicate_at("a = [1, 2]\n", 4..10), None);
        assert_eq!(duplicate_at("a = 1\n", 4..40), None);
        // The renamed key's own name in the document does not confuse the search.
        let text = format!("{PROBE} = 1\na = 1\na = 2\n");
        assert_eq!(
            found(&text).map(|d| (d.key, d.first_line, d.second_line)),
            Some(("a".to_owned(), 2, 3))
        );
    }
}
