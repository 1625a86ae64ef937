//! A backend's failures on the page: the "what fails" table (one row per failure group) and the
//! groups themselves, each with its smallest data set as the reproducer (message and rerun
//! command) and the names of the others. Groups holding a new failure come first and, within a
//! group, new failures before known ones (marked with the baseline's reason and tracking link).
//! Everything is bounded so that fifteen backends fit one page: a message keeps its head and
//! tail ([`MESSAGE`]), a group shows a bounded number of names; the JSON report holds the rest.

use std::io::{self, Write};

use crate::cli::failure_groups::{FailureGroup, elements};
use crate::cli::html::escape::{Escaped, Message};
use crate::cli::html::shell::write_filter;
use crate::data::basis::Basis;
use crate::judge::check::Outcome;
use crate::text::{Bound, excerpt, first_line};

use super::board::{Board, Part};
use super::gate::{Standing, gate_mark};

/// How much of a message the page shows: a traceback's first lines (where it started) and its
/// last (the error), each line cut to 200 characters.
pub(super) const MESSAGE: Bound = Bound {
    head: 4,
    tail: 10,
    line_chars: 200,
};

/// Characters of a group's reason in its summary; the group's body holds more.
const REASON_CHARS: usize = 240;

/// Characters of a group's reason in the "what fails" table, a row of which must fit a phone's
/// screen.
const ROW_REASON_CHARS: usize = 160;

/// Characters of a group's reason in its body, when its summary cut it.
const REASON_BODY_CHARS: usize = 2_000;

/// Data sets named per group (new failures first); the JSON report names every one.
const NAMES_SHOWN: usize = 50;

/// New failures per group shown with their own message and rerun command.
const NEW_EXPANDED: usize = 10;

/// A group's data sets in the order the page lists them: by standing with the baseline (new
/// first), then as the group has them (smallest first), each with its standing and mark.
fn listed<'a>(board: &Board<'a>, group: &FailureGroup<'a>) -> Vec<(&'a Outcome, Standing, Option<String>)> {
    let mut listed: Vec<(&Outcome, Standing, Option<String>)> = (group.outcomes.iter())
        .map(|o| {
            let gate = board.report.gate_of(o);
            (*o, Standing::of(gate), gate_mark(gate))
        })
        .collect();
    // Stable: within one standing and mark (one known reason), smallest first still.
    listed.sort_by(|a, b| (a.1, &a.2).cmp(&(b.1, &b.2)));
    listed
}

/// The groups of `board` in the order the page shows them: any holding a new failure first,
/// then any holding an outdated entry, then the rest as the groups come (basis, size).
pub(super) fn group_order(board: &Board<'_>) -> Vec<usize> {
    let first = |group: &FailureGroup<'_>| {
        (group.outcomes.iter())
            .map(|o| Standing::of(board.report.gate_of(o)))
            .min()
            .unwrap_or(Standing::Unweighed)
    };
    let mut order: Vec<usize> = (0..board.groups.len()).collect();
    order.sort_by_key(|&g| first(&board.groups[g]));
    order
}

/// `2 new · 5 known`: how a group's data sets stand with the baseline, or nothing without one.
fn gate_counts(board: &Board<'_>, group: &FailureGroup<'_>) -> String {
    if board.report.baseline.is_none() {
        return String::new();
    }
    let count = |standing: Standing| {
        (group.outcomes.iter())
            .filter(|o| Standing::of(board.report.gate_of(o)) == standing)
            .count()
    };
    [
        (Standing::New, "new", "g-new"),
        (Standing::Outdated, "outdated", "g-outdated"),
        (Standing::Known, "known", "g-known"),
    ]
    .into_iter()
    .filter_map(|(standing, word, class)| {
        let n = count(standing);
        (n > 0).then(|| format!("<span class=\"gate {class}\">{n} {word}</span>"))
    })
    .collect::<Vec<_>>()
    .join(" ")
}

/// What a group holds ([`FailureGroup::label`]), or `(no message)`.
fn reason_label(group: &FailureGroup<'_>) -> String {
    match group.label() {
        label if label.is_empty() => "(no message)".to_owned(),
        label => label,
    }
}

