//! The gate on the page, for a run weighed against a baseline: first the verdict and its counts
//! (new failures, known ones, fixed, stale, …) from the run's [`GateSummary`], then beside each
//! failing data set what its [`GateResult`] makes of it — a new failure, or a known one with the
//! baseline's reason and tracking link. Both are the typed values the run decided; nothing is
//! read back from a message.

use std::io::{self, Write};

use crate::cli::html::escape::{Escaped, Message};
use crate::gate::gate_result::GateResult;
use crate::gate::judging::GateSummary;

use super::board::Board;

/// How a failing data set stands with the baseline, in the order the page lists them: what
/// fails the gate first, what the baseline expects last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Standing {
    /// Not in the baseline: a regression.
    New,
    /// In the baseline with the other status, or changed with the corpus: an outdated entry.
    Outdated,
    /// In the baseline: expected.
    Known,
    /// Not weighed (no baseline, or a basis the run does not gate on).
    Unweighed,
}

impl Standing {
    /// The standing of a data set with gate result `gate`.
    pub(super) fn of(gate: Option<&GateResult>) -> Standing {
        match gate {
            Some(GateResult::NewFailure) => Standing::New,
            Some(GateResult::ChangedStatus { .. } | GateResult::ChangedWithCorpus { .. }) => Standing::Outdated,
            Some(GateResult::KnownFailure { .. }) => Standing::Known,
            _ => Standing::Unweighed,
        }
    }
}

/// The mark beside a data set with gate result `gate`, as markup (text from the baseline
/// escaped), or none when there is nothing to say: `new failure`; `known` with the baseline's
/// reason and its tracking link; what an outdated entry needs; `not verified`.
pub(super) fn gate_mark(gate: Option<&GateResult>) -> Option<String> {
    Some(match gate? {
        GateResult::NewFailure => "<span class=\"gate g-new\">new failure</span>".to_owned(),
        GateResult::KnownFailure { reason, tracking } => format!(
            "<span class=\"gate g-known\">known</span> <span class=\"known-reason\">{}</span>{}",
            Message(reason),
            tracking.as_deref().map_or_else(String::new, tracking_link)
        ),
        GateResult::ChangedStatus { was, .. } => format!(
            "<span class=\"gate g-outdated\">listed as {}</span> update the baseline",
            was.name()
        ),
        GateResult::ChangedWithCorpus { why, .. } => format!(
            "<span class=\"gate g-outdated\">changed with the corpus</span> {}",
            Message(why)
        ),
        GateResult::NotVerified => {
            "<span class=\"gate g-unverified\">not verified</span> its twin did not pass".to_owned()
        }
        GateResult::Fixed { was, .. } => format!(
            "<span class=\"gate g-fixed\">fixed</span> listed as {}: remove it from the baseline",
            was.name()
        ),
        GateResult::Agrees | GateResult::NotGating => return None,
    })
}

/// A tracking link: a link when it is an http(s) address (nothing else a baseline says may
/// become a link: no `javascript:`), else the text.
fn tracking_link(url: &str) -> String {
    let web = ["https://", "http://"]
        .iter()
        .any(|scheme| url.get(..scheme.len()).is_some_and(|s| s.eq_ignore_ascii_case(scheme)));
    if web {
        format!(
            " <a class=\"tracking\" href=\"{}\" rel=\"noreferrer\">tracking</a>",
            Escaped(url)
        )
    } else {
        format!(
            " <span class=\"tracking\">tracking: <code>{}</code></span>",
            Escaped(url)
        )
    }
}

/// Whether the run fails its gate, under the flags it was judged with.
fn fails(summary: &GateSummary) -> bool {
    summary.fails(summary.strict, summary.strict_corpus)
}

