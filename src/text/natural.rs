//! Natural order: runs of digits compare as numbers, so `onnx-1.2.1` comes before
//! `onnx-1.12.0`, as a person reading a listing expects.

use std::cmp::Ordering;

/// `a` against `b`, runs of ASCII digits compared by value (then by length, so `01` and `1`
/// stay apart), everything else character by character.
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let (x_digits, x_rest) = split_digits(a);
                let (y_digits, y_rest) = split_digits(b);
                let (x_value, y_value) = (x_digits.trim_start_matches('0'), y_digits.trim_start_matches('0'));
                let order = x_value
                    .len()
                    .cmp(&y_value.len())
                    .then_with(|| x_value.cmp(y_value))
                    .then_with(|| x_digits.len().cmp(&y_digits.len()));
                if order != Ordering::Equal {
                    return order;
                }
                (a, b) = (x_rest, y_rest);
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                (a, b) = (&a[x.len_utf8()..], &b[y.len_utf8()..]);
            }
        }
    }
}

/// The leading run of ASCII digits of `text`, and the rest.
fn split_digits(text: &str) -> (&str, &str) {
    let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    text.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_by_number_and_other_text_by_character() {
        let mut ids = vec![
            "onnx-1.6.0/node/test_b",
            "onnx-1.12.0/node/test_a",
            "onnx-1.2.1/node/test_a",
            "extended/test_x",
            "onnx-1.2.1/node/test_a10",
            "onnx-1.2.1/node/test_a9",
        ];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            ids,
            [
                "extended/test_x",
                "onnx-1.2.1/node/test_a",
                "onnx-1.2.1/node/test_a9",
                "onnx-1.2.1/node/test_a10",
                "onnx-1.6.0/node/test_b",
                "onnx-1.12.0/node/test_a",
            ]
        );
        assert_eq!(natural_cmp("a01", "a1"), Ordering::Greater);
        assert_eq!(natural_cmp("a1", "a1"), Ordering::Equal);
    }
}
