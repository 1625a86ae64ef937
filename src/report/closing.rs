//! The human report's last lines, after every data set's: the failures recapped, what needs
//! doing first — the new failures, each with its command to run it again — then the
//! backend's time and the summary line, last, as cargo test and nextest end a run.

use std::io::{self, Write};

use super::RunReport;
use super::human::{Colors, gate_line, label, write_head};
use crate::backend::Language;
use crate::gate::gate_result::GateResult;
use crate::judge::verdict::Verdict;
use crate::text::{escape_line, first_line, strip_ansi};

/// The command that runs one data set again, by name, when the face knows how the run ran it.
pub(crate) type Rerun<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The most characters of a message's first line the recap quotes: the whole message is under
/// the data set's own line, above.
const QUOTED_CHARS: usize = 200;

/// Writes the report's last lines: the failures recapped ([`write_recap`]), then the backend's
/// time and the summary line. The outcome lines come before, written by
/// [`write_outcome`](super::write_outcome) as each data set finishes — a refusal's before its
/// twin may have run, so its line said `PASS`; the recap names each refusal its twin did not
/// verify. `language` is how the backend's author speaks, when the face knows it: the recap's
/// hint names what they write.
pub(crate) fn write_summary(
    report: &RunReport,
    rerun: Option<Rerun<'_>>,
    language: Option<Language>,
    colors: Colors,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_recap(report, rerun, language, colors, out)?;
    writeln!(
        out,
        "backend {}: {:.2}s",
        escape_line(&report.backend),
        report.duration.as_secs_f64()
    )?;
    writeln!(out, "{}", report.summary().line())
}

/// The data sets that need a reader, by what each needs, the most urgent first: the new
/// failures (every gating failure of a run without a baseline), each with the first line of its
/// message and its `rerun` command; the baseline's entries that are out of date; the verdicts
/// that changed with the corpus; the refusals their twins did not verify; then, when a new
/// failure refused a valid input or a refusal's twin ran and did not pass, a hint worded for
/// the backend's `language` ([`lacks_hint`]). Known failures and failures not gating are not repeated: the
/// summary counts them, and their lines say `KNOWN` and `WARN`. Nothing, not even a blank
/// line, when nothing needs a reader.
pub(crate) fn write_recap(
    report: &RunReport,
    rerun: Option<Rerun<'_>>,
    language: Option<Language>,
    colors: Colors,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut new = Vec::new();
    let mut outdated = Vec::new();
    let mut corpus = Vec::new();
    let mut unverified = Vec::new();
    for outcome in &report.outcomes {
        let gate = report.weighed(outcome);
        let kept = (outcome, gate.clone());
        match gate {
            GateResult::NewFailure => new.push(kept),
            GateResult::Fixed { .. } | GateResult::ChangedStatus { .. } => outdated.push(kept),
            GateResult::ChangedWithCorpus { .. } => corpus.push(kept),
            GateResult::NotVerified => unverified.push(outcome),
            GateResult::Agrees | GateResult::NotGating | GateResult::KnownFailure { .. } => {}
        }
    }
    let (stale, untracked) = match &report.baseline {
        Some(judged) if judged.require_tracking => (&judged.stale[..], &judged.untracked[..]),
        Some(judged) => (&judged.stale[..], &[][..]),
        None => (&[][..], &[][..]),
    };
    let outdated_count = outdated.len() + stale.len() + untracked.len();
    if new.len() + outdated_count + corpus.len() + unverified.len() == 0 {
        return Ok(());
    }
    // Apart from the data sets' lines above it.
    writeln!(out)?;
    let new_failures = match report.baseline {
        Some(_) => "new failures, not in the baseline",
        None => "failures",
    };
    header(out, new_failures, new.len())?;
    for (outcome, gate) in &new {
        write_head(outcome, Some(gate), colors, out)?;
        writeln!(out)?;
        let message = outcome.message();
        let quoted = first_line(&strip_ansi(&message), QUOTED_CHARS);
        if !quoted.is_empty() {
            writeln!(out, "      {}", escape_line(&quoted))?;
        }
        if let Some(command) = rerun.and_then(|rerun| rerun(&outcome.name())) {
            writeln!(out, "      rerun: {}", escape_line(&command))?;
        }
    }
    header(out, "baseline entries out of date", outdated_count)?;
    for (outcome, gate) in &outdated {
        let said = gate_line(gate).unwrap_or_default();
        named(out, colors, label(outcome, Some(gate)), &outcome.name(), &said)?;
    }
    for name in stale {
        let said = "no such data set: remove it from the baseline";
        named(out, colors, ("STALE", "35"), name, said)?;
    }
    for name in untracked {
        let said = "known failure without a tracking link (--require-tracking)";
        named(out, colors, ("TRACK", "35"), name, said)?;
    }
    header(
        out,
        "changed with the corpus, not the backend: rewrite the baseline",
        corpus.len(),
    )?;
    for (outcome, gate) in &corpus {
        let was = match gate {
            GateResult::ChangedWithCorpus { was, why } => {
                let was = was.map_or("passed", |was| was.name());
                format!("was {was}, now {} ({why})", outcome.status().name())
            }
            _ => String::new(),
        };
        named(out, colors, label(outcome, Some(gate)), &outcome.name(), &was)?;
    }
    header(out, "refusals not verified: their twins did not pass", unverified.len())?;
    for outcome in &unverified {
        let twin = match outcome.verdict() {
            Some(Verdict::RefusalNotVerified { twin, .. }) => twin.to_string(),
            _ => String::new(),
        };
        named(out, colors, ("UNVER", "33"), &outcome.name(), &twin)?;
    }
    let refused_valid = new
        .iter()
        .any(|(outcome, _)| matches!(outcome.verdict(), Some(Verdict::RefusedValid { .. })));
    // A twin that ran and did not pass; one left out of the run is the selection's doing.
    let twin_failed = unverified.iter().any(
        |outcome| matches!(outcome.verdict(), Some(Verdict::RefusalNotVerified { twin, .. }) if twin.status.is_some()),
    );
    if refused_valid || twin_failed {
        writeln!(out, "{}", lacks_hint(language))?;
    }
    Ok(())
}

