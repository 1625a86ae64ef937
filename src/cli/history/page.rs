//! The history page: per runtime, a chart of the pass share over its stored
//! releases (inline SVG, nothing fetched), the releases' totals, and one line per failure group
//! with the releases where it changed. The same facts as docs/history.md
//! ([`timeline`](crate::cli::history::timeline)).

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::cli::html::escape::{Escaped, Message};
use crate::cli::html::shell::{write_filter, write_foot, write_head};

use super::stored::Release;
use super::timeline::{TrendPoint, group_histories, trend};

const CHART_WIDTH: f64 = 720.0;
const CHART_HEIGHT: f64 = 180.0;
const MARGIN: f64 = 36.0;

/// Writes the page for `all` (runtime → releases, in release order).
pub(crate) fn write_history_html(all: &BTreeMap<String, Vec<Release>>, out: &mut dyn Write) -> io::Result<()> {
    write_head("pad-conformance: conformance across releases", out)?;
    writeln!(
        out,
        "<p class=\"muted\">From the stored results in history/ (scripts/sweep, <code>pad-conformance history record</code>). \
         Pass share: passed, of the data sets a release supports.</p>"
    )?;
    write_filter("groups", "Filter failure groups", out)?;
    writeln!(out, "<div id=\"groups\">")?;
    for (runtime, releases) in all {
        writeln!(out, "<section class=\"runtime\" data-runtime=\"{}\">", Escaped(runtime))?;
        writeln!(out, "<h2>{}</h2>", Escaped(runtime))?;
        let points = trend(releases);
        write_chart(runtime, &points, out)?;
        write_totals(&points, out)?;
        writeln!(out, "<h3>Failure groups</h3><ul class=\"groups\">")?;
        for history in group_histories(releases) {
            let changes = history.changes().join(", ");
            let text = format!("{} {changes}", history.group);
            writeln!(
                out,
                "<li class=\"group-history\" data-text=\"{}\"><span class=\"reason\">{}</span>{} — <strong>{}</strong>\
                 <span class=\"smallest\">{} · e.g. <code>{}</code></span></li>",
                Message(&text),
                Message(&history.group),
                if history.gates {
                    ""
                } else {
                    " <span class=\"badge b-undefined\">not gating</span>"
                },
                Escaped(&changes),
                Escaped(&history.path()),
                Escaped(&history.example)
            )?;
        }
        writeln!(out, "</ul>")?;
        writeln!(out, "</section>")?;
    }
    writeln!(out, "</div>")?;
    write_foot(out)
}

/// The pass share of each release as a line over the releases, with one dot per release
/// (a release whose worker failed has none), each titled with its figures.
fn write_chart(runtime: &str, points: &[TrendPoint], out: &mut dyn Write) -> io::Result<()> {
    let step = if points.len() > 1 {
        (CHART_WIDTH - 2.0 * MARGIN) / (points.len() - 1) as f64
    } else {
        0.0
    };
    let x = |i: usize| MARGIN + step * i as f64;
    let y = |share: f64| CHART_HEIGHT - MARGIN - (CHART_HEIGHT - 2.0 * MARGIN) * share / 100.0;
    writeln!(
        out,
        "<div class=\"wrap\"><svg class=\"trend\" role=\"img\" viewBox=\"0 0 {CHART_WIDTH} {CHART_HEIGHT}\" width=\"{CHART_WIDTH}\" \
         height=\"{CHART_HEIGHT}\" data-releases=\"{}\"><title>{}: pass share over releases</title>",
        points.len(),
        Escaped(runtime)
    )?;
    for share in [0.0, 50.0, 100.0] {
        writeln!(
            out,
            "<line x1=\"{MARGIN}\" x2=\"{}\" y1=\"{y0:.1}\" y2=\"{y0:.1}\" stroke=\"#d1d9e0\"/><text x=\"4\" y=\"{:.1}\" font-size=\"10\">{share}%</text>",
            CHART_WIDTH - MARGIN,
            y(share) + 3.0,
            y0 = y(share),
        )?;
    }
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.pass_share().map(|s| format!("{:.1},{:.1}", x(i), y(s))))
        .collect();
    writeln!(
        out,
        "<polyline fill=\"none\" stroke=\"#116329\" stroke-width=\"2\" points=\"{}\"/>",
        line.join(" ")
    )?;
    for (i, point) in points.iter().enumerate() {
        if let Some(share) = point.pass_share() {
            writeln!(
                out,
                "<circle class=\"release-dot\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#116329\"><title>{}: {share:.1}% \
                 ({} passed, {} failing, {} unsupported)</title></circle>",
                x(i),
                y(share),
                Escaped(&point.version),
                point.passed,
                point.failing,
                point.unsupported
            )?;
        }
    }
    // The first, middle and last release name the axis.
    let mut labelled: Vec<usize> = vec![0, points.len() / 2, points.len().saturating_sub(1)];
    labelled.dedup();
    for i in labelled.into_iter().filter(|&i| i < points.len()) {
        writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            x(i),
            CHART_HEIGHT - MARGIN / 2.0,
            Escaped(&points[i].version)
        )?;
    }
    writeln!(out, "</svg></div>")
}

fn write_totals(points: &[TrendPoint], out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<details><summary>Each release's totals</summary><div class=\"wrap\"><table class=\"totals\"><thead><tr><th>release</th>\
         <th>run</th><th class=\"num\">passed</th><th class=\"num\">failing</th><th class=\"num\">unsupported</th>\
         <th class=\"num\">pass share</th></tr></thead><tbody>"
    )?;
    for point in points {
        let share = point.share_text();
        writeln!(
            out,
            "<tr class=\"release-row\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{share}</td></tr>",
            Escaped(&point.version),
            Escaped(&point.date),
            point.passed,
            point.failing,
            point.unsupported
        )?;
    }
    writeln!(out, "</tbody></table></div></details>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::history::timeline::tests::release;
    use crate::judge::check::Status;

    #[test]
    fn the_page_has_a_dot_per_release_a_row_per_release_and_escapes_group_text() {
        let bug = Some("spec errored: refused-valid — <script>alert(1)</script>");
        let all = BTreeMap::from([(
            "rt".to_owned(),
            vec![release("1.0", &[('a', Status::Errored, bug)]), release("1.1", &[])],
        )]);
        let mut out = Vec::new();
        write_history_html(&all, &mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert_eq!(page.matches("class=\"release-dot\"").count(), 2);
        assert_eq!(page.matches("class=\"release-row\"").count(), 2);
        assert!(page.contains("data-releases=\"2\""));
        assert!(page.contains("fixed in 1.1"), "{page}");
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(page.contains("1.0: 80.0%"), "{page}");
    }
}
