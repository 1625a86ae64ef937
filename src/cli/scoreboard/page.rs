//! The scoreboard page: totals per backend and corpus part, a heatmap per backend, and its
//! failures grouped by reason. Every piece of text from a report goes through [`Escaped`].

use std::io::{self, Write};

use crate::cli::failure_groups::{FailureGroup, elements, normalize_reason};
use crate::data::basis::Basis;
use crate::judge::check::{Outcome, Status};
use crate::operators::OpVersion;
use crate::report::Summary;
use crate::tensor::DataType;

use crate::cli::html::escape::Escaped;
use crate::cli::html::shell::{write_filter, write_foot, write_head};

use super::board::{Board, Part};
use super::heatmap::{HeatCell, Tally, mode_letter};
use crate::cli::shares::{ShareCounts, percent};

/// Writes the scoreboard of `boards` (one per backend, in order) as one HTML page.
pub(crate) fn write_scoreboard(boards: &[Board<'_>], out: &mut dyn Write) -> io::Result<()> {
    write_head("pad-conformance scoreboard", out)?;
    let data_sets = boards.first().map_or(0, |b| b.report.outcomes.len());
    writeln!(
        out,
        "<p class=\"muted\">{data_sets} data sets of ONNX's Pad, CenterCropPad and com.microsoft Pad, {} backend{}.</p>",
        boards.len(),
        if boards.len() == 1 { "" } else { "s" }
    )?;
    if boards.len() > 1 {
        writeln!(out, "<nav><ul>")?;
        for (i, board) in boards.iter().enumerate() {
            writeln!(out, "<li><a href=\"#backend-{i}\">{}</a></li>", Escaped(board.name()))?;
        }
        writeln!(out, "</ul></nav>")?;
    }
    write_totals(boards, out)?;
    for (i, board) in boards.iter().enumerate() {
        write_board(i, board, out)?;
    }
    write_foot(out)
}

/// The colour class of a share: `s0` (none passed) to `s10` (all passed); `s10` only when
/// everything passed, so that a cell with one failure never looks perfect.
fn share_class(share: f64) -> String {
    let bucket = if share >= 1.0 {
        10
    } else {
        ((share * 10.0).floor() as usize).min(9)
    };
    format!("s{bucket}")
}

fn write_totals(boards: &[Board<'_>], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<h2 id=\"totals\">Totals</h2>")?;
    writeln!(out, "<div class=\"wrap\"><table class=\"totals\">")?;
    writeln!(
        out,
        "<thead><tr><th>backend</th><th>runtime</th><th>version</th><th class=\"num\">conformance</th><th class=\"num\">passed</th>\
         <th class=\"num\">failed</th><th class=\"num\">errored</th><th class=\"num\">skipped</th>\
         <th class=\"num\">unsupported</th><th class=\"num\">not gating</th><th class=\"num\">not verified</th></tr></thead>"
    )?;
    writeln!(out, "<tbody>")?;
    for (i, board) in boards.iter().enumerate() {
        let runtime = board.report.runtime.as_ref();
        let name = format!("<a href=\"#backend-{i}\">{}</a>", Escaped(board.name()));
        // Apart from the display name, as data a reader (or a script) can sort and filter by.
        let runtime_name = runtime.map_or("–".to_owned(), |r| Escaped(&r.name).to_string());
        let version = match runtime {
            Some(r) => format!(
                "{}{}{}",
                Escaped(r.version.as_deref().unwrap_or("–")),
                r.build.as_ref().map_or(String::new(), |b| format!(
                    " <small class=\"build\">({})</small>",
                    Escaped(b)
                )),
                r.device.as_ref().map_or(String::new(), |d| format!(
                    " <small class=\"device\">on {}</small>",
                    Escaped(d)
                ))
            ),
            None => "–".to_owned(),
        };
        let label = format!("{name}</td><td class=\"runtime\">{runtime_name}</td><td class=\"version\">{version}");
        let data = |value: Option<&String>| value.map_or(String::new(), |v| Escaped(v).to_string());
        let attributes = format!(
            "class=\"backend-row\" data-backend=\"{i}\" data-runtime=\"{}\" data-version=\"{}\" data-build=\"{}\" data-device=\"{}\"",
            data(runtime.map(|r| &r.name)),
            data(runtime.and_then(|r| r.version.as_ref())),
            data(runtime.and_then(|r| r.build.as_ref())),
            data(runtime.and_then(|r| r.device.as_ref())),
        );
        write_totals_row(&attributes, &label, &board.total, out)?;
        for (part, summary) in &board.parts {
            let label = format!("{}</td><td></td><td>", part.label());
            write_totals_row("class=\"part-row\"", &label, summary, out)?;
        }
    }
    writeln!(out, "</tbody></table></div>")?;
    writeln!(
        out,
        "<p class=\"muted\">Conformance: passed ÷ applicable (every data set but the skipped, not applicable, ones); \
         coverage: supported ÷ applicable; an unsupported data set is applicable and not passed. \
         Failed and errored count gating data sets only; \
         not gating: wrong answers on a project rule or an undefined corner (a crash gates on every basis); \
         not verified: refusals of data sets that must be refused whose valid twins did not pass, counted as not passed.</p>"
    )
}

/// One row of the totals; `attributes` and `label` are markup written by this module.
fn write_totals_row(attributes: &str, label: &str, s: &Summary, out: &mut dyn Write) -> io::Result<()> {
    let share = ShareCounts::of(s).conformance();
    writeln!(
        out,
        "<tr {attributes}><td>{label}</td><td class=\"num share {}\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
        share.map_or_else(String::new, share_class),
        percent(share),
        s.passed,
        s.failed,
        s.errored,
        s.skipped,
        s.unsupported,
        s.not_gating,
        s.not_verified,
    )
}

fn write_board(index: usize, board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<section class=\"backend\" id=\"backend-{index}\" data-backend=\"{}\">",
        Escaped(board.name())
    )?;
    writeln!(out, "<h2>{}</h2>", Escaped(board.name()))?;
    if let Some(runtime) = &board.report.runtime {
        writeln!(
            out,
            "<p class=\"muted runtime\">runtime: {}</p>",
            Escaped(&runtime.label())
        )?;
    }
    let parts: Vec<String> = board
        .parts
        .iter()
        .map(|(part, s)| format!("{}: {}", part.label(), percent(ShareCounts::of(s).conformance())))
        .collect();
    let total = ShareCounts::of(&board.total);
    writeln!(
        out,
        "<p><strong>{}</strong> conformance, {} coverage ({}), {}.</p>",
        percent(total.conformance()),
        percent(total.coverage()),
        board.total.line(),
        Escaped(&parts.join(", "))
    )?;
    write_lossy(board, out)?;
    write_heatmap(board, out)?;
    write_what_fails(index, board, out)?;
    write_groups(index, board, out)?;
    write_unsupported(board, out)?;
    write_not_verified(board, out)?;
    writeln!(out, "</section>")
}

/// The refusals their twins did not verify, each with its message (the twin and how it
/// ended): no pass, no failure, but the evidence a reader needs to see it.
fn write_not_verified(board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    let unverified: Vec<&Outcome> = (board.report.outcomes.iter())
        .filter(|o| o.status() == Status::NotVerified)
        .collect();
    if unverified.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<details class=\"not-verified\"><summary>Refusals not verified: {} data set{}</summary><ul>",
        unverified.len(),
        if unverified.len() == 1 { "" } else { "s" }
    )?;
    for outcome in unverified {
        writeln!(
            out,
            "<li><code>{}</code>: {}</li>",
            Escaped(&outcome.name()),
            Escaped(&outcome.message())
        )?;
    }
    writeln!(out, "</ul></details>")
}

