//! `coverage`: which (operator version, dtype, mode) the generated corpus covers.

mod table;

use std::process::ExitCode;

use crate::cli::args::{CoverageArgs, TableFormat};
use crate::cli::fatal::Fatal;
use crate::cli::output::{chosen_format, finish, open_output};
use crate::data::default_root;
use table::{Coverage, Style};

pub(super) fn coverage(args: &CoverageArgs) -> Result<ExitCode, Fatal> {
    let path = match &args.path {
        Some(path) => path.clone(),
        None => default_root()?.join("extended"),
    };
    let coverage = Coverage::read(&path)?;
    let format = chosen_format(args.format, args.output.as_ref(), TableFormat::Json, TableFormat::Human);
    let (mut out, _) = open_output(args.output.as_ref())?;
    let written = match format {
        TableFormat::Human => coverage.write_table(&mut out, Style::Human),
        TableFormat::Markdown => coverage.write_table(&mut out, Style::Markdown),
        TableFormat::Json => coverage.write_json(&mut out),
    };
    finish(written, out)?;
    let missing = coverage.missing();
    for (op, data_type, mode) in &missing {
        eprintln!(
            "missing: {} {data_type} {}",
            op.short_label(),
            mode.map_or("-", |m| m.name())
        );
    }
    Ok(if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
