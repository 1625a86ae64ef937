//! The history page: per runtime, what changed in each release (newest first, the newest
//! open), a chart of conformance and coverage over its stored releases beside one of the
//! counts they are made of (inline SVG, nothing fetched), each marking where the corpus or the
//! judging changed, the releases' totals, and one line per failure group with the releases
//! where it changed. The same facts as docs/history.md
//! ([`timeline`](crate::cli::history::timeline), [`changes`](crate::cli::history::changes)).

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::cli::html::escape::{Escaped, Message};
use crate::cli::html::shell::{write_filter, write_foot, write_head};
use crate::cli::shares::{ShareCounts, percent};

use super::changes::{ReleaseChanges, release_changes};
use super::stored::Release;
use super::timeline::{TrendPoint, basis_marks, group_histories, group_label, trend};

const CHART_WIDTH: f64 = 720.0;
const CHART_HEIGHT: f64 = 180.0;
const MARGIN: f64 = 40.0;

/// Writes the page for `all` (runtime → releases, in release order).
pub(crate) fn write_history_html(all: &BTreeMap<String, Vec<Release>>, out: &mut dyn Write) -> io::Result<()> {
    write_head("pad-conformance: conformance across releases", out)?;
    writeln!(
        out,
        "<p class=\"muted\">From the stored results in history/ (scripts/sweep, <code>pad-conformance history record</code>). \
         Conformance: passed ÷ applicable; coverage: supported ÷ applicable (docs/report-format.md#shares). Applicable: \
         the data sets a release ran but the not applicable; supported: applicable but the unsupported (outside the \
         runtime's profile or the release's format limits). A dashed mark: the corpus or the judging changed there, and \
         with it the data sets every figure counts. <code>pad-conformance history case NAME</code> shows a data set \
         across every release.</p>"
    )?;
    write_filter("groups", "Filter changes and failure groups", out)?;
    writeln!(out, "<div id=\"groups\">")?;
    for (runtime, releases) in all {
        writeln!(out, "<section class=\"runtime\" data-runtime=\"{}\">", Escaped(runtime))?;
        writeln!(out, "<h2>{}</h2>", Escaped(runtime))?;
        let points = trend(releases);
        let marks = basis_marks(releases);
        write_changes(runtime, &release_changes(releases), out)?;
        write_share_chart(runtime, &points, &marks, out)?;
        write_count_chart(runtime, &points, &marks, out)?;
        write_totals(&points, &marks, out)?;
        writeln!(out, "<h3>Failure groups</h3><ul class=\"groups\">")?;
        for history in group_histories(releases) {
            let changes = history.changes().join(", ");
            let label = group_label(&history.group);
            let text = format!("{label} {} {changes}", history.group);
            writeln!(
                out,
                "<li class=\"group-history\" data-text=\"{}\"><span class=\"reason\">{}</span>{} — <strong>{}</strong>\
                 <span class=\"smallest\">{} · e.g. <code>{}</code></span>{}</li>",
                Message(&text.to_lowercase()),
                Message(&label),
                if history.gates {
                    ""
                } else {
                    " <span class=\"badge b-undefined\">not gating</span>"
                },
                Escaped(&changes),
                Escaped(&history.path()),
                Escaped(&history.example),
                history
                    .message
                    .as_deref()
                    .map_or_else(String::new, |m| format!("<div class=\"message\">{}</div>", Escaped(m)))
            )?;
        }
        writeln!(out, "</ul>")?;
        writeln!(out, "</section>")?;
    }
    writeln!(out, "</div>")?;
    write_foot(out)
}

