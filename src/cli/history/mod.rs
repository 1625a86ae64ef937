//! `pad-conformance history`: runtimes' results across their releases. `record` stores one
//! release's run ([`stored`]) in its runtime's file (history/RUNTIME.json, [`runtime_file`]);
//! `write` turns every stored release into docs/history.md and the scoreboard's history page
//! ([`timeline`], [`changes`]); `changes` shows what changed in one release; `case` shows one
//! data set across the releases, for bisecting; `compact` moves release files of format 1 into
//! their runtime's file.

mod case;
mod changes;
mod markdown;
mod page;
mod record;
mod runtime_file;
mod store;
mod stored;
mod timeline;

use std::process::ExitCode;

use crate::cli::args::{HistoryArgs, HistoryChangesArgs, HistoryCompactArgs, HistoryVerb, HistoryWriteArgs};
use crate::cli::fatal::Fatal;
use std::io::Write as _;

use crate::data::atomic_file::write_atomically;
use crate::text::shown_path;

pub(super) fn history(args: &HistoryArgs) -> Result<ExitCode, Fatal> {
    match &args.verb {
        HistoryVerb::Record(args) => record::record(args),
        HistoryVerb::Write(args) => write(args),
        HistoryVerb::Case(args) => case::case(args),
        HistoryVerb::Changes(args) => release(args),
        HistoryVerb::Compact(args) => compact(args),
    }
}

/// Prints what changed in one release: each change with its example and the command that
/// shows the example across every release.
fn release(args: &HistoryChangesArgs) -> Result<ExitCode, Fatal> {
    let store = store::RuntimeStore::read(&args.dir, &args.runtime)?;
    if store.releases.is_empty() {
        return Err(Fatal(format!(
            "{}: no stored release of {:?} (RUNTIME.json)",
            shown_path(&args.dir),
            args.runtime
        )));
    }
    let all = changes::release_changes(&store.releases);
    let release = match &args.version {
        Some(version) => all.iter().find(|r| r.version == *version).ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(|r| r.version.as_str()).collect();
            Fatal(format!(
                "{version:?}: no stored release of {} of that version; stored: {}",
                args.runtime,
                known.join(", ")
            ))
        })?,
        None => all.last().expect("some release"),
    };
    let mut out = std::io::stdout().lock();
    let heading = format!("{} {} ({})", args.runtime, release.version, release.date);
    let Some(since) = &release.since else {
        let why = match release.worker_failed {
            true => "the worker failed its self-check: it says nothing",
            false => "the first stored release: nothing to weigh it against",
        };
        writeln!(out, "{heading}: {why}")?;
        return Ok(ExitCode::SUCCESS);
    };
    let basis = match release.basis_changed.as_slice() {
        [] => String::new(),
        moved => format!("; {}", moved.join(", ")),
    };
    writeln!(out, "{heading}, since {since}{basis}: {}", release.summary())?;
    for change in &release.changes {
        let gating = if change.kind.names_a_group() && !change.gates {
            " (not gating)"
        } else {
            ""
        };
        writeln!(out, "  {}{gating}", crate::text::escape_text(&change.text(since)))?;
        if let Some(message) = &change.message {
            writeln!(out, "      says: {}", crate::text::escape_text(message))?;
        }
        if let Some(name) = &change.example {
            let name = crate::text::escape_text(name);
            writeln!(out, "      e.g. {name}: pad-conformance history case {name}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Moves every runtime's release files into its runtime's file, saying what it moved.
fn compact(args: &HistoryCompactArgs) -> Result<ExitCode, Fatal> {
    for runtime in store::runtimes(&args.dir)? {
        let store = store::RuntimeStore::read(&args.dir, &runtime)?;
        if store.release_files.is_empty() {
            continue;
        }
        store.write()?;
        eprintln!(
            "pad-conformance: {runtime}: {} release files moved into {} ({} releases)",
            store.release_files.len(),
            shown_path(&store.file),
            store.releases.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the Markdown page (standard output unless --output) and, with --html, the page.
fn write(args: &HistoryWriteArgs) -> Result<ExitCode, Fatal> {
    let all = store::read_all(&args.dir)?;
    if all.is_empty() {
        return Err(Fatal(format!(
            "{}: no stored release (RUNTIME.json)",
            shown_path(&args.dir)
        )));
    }
    let mut markdown = Vec::new();
    markdown::write_history_markdown(&all, &mut markdown)?;
    match &args.output {
        Some(path) => write_atomically(path, &markdown).map_err(|e| Fatal(format!("{}: {e}", shown_path(path))))?,
        None => std::io::Write::write_all(&mut std::io::stdout().lock(), &markdown)?,
    }
    if let Some(path) = &args.html {
        let mut html = Vec::new();
        page::write_history_html(&all, &mut html)?;
        write_atomically(path, &html).map_err(|e| Fatal(format!("{}: {e}", shown_path(path))))?;
    }
    Ok(ExitCode::SUCCESS)
}
