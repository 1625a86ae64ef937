//! The HTML page of a [`RunDiff`]: both runs' totals, then one section per kind of change,
//! each data set expandable to its messages before and after.

use std::io::{self, Write};

use crate::cli::html::escape::{Escaped, Message};
use crate::cli::html::shell::{write_filter, write_foot, write_head};
use crate::cli::shares::{ShareCounts, percent};
use crate::report::Summary;
use crate::tensor::DataType;

use super::run_diff::{Change, Changed, RunDiff, status_text};

/// Writes `diff` as one self-contained HTML page.
pub(crate) fn write_diff_html(diff: &RunDiff<'_>, out: &mut dyn Write) -> io::Result<()> {
    write_head("pad-conformance diff", out)?;
    writeln!(
        out,
        "<p><code>{}</code> → <code>{}</code>: <strong>{}</strong> ({} unchanged).</p>",
        Escaped(&diff.old.backend),
        Escaped(&diff.new.backend),
        Escaped(&diff.line()),
        diff.unchanged
    )?;
    writeln!(out, "<div class=\"wrap\"><table class=\"totals\">")?;
    writeln!(
        out,
        "<thead><tr><th>run</th><th>backend</th><th class=\"num\">passed</th><th class=\"num\">failed</th>\
         <th class=\"num\">errored</th><th class=\"num\">skipped</th><th class=\"num\">unsupported</th>\
         <th class=\"num\">not gating</th><th class=\"num\">conformance</th></tr></thead><tbody>"
    )?;
    for (label, report) in [("old", diff.old), ("new", diff.new)] {
        let s: Summary = report.summary();
        writeln!(
            out,
            "<tr class=\"run-row\"><td>{label}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            Escaped(&report.backend),
            s.passed,
            s.failed,
            s.errored,
            s.skipped,
            s.unsupported,
            s.not_gating,
            percent(ShareCounts::of(&s).conformance())
        )?;
    }
    writeln!(out, "</tbody></table></div>")?;
    if !diff.changes.is_empty() {
        write_filter("changes", "filter by data set name or message", out)?;
    }
    writeln!(out, "<div id=\"changes\">")?;
    for change in Change::ALL {
        let rows: Vec<&Changed<'_>> = diff.of(change).collect();
        writeln!(
            out,
            "<section class=\"change\" id=\"{}\"><h2>{} ({})</h2>",
            change.name(),
            change.title(),
            rows.len()
        )?;
        if rows.is_empty() {
            writeln!(out, "<p class=\"muted\">None.</p>")?;
        } else {
            writeln!(out, "<ol class=\"data-sets\">")?;
            for row in rows {
                write_row(row, out)?;
            }
            writeln!(out, "</ol>")?;
        }
        writeln!(out, "</section>")?;
    }
    writeln!(out, "</div>")?;
    write_foot(out)
}

fn write_row(row: &Changed<'_>, out: &mut dyn Write) -> io::Result<()> {
    let latest = row.latest();
    let (before, after) = (status_text(row.old), status_text(row.new));
    writeln!(
        out,
        "<li data-text=\"{}\"><details class=\"data-set\"><summary><code>{}</code> \
         <span class=\"meta\">{} · {}</span> <span class=\"badge basis b-{basis}\">{basis}</span> \
         {} → {}</summary>",
        Escaped(&format!("{} {}", row.name, latest.message()).to_lowercase()),
        Escaped(&row.name),
        Escaped(&latest.operator()),
        Escaped(latest.dtype().map_or("-", DataType::name)),
        status_span(&before),
        status_span(&after),
        basis = latest.basis().kind,
    )?;
    for (label, outcome) in [("before", row.old), ("after", row.new)] {
        if let Some(o) = outcome.filter(|o| !o.message().is_empty()) {
            writeln!(
                out,
                "<p class=\"meta\">{label}:</p><pre class=\"message\">{}</pre>",
                Message(&o.message())
            )?;
        }
    }
    writeln!(out, "</details></li>")
}

/// A status as `status_text` writes it, coloured by its first word.
fn status_span(text: &str) -> String {
    let word = text.split(' ').next().unwrap_or_default();
    format!("<span class=\"st-{}\">{}</span>", Escaped(word), Escaped(text))
}

#[cfg(test)]
mod tests {
    use scraper::Html;

    use super::*;
    use crate::cli::scoreboard::tests::{SCRIPT_NAME, assert_inert, reports, select, text_of, within};

    #[test]
    fn the_diff_page_lists_each_kind_of_change_and_escapes_it() {
        let (passing, failing) = reports();
        let diff = RunDiff::new(&failing, &passing);
        let mut out = Vec::new();
        write_diff_html(&diff, &mut out).unwrap();
        let html = Html::parse_document(&String::from_utf8(out).unwrap());
        assert_inert(&html);
        let count = |id: &str| within(select(&html, &format!("section#{id}"))[0], "ol > li").len();
        assert_eq!(count("fixed"), 3);
        assert_eq!(count("regressed"), 0);
        assert_eq!(select(&html, "tr.run-row").len(), 2);
        let reverse = RunDiff::new(&passing, &failing);
        let mut out = Vec::new();
        write_diff_html(&reverse, &mut out).unwrap();
        let html = Html::parse_document(&String::from_utf8(out).unwrap());
        assert_inert(&html);
        let regressed = within(select(&html, "section#regressed")[0], "ol > li");
        assert_eq!(regressed.len(), 2);
        let names: Vec<String> = regressed.iter().map(|li| text_of(within(*li, "code")[0])).collect();
        assert_eq!(
            names,
            [format!("extended/{SCRIPT_NAME}/0"), "extended/test_a/0".to_owned()]
        );
        let broke = within(select(&html, "section#broke-not-gating")[0], "ol > li");
        assert_eq!(broke.len(), 1, "the rule failure is a breakage that does not gate");
        let pre: Vec<String> = select(&html, "pre.message").into_iter().map(text_of).collect();
        assert!(pre.contains(&failing.outcomes[1].message()));
    }
}
