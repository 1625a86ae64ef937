//! `rules`: the table of refusal rules (operators::Rule), for people and for tools that
//! would otherwise copy it (scripts/gen-extended).

use std::io::{self, Write};
use std::process::ExitCode;

use crate::operators::Rule;
use serde_json::json;

use super::Fatal;
use super::args::{RulesArgs, RulesFormat};
use super::output::{Output, finish};

pub(super) fn rules(args: &RulesArgs) -> Result<ExitCode, Fatal> {
    let mut out = Output::Stdout(io::stdout());
    let written = match args.format {
        RulesFormat::Json => writeln!(out, "{}", json_table()),
        RulesFormat::Markdown => write!(out, "{}", markdown_table()),
    };
    finish(written, out)?;
    Ok(ExitCode::SUCCESS)
}

/// `[{"id", "basis", "section", "refuses"}]`, in the order of [`Rule::ALL`].
fn json_table() -> String {
    let rows: Vec<_> = Rule::ALL
        .iter()
        .map(|rule| {
            let (basis, section) = rule.basis();
            json!({"id": rule.id(), "basis": basis.name(), "section": section, "refuses": rule.describe()})
        })
        .collect();
    serde_json::to_string_pretty(&rows).expect("the table serializes")
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
