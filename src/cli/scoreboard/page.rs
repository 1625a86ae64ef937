//! The scoreboard page: where it comes from, the gate of each run weighed against a baseline,
//! totals per backend and corpus part, then per backend a heatmap and its failures (failures.rs).
//! Every piece of text from a report goes through [`Escaped`] or [`Message`].

use std::io::{self, Write};

use crate::cli::failure_groups::normalize_reason;
use crate::judge::check::{Outcome, Status};
use crate::operators::OpVersion;
use crate::report::Summary;
use crate::tensor::DataType;
use crate::text::first_line;

use crate::cli::html::escape::{Escaped, Message};
use crate::cli::html::shell::{write_foot, write_head};

use super::board::Board;
use super::failures::{group_order, write_groups, write_what_fails};
use super::gate::{gate_mark, write_gate_line, write_gates};
use super::heatmap::{HeatCell, Tally, mode_letter};
use super::provenance::{Provenance, write_provenance};
use crate::cli::shares::{ShareCounts, percent};

/// Writes the scoreboard of `boards` (one per backend, in order) as one HTML page, saying where
/// it comes from (`provenance`).
pub(crate) fn write_scoreboard(boards: &[Board<'_>], provenance: &Provenance, out: &mut dyn Write) -> io::Result<()> {
    write_head("pad-conformance scoreboard", out)?;
    let data_sets = boards.first().map_or(0, |b| b.report.outcomes.len());
    writeln!(
        out,
        "<p class=\"muted\">{data_sets} data sets of ONNX's Pad, CenterCropPad and com.microsoft Pad, {} backend{}.</p>",
        boards.len(),
        if boards.len() == 1 { "" } else { "s" }
    )?;
    write_provenance(boards, provenance, out)?;
    write_gates(boards, out)?;
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
        "<thead><tr><th>backend</th><th class=\"num\">conformance</th><th class=\"num\">passed</th>\
         <th class=\"num\">failed</th><th class=\"num\">errored</th><th class=\"num\">skipped</th>\
         <th class=\"num\">unsupported</th><th class=\"num\">not gating</th><th class=\"num\">not verified</th>\
         <th>runtime</th><th>version</th></tr></thead>"
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
        let runtime_cells = format!("<td class=\"runtime\">{runtime_name}</td><td class=\"version\">{version}</td>");
        let data = |value: Option<&String>| value.map_or(String::new(), |v| Escaped(v).to_string());
        let attributes = format!(
            "class=\"backend-row\" data-backend=\"{i}\" data-runtime=\"{}\" data-version=\"{}\" data-build=\"{}\" data-device=\"{}\"",
            data(runtime.map(|r| &r.name)),
            data(runtime.and_then(|r| r.version.as_ref())),
            data(runtime.and_then(|r| r.build.as_ref())),
            data(runtime.and_then(|r| r.device.as_ref())),
        );
        write_totals_row(&attributes, &name, &runtime_cells, &board.total, out)?;
        for (part, summary) in &board.parts {
            write_totals_row("class=\"part-row\"", part.label(), "<td></td><td></td>", summary, out)?;
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

/// One row of the totals: its label, the conformance beside it (on a phone the two stay in view
/// while the counts scroll), the counts, and `tail`, its last cells; `attributes`, `label` and
/// `tail` are markup written by this module.
fn write_totals_row(attributes: &str, label: &str, tail: &str, s: &Summary, out: &mut dyn Write) -> io::Result<()> {
    let share = ShareCounts::of(s).conformance();
    writeln!(
        out,
        "<tr {attributes}><td>{label}</td><td class=\"num share {}\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td>{tail}</tr>",
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
    write_gate_line(board, out)?;
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
    let order = group_order(board);
    write_what_fails(index, board, &order, out)?;
    write_groups(index, board, &order, out)?;
    write_unsupported(board, out)?;
    write_not_verified(board, out)?;
    writeln!(out, "</section>")
}

/// The refusals their twins did not verify, each with the first line of its message (the twin
/// and how it ended), at most a hundred: no pass, no failure, but the evidence a reader needs
/// to see it.
fn write_not_verified(board: &Board<'_>, out: &mut dyn Write) -> io::Result<()> {
    const SHOWN: usize = 100;
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
    for outcome in unverified.iter().take(SHOWN) {
        let mark = gate_mark(board.report.gate_of(outcome)).map_or_else(String::new, |mark| format!(" {mark}"));
        writeln!(
            out,
            "<li><code>{}</code>{mark}: {}</li>",
            Escaped(&outcome.name()),
            Message(&first_line(&outcome.message(), 200))
        )?;
    }
    if unverified.len() > SHOWN {
        writeln!(out, "<li>… and {} more</li>", unverified.len() - SHOWN)?;
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
        writeln!(
            out,
            "<li>{n} × <span class=\"reason\">{}</span></li>",
            Message(&first_line(reason, 300))
        )?;
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
         <span class=\"swatch s3\">30%</span><span class=\"swatch s5\">50%</span><span class=\"swatch s7\">70%</span>\
         <span class=\"swatch s9\">&lt;100%</span><span class=\"swatch s10\">100%</span>\
         <span class=\"swatch unsup\">unsupported</span>\
         <span class=\"swatch na\">·</span><span>not accepted by the version</span>\
         <span class=\"swatch refusals\">c</span><span>not accepted: data sets that must be refused</span>\
         <span>each cell: passed/counted; modes: <strong>c</strong>onstant <strong>r</strong>eflect <strong>e</strong>dge \
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

/// One cell, kept small (a page holds fifteen grids of some 300 cells): its column and row say
/// which operator version and element type it is; its class, its colour; its text, the modes
/// (struck when some of theirs did not pass) and `passed/counted`; its tooltip, when not
/// everything passed, the counts per mode (`c 2/6 (1 unsupported), w must be refused 1/1`).
fn write_cell(op: OpVersion, data_type: DataType, cell: Option<&HeatCell>, out: &mut dyn Write) -> io::Result<()> {
    let accepted = op.accepts(data_type);
    let Some(cell) = cell else {
        return if accepted {
            write!(out, "<td class=\"empty\">–</td>")
        } else {
            write!(out, "<td class=\"na\">·</td>")
        };
    };
    let total = cell.total();
    let class = match total.share() {
        None => "empty".to_owned(),
        Some(_) if total.passed + total.failed == 0 => "unsup".to_owned(),
        Some(share) => share_class(share),
    };
    let mut details = Vec::new();
    let (mut letters, mut struck, mut must_refuse) = (String::new(), String::new(), false);
    for (&mode, tally) in &cell.modes {
        let letter = mode_letter(mode);
        // A mode the version does not accept holds only data sets that must be refused: its
        // letter would read as the mode supported.
        let mode_accepted = mode.is_none_or(|m| op.modes().contains(&m));
        if !mode_accepted {
            must_refuse = true;
            details.push(format!("{letter} must be refused {}", describe(tally)));
            continue;
        }
        if tally.passed == tally.counted() {
            strike(&mut letters, &mut struck);
            letters.push_str(letter);
        } else {
            struck.push_str(letter);
        }
        details.push(format!("{letter} {}", describe(tally)));
    }
    strike(&mut letters, &mut struck);
    let class = if accepted { class } else { format!("{class} refusals") };
    // A tooltip only says more than the cell when something did not pass, or some mode's data
    // sets must be refused (its letter is not shown).
    let plain = total.passed == total.counted() && total.skipped == 0 && !must_refuse;
    let title = if plain {
        String::new()
    } else {
        format!(" title=\"{}\"", Escaped(&details.join(", ")))
    };
    write!(
        out,
        "<td class=\"{class}\"{title}>{letters}<i>{}/{}</i></td>",
        total.passed,
        total.counted()
    )
}

/// Moves the struck letters gathered so far into `letters`, in one `<del>`.
fn strike(letters: &mut String, struck: &mut String) {
    if !struck.is_empty() {
        letters.push_str(&format!("<del>{struck}</del>"));
        struck.clear();
    }
}

/// `2/6 (1 unsupported, 1 not verified)`: passed of counted, and what else the mode holds.
fn describe(tally: &Tally) -> String {
    let others: Vec<String> = [
        (tally.unsupported, "unsupported"),
        (tally.not_verified, "not verified"),
        (tally.skipped, "skipped"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if others.is_empty() {
        format!("{}/{}", tally.passed, tally.counted())
    } else {
        format!("{}/{} ({})", tally.passed, tally.counted(), others.join(", "))
    }
}
