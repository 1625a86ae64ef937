//! docs/history.md: per runtime, the pass share of each stored release, then one line per
//! failure group saying in which release it appeared, changed or went. Everything on it comes
//! from the stored results, the dates too, so that writing it again on another day gives the
//! same file.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::stored::Release;
use super::timeline::{GroupHistory, group_histories, trend};

/// Writes the page for `all` (runtime → releases, in release order).
pub(super) fn write_history_markdown(all: &BTreeMap<String, Vec<Release>>, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "# Conformance across releases")?;
    writeln!(out)?;
    writeln!(
        out,
        "Written by `pad-conformance history write` from the stored results in history/ (one file per \
         release, recorded by `scripts/sweep`); never edited by hand. Each runtime's releases ran on \
         this machine with the runtime's profile and each release's format limits (history/RUNTIME.toml): \
         a model newer than a release reads is unsupported there, not a failure."
    )?;
    if let Some((first, last)) = date_range(all) {
        let dates = if first == last {
            first
        } else {
            format!("{first} to {last}")
        };
        writeln!(out)?;
        writeln!(
            out,
            "Runs of {dates}. `pad-conformance history case NAME` shows one data set across them."
        )?;
    }
    for (runtime, releases) in all {
        write_runtime(runtime, releases, out)?;
    }
    Ok(())
}

fn date_range(all: &BTreeMap<String, Vec<Release>>) -> Option<(String, String)> {
    let dates = all.values().flatten().map(|r| &r.date);
    Some((dates.clone().min()?.clone(), dates.max()?.clone()))
}

fn write_runtime(runtime: &str, releases: &[Release], out: &mut dyn Write) -> io::Result<()> {
    let (Some(first), Some(last)) = (releases.first(), releases.last()) else {
        return Ok(());
    };
    writeln!(out)?;
    writeln!(out, "## {}", md(runtime))?;
    writeln!(out)?;
    let corpora: Vec<String> = {
        let mut seen: Vec<String> = releases
            .iter()
            .map(|r| {
                r.corpora
                    .iter()
                    .map(|(name, v)| format!("{name} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect();
        seen.dedup();
        seen
    };
    writeln!(
        out,
        "{} release{} from {} to {}, on corpus {}.",
        releases.len(),
        if releases.len() == 1 { "" } else { "s" },
        md(&first.version),
        md(&last.version),
        md(&corpora.join("; "))
    )?;
    let broken: Vec<&Release> = releases.iter().filter(|r| !r.worker.passed).collect();
    if !broken.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "The worker failed its self-check on these releases, which say nothing of the runtime:"
        )?;
        for release in broken {
            writeln!(
                out,
                "- {}: {} ({})",
                md(&release.version),
                md(&release.worker.detail),
                md(&release.worker.data_set)
            )?;
        }
    }
    writeln!(out)?;
    writeln!(out, "### Pass share")?;
    writeln!(out)?;
    writeln!(
        out,
        "Passed, of the data sets the release supports (neither unsupported nor skipped); failing is failed or errored."
    )?;
    writeln!(out)?;
    writeln!(out, "| release | passed | failing | unsupported | pass share | |")?;
    writeln!(out, "|---|---:|---:|---:|---:|---|")?;
    for point in trend(releases) {
        let (share, bar) = match point.pass_share() {
            Some(share) => (format!("{share:.1}%"), "█".repeat((share / 5.0).round() as usize)),
            None => ("—".into(), point.share_text()),
        };
        writeln!(
            out,
            "| {} | {} | {} | {} | {share} | {bar} |",
            md(&point.version),
            point.passed,
            point.failing,
            point.unsupported
        )?;
    }
    let histories = group_histories(releases);
    let (changed, steady): (Vec<&GroupHistory>, Vec<&GroupHistory>) =
        histories.iter().partition(|h| h.stretches.len() > 1);
    writeln!(out)?;
    writeln!(out, "### Changes, one line per failure group")?;
    writeln!(out)?;
    if changed.is_empty() {
        writeln!(out, "No failure group changed across these releases.")?;
    }
    for history in changed {
        write_group(history, out)?;
    }
    if !steady.is_empty() {
        writeln!(out)?;
        writeln!(out, "### Failing in every release")?;
        writeln!(out)?;
        for history in steady {
            write_group(history, out)?;
        }
    }
    Ok(())
}

fn write_group(history: &GroupHistory, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "- **{}**{}: {}. {}; e.g. {}.",
        md(&history.group),
        if history.gates { "" } else { " (not gating)" },
        md(&history.changes().join(", ")),
        md(&history.path()),
        md(&history.example)
    )
}

/// Text from a stored file (a backend's words, names, versions) as Markdown that shows it and
/// does nothing else: the characters Markdown acts on escaped, line breaks and other control
/// characters made spaces, so that no value opens a heading, a table cell or raw HTML.
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.push(' ');
            continue;
        }
        if matches!(
            c,
            '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '|' | '#' | '&' | '!'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::history::timeline::tests::release;
    use crate::judge::check::Status;

    #[test]
    fn the_page_holds_the_trend_and_one_line_per_group_with_its_changes() {
        let bug = Some("spec failed: wrong-values: reflect padding, values");
        let all = BTreeMap::from([(
            "rt".to_owned(),
            vec![
                release("1.0", &[('a', Status::Unsupported, None)]),
                release("1.1", &[('a', Status::Failed, bug)]),
                release("1.2", &[]),
            ],
        )]);
        let mut out = Vec::new();
        write_history_markdown(&all, &mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.contains("Runs of 2026-11-28."), "{page}");
        assert!(page.contains("| 1.0 | 4 | 0 | 1 | 100.0% |"), "{page}");
        assert!(page.contains("| 1.1 | 4 | 1 | 0 | 80.0% |"), "{page}");
        assert!(
            page.contains(
                "- **spec failed: wrong-values: reflect padding, values**: unsupported until 1.0, fixed in 1.2. \
                 1.0 unsupported → 1.1 failing (1) → 1.2 passing; e.g. case\\_a/0."
            ),
            "{page}"
        );
        assert!(!page.contains("Failing in every release"), "{page}");
    }

    #[test]
    fn markdown_in_a_stored_value_is_shown_not_acted_on() {
        assert_eq!(md("a *b* `c` |d|"), "a \\*b\\* \\`c\\` \\|d\\|");
        assert_eq!(md("x\n# injected <img src=x>"), "x \\# injected \\<img src=x\\>");
    }
}
