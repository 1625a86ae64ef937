//! docs/history.md: per runtime, what changed in each release (newest first), each release's
//! counts, conformance and coverage, then one line per failure group saying in which release
//! it appeared, changed or went. Everything on it comes
//! from the stored results, the dates too, so that writing it again on another day gives the
//! same file.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::changes::release_changes;
use super::stored::Release;
use super::timeline::{GroupHistory, basis_marks, corpora_text, group_histories, group_label, trend};
use crate::cli::shares::percent;

/// Writes the page for `all` (runtime → releases, in release order).
pub(super) fn write_history_markdown(all: &BTreeMap<String, Vec<Release>>, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "# Conformance across releases")?;
    writeln!(out)?;
    writeln!(
        out,
        "Written by `pad-conformance history write` from the stored results in history/ (one file per \
         runtime, each release recorded by `scripts/sweep`); never edited by hand. Each runtime's releases ran on \
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
    // Each corpus the releases ran, with the releases that ran it.
    let mut corpora: Vec<(String, &str, &str)> = Vec::new();
    for release in releases {
        let text = corpora_text(release);
        match corpora.last_mut() {
            Some((seen, _, to)) if *seen == text => *to = &release.version,
            _ => corpora.push((text, &release.version, &release.version)),
        }
    }
    let corpora: Vec<String> = match corpora.as_slice() {
        [(only, _, _)] => vec![md(only)],
        many => many
            .iter()
            .map(|(text, from, to)| match from == to {
                true => format!("{} ({})", md(text), md(from)),
                false => format!("{} ({}–{})", md(text), md(from), md(to)),
            })
            .collect(),
    };
    writeln!(
        out,
        "{} release{} from {} to {}, on corpus {}.",
        releases.len(),
        if releases.len() == 1 { "" } else { "s" },
        md(&first.version),
        md(&last.version),
        corpora.join("; ")
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
    write_release_changes(releases, out)?;
    write_shares(releases, out)?;
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

/// What changed in each release, newest first; the releases where nothing changed are named
/// in one line.
fn write_release_changes(releases: &[Release], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "### What changed, newest release first")?;
    writeln!(out)?;
    writeln!(
        out,
        "Each release against the one before it whose worker worked: new failures first, then moves, fixes and \
         support. `pad-conformance history case NAME` shows an example across every release, and \
         `pad-conformance history changes RUNTIME VERSION` one release on the terminal."
    )?;
    writeln!(out)?;
    let mut unchanged = Vec::new();
    for release in release_changes(releases).iter().rev() {
        let Some(since) = &release.since else {
            if release.worker_failed {
                writeln!(out, "- **{}**: the worker failed its self-check.", md(&release.version))?;
            } else {
                writeln!(
                    out,
                    "- **{}** ({}): the first stored release.",
                    md(&release.version),
                    release.date
                )?;
            }
            continue;
        };
        if release.changes.is_empty() && release.basis_changed.is_empty() {
            unchanged.push(md(&release.version));
            continue;
        }
        let basis = match release.basis_changed.as_slice() {
            [] => String::new(),
            moved => format!("; {}", md(&moved.join(", "))),
        };
        writeln!(
            out,
            "- **{}** ({}, since {}{basis}):{}",
            md(&release.version),
            release.date,
            md(since),
            if release.changes.is_empty() {
                " no data set changed."
            } else {
                ""
            }
        )?;
        for change in &release.changes {
            let example = change
                .example
                .as_deref()
                .map_or_else(String::new, |name| format!("; e.g. {}", md(name)));
            let said = change
                .message
                .as_deref()
                .map_or_else(String::new, |m| format!(". It says: {}", md(m)));
            writeln!(
                out,
                "  - {}{}{example}{said}",
                md(&change.text(since)),
                if change.kind.names_a_group() && !change.gates {
                    " (not gating)"
                } else {
                    ""
                }
            )?;
        }
    }
    if !unchanged.is_empty() {
        writeln!(out)?;
        writeln!(out, "No data set changed in {}.", unchanged.join(", "))?;
    }
    Ok(())
}

/// Each release's counts, conformance and coverage, with a bar of both.
fn write_shares(releases: &[Release], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "### Conformance and coverage")?;
    writeln!(out)?;
    writeln!(
        out,
        "Conformance: passed ÷ applicable; coverage: supported ÷ applicable \
         ([report-format.md](report-format.md#shares)). Applicable: every data set the release ran (each content \
         once) but the not applicable; supported: applicable but the unsupported (outside the runtime's profile \
         or the release's format limits); failing: failed or errored; a refusal not verified is supported, not \
         passed. The bar: █ passed, ░ supported but not passed, of 20. ◆ marks a release whose corpus or \
         judging differs from the release before it: its data sets, and so its denominators, moved."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| release | corpus | passed | failing | not verified | unsupported | applicable | conformance | coverage | |"
    )?;
    writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|")?;
    let marks = basis_marks(releases);
    for (i, point) in trend(releases).iter().enumerate() {
        let counts = point.counts();
        let (conformance, coverage, bar) = match point.no_share() {
            Some(why) => ("—".to_owned(), "—".to_owned(), why.to_owned()),
            None => {
                let passed = (counts.conformance().unwrap_or(0.0) * 20.0).round() as usize;
                let supported = (counts.coverage().unwrap_or(0.0) * 20.0).round() as usize;
                (
                    percent(counts.conformance()),
                    percent(counts.coverage()),
                    format!("{}{}", "█".repeat(passed), "░".repeat(supported.saturating_sub(passed))),
                )
            }
        };
        let mark = match marks.iter().find(|(at, _)| *at == i) {
            Some((_, moved)) => format!("◆ {}", md(moved)),
            None => md(&point.corpora),
        };
        writeln!(
            out,
            "| {} | {mark} | {} | {} | {} | {} | {} | {conformance} | {coverage} | {bar} |",
            md(&point.version),
            point.passed,
            point.failing,
            point.not_verified,
            point.unsupported,
            counts.applicable,
        )?;
    }
    Ok(())
}

