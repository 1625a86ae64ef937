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
    assert_eq!(texts(&html, "details.group span.smallest code"), ["test_wrap_pad/0"]);
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
    let cells = texts(&html, "td.cell[data-op=\"Pad-25\"][data-dtype=\"int32\"]");
    assert_eq!(cells, ["ew1/2", "ew1/2"]);
    let struck = texts(&html, "td.cell[data-op=\"Pad-25\"][data-dtype=\"int32\"] del");
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
    assert_eq!(
        texts(&html, "td.cell[data-op=\"Pad-25\"][data-dtype=\"int32\"] del"),
        ["w", "w"]
    );
    // Both outputs naming one file is refused before anything runs.
    let out = args(&table);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--html"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
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