/// What the backend does not support, by reason (normalized as failure groups are), most
/// first: unsupported is no failure, but a reader still sees why.
fn write_unsupported(board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    let mut reasons: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for outcome in board
        .report
        .outcomes
        .iter()
        .filter(|o| o.status() == Status::Unsupported)
    {
        *reasons.entry(normalize_reason(&outcome.message())).or_default() += 1;
    }
    if reasons.is_empty() {
        return Ok(());
    }
    let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    reasons.sort_by_key(|(reason, n)| (std::cmp::Reverse(*n), reason.clone()));
    let total: usize = reasons.iter().map(|(_, n)| n).sum();
    writeln!(
        out,
        "<details class=\"unsupported\"><summary>Unsupported by reason: {total} data set{}</summary><ul>",
        if total == 1 { "" } else { "s" }
    )?;
    for (reason, n) in &reasons {
        writeln!(out, "<li>{n} × <span class=\"reason\">{}</span></li>", Escaped(reason))?;
    }
    writeln!(out, "</ul></details>")
}

/// The passes that are not bit for bit, farthest first, each with its largest ULP distance
/// and the special values that differ: what a tolerance let through.
fn write_lossy(board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    const SHOWN: usize = 10;
    let mut lossy: Vec<&Outcome> = board.report.outcomes.iter().filter(|o| o.is_lossy_pass()).collect();
    if lossy.is_empty() {
        return Ok(());
    }
    let farthest = |o: &Outcome| o.deviation().and_then(|d| d.max_ulps.as_ref()).map_or(0, |m| m.ulps);
    lossy.sort_by_key(|o| std::cmp::Reverse(farthest(o)));
    writeln!(
        out,
        "<details class=\"lossy\"><summary>{} passed, not bit-identical (largest distance {} ulps)</summary><ul>",
        lossy.len(),
        farthest(lossy[0])
    )?;
    for outcome in lossy.iter().take(SHOWN) {
        let note = outcome.deviation().map(|d| d.describe()).unwrap_or_default();
        writeln!(
            out,
            "<li><code>{}</code>: {}</li>",
            Escaped(&outcome.name()),
            Escaped(&note)
        )?;
    }
    if lossy.len() > SHOWN {
        writeln!(out, "<li>… and {} more</li>", lossy.len() - SHOWN)?;
    }
    writeln!(out, "</ul></details>")
}

