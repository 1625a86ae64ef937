//! `rules`: the table of refusal rules (operators::Rule), for people and for tools that
//! would otherwise copy it (scripts/gen-extended); its JSON carries the operator table the
//! rules refuse against too.

use std::io::Write;
use std::process::ExitCode;

use crate::family::domain_name;
use crate::operators::{OpVersion, Rule};
use serde_json::json;

use super::args::{RulesArgs, TableFormat};
use super::fatal::Fatal;
use super::output::{chosen_format, finish, open_output};

/// The JSON table's format: 1 was a bare array of rules; 2 wraps it as `rules` beside
/// `format`.
const RULES_FORMAT: u32 = 2;

pub(super) fn rules(args: &RulesArgs) -> Result<ExitCode, Fatal> {
    let format = chosen_format(args.format, args.output.as_ref(), TableFormat::Json, TableFormat::Human);
    let (mut out, _) = open_output(args.output.as_ref())?;
    let written = match format {
        TableFormat::Human => write!(out, "{}", human_table()),
        TableFormat::Json => writeln!(out, "{}", json_table()),
        TableFormat::Markdown => write!(out, "{}", markdown_table()),
    };
    finish(written, out)?;
    Ok(ExitCode::SUCCESS)
}

/// One rule a paragraph: its id, then what it refuses and where docs/semantics.md states it,
/// in plain words (no Markdown: a terminal shows it as it is).
fn human_table() -> String {
    let mut text = format!(
        "{} refusal rules (docs/semantics.md#refusal-rules); a worker names one in its error reply's rule field:\n\n",
        Rule::ALL.len()
    );
    for rule in Rule::ALL {
        let (basis, section) = rule.basis();
        text.push_str(&format!(
            "{}\n    refuses: {}\n    basis: {basis}, docs/semantics.md#{section}\n",
            rule.id(),
            rule.describe()
        ));
    }
    text
}

/// `{"format": 2, "rules": [{"id", "basis", "section", "refuses"}], "operators": [...]}`, the
/// rules in the order of [`Rule::ALL`], the operators as [`operator_rows`] has them.
fn json_table() -> String {
    let rows: Vec<_> = Rule::ALL
        .iter()
        .map(|rule| {
            let (basis, section) = rule.basis();
            json!({"id": rule.id(), "basis": basis.name(), "section": section, "refuses": rule.describe()})
        })
        .collect();
    let table = json!({"format": RULES_FORMAT, "rules": rows, "operators": operator_rows()});
    serde_json::to_string_pretty(&table).expect("the table serializes")
}

/// The operator table `data-type`, `mode-not-in-version` and `extra-input` refuse against, a
/// row per operator version in the order of [`OpVersion::all`]: `{"operator", "domain",
/// "version", "dtypes", "modes", "inputs", "attributes"}`, the element types in code order.
/// scripts/gen-extended reads it rather than restate it.
fn operator_rows() -> Vec<serde_json::Value> {
    OpVersion::all()
        .map(|row| {
            json!({
                "operator": row.op.op_type(),
                "domain": domain_name(row.op.domain()),
                "version": row.version,
                "dtypes": row.data_types().map(|t| t.name()).collect::<Vec<_>>(),
                "modes": row.modes().iter().map(|m| m.name()).collect::<Vec<_>>(),
                "inputs": row.inputs(),
                "attributes": row.attributes(),
            })
        })
        .collect()
}

/// The table docs/semantics.md#refusal-rules holds.
fn markdown_table() -> String {
    let mut text = String::from("| rule | basis | section | refuses |\n|---|---|---|---|\n");
    for rule in Rule::ALL {
        let (basis, section) = rule.basis();
        text.push_str(&format!(
            "| `{}` | {basis} | [{section}](#{section}) | {} |\n",
            rule.id(),
            rule.describe()
        ));
    }
    text
}
