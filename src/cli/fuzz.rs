//! `fuzz`: random cases against the reference; findings shrunk and written as cases.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use pad_conformance::fuzz::reproducer::write_reproducer;
use pad_conformance::fuzz::{Finding, FuzzOptions, FuzzReport, Progress, Shape, fuzz as run_fuzz};
use pad_conformance::judge::profile::Profile;
use pad_conformance::text::{escape_line, escape_text, strip_ansi};
use serde_json::json;

use super::Fatal;
use super::args::{BenchFormat, FuzzArgs};
use super::fuzz_out::FindingsDir;
use super::signals::{self, CancelsRun};

pub fn fuzz(args: &FuzzArgs) -> Result<ExitCode, Fatal> {
    if !(0.0..=1.0).contains(&args.refusals) {
        return Err(Fatal(format!(
            "--refusals {} is not a share from 0 to 1",
            args.refusals
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
    let time = match args.time {
        Some(t) if t > 0.0 && t.is_finite() => Some(Duration::from_secs_f64(t)),
        Some(t) => return Err(Fatal(format!("--time {t} is not a positive number of seconds"))),
        None => None,
    };
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
        cancel: signals::cancel(),
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
    let mut written = Vec::new();
    if let Some(out_dir) = &out_dir {
        let dir = out_dir.clear_earlier()?;
        for finding in report.findings.iter().chain(&report.not_gating) {
            written.push(write_reproducer(finding, dir)?);
        }
    }
    let mut out = std::io::stdout().lock();
    let result = match args.format {
        BenchFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(&as_json(&report, args.seed))?),
        BenchFormat::Human => write_human(&report, backend.name(), args.seed, &mut out),
    };
    if let Err(e) = result
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(Fatal(format!("writing the report: {e}")));
    }
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

fn write_human(report: &FuzzReport, backend: &str, seed: u64, out: &mut dyn Write) -> std::io::Result<()> {
    for (title, findings) in [("finding", &report.findings), ("not gating", &report.not_gating)] {
        for finding in findings {
            writeln!(
                out,
                "{}  {}  ({} cases)",
                title.to_uppercase(),
                finding.signature,
                finding.hits
            )?;
            writeln!(out, "      basis: {} ({})", finding.basis.kind, finding.basis.section)?;
            writeln!(out, "      case: {}", finding.case)?;
            // The worker's words, its colours dropped and every other control shown.
            for line in escape_text(&strip_ansi(&finding.message)).lines() {
                writeln!(out, "      {line}")?;
            }
        }
    }
    let rate = report.cases as f64 / report.duration.as_secs_f64().max(1e-9);
    writeln!(
        out,
        "fuzz {}, seed {seed}: {} cases in {:.2}s ({rate:.0}/s), {} unsupported",
        escape_line(backend),
        report.cases,
        report.duration.as_secs_f64(),
        report.unsupported
    )?;
    writeln!(
        out,
        "{} findings, {} not gating",
        report.findings.len(),
        report.not_gating.len()
    )?;
    if report.dropped > 0 {
        writeln!(
            out,
            "{} further distinct findings dropped: those kept filled the run's memory budget",
            report.dropped
        )?;
    }
    Ok(())
}

fn as_json(report: &FuzzReport, seed: u64) -> serde_json::Value {
    let finding = |f: &Finding| {
        json!({
            "signature": f.signature.to_string(),
            "kind": f.signature.kind,
            "hits": f.hits,
            "basis": f.basis,
            "case": f.case.to_string(),
            "original": f.original.to_string(),
            "message": f.message,
        })
    };
    json!({
        "seed": seed,
        "cases": report.cases,
        "seconds": report.duration.as_secs_f64(),
        "unsupported": report.unsupported,
        "dropped": report.dropped,
        "findings": report.findings.iter().map(finding).collect::<Vec<_>>(),
        "not_gating": report.not_gating.iter().map(finding).collect::<Vec<_>>(),
    })
}
