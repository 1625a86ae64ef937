//! A long text cut to a bound for a page: a Python traceback or a worker's stderr can run to
//! hundreds of lines, and a page lists many. Its head says where it started, its tail (a
//! traceback's last line is the error) what went wrong; the JSON report keeps it whole.

use std::borrow::Cow;

/// How much of a text an excerpt keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    /// Lines kept from the start.
    pub head: usize,
    /// Lines kept from the end.
    pub tail: usize,
    /// Characters kept of each line; a longer one ends in `…`.
    pub line_chars: usize,
}

/// `text` within `bound`: unchanged when it fits, else its first `head` and last `tail` lines,
/// a line saying how many were left out between them (never just one: the line saying so would
/// take its place), each line cut to `line_chars`.
///
/// ```text
/// let bound = Bound { head: 1, tail: 1, line_chars: 80 };
/// assert_eq!(excerpt("a\nb\nc\nd", bound), "a\n[… 2 lines left out …]\nd");
/// assert_eq!(excerpt("a\nb\nc", bound), "a\nb\nc");
/// ```
pub(crate) fn excerpt(text: &str, bound: Bound) -> Cow<'_, str> {
    let lines: Vec<&str> = text.lines().collect();
    let too_many = lines.len() > bound.head + bound.tail + 1;
    let too_long = lines.iter().any(|line| line.chars().nth(bound.line_chars).is_some());
    if !too_many && !too_long {
        return Cow::Borrowed(text);
    }
    let cut = |line: &str| -> String {
        match line.char_indices().nth(bound.line_chars) {
            Some((end, _)) => format!("{}…", &line[..end]),
            None => line.to_owned(),
        }
    };
    let kept: Vec<String> = if too_many {
        let left_out = lines.len() - bound.head - bound.tail;
        (lines[..bound.head].iter().map(|l| cut(l)))
            .chain([format!("[… {left_out} lines left out …]")])
            .chain(lines[lines.len() - bound.tail..].iter().map(|l| cut(l)))
            .collect()
    } else {
        lines.iter().map(|l| cut(l)).collect()
    };
    Cow::Owned(kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUND: Bound = Bound {
        head: 2,
        tail: 3,
        line_chars: 10,
    };

    #[test]
    fn a_text_within_the_bound_is_kept_as_it_is() {
        assert!(matches!(
            excerpt("a\nb\nc\nd\ne", BOUND),
            Cow::Borrowed("a\nb\nc\nd\ne")
        ));
        assert!(matches!(excerpt("0123456789", BOUND), Cow::Borrowed(_)));
        assert_eq!(excerpt("", BOUND), "");
    }

    #[test]
    fn a_long_text_keeps_its_head_and_its_tail_and_says_what_it_left_out() {
        let traceback: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let cut = excerpt(&traceback, BOUND);
        assert_eq!(
            cut,
            "line 1\nline 2\n[… 95 lines left out …]\nline 98\nline 99\nline 100"
        );
        assert!(matches!(excerpt("a\nb\nc\nd\ne\nf", BOUND), Cow::Borrowed(_)));
        assert_eq!(
            excerpt("a\nb\nc\nd\ne\nf\ng", BOUND),
            "a\nb\n[… 2 lines left out …]\ne\nf\ng"
        );
    }

    #[test]
    fn a_long_line_is_cut_on_a_character_boundary() {
        assert_eq!(excerpt("ééééééééééé", BOUND), "éééééééééé…");
        let long = "x".repeat(1_000_000);
        assert_eq!(excerpt(&long, BOUND).chars().count(), 11);
    }
}