fn write_heatmap(board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<h3>Operator version × element type</h3>")?;
    writeln!(
        out,
        "<div class=\"legend\"><span>conformance:</span><span class=\"swatch s0\">0%</span>\
         <span class=\"swatch s5\">50%</span><span class=\"swatch s9\">&lt;100%</span>\
         <span class=\"swatch s10\">100%</span><span class=\"swatch unsup\">unsupported</span>\
         <span class=\"swatch na\">·</span><span>not accepted by the version</span>\
         <span class=\"swatch refusals\">c</span><span>not accepted: data sets that must be refused</span>\
         <span>modes: <strong>c</strong>onstant <strong>r</strong>eflect <strong>e</strong>dge \
         <strong>w</strong>rap, ✓ CenterCropPad; \
         <del>struck</del>: some of that mode's data sets did not pass</span></div>"
    )?;
    let ops: Vec<OpVersion> = OpVersion::all().collect();
    writeln!(out, "<div class=\"wrap\"><table class=\"heatmap\">")?;
    write!(out, "<thead><tr><th scope=\"col\">dtype</th>")?;
    for op in &ops {
        write!(out, "<th scope=\"col\">{}</th>", Escaped(&op.short_label()))?;
    }
    writeln!(out, "</tr></thead>")?;
    writeln!(out, "<tbody>")?;
    for data_type in DataType::ALL {
        write!(out, "<tr><th scope=\"row\">{}</th>", data_type.name())?;
        for &op in &ops {
            write_cell(op, data_type, board.heatmap.cell(op, data_type), out)?;
        }
        writeln!(out, "</tr>")?;
    }
    writeln!(out, "</tbody></table></div>")?;
    let unplaced = board.heatmap.unplaced;
    if unplaced.counted() + unplaced.skipped > 0 {
        writeln!(
            out,
            "<p class=\"muted\">{} data sets fit no cell (the model did not load, or it names an operator \
             version, mode or element type outside the table): {} passed, {} failed or errored, {} unsupported, {} skipped.</p>",
            unplaced.counted() + unplaced.skipped,
            unplaced.passed,
            unplaced.failed,
            unplaced.unsupported,
            unplaced.skipped
        )?;
    }
    Ok(())
}

