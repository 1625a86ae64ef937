//! `fuzz`: random cases against the reference; findings grouped by root cause, each cause's
//! first case shrunk and written as a case. `fuzz-merge` (merge.rs) joins the reports of a
//! sharded run.

mod findings_dir;
mod json;
pub(super) mod merge;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use crate::backend::Driven;
use crate::data::shard::Shard;
use crate::fuzz::encoding::Encoding;
use crate::fuzz::reproducer::write_reproducer;
use crate::fuzz::{Finding, FuzzOptions, FuzzReport, Progress, Shape, fuzz as run_fuzz};
use crate::judge::profile::Profile;
use crate::text::{escape_line, escape_text, strip_ansi};

use crate::cli::args::{BenchFormat, FuzzArgs};
use crate::cli::backend_spec::positive_seconds;
use crate::cli::fatal::Fatal;
use crate::cli::output::{check_run_files, chosen_format, finish, open_output};
use crate::cli::signals::{self, CancelsRun};
use findings_dir::FindingsDir;
use json::{FuzzJson, RunJson};

pub(super) fn fuzz(args: &FuzzArgs) -> Result<ExitCode, Fatal> {
    if !(0.0..=1.0).contains(&args.refusals) {
        return Err(Fatal(format!(
            "--refusals {} is not a share from 0 to 1",
            args.refusals
        )));
    }
    if !(0.0..=1.0).contains(&args.encodings) {
        return Err(Fatal(format!(
            "--encodings {} is not a share from 0 to 1",
            args.encodings
        )));
    }
    if args.max_elements == 0 {
        return Err(Fatal("--max-elements 0 leaves nothing to generate".into()));
    }
    if args.max_elements > Shape::MAX_ELEMENTS {
        return Err(Fatal(format!(
            "--max-elements {} is over the limit of {} elements a generated tensor may have",
            args.max_elements,
            Shape::MAX_ELEMENTS
        )));
    }
    if args.cases == Some(0) {
        return Err(Fatal("--cases 0 leaves nothing to run".into()));
    }
    let time = args.time.map(|t| positive_seconds("--time", t)).transpose()?;
    check_run_files(
        &[("--output", args.output.as_deref())],
        &[("--profile", args.profile.as_deref())],
        &[],
    )?;
    let format = chosen_format(args.format, args.output.as_ref(), BenchFormat::Json, BenchFormat::Human);
    let mut check = args.checking.options(args.max_tensor_bytes)?;
    if let Some(path) = &args.profile {
        check.profile = Profile::read(path)?;
    }
    let options = FuzzOptions {
        seed: args.seed,
        cases: args.cases,
        time,
        shape: Shape {
            max_elements: args.max_elements,
            refusals: args.refusals,
        },
        check,
        threads: args.checking.threads(),
        shard: args.shard.unwrap_or(Shard::ALL),
        cancel: signals::cancel(),
        encodings: args.encodings,
        ..FuzzOptions::default()
    };
    // Checked before the run: findings are never lost to an --out that cannot take them.
    let out_dir = args.out.as_deref().map(FindingsDir::prepare).transpose()?;
    let backend = args.checking.backend(&args.backend, args.max_tensor_bytes)?;
    // Progress goes to standard error, and only on a terminal: it never mixes into JSON.
    let terminal = std::io::stderr().is_terminal();
    let mut progress = |p: &Progress| {
        if terminal {
            let rate = p.cases as f64 / p.elapsed.as_secs_f64().max(1e-9);
            eprint!("\r{} cases, {rate:.0}/s, {} findings ", p.cases, p.findings);
        }
    };
    // From here a signal stops the run; the findings so far are reported and written.
    let _run = CancelsRun::start();
    let report = run_fuzz(backend.as_ref(), &options, &mut progress)?;
    if terminal {
        eprintln!();
    }
    let written = match out_dir {
        Some(out_dir) => out_dir.publish(
            report
                .findings
                .iter()
                .chain(&report.not_gating)
                .chain(&report.encodings),
            |finding, dir| Ok(write_reproducer(finding, dir)?),
        )?,
        None => Vec::new(),
    };
    let (mut out, _) = open_output(args.output.as_ref())?;
    let result = match format {
        BenchFormat::Json => {
            let json = FuzzJson {
                // What a merge must know: this shard did not draw all its cases.
                interrupted: signals::interrupted().is_some(),
                ..FuzzJson::of(&report, &options, run_json(args, &options, backend.as_ref()))
            };
            writeln!(out, "{}", serde_json::to_string_pretty(&json)?)
        }
        BenchFormat::Human => write_human(&report, backend.name(), &options, &mut out),
    };
    finish(result, out)?;
    for path in written {
        eprintln!("wrote {}", path.display());
    }
    if let Some(code) = signals::interrupted() {
        eprintln!(
            "pad-conformance: interrupted after {} cases; the findings so far are reported",
            report.cases
        );
        return Ok(code);
    }
    Ok(if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The causes a maintainer triages first: gating ones, the most frequent first.
fn in_triage_order(report: &FuzzReport) -> Vec<(bool, &Finding)> {
    let mut all: Vec<(bool, &Finding)> = (report.findings.iter().map(|f| (true, f)))
        .chain(report.not_gating.iter().map(|f| (false, f)))
        .collect();
    all.sort_by(|(ga, a), (gb, b)| gb.cmp(ga).then(b.hits.cmp(&a.hits)).then(a.key.cmp(&b.key)));
    all
}

fn shard_label(shard: Shard) -> String {
    if shard == Shard::ALL {
        String::new()
    } else {
        format!(", shard {shard}")
    }
}

/// The run as a person reads it: each root cause in triage order (gating ones first, the most
/// frequent first), then what was dropped, then the totals, last.
fn write_human(report: &FuzzReport, backend: &str, options: &FuzzOptions, out: &mut dyn Write) -> std::io::Result<()> {
    let pad = in_triage_order(report).into_iter().map(|(gating, f)| {
        let label = if gating { "CAUSE" } else { "NOT GATING" };
        (label, f)
    });
    for (n, (label, finding)) in pad.chain(report.encodings.iter().map(|f| ("ENCODING", f))).enumerate() {
        writeln!(
            out,
            "{label} {}  {}  ({} case{})",
            n + 1,
            finding.key,
            finding.hits,
            if finding.hits == 1 { "" } else { "s" }
        )?;
        if finding.encoding != Encoding::Onnx {
            writeln!(
                out,
                "      encoding: {} ({}); the same case as onnx's writer writes it is answered correctly",
                finding.encoding,
                finding.encoding.describe()
            )?;
            writeln!(
                out,
                "      basis: protobuf conformance, never gating (docs/semantics.md#encodings)"
            )?;
        } else {
            writeln!(out, "      basis: {} ({})", finding.basis.kind, finding.basis.section)?;
        }
        let seen: Vec<String> = finding.seen_in.iter().map(|(site, n)| format!("{site} ×{n}")).collect();
        writeln!(out, "      seen in: {}", seen.join(", "))?;
        writeln!(out, "      smallest: {}", finding.case)?;
        writeln!(
            out,
            "      first drawn: case {} of seed {}: {}",
            finding.case_index, options.seed, finding.original
        )?;
        // The worker's words, its colours dropped and every other control shown.
        for line in escape_text(&strip_ansi(&finding.message)).lines() {
            writeln!(out, "      {line}")?;
        }
        // Apart from the next cause, and the last from the totals.
        writeln!(out)?;
    }
    if report.dropped > 0 {
        writeln!(
            out,
            "{} further root causes dropped: those kept filled the run's memory budget",
            report.dropped
        )?;
    }
    writeln!(
        out,
        "fuzz {}, seed {}{}: {} cases in {:.2}s ({:.0} cases/s), {} unsupported, {} also re-encoded",
        escape_line(backend),
        options.seed,
        shard_label(options.shard),
        report.cases,
        report.duration.as_secs_f64(),
        report.cases_per_second(),
        report.unsupported,
        report.reencoded
    )?;
    writeln!(
        out,
        "{} root cause{}: {} gating, {} not gating",
        report.findings.len() + report.not_gating.len(),
        if report.findings.len() + report.not_gating.len() == 1 {
            ""
        } else {
            "s"
        },
        report.findings.len(),
        report.not_gating.len()
    )?;
    if !report.encodings.is_empty() {
        writeln!(
            out,
            "{} protobuf encoding cause{} apart, never gating",
            report.encodings.len(),
            if report.encodings.len() == 1 { "" } else { "s" }
        )?;
    }
    Ok(())
}

/// The options the report states, by which `fuzz-merge` tells shards of one run.
fn run_json(args: &FuzzArgs, options: &FuzzOptions, backend: &dyn Driven) -> RunJson {
    RunJson {
        backend: backend.name().to_owned(),
        runtime: backend.runtime().map(|r| r.label()),
        case_limit: options.case_limit(),
        time: args.time,
        max_elements: options.shape.max_elements,
        refusals: options.shape.refusals,
        encodings: Some(options.encodings),
        tolerance: options.check.tolerance.to_string(),
        gating: options.check.gating.names(),
        profile: args.profile.as_ref().map(|p| p.display().to_string()),
        inputs_as_constants: options.check.inputs_as_constants,
        strict_rules: options.check.strict_rules,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::data::basis::{Basis, BasisNote};
    use crate::fuzz::{Shape, generate_case};
    use crate::judge::cause_key::{CauseKey, Pattern};
    use crate::judge::verdict::Cause;

    use super::*;

    /// An encoding cause is listed after the Pad causes, with its form, and counted apart;
    /// the JSON names the form.
    #[test]
    fn an_encoding_cause_is_reported_apart_with_its_form() {
        let case = generate_case(1, 0, &Shape::default());
        let finding = Finding {
            key: CauseKey {
                cause: Cause::RefusesValid,
                pattern: Pattern::Any,
            },
            encoding: Encoding::PackedLists,
            encoded_model: None,
            case: case.clone(),
            original: case,
            case_index: 0,
            drawn_basis: Basis::Spec,
            expected: Ok(Vec::new()),
            basis: BasisNote {
                kind: Basis::Spec,
                section: "docs/semantics.md#constant-mode".into(),
            },
            rules: Vec::new(),
            message: "backend x failed: packed".into(),
            hits: 3,
            seen_in: BTreeMap::new(),
        };
        let report = FuzzReport {
            encodings: vec![finding],
            reencoded: 7,
            ..FuzzReport::default()
        };
        let options = FuzzOptions::default();
        let mut out = Vec::new();
        write_human(&report, "x", &options, &mut out).unwrap();
        let human = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = human.lines().collect();
        // The causes first, the totals last.
        assert_eq!(lines[0], "ENCODING 1  refuses-valid  (3 cases)");
        assert!(
            lines[1].starts_with("      encoding: packed-lists (AttributeProto ints/floats"),
            "{human}"
        );
        assert!(lines[2].contains("protobuf conformance, never gating"), "{human}");
        let totals = &lines[lines.len() - 3..];
        assert!(totals[0].ends_with("0 unsupported, 7 also re-encoded"), "{human}");
        assert_eq!(totals[1], "0 root causes: 0 gating, 0 not gating");
        assert_eq!(totals[2], "1 protobuf encoding cause apart, never gating");
        assert_eq!(lines[lines.len() - 4], "", "{human}");
        let run = RunJson {
            backend: "x".into(),
            runtime: None,
            case_limit: None,
            time: None,
            max_elements: 1,
            refusals: 0.0,
            encodings: Some(0.1),
            tolerance: "exact".into(),
            gating: "spec".into(),
            profile: None,
            inputs_as_constants: false,
            strict_rules: false,
        };
        let json = serde_json::to_value(FuzzJson::of(&report, &options, run)).unwrap();
        assert_eq!(json["encodings"][0]["encoding"], "packed-lists");
        assert_eq!(json["reencoded"], 7);
        assert_eq!(json["findings"], serde_json::json!([]));
    }
}