fn write_group(history: &GroupHistory, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "- **{}**{}: {}. {}; e.g. {}.{}",
        md(&group_label(&history.group)),
        if history.gates { "" } else { " (not gating)" },
        md(&history.changes().join(", ")),
        md(&history.path()),
        md(&history.example),
        history
            .message
            .as_deref()
            .map_or_else(String::new, |m| format!(" It says: {}", md(m)))
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
    fn the_page_holds_what_changed_the_shares_and_one_line_per_group_with_its_changes() {
        let bug = Some("spec failed: wrong-values: reflect padding, values");
        let all = BTreeMap::from([(
            "rt".to_owned(),
            vec![
                release("1.0", &[('a', Status::Unsupported, None)]),
                release("1.1", &[('a', Status::Failed, bug), ('b', Status::Skipped, None)]),
                release("1.2", &[]),
            ],
        )]);
        let mut out = Vec::new();
        write_history_markdown(&all, &mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.contains("Runs of 2026-11-28."), "{page}");
        // Newest first: 1.2 fixed what 1.1 brought.
        let fixed = page.find("- **1.2** (2026-11-28, since 1.1):\n  - fixed: 1 × wrong-values: reflect padding, values (failed, spec basis); e.g. case\\_a/0\n");
        let newly = page.find("- **1.1** (2026-11-28, since 1.0):\n  - newly supported, failing: 1 × wrong-values: reflect padding, values (failed, spec basis); e.g. case\\_a/0\n");
        assert!(fixed.is_some() && newly.is_some() && fixed < newly, "{page}");
        // 4 of 5 applicable passed, all 5 supported; then 1.1: b skipped, 4 applicable.
        assert!(
            page.contains("| 1.0 | onnx-testdata 4 | 4 | 0 | 0 | 1 | 5 | 80.0% | 80.0% | ████████████████ |"),
            "{page}"
        );
        assert!(
            page.contains("| 1.1 | onnx-testdata 4 | 3 | 1 | 0 | 0 | 4 | 75.0% | 100.0% | ███████████████░░░░░ |"),
            "{page}"
        );
        assert!(
            page.contains(
                "- **wrong-values: reflect padding, values (failed, spec basis)**: unsupported until 1.0, fixed in 1.2. \
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