fn write_cell(op: OpVersion, data_type: DataType, cell: Option<&HeatCell>, out: &mut dyn Write) -> io::Result<()> {
    let label = format!("{} × {}", op.short_label(), data_type.name());
    let accepted = op.accepts(data_type);
    let Some(cell) = cell else {
        let (class, text, title) = if accepted {
            ("empty", "–", format!("{label}: no data sets"))
        } else {
            ("na", "·", format!("{label}: not accepted by the version"))
        };
        return write!(
            out,
            "<td class=\"cell {class}\" data-op=\"{}\" data-dtype=\"{}\" title=\"{}\">{text}</td>",
            Escaped(&op.short_label()),
            data_type.name(),
            Escaped(&title)
        );
    };
    let total = cell.total();
    let class = match total.share() {
        None => "empty".to_owned(),
        Some(_) if total.passed + total.failed == 0 => "unsup".to_owned(),
        Some(share) => share_class(share),
    };
    let mut details = Vec::new();
    let mut letters = String::new();
    for (&mode, tally) in &cell.modes {
        let letter = mode_letter(mode);
        // A mode the version does not accept holds only data sets that must be refused: its
        // letter would read as the mode supported.
        let mode_accepted = mode.is_none_or(|m| op.modes().contains(&m));
        if !mode_accepted {
            details.push(format!(
                "{} (not accepted by the version, must be refused): {}",
                mode.map_or("CenterCropPad", |m| m.name()),
                describe(tally)
            ));
            continue;
        }
        if tally.passed == tally.counted() {
            letters.push_str(letter);
        } else {
            letters.push_str(&format!("<del>{letter}</del>"));
        }
        details.push(format!(
            "{}: {}",
            mode.map_or("CenterCropPad", |m| m.name()),
            describe(tally)
        ));
    }
    let (refusals, class) = if accepted {
        ("", class)
    } else {
        (" (data sets the version must refuse)", format!("{class} refusals"))
    };
    let title = format!("{label}{refusals}: {}", details.join("; "));
    write!(
        out,
        "<td class=\"cell {class}\" data-op=\"{}\" data-dtype=\"{}\" data-passed=\"{}\" data-counted=\"{}\" \
         title=\"{}\">{letters}<span class=\"n\">{}/{}</span></td>",
        Escaped(&op.short_label()),
        data_type.name(),
        total.passed,
        total.counted(),
        Escaped(&title),
        total.passed,
        total.counted()
    )
}

fn describe(tally: &Tally) -> String {
    let mut text = format!("{} of {} passed", tally.passed, tally.counted());
    if tally.unsupported > 0 {
        text.push_str(&format!(", {} unsupported", tally.unsupported));
    }
    if tally.not_verified > 0 {
        text.push_str(&format!(", {} refusals not verified", tally.not_verified));
    }
    if tally.skipped > 0 {
        text.push_str(&format!(", {} skipped", tally.skipped));
    }
    text
}

fn write_groups(index: usize, board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
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
    for (g, group) in board.groups.iter().enumerate() {
        write_group(board, &reproducer_id(index, g), group, out)?;
    }
    writeln!(out, "</div>")
}

fn basis_badge(basis: Basis) -> String {
    format!("<span class=\"badge basis b-{0}\">{0}</span>", basis.name())
}