/// What changed in each release, newest first, the newest open: each change with its example
/// and the command that shows the example across every release.
fn write_changes(runtime: &str, releases: &[ReleaseChanges], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<h3>What changed, newest release first</h3>")?;
    let mut unchanged = Vec::new();
    let mut first = true;
    for release in releases.iter().rev() {
        let Some(since) = &release.since else {
            let why = if release.worker_failed {
                "the worker failed its self-check"
            } else {
                "the first stored release"
            };
            writeln!(
                out,
                "<p class=\"release-note\"><strong>{}</strong> ({}): {why}.</p>",
                Escaped(&release.version),
                Escaped(&release.date)
            )?;
            continue;
        };
        if release.changes.is_empty() && release.basis_changed.is_empty() {
            unchanged.push(release.version.as_str());
            continue;
        }
        let basis = match release.basis_changed.as_slice() {
            [] => String::new(),
            moved => format!("; {}", moved.join(", ")),
        };
        writeln!(
            out,
            "<details class=\"release-changes\" id=\"{}\"{}><summary><strong>{}</strong> ({}, since {}{}) — \
             <span class=\"summary\">{}</span></summary><ul>",
            Escaped(&format!("changes-{runtime}-{}", release.version)),
            if first { " open" } else { "" },
            Escaped(&release.version),
            Escaped(&release.date),
            Escaped(since),
            Escaped(&basis),
            Escaped(&release.summary())
        )?;
        first = false;
        if release.changes.is_empty() {
            writeln!(out, "<li>No data set changed.</li>")?;
        }
        for change in &release.changes {
            let text = change.text(since);
            let example = match &change.example {
                Some(name) => format!(
                    " · e.g. <code>{}</code> — <code class=\"case\">pad-conformance history case {}</code>",
                    Escaped(name),
                    Escaped(name)
                ),
                None => String::new(),
            };
            let said = change
                .message
                .as_deref()
                .map_or_else(String::new, |m| format!("<div class=\"message\">{}</div>", Escaped(m)));
            writeln!(
                out,
                "<li class=\"change{}\" data-text=\"{}\">{}{}{example}{said}</li>",
                if change.kind.is_new_failure() {
                    " new-failure"
                } else {
                    ""
                },
                Escaped(&text.to_lowercase()),
                Escaped(&text),
                if change.kind.names_a_group() && !change.gates {
                    " <span class=\"badge b-undefined\">not gating</span>"
                } else {
                    ""
                }
            )?;
        }
        writeln!(out, "</ul></details>")?;
    }
    if !unchanged.is_empty() {
        writeln!(
            out,
            "<p class=\"muted\">No data set changed in {}.</p>",
            Escaped(&unchanged.join(", "))
        )?;
    }
    Ok(())
}

/// The x of release `i` of `n` and the step between two.
fn x_of(i: usize, n: usize) -> f64 {
    let step = if n > 1 {
        (CHART_WIDTH - 2.0 * MARGIN) / (n - 1) as f64
    } else {
        0.0
    };
    MARGIN + step * i as f64
}

/// The dashed lines at the releases where the corpus or the judging changed, each labelled.
fn write_marks(points: &[TrendPoint], marks: &[(usize, String)], out: &mut dyn Write) -> io::Result<()> {
    for (i, moved) in marks {
        let x = x_of(*i, points.len());
        writeln!(
            out,
            "<g class=\"basis-mark\"><line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#9a6700\" \
             stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#9a6700\">{}</text>\
             <title>{}: {}</title></g>",
            MARGIN / 2.0,
            CHART_HEIGHT - MARGIN,
            x + 3.0,
            MARGIN / 2.0 + 8.0,
            Escaped(moved),
            Escaped(&points[*i].version),
            Escaped(moved)
        )?;
    }
    Ok(())
}

/// The first, middle and last release name the axis.
fn write_axis(points: &[TrendPoint], out: &mut dyn Write) -> io::Result<()> {
    let mut labelled: Vec<usize> = vec![0, points.len() / 2, points.len().saturating_sub(1)];
    labelled.dedup();
    for i in labelled.into_iter().filter(|&i| i < points.len()) {
        writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            x_of(i, points.len()),
            CHART_HEIGHT - MARGIN / 2.0,
            Escaped(&points[i].version)
        )?;
    }
    Ok(())
}

/// One share drawn as a line: its name, colour, dash and the class of its dots.
struct ShareLine {
    name: &'static str,
    colour: &'static str,
    dash: &'static str,
    dot: &'static str,
    of: fn(&ShareCounts) -> Option<f64>,
}