/// The gate of every backend weighed against a baseline, before anything else on the page:
/// its verdict, its counts, and the data sets behind each count. Nothing when none was.
pub(super) fn write_gates(boards: &[Board<'_>], out: &mut dyn Write) -> io::Result<()> {
    let gated: Vec<(usize, &Board<'_>, &GateSummary)> = (boards.iter().enumerate())
        .filter_map(|(i, b)| Some((i, b, b.report.baseline.as_ref()?)))
        .collect();
    if gated.is_empty() {
        return Ok(());
    }
    writeln!(out, "<section id=\"gate\">")?;
    writeln!(out, "<h2>Gate</h2>")?;
    for (i, board, summary) in gated {
        write_gate(i, board, summary, boards.len() > 1, out)?;
    }
    writeln!(out, "</section>")
}

fn write_gate(
    index: usize,
    board: &Board<'_>,
    summary: &GateSummary,
    named: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let verdict = if fails(summary) { "fails" } else { "passes" };
    let mut flags: Vec<&str> = Vec::new();
    for (on, flag) in [
        (summary.strict, "--strict"),
        (summary.strict_corpus, "--strict-corpus"),
        (summary.require_tracking, "--require-tracking"),
        (summary.require_verified, "--require-verified"),
    ] {
        if on {
            flags.push(flag);
        }
    }
    writeln!(
        out,
        "<div class=\"gate-summary {verdict}\" data-backend=\"{index}\" data-new=\"{}\" data-known=\"{}\" \
         data-fixed=\"{}\" data-stale=\"{}\">",
        summary.regressions.len(),
        summary.expected_failures.len(),
        summary.unexpected_passes.len(),
        summary.stale.len()
    )?;
    let whose = if named {
        format!(" <a href=\"#backend-{index}\">{}</a>", Escaped(board.name()))
    } else {
        String::new()
    };
    writeln!(
        out,
        "<p class=\"verdict\"><strong>Gate{whose}: {verdict}</strong>{}</p>",
        if flags.is_empty() {
            String::new()
        } else {
            format!(" <span class=\"muted\">(judged with {})</span>", flags.join(" "))
        }
    )?;
    writeln!(out, "<ul class=\"gate-counts\">")?;
    let counts = [
        (
            summary.regressions.len(),
            "new failures",
            "not in the baseline: they fail the gate",
            "g-new",
        ),
        (
            summary.expected_failures.len(),
            "known failures",
            "in the baseline, with its reason",
            "g-known",
        ),
        (
            summary.unexpected_passes.len(),
            "fixed",
            "in the baseline, but passed: remove them",
            "g-fixed",
        ),
        (
            summary.stale.len(),
            "stale entries",
            "in the baseline, but no such data set",
            "g-fixed",
        ),
    ];
    for (n, what, why, class) in counts {
        // Coloured only when there is something to see.
        let class = if n > 0 { class } else { "" };
        writeln!(
            out,
            "<li><span class=\"n {class}\">{n}</span> {what} <span class=\"muted\">({why})</span></li>"
        )?;
    }
    let more = [
        (summary.changed_status.len(), "changed status", "update the baseline"),
        (
            summary.corpus_changes.len(),
            "changed with the corpus",
            "not the backend",
        ),
        (
            summary.not_verified.len(),
            "refusals not verified",
            "their twins did not pass: never a regression",
        ),
        (summary.untracked.len(), "known failures without a tracking link", ""),
    ];
    for (n, what, why) in more {
        if n > 0 {
            let why = if why.is_empty() {
                String::new()
            } else {
                format!(" <span class=\"muted\">({why})</span>")
            };
            writeln!(out, "<li><span class=\"n\">{n}</span> {what}{why}</li>")?;
        }
    }
    writeln!(out, "</ul>")?;
    let corpus: Vec<String> = summary.corpus_changes.iter().map(ToString::to_string).collect();
    let lists: [(&str, &[String], bool); 7] = [
        ("New failures", &summary.regressions, true),
        ("Fixed: remove from the baseline", &summary.unexpected_passes, false),
        ("Stale entries: remove from the baseline", &summary.stale, false),
        ("Changed status: update the baseline", &summary.changed_status, false),
        ("Changed with the corpus", &corpus, false),
        ("Refusals not verified", &summary.not_verified, false),
        ("Known failures without a tracking link", &summary.untracked, false),
    ];
    for (title, names, open) in lists {
        write_names(title, names, open, out)?;
    }
    writeln!(out, "</div>")
}

/// The names behind a count, collapsed (`open`: expanded), at most [`NAMES_SHOWN`].
fn write_names(title: &str, names: &[String], open: bool, out: &mut dyn Write) -> io::Result<()> {
    const NAMES_SHOWN: usize = 200;
    if names.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<details class=\"gate-list\"{}><summary>{title} ({})</summary><ul class=\"names\">",
        if open { " open" } else { "" },
        names.len()
    )?;
    for name in names.iter().take(NAMES_SHOWN) {
        writeln!(out, "<li><code>{}</code></li>", Escaped(name))?;
    }
    if names.len() > NAMES_SHOWN {
        writeln!(
            out,
            "<li>… and {} more (the JSON report lists every one)</li>",
            names.len() - NAMES_SHOWN
        )?;
    }
    writeln!(out, "</ul></details>")
}

/// The line under a backend's heading saying how its gate went, linking to the gate above.
pub(super) fn write_gate_line(board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    let Some(summary) = &board.report.baseline else {
        return Ok(());
    };
    writeln!(
        out,
        "<p class=\"gate-line\"><a href=\"#gate\">gate {}</a>: {} new failures, {} known, {} fixed, {} stale.</p>",
        if fails(summary) { "fails" } else { "passes" },
        summary.regressions.len(),
        summary.expected_failures.len(),
        summary.unexpected_passes.len(),
        summary.stale.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::status::Status;

    #[test]
    fn new_failures_come_first_and_known_ones_after_outdated_entries() {
        let known = GateResult::KnownFailure {
            reason: "r".into(),
            tracking: None,
        };
        let changed = GateResult::ChangedStatus {
            was: Status::Errored,
            reason: "r".into(),
        };
        let mut standings = [
            Standing::of(Some(&known)),
            Standing::of(None),
            Standing::of(Some(&changed)),
            Standing::of(Some(&GateResult::NewFailure)),
            Standing::of(Some(&GateResult::NotGating)),
        ];
        standings.sort();
        assert_eq!(
            standings,
            [
                Standing::New,
                Standing::Outdated,
                Standing::Known,
                Standing::Unweighed,
                Standing::Unweighed
            ]
        );
    }

    #[test]
    fn a_known_failure_shows_its_reason_and_links_only_a_web_address() {
        let known = |tracking: &str| GateResult::KnownFailure {
            reason: "no <wrap>\x1b[31m".into(),
            tracking: Some(tracking.into()),
        };
        assert_eq!(
            gate_mark(Some(&known("https://bugs.example/7?a=1&b=\"x\""))).unwrap(),
            "<span class=\"gate g-known\">known</span> <span class=\"known-reason\">no &lt;wrap&gt;</span> \
             <a class=\"tracking\" href=\"https://bugs.example/7?a=1&amp;b=&quot;x&quot;\" rel=\"noreferrer\">tracking</a>"
        );
        let script = gate_mark(Some(&known("javascript:alert(1)"))).unwrap();
        assert!(!script.contains("href"), "{script}");
        assert!(
            script.contains("tracking: <code>javascript:alert(1)</code>"),
            "{script}"
        );
        assert_eq!(
            gate_mark(Some(&GateResult::NewFailure)).unwrap(),
            "<span class=\"gate g-new\">new failure</span>"
        );
        assert_eq!(gate_mark(Some(&GateResult::Agrees)), None);
        assert_eq!(gate_mark(None), None);
    }
}