/// ` [2, 3] (6 elements)`, or nothing when the shape is unknown.
fn shape_text(outcome: &Outcome) -> String {
    match (outcome.shape(), elements(outcome)) {
        (Some(shape), Some(n)) => format!(" {shape:?} ({n} element{})", if n == 1 { "" } else { "s" }),
        _ => String::new(),
    }
}

fn basis_badge(basis: Basis) -> String {
    format!("<span class=\"badge basis b-{0}\">{0}</span>", basis.name())
}

fn not_gating_badge(group: &FailureGroup<'_>) -> &'static str {
    if group.gates {
        ""
    } else {
        " <span class=\"badge\">not gating</span>"
    }
}

/// The id of failure group `g` of backend `index`'s reproducer.
fn reproducer_id(index: usize, g: usize) -> String {
    format!("repro-{index}-{g}")
}

/// What fails on this backend at a glance: one row per failure group — how many, how they
/// stand with the baseline, status, basis, reason — linking to the group's reproducer below.
pub(super) fn write_what_fails(
    index: usize,
    board: &Board<'_>,
    order: &[usize],
    out: &mut dyn Write,
) -> io::Result<()> {
    if board.groups.is_empty() {
        return Ok(());
    }
    let gated = board.report.baseline.is_some();
    writeln!(out, "<h3>What fails</h3>")?;
    writeln!(
        out,
        "<p class=\"muted\">Grouped by basis, status and root cause, and a backend's errors and refusals \
         further by its own error code or, without one, its message with numbers, hex, paths and quoted names \
         replaced{}.</p>",
        if gated {
            "; groups holding a new failure first"
        } else {
            ""
        }
    )?;
    writeln!(out, "<div class=\"wrap\"><table class=\"what-fails\">")?;
    writeln!(
        out,
        "<thead><tr><th class=\"num\">data sets</th>{}<th>status</th><th>basis</th><th>reason</th>\
         <th>reproducer (smallest data set)</th></tr></thead><tbody>",
        if gated { "<th>gate</th>" } else { "" }
    )?;
    for &g in order {
        let group = &board.groups[g];
        let smallest = group.smallest();
        let gate = if gated {
            format!("<td>{}</td>", gate_counts(board, group))
        } else {
            String::new()
        };
        writeln!(
            out,
            "<tr><td class=\"num\">{}</td>{gate}<td><span class=\"status st-{status}\">{status}</span>{}</td><td>{}</td>\
             <td class=\"reason\">{}</td><td><a href=\"#{}\"><code>{}</code></a>{}</td></tr>",
            group.outcomes.len(),
            not_gating_badge(group),
            basis_badge(group.basis),
            Message(&first_line(&reason_label(group), ROW_REASON_CHARS)),
            reproducer_id(index, g),
            Escaped(&smallest.name()),
            Escaped(&shape_text(smallest)),
            status = group.status.name(),
        )?;
    }
    writeln!(out, "</tbody></table></div>")
}

/// The failure groups of a backend, each collapsed, in `order`.
pub(super) fn write_groups(index: usize, board: &Board<'_>, order: &[usize], out: &mut dyn Write) -> io::Result<()> {
    let failing: usize = board.groups.iter().map(|g| g.outcomes.len()).sum();
    writeln!(
        out,
        "<h3>Failures by reason: {} group{}, {failing} data set{}</h3>",
        board.groups.len(),
        if board.groups.len() == 1 { "" } else { "s" },
        if failing == 1 { "" } else { "s" }
    )?;
    if board.groups.is_empty() {
        return writeln!(out, "<p>No data set failed or errored.</p>");
    }
    let scope = format!("groups-{index}");
    write_filter(&scope, "filter by data set name or reason", out)?;
    writeln!(out, "<div class=\"groups\" id=\"{scope}\">")?;
    for &g in order {
        write_group(board, &reproducer_id(index, g), &board.groups[g], out)?;
    }
    writeln!(out, "</div>")
}

fn write_group(board: &Board<'_>, id: &str, group: &FailureGroup<'_>, out: &mut dyn Write) -> io::Result<()> {
    let smallest = group.smallest();
    let label = reason_label(group);
    let short = first_line(&label, REASON_CHARS);
    writeln!(
        out,
        "<details class=\"group\"><summary><span class=\"count\">{}</span> {} \
         <span class=\"status st-{status}\">{status}</span>{} {}<span class=\"reason\">{}</span></summary>",
        group.outcomes.len(),
        basis_badge(group.basis),
        not_gating_badge(group),
        match gate_counts(board, group) {
            counts if counts.is_empty() => counts,
            counts => format!("{counts} "),
        },
        Message(&short),
        status = group.status.name(),
    )?;
    if short != label {
        writeln!(
            out,
            "<p class=\"reason full\">{}</p>",
            Message(&first_line(&label, REASON_BODY_CHARS))
        )?;
    }
    writeln!(
        out,
        "<div class=\"repro\" id=\"{id}\"><p>reproducer, the smallest data set:</p>"
    )?;
    write_data_set(board, smallest, true, out)?;
    writeln!(out, "</div>")?;
    write_names(board, group, out)?;
    writeln!(out, "</details>")
}

/// A data set in full: name, where it sits, its mark (when `marked`: not under a heading that
/// says it), its message within [`MESSAGE`], the section its basis cites and the command that
/// reruns it alone.
fn write_data_set(board: &Board<'_>, outcome: &Outcome, marked: bool, out: &mut dyn Write) -> io::Result<()> {
    let name = outcome.name();
    let meta: Vec<String> = [
        Some(outcome.operator()),
        outcome.dtype().map(|d| d.name().to_owned()),
        outcome.mode().map(|m| m.name().to_owned()),
        Some(Part::of(outcome.id()).label().to_owned()),
    ]
    .into_iter()
    .flatten()
    .collect();
    writeln!(
        out,
        "<p class=\"data-set\"><code>{}</code> <span class=\"meta\">{}{}</span>{}</p>",
        Escaped(&name),
        Escaped(&meta.join(" · ")),
        Escaped(&shape_text(outcome)),
        gate_mark(board.report.gate_of(outcome))
            .filter(|_| marked)
            .map_or_else(String::new, |mark| format!("<br>{mark}"))
    )?;
    writeln!(
        out,
        "<pre class=\"message\">{}</pre>",
        Message(&excerpt(&outcome.message(), MESSAGE))
    )?;
    if !outcome.basis().section.is_empty() {
        writeln!(
            out,
            "<p class=\"meta\">basis: {} — {}</p>",
            outcome.basis().kind,
            Escaped(&outcome.basis().section)
        )?;
    }
    if let Some(command) = board.rerun.command(&name) {
        writeln!(out, "<p>rerun: <code class=\"rerun\">{}</code></p>", Escaped(&command))?;
    }
    Ok(())
}

/// The group's data sets by name, by standing and mark (new failures first, each expandable to
/// its message; known ones under their reason), at most [`NAMES_SHOWN`].
fn write_names(board: &Board<'_>, group: &FailureGroup<'_>, out: &mut dyn Write) -> io::Result<()> {
    let listed = listed(board, group);
    let mut mark: Option<&Option<String>> = None;
    let mut expanded = 0;
    writeln!(out, "<div class=\"members\">")?;
    for (outcome, standing, this_mark) in listed.iter().take(NAMES_SHOWN) {
        if mark != Some(this_mark) {
            if mark.is_some() {
                writeln!(out, "</ul>")?;
            }
            let n = listed.iter().filter(|(_, _, m)| m == this_mark).count();
            if let Some(text) = this_mark {
                writeln!(
                    out,
                    "<p class=\"cluster\">{text} <span class=\"muted\">({n})</span></p>"
                )?;
            }
            writeln!(out, "<ul class=\"names\">")?;
            mark = Some(this_mark);
        }
        if *standing == Standing::New && expanded < NEW_EXPANDED {
            expanded += 1;
            writeln!(
                out,
                "<li><details class=\"data-set\"><summary>{}</summary>",
                Escaped(&outcome.name())
            )?;
            write_data_set(board, outcome, false, out)?;
            writeln!(out, "</details></li>")?;
        } else {
            writeln!(out, "<li>{}</li>", Escaped(&outcome.name()))?;
        }
    }
    if mark.is_some() {
        writeln!(out, "</ul>")?;
    }
    if listed.len() > NAMES_SHOWN {
        writeln!(
            out,
            "<p class=\"muted\">… and {} more data sets (the JSON report, <code>--format json</code>, names every one).</p>",
            listed.len() - NAMES_SHOWN
        )?;
    }
    writeln!(out, "</div>")
}
