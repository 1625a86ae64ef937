//! The binary's HTML scoreboard (`--format html`, `matrix --format html`) and `diff` of two
//! JSON reports: exit codes, and the pages parsed back.

use crate::support;

use std::path::Path;

use pad_conformance::Tensor;
use pad_conformance::testing::{DecodeOptions, read_tensor_file, write_tensor_file};
use scraper::{Html, Selector};
use support::files::{copy_dir, run, testdata};

/// test_edge_pad and test_wrap_pad as vendored, or with one expected value of test_wrap_pad
/// changed so that it fails.
fn tree(wrap_fails: bool) -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    for case in ["test_edge_pad", "test_wrap_pad"] {
        copy_dir(&testdata(&format!("onnx-1.22.0/node/{case}")), &dir.path().join(case));
    }
    if wrap_fails {
        let output = dir.path().join("test_wrap_pad/test_data_set_0/output_0.pb");
        let Tensor::Int32(mut values) = read_tensor_file(&output, &DecodeOptions::default()).unwrap() else {
            panic!("test_wrap_pad's output is int32");
        };
        values[[0, 0, 0, 0]] += 1000;
        write_tensor_file(&output, &Tensor::Int32(values), "y").unwrap();
    }
    dir
}

fn count(html: &Html, selector: &str) -> usize {
    html.select(&Selector::parse(selector).unwrap()).count()
}

fn texts(html: &Html, selector: &str) -> Vec<String> {
    html.select(&Selector::parse(selector).unwrap())
        .map(|e| e.text().collect())
        .collect()
}

fn read_page(path: &Path) -> Html {
    Html::parse_document(&std::fs::read_to_string(path).unwrap())
}

/// The texts of each heatmap's cell of operator version `op` (its column's heading) and element
/// type `dtype` (its row's), or of `inner` within them.
fn heat_cells(html: &Html, op: &str, dtype: &str, inner: &str) -> Vec<String> {
    fn select<'a>(element: scraper::ElementRef<'a>, selector: &str) -> Vec<scraper::ElementRef<'a>> {
        element.select(&Selector::parse(selector).unwrap()).collect()
    }
    let text = |element: scraper::ElementRef<'_>| element.text().collect::<String>();
    html.select(&Selector::parse("table.heatmap").unwrap())
        .flat_map(|table| {
            let column = select(table, "thead th")
                .into_iter()
                .position(|th| text(th) == op)
                .unwrap();
            let row = (select(table, "tbody tr").into_iter())
                .find(|row| text(select(*row, "th")[0]) == dtype)
                .unwrap();
            let cell = select(row, "td")[column - 1];
            if inner.is_empty() {
                vec![text(cell)]
            } else {
                select(cell, inner).into_iter().map(text).collect()
            }
        })
        .collect()
}