/// Conformance and coverage of each release as two lines over the releases, with one dot per
/// release on each (a release with nothing applicable, or whose worker failed, has none),
/// each titled with its figures.
fn write_share_chart(
    runtime: &str,
    points: &[TrendPoint],
    marks: &[(usize, String)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let x = |i: usize| x_of(i, points.len());
    let y = |share: f64| CHART_HEIGHT - MARGIN - (CHART_HEIGHT - 2.0 * MARGIN) * share;
    writeln!(
        out,
        "<div class=\"wrap\"><svg class=\"trend\" role=\"img\" viewBox=\"0 0 {CHART_WIDTH} {CHART_HEIGHT}\" width=\"{CHART_WIDTH}\" \
         height=\"{CHART_HEIGHT}\" data-releases=\"{}\"><title>{}: conformance and coverage over releases</title>",
        points.len(),
        Escaped(runtime)
    )?;
    for share in [0.0, 0.5, 1.0] {
        writeln!(
            out,
            "<line x1=\"{MARGIN}\" x2=\"{}\" y1=\"{y0:.1}\" y2=\"{y0:.1}\" stroke=\"#d1d9e0\"/><text x=\"4\" y=\"{:.1}\" font-size=\"10\">{}%</text>",
            CHART_WIDTH - MARGIN,
            y(share) + 3.0,
            share * 100.0,
            y0 = y(share),
        )?;
    }
    write_marks(points, marks, out)?;
    let lines = [
        ShareLine {
            name: "coverage",
            colour: "#0969da",
            dash: "stroke-dasharray=\"5 3\"",
            dot: "coverage-dot",
            of: ShareCounts::coverage,
        },
        ShareLine {
            name: "conformance",
            colour: "#116329",
            dash: "",
            dot: "release-dot",
            of: ShareCounts::conformance,
        },
    ];
    for ShareLine {
        name,
        colour,
        dash,
        dot,
        of,
    } in lines
    {
        let share = |p: &TrendPoint| of(&p.counts());
        let line: Vec<String> = points
            .iter()
            .enumerate()
            .filter_map(|(i, p)| share(p).map(|s| format!("{:.1},{:.1}", x(i), y(s))))
            .collect();
        writeln!(
            out,
            "<polyline class=\"{name}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" {dash} points=\"{}\"/>",
            line.join(" ")
        )?;
        for (i, point) in points.iter().enumerate() {
            if let Some(s) = share(point) {
                let counts = point.counts();
                writeln!(
                    out,
                    "<circle class=\"{dot}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"><title>{}: {name} {} \
                     ({} passed, {} supported, {} applicable)</title></circle>",
                    x(i),
                    y(s),
                    Escaped(&point.version),
                    percent(Some(s)),
                    counts.passed,
                    counts.supported,
                    counts.applicable
                )?;
            }
        }
    }
    writeln!(
        out,
        "<text x=\"{:.1}\" y=\"12\" font-size=\"10\" fill=\"#116329\">— conformance</text>\
         <text x=\"{:.1}\" y=\"24\" font-size=\"10\" fill=\"#0969da\">- - coverage</text>",
        CHART_WIDTH - MARGIN - 80.0,
        CHART_WIDTH - MARGIN - 80.0
    )?;
    write_axis(points, out)?;
    writeln!(out, "</svg></div>")
}

/// The counts each release's shares are made of, as one stacked bar per release: passed,
/// failing (and not verified), unsupported; the bar's height is the data sets applicable,
/// which moves when the corpus does.
fn write_count_chart(
    runtime: &str,
    points: &[TrendPoint],
    marks: &[(usize, String)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let most = points.iter().map(|p| p.counts().applicable).max().unwrap_or(0).max(1);
    let h = |n: usize| (CHART_HEIGHT - 2.0 * MARGIN) * n as f64 / most as f64;
    let step = if points.len() > 1 {
        (CHART_WIDTH - 2.0 * MARGIN) / (points.len() - 1) as f64
    } else {
        CHART_WIDTH - 2.0 * MARGIN
    };
    let width = (step * 0.7).clamp(2.0, 24.0);
    writeln!(
        out,
        "<div class=\"wrap\"><svg class=\"counts\" role=\"img\" viewBox=\"0 0 {CHART_WIDTH} {CHART_HEIGHT}\" width=\"{CHART_WIDTH}\" \
         height=\"{CHART_HEIGHT}\" data-releases=\"{}\"><title>{}: data sets passed, failing and unsupported over releases</title>",
        points.len(),
        Escaped(runtime)
    )?;
    let base = CHART_HEIGHT - MARGIN;
    for n in [0, most / 2, most] {
        writeln!(
            out,
            "<line x1=\"{MARGIN}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#d1d9e0\"/><text x=\"4\" y=\"{:.1}\" font-size=\"10\">{n}</text>",
            CHART_WIDTH - MARGIN,
            base - h(n) + 3.0,
            y = base - h(n),
        )?;
    }
    write_marks(points, marks, out)?;
    for (i, point) in points.iter().enumerate() {
        let counts = point.counts();
        let x = x_of(i, points.len()) - width / 2.0;
        let mut top = base;
        write!(out, "<g class=\"release-bar\">")?;
        let failing = point.failing + point.not_verified;
        for (n, colour) in [
            (point.passed, "#116329"),
            (failing, "#cf222e"),
            (point.unsupported, "#afb8c1"),
        ] {
            top -= h(n);
            write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{width:.1}\" height=\"{:.1}\" fill=\"{colour}\"/>",
                h(n)
            )?;
        }
        writeln!(
            out,
            "<title>{}: {} passed, {} failing, {} not verified, {} unsupported; {} applicable</title></g>",
            Escaped(&point.version),
            point.passed,
            point.failing,
            point.not_verified,
            point.unsupported,
            counts.applicable
        )?;
    }
    writeln!(
        out,
        "<text x=\"{:.1}\" y=\"12\" font-size=\"10\"><tspan fill=\"#116329\">■ passed</tspan> <tspan fill=\"#cf222e\">■ failing</tspan> \
         <tspan fill=\"#8c959f\">■ unsupported</tspan></text>",
        CHART_WIDTH - MARGIN - 170.0
    )?;
    write_axis(points, out)?;
    writeln!(out, "</svg></div>")
}

fn write_totals(points: &[TrendPoint], marks: &[(usize, String)], out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<details><summary>Each release's totals</summary><div class=\"wrap\"><table class=\"totals\"><thead><tr><th>release</th>\
         <th>run</th><th>corpus</th><th class=\"num\">passed</th><th class=\"num\">failing</th><th class=\"num\">not verified</th>\
         <th class=\"num\">unsupported</th><th class=\"num\">applicable</th><th class=\"num\">coverage</th>\
         <th class=\"num\">conformance</th></tr></thead><tbody>"
    )?;
    for (i, point) in points.iter().enumerate() {
        let counts = point.counts();
        let (coverage, conformance) = match point.no_share() {
            Some(why) => ("–".to_owned(), why.to_owned()),
            None => (percent(counts.coverage()), percent(counts.conformance())),
        };
        let corpus = match marks.iter().find(|(at, _)| *at == i) {
            Some((_, moved)) => format!("<strong>◆ {}</strong>", Escaped(moved)),
            None => Escaped(&point.corpora).to_string(),
        };
        writeln!(
            out,
            "<tr class=\"release-row\"><td>{}</td><td>{}</td><td>{corpus}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{coverage}</td>\
             <td class=\"num\">{conformance}</td></tr>",
            Escaped(&point.version),
            Escaped(&point.date),
            point.passed,
            point.failing,
            point.not_verified,
            point.unsupported,
            counts.applicable
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
        let bug = Some("spec errored: refuses-valid — <script>alert(1)</script>");
        let all = BTreeMap::from([(
            "rt".to_owned(),
            vec![release("1.0", &[('a', Status::Errored, bug)]), release("1.1", &[])],
        )]);
        let mut out = Vec::new();
        write_history_html(&all, &mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert_eq!(page.matches("class=\"release-dot\"").count(), 2);
        assert_eq!(page.matches("class=\"coverage-dot\"").count(), 2);
        assert_eq!(page.matches("class=\"release-row\"").count(), 2);
        assert_eq!(page.matches("class=\"release-bar\"").count(), 2);
        assert!(page.contains("data-releases=\"2\""));
        assert!(page.contains("fixed in 1.1"), "{page}");
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(page.contains("1.0: conformance 80.0%"), "{page}");
        // The newest release's changes, open, with the example and the command that follows it.
        assert!(
            page.contains("<details class=\"release-changes\" id=\"changes-rt-1.1\" open>"),
            "{page}"
        );
        assert!(
            page.contains(
                "e.g. <code>case_a/0</code> — <code class=\"case\">pad-conformance history case case_a/0</code>"
            ),
            "{page}"
        );
    }

    #[test]
    fn a_corpus_change_is_marked_on_both_charts_and_in_the_totals() {
        let mut new = release("1.1", &[]);
        new.corpora.insert("onnx-testdata".into(), 5);
        let all = BTreeMap::from([("rt".to_owned(), vec![release("1.0", &[]), new])]);
        let mut out = Vec::new();
        write_history_html(&all, &mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert_eq!(page.matches("<g class=\"basis-mark\">").count(), 2, "{page}");
        assert!(page.contains("<title>1.1: corpus onnx-testdata 5</title>"), "{page}");
        assert!(
            page.contains("<td><strong>◆ corpus onnx-testdata 5</strong></td>"),
            "{page}"
        );
    }
}
