//! `diff`: what changed between two JSON reports of a backend. Exit code 0 when nothing
//! regressed, 1 when something did, 2 when a report cannot be read.

mod page;
mod run_diff;

use std::process::ExitCode;

use crate::cli::args::{DiffArgs, DiffFormat};
use crate::cli::fatal::Fatal;
use crate::cli::output::{check_run_files, finish, open_output};
use crate::report::read_json_report;
use page::write_diff_html;
use run_diff::RunDiff;

pub(super) fn diff(args: &DiffArgs) -> Result<ExitCode, Fatal> {
    check_run_files(
        &[("--output", args.output.as_deref())],
        &[("OLD.json", Some(&args.old)), ("NEW.json", Some(&args.new))],
        &[],
    )?;
    let old = read_json_report(&args.old)?;
    let new = read_json_report(&args.new)?;
    if old.backend != new.backend {
        eprintln!(
            "pad-conformance: note: comparing backend {:?} with {:?}",
            old.backend, new.backend
        );
    }
    let diff = RunDiff::new(&old, &new);
    let (mut out, _) = open_output(args.output.as_ref())?;
    let written = match args.format {
        DiffFormat::Markdown => diff.write_markdown(&mut out),
        DiffFormat::Html => write_diff_html(&diff, &mut out),
    };
    finish(written, out)?;
    eprintln!("{}", diff.line());
    Ok(if diff.regressed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