/// What to do when a refusal is the backend lacking what a data set asks — a valid input
/// refused, a twin that did not pass — in the words of the backend's `language`, or in general
/// when the face does not know it (a merged report).
pub(crate) fn lacks_hint(language: Option<Language>) -> String {
    let say = language.map_or("say that it is unsupported", Language::says_unsupported);
    format!(
        "hint: where the backend lacks what a data set asks, {say}: the data set is then \
         unsupported, not refused; or leave it out of the backend's profile (--profile)"
    )
}

/// `what (N):`, the heading of a part of the recap that holds anything.
fn header(out: &mut dyn Write, what: &str, count: usize) -> io::Result<()> {
    match count {
        0 => Ok(()),
        n => writeln!(out, "{what} ({n}):"),
    }
}

/// One line of the recap: the label, the data set and what to know of it.
fn named(out: &mut dyn Write, colors: Colors, (word, color): (&str, &str), name: &str, said: &str) -> io::Result<()> {
    writeln!(
        out,
        "{} {}: {}",
        colors.paint(word, color),
        escape_line(name),
        escape_line(said)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::judging::GateSummary;
    use crate::judge::check::Outcome;
    use crate::judge::status::Status;

    fn text(report: &RunReport, rerun: Option<Rerun<'_>>) -> String {
        spoken(report, rerun, None)
    }

    fn spoken(report: &RunReport, rerun: Option<Rerun<'_>>, language: Option<Language>) -> String {
        let mut out = Vec::new();
        write_summary(report, rerun, language, Colors::Never, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Under a baseline the new failure comes first, with its rerun command; the outdated
    /// entry and the change with the corpus after it; the known failure and the failure not
    /// gating only in the counts; the summary line last.
    #[test]
    fn the_recap_puts_new_failures_first_and_the_summary_last() {
        let outcomes = vec![
            Outcome::example("known", Status::Failed),
            Outcome::example("fixed", Status::Passed),
            Outcome::example("lax", Status::Failed).with_gates(false),
            Outcome::example_said("new", Status::Errored, "backend b crashed: boom\n  stderr: more"),
            Outcome::example("moved", Status::Passed),
        ];
        let mut report = RunReport::of("b", outcomes);
        report.gates = [
            (
                "known/0".to_owned(),
                GateResult::KnownFailure {
                    reason: "listed".into(),
                    tracking: None,
                },
            ),
            (
                "fixed/0".to_owned(),
                GateResult::Fixed {
                    was: Status::Failed,
                    reason: "no wrap".into(),
                },
            ),
            ("lax/0".to_owned(), GateResult::NotGating),
            ("new/0".to_owned(), GateResult::NewFailure),
            (
                "moved/0".to_owned(),
                GateResult::ChangedWithCorpus {
                    was: Some(Status::Failed),
                    why: "corpus version 5: basis rule → spec".into(),
                },
            ),
        ]
        .into();
        report.baseline = Some(GateSummary {
            stale: vec!["gone/0".to_owned()],
            ..GateSummary::default()
        });
        let rerun = |name: &str| Some(format!("pad-conformance --filter {name}"));
        let text = text(&report, Some(&rerun));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[1], "new failures, not in the baseline (1):");
        assert!(lines[2].starts_with("ERROR new/0  "), "{text}");
        assert_eq!(lines[3], "      backend b crashed: boom");
        assert_eq!(lines[4], "      rerun: pad-conformance --filter new/0");
        assert_eq!(
            &lines[5..8],
            [
                "baseline entries out of date (2):",
                "FIXED fixed/0: listed as a known failure (no wrap): remove it from the baseline",
                "STALE gone/0: no such data set: remove it from the baseline",
            ]
        );
        assert_eq!(
            &lines[8..10],
            [
                "changed with the corpus, not the backend: rewrite the baseline (1):",
                "CORPS moved/0: was failed, now passed (corpus version 5: basis rule → spec)",
            ]
        );
        assert_eq!(lines[10], "backend b: 0.00s");
        assert_eq!(lines[11..], ["2 passed, 1 failed, 1 errored, 0 skipped, 1 not gating"]);
        assert!(!text.contains("known/0") && !text.contains("lax/0"), "{text}");
    }

    /// Without a baseline every gating failure is new; nothing to recap, nothing but the
    /// summary, not even a blank line.
    #[test]
    fn without_a_baseline_every_gating_failure_is_recapped_and_a_clean_run_ends_with_its_summary() {
        let report = RunReport::of(
            "b",
            vec![
                Outcome::example("f", Status::Failed),
                Outcome::example("p", Status::Passed),
            ],
        );
        let failed = text(&report, None);
        assert!(failed.starts_with("\nfailures (1):\nFAIL  f/0  "), "{failed}");
        assert!(!failed.contains("rerun:"), "{failed}");
        let clean = RunReport::of("b", vec![Outcome::example("p", Status::Passed)]);
        assert_eq!(
            text(&clean, None),
            "backend b: 0.00s\n1 passed, 0 failed, 0 errored, 0 skipped\n"
        );
    }

    /// A valid input refused, or a refusal its twin did not verify: the hint names what the
    /// backend's author writes to say it lacks something, in their language; a mismatch, or
    /// a refusal verified, gets none.
    #[test]
    fn the_hint_for_what_a_backend_lacks_speaks_the_backend_s_language() {
        use crate::judge::verdict::TwinEnd;

        let refused = Outcome::example_judged(
            "r",
            Verdict::RefusedValid {
                refusal: "no int16 kernel".into(),
            },
        );
        let hints = |report: &RunReport| {
            [
                Some(Language::Rust),
                Some(Language::Python),
                Some(Language::Worker),
                Some(Language::PerCaseCommand),
                None,
            ]
            .map(|language| {
                let text = spoken(report, None, language);
                let hints: Vec<_> = text
                    .lines()
                    .filter(|l| l.starts_with("hint: "))
                    .map(str::to_owned)
                    .collect();
                hints.join("\n")
            })
        };
        let said = hints(&RunReport::of("b", vec![refused]));
        let says = |what: &str| {
            format!(
                "hint: where the backend lacks what a data set asks, {what}: the data set is then \
                 unsupported, not refused; or leave it out of the backend's profile (--profile)"
            )
        };
        assert_eq!(
            said,
            [
                says("return `BackendUnsupported`"),
                says("raise `pad_conformance.worker.Unsupported`"),
                says("reply an error of kind \"unsupported\""),
                says("exit 69"),
                says("say that it is unsupported"),
            ]
        );
        let unverified = |twin_status: Option<Status>| {
            let twin = TwinEnd {
                name: "u_twin/0".into(),
                status: twin_status,
                cause: None,
            };
            let verdict = Verdict::RefusalNotVerified {
                refusal: "axes repeated".into(),
                rule: None,
                expected: Vec::new(),
                twin,
            };
            RunReport::of("b", vec![Outcome::example_judged("u", verdict)])
        };
        assert_eq!(hints(&unverified(Some(Status::Errored)))[1], said[1]);
        // A twin left out of the run, and a mismatch: nothing the backend lacks.
        assert_eq!(hints(&unverified(None))[1], "");
        let mismatch = Outcome::example("m", Status::Failed);
        assert_eq!(hints(&RunReport::of("b", vec![mismatch]))[1], "");
    }
}