#[test]
fn a_run_and_a_matrix_write_the_scoreboard_page() {
    let failing = tree(true);
    let root = failing.path().to_str().unwrap();
    let out_dir = pad_conformance::testing::scratch_dir().unwrap();
    let page = out_dir.path().join("run.html");
    let out = run(&["--format", "html", "--output", page.to_str().unwrap(), root]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let html = read_page(&page);
    assert_eq!(count(&html, "tr.backend-row"), 1);
    assert_eq!(texts(&html, "details.group span.count"), ["1"]);
    assert_eq!(
        texts(&html, "details.group div.repro p.data-set code"),
        ["test_wrap_pad/0"]
    );
    // Where the page comes from: its command (the corpus is a tree of its own: not recorded).
    let provenance = texts(&html, "p.provenance").concat();
    assert!(
        provenance.starts_with("corpus version: not recorded · written 20")
            && provenance.contains(&format!(
                "by pad-conformance --format html --output {} {root}",
                page.display()
            )),
        "{provenance}"
    );
    assert_eq!(
        texts(&html, "code.rerun"),
        [format!("pad-conformance --backend ref --filter test_wrap_pad/0 {root}")]
    );
    // The options that change a verdict are repeated; the defaults are not.
    let strict = out_dir.path().join("strict.html");
    let out = run(&[
        "--format",
        "html",
        "--output",
        strict.to_str().unwrap(),
        "--basis",
        "rule,spec,reference",
        "--rtol",
        "0.5",
        "--atol",
        "1e-7",
        root,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        texts(&read_page(&strict), "code.rerun"),
        [format!(
            "pad-conformance --backend ref --basis spec,reference,rule --rtol 0.5 --atol 0.0000001 --filter test_wrap_pad/0 {root}"
        )]
    );
    let ulps = out_dir.path().join("ulps.html");
    let out = run(&[
        "--format",
        "html",
        "--output",
        ulps.to_str().unwrap(),
        "--ulps",
        "3",
        root,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        texts(&read_page(&ulps), "code.rerun"),
        [format!(
            "pad-conformance --backend ref --ulps 3 --filter test_wrap_pad/0 {root}"
        )]
    );
    let message = texts(&html, "pre.message").concat();
    assert!(
        message.starts_with("mismatch: output 0 \"y\": 1 of 126 elements differ"),
        "{message}"
    );
    assert!(
        message.contains("[0, 0, 0, 0]"),
        "the region-aware index list: {message}"
    );

    let matrix = out_dir.path().join("matrix.html");
    let out = run(&[
        "matrix",
        "--backend",
        "ref",
        "--backend",
        "ref",
        "--format",
        "html",
        "--output",
        matrix.to_str().unwrap(),
        root,
    ]);
    // wrap fails (the tree is made so): the matrix exits 1, as a run does.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let html = read_page(&matrix);
    assert_eq!(count(&html, "tr.backend-row"), 2);
    assert_eq!(count(&html, "section.backend"), 2);
    // Pad-25 × int32 holds both data sets: edge passes, wrap fails.
    let cells = heat_cells(&html, "Pad-25", "int32", "");
    assert_eq!(cells, ["ew1/2", "ew1/2"]);
    let struck = heat_cells(&html, "Pad-25", "int32", "del");
    assert_eq!(struck, ["w", "w"], "wrap failed, edge passed");

    // One run writes the table and, with --html, the same page: the backends run once.
    let (table, page) = (out_dir.path().join("table.md"), out_dir.path().join("page.html"));
    let args = |html: &Path| {
        run(&[
            "matrix",
            "--backend",
            "ref",
            "--backend",
            "ref",
            "--groups",
            "--output",
            table.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
            root,
        ])
    };
    let out = args(&page);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&table).unwrap().contains("#### Defects"));
    let html = read_page(&page);
    assert_eq!(count(&html, "tr.backend-row"), 2);
    assert_eq!(heat_cells(&html, "Pad-25", "int32", "del"), ["w", "w"]);
    // Both outputs naming one file is refused before anything runs.
    let out = args(&table);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--html"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A run weighed against a baseline: the page says first how the gate went, and marks each
/// failure new or known, with the baseline's reason and tracking link.
#[test]
fn a_gated_run_shows_its_gate_on_the_page() {
    let failing = tree(true);
    let root = failing.path().to_str().unwrap();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let baseline = dir.path().join("baseline.json");
    let recorded = run(&["--write-baseline", baseline.to_str().unwrap(), root]);
    assert_eq!(
        recorded.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    let mut written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    let entry = &mut written["expected"]["test_wrap_pad/0"];
    entry["reason"] = "wrap off by <one>".into();
    entry["tracking"] = "https://bugs.example/7".into();
    std::fs::write(&baseline, written.to_string()).unwrap();

    let page = dir.path().join("gated.html");
    let args = |baseline: &Path| {
        run(&[
            "--format",
            "html",
            "--output",
            page.to_str().unwrap(),
            "--baseline",
            baseline.to_str().unwrap(),
            root,
        ])
    };
    let out = args(&baseline);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(text.find("<section id=\"gate\">").unwrap() < text.find("<h2 id=\"totals\">").unwrap());
    let html = read_page(&page);
    assert_eq!(texts(&html, "div.gate-summary p.verdict"), ["Gate: passes"]);
    let counts = texts(&html, "ul.gate-counts li span.n");
    assert_eq!(counts[..4], ["0", "1", "0", "0"], "new, known, fixed, stale");
    assert_eq!(texts(&html, "p.cluster .known-reason"), ["wrap off by <one>"]);
    let links: Vec<String> = html
        .select(&Selector::parse("p.cluster a.tracking").unwrap())
        .map(|a| a.value().attr("href").unwrap().to_owned())
        .collect();
    assert_eq!(links, ["https://bugs.example/7"]);

    // Without the entry, the same failure is new: the gate fails, and the page says so.
    written["expected"] = serde_json::json!({});
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, written.to_string()).unwrap();
    assert_eq!(args(&empty).status.code(), Some(1));
    let html = read_page(&page);
    assert_eq!(texts(&html, "div.gate-summary p.verdict"), ["Gate: fails"]);
    assert_eq!(texts(&html, "details.group > summary span.gate.g-new"), ["1 new"]);
    assert_eq!(texts(&html, "div.repro span.gate"), ["new failure"]);
    assert_eq!(
        texts(&html, "ul.names > li details.data-set summary"),
        ["test_wrap_pad/0"]
    );
}

#[test]
fn diff_reports_fixes_and_regressions_with_its_exit_codes() {
    let (failing, passing) = (tree(true), tree(false));
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let old = dir.path().join("old.json");
    let new = dir.path().join("new.json");
    let report = |root: &Path, file: &Path| {
        run(&[
            "--format",
            "json",
            "--output",
            file.to_str().unwrap(),
            root.to_str().unwrap(),
        ])
    };
    assert_eq!(report(failing.path(), &old).status.code(), Some(1));
    assert_eq!(report(passing.path(), &new).status.code(), Some(0));

    let fixed = run(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stderr)
    );
    let text = String::from_utf8(fixed.stdout).unwrap();
    assert!(text.contains("#### Fixed (1)"), "{text}");
    assert!(
        text.contains("| `test_wrap_pad/0` | Pad-25 | spec | failed | passed |"),
        "{text}"
    );
    assert!(!text.contains("Regressed ("), "{text}");

    let page = dir.path().join("diff.html");
    let regressed = run(&[
        "diff",
        new.to_str().unwrap(),
        old.to_str().unwrap(),
        "--format",
        "html",
        "--output",
        page.to_str().unwrap(),
    ]);
    assert_eq!(regressed.status.code(), Some(1));
    let stderr = String::from_utf8(regressed.stderr).unwrap();
    assert!(
        stderr.contains("1 regressed, 0 broke (not gating), 0 fixed"),
        "{stderr}"
    );
    let html = read_page(&page);
    assert_eq!(texts(&html, "section#regressed li code"), ["test_wrap_pad/0"]);
    assert_eq!(count(&html, "section#fixed li"), 0);

    let missing = run(&["diff", old.to_str().unwrap(), "/nonexistent/new.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/new.json"));
    assert_eq!(run(&["diff", old.to_str().unwrap()]).status.code(), Some(2));
}
