//! Where a page comes from, said at its top: the corpus versions its runs read (from each
//! report's run facts), the day it was written and the command that wrote it, so that a page a
//! CI publishes can be told apart from last week's and made again.

use std::collections::BTreeSet;
use std::io::{self, Write};

use crate::cli::html::escape::Escaped;

use super::board::Board;
use super::rerun::shell_quote;

/// The day and the command of a page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Provenance {
    /// The day written, `2026-05-01` (UTC).
    pub date: String,
    /// The command, one shell line; none when not known.
    pub command: Option<String>,
}

impl Provenance {
    /// This process: today, and its own command line (the program named `pad-conformance`,
    /// wherever it was run from).
    pub(crate) fn of_this_run() -> Provenance {
        let words: Vec<String> = std::env::args_os()
            .skip(1)
            .map(|word| shell_quote(&word.to_string_lossy()))
            .collect();
        Provenance {
            date: crate::cli::today::today(),
            command: Some(format!("pad-conformance {}", words.join(" "))),
        }
    }
}

/// The corpus versions of `boards`' runs, as `onnx-testdata 5` (each distinct name and version
/// once), or none when no report recorded them (reports written before run facts).
fn corpora(boards: &[Board<'_>]) -> Option<String> {
    let versions: BTreeSet<(&str, u32)> = (boards.iter())
        .filter_map(|b| b.report.run.as_ref())
        .flat_map(|run| run.corpora.iter().map(|(name, version)| (name.as_str(), *version)))
        .collect();
    (!versions.is_empty()).then(|| {
        (versions.iter())
            .map(|(name, version)| format!("{name} {version}"))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// Characters of a command shown on the line; a longer one is folded under it.
const COMMAND_SHOWN: usize = 160;

/// The line under the page's title: corpus, date, command.
pub(super) fn write_provenance(boards: &[Board<'_>], provenance: &Provenance, out: &mut dyn Write) -> io::Result<()> {
    let corpus = corpora(boards).unwrap_or_else(|| "not recorded".to_owned());
    write!(
        out,
        "<p class=\"provenance muted\">corpus version: <span class=\"corpus\">{}</span> · written <time>{}</time>",
        Escaped(&corpus),
        Escaped(&provenance.date)
    )?;
    match &provenance.command {
        // A matrix's command names every backend and report: folded, not a screenful.
        Some(command) if command.chars().count() > COMMAND_SHOWN => writeln!(
            out,
            "</p><details class=\"provenance\"><summary>the command</summary><code class=\"command\">{}</code></details>",
            Escaped(command)
        ),
        Some(command) => writeln!(out, " · by <code class=\"command\">{}</code></p>", Escaped(command)),
        None => writeln!(out, "</p>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::scoreboard::Rerun;
    use crate::report::{RunFacts, RunReport};

    fn facts(corpora: &[(&str, u32)]) -> RunFacts {
        RunFacts {
            complete: true,
            gating: "spec,reference".into(),
            tolerance: "exact".into(),
            profile: None,
            inputs_as_constants: false,
            strict_rules: false,
            corpora: corpora.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect(),
            selection: String::new(),
            config: None,
            retries: 0,
        }
    }

    #[test]
    fn the_corpus_versions_of_every_run_are_named_once() {
        let mut a = RunReport::of("a", Vec::new());
        a.run = Some(facts(&[("onnx-testdata", 5)]));
        let mut b = a.clone();
        b.run = Some(facts(&[("onnx-testdata", 5), ("mine", 2)]));
        let old = RunReport::of("old", Vec::new());
        let boards: Vec<Board<'_>> = [&a, &b, &old]
            .into_iter()
            .map(|r| Board::new(r, Rerun::default()))
            .collect();
        assert_eq!(corpora(&boards).as_deref(), Some("mine 2, onnx-testdata 5"));
        assert_eq!(corpora(&boards[2..]), None);
        let mut out = Vec::new();
        let provenance = Provenance {
            date: "2026-05-01".into(),
            command: Some("pad-conformance --backend '<x>'".into()),
        };
        write_provenance(&boards[2..], &provenance, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<p class=\"provenance muted\">corpus version: <span class=\"corpus\">not recorded</span> · written \
             <time>2026-05-01</time> · by <code class=\"command\">pad-conformance --backend &#39;&lt;x&gt;&#39;</code></p>\n"
        );
        let long = Provenance {
            command: Some(format!("pad-conformance matrix{}", " --backend ref".repeat(20))),
            ..provenance
        };
        let mut out = Vec::new();
        write_provenance(&boards[..1], &long, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("<p class=\"provenance muted\">corpus version: <span class=\"corpus\">onnx-testdata 5</span>")
                && text.contains("</p><details class=\"provenance\"><summary>the command</summary><code class=\"command\">pad-conformance matrix --backend ref"),
            "{text}"
        );
    }
}