/// The id of failure group `g` of backend `index`'s smallest data set: its reproducer.
fn reproducer_id(index: usize, g: usize) -> String {
    format!("repro-{index}-{g}")
}

/// What fails on this backend at a glance: one row per failure group — how many, status,
/// basis, reason — linking to its smallest data set below, whose entry holds the message and
/// the command that reruns it alone.
fn write_what_fails(index: usize, board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    if board.groups.is_empty() {
        return Ok(());
    }
    writeln!(out, "<h3>What fails</h3>")?;
    writeln!(
        out,
        "<p class=\"muted\">Grouped by basis, status and root cause, and a backend's errors and refusals \
         further by its own error code or, without one, its message with numbers, hex, paths and quoted names \
         replaced; each reason lists the messages its group holds, with counts.</p>"
    )?;
    writeln!(out, "<div class=\"wrap\"><table class=\"what-fails\">")?;
    writeln!(
        out,
        "<thead><tr><th class=\"num\">data sets</th><th>status</th><th>basis</th><th>reason</th>\
         <th>reproducer (smallest data set)</th></tr></thead><tbody>"
    )?;
    for (g, group) in board.groups.iter().enumerate() {
        let smallest = group.smallest();
        writeln!(
            out,
            "<tr><td class=\"num\">{}</td><td><span class=\"status st-{status}\">{status}</span>{}</td><td>{}</td>\
             <td class=\"reason\">{}</td><td><a href=\"#{}\"><code>{}</code></a>{}</td></tr>",
            group.outcomes.len(),
            if group.gates {
                ""
            } else {
                " <span class=\"badge\">not gating</span>"
            },
            basis_badge(group.basis),
            Escaped(&reason_label(group)),
            reproducer_id(index, g),
            Escaped(&smallest.name()),
            Escaped(&shape_text(smallest)),
            status = group.status.name(),
        )?;
    }
    writeln!(out, "</tbody></table></div>")
}

fn write_group(board: &Board<'_>, id: &str, group: &FailureGroup<'_>, out: &mut dyn Write) -> io::Result<()> {
    let smallest = group.smallest();
    writeln!(
        out,
        "<details class=\"group\" data-text=\"{}\"><summary><span class=\"count\">{}</span> {} \
         <span class=\"status st-{status}\">{status}</span>{} <span class=\"reason\">{}</span>\
         <span class=\"smallest\">smallest: <code>{}</code>{}</span></summary>",
        Escaped(&group.label().to_lowercase()),
        group.outcomes.len(),
        basis_badge(group.basis),
        if group.gates {
            ""
        } else {
            " <span class=\"badge\">not gating</span>"
        },
        Escaped(&reason_label(group)),
        Escaped(&smallest.name()),
        Escaped(&shape_text(smallest)),
        status = group.status.name(),
    )?;
    writeln!(out, "<ol class=\"data-sets\">")?;
    for (i, outcome) in group.outcomes.iter().enumerate() {
        // The first is the smallest: the reproducer the table above links to.
        write_data_set(board, &group.reason, (i == 0).then_some(id), outcome, out)?;
    }
    writeln!(out, "</ol></details>")
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

fn write_data_set(
    board: &Board<'_>,
    reason: &str,
    id: Option<&str>,
    outcome: &Outcome,
    out: &mut dyn Write,
) -> io::Result<()> {
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
    let text = format!("{name} {} {reason}", meta.join(" ")).to_lowercase();
    writeln!(
        out,
        "<li{} data-text=\"{}\"><details class=\"data-set\"><summary><code>{}</code> \
         <span class=\"meta\">{}{}</span></summary>",
        id.map_or(String::new(), |id| format!(" id=\"{id}\"")),
        Escaped(&text),
        Escaped(&name),
        Escaped(&meta.join(" · ")),
        Escaped(&shape_text(outcome))
    )?;
    writeln!(out, "<pre class=\"message\">{}</pre>", Escaped(&outcome.message()))?;
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
    writeln!(out, "</details></li>")
}
