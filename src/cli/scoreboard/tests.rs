//! The generated pages, parsed as a browser parses them (html5ever, through `scraper`):
//! structure, counts, and hostile names and messages that must stay text.

use std::time::Duration;

use scraper::{ElementRef, Html, Selector};

use super::*;
use crate::backend::RuntimeInfo;
use crate::data::basis::{Basis, BasisNote};
use crate::judge::check::{Outcome, Status};
use crate::operators::{ModeAttribute, OpVersion, PadOp};
use crate::report::RunReport;
use crate::tensor::DataType;

pub(in crate::cli) const SCRIPT_NAME: &str = "<script>alert(1)</script>";
const IMG_NAME: &str = "\"><img src=x onerror=alert(2)>";

struct Data<'a> {
    id: &'a str,
    version: i64,
    mode: &'a str,
    dtype: &'a str,
    shape: Option<Vec<usize>>,
    status: Status,
    basis: Basis,
    message: &'a str,
}

/// A data set as a report of format 1 records it: its status and message, no verdict.
fn outcome(d: Data<'_>) -> Outcome {
    Outcome::example_said(d.id, d.status, d.message)
        .with_operator((
            Some(PadOp::Pad),
            Some(d.version),
            Some(ModeAttribute::from_name(d.mode)),
        ))
        .with_input(DataType::from_name(d.dtype), d.shape)
        .with_basis(BasisNote {
            kind: d.basis,
            section: "docs/semantics.md#x".into(),
        })
        .with_gates(d.basis <= Basis::Reference)
}

fn data(id: &str, version: i64, mode: &'static str, dtype: &'static str, status: Status) -> Outcome {
    outcome(Data {
        id,
        version,
        mode,
        dtype,
        shape: Some(vec![2, 2]),
        status,
        basis: Basis::Spec,
        message: "",
    })
}

/// A backend that passes everything, and one that fails hostile-named data sets.
pub(in crate::cli) fn reports() -> (RunReport, RunReport) {
    let ids = ["onnx-1.22.0/node/test_wrap_pad", "extended/test_a", "extended/test_b"];
    let (script, img) = (format!("extended/{SCRIPT_NAME}"), format!("extended/{IMG_NAME}"));
    let passing = RunReport {
        backend: "ref".into(),
        outcomes: vec![
            data(ids[0], 25, "wrap", "int32", Status::Passed),
            data(ids[1], 19, "wrap", "float", Status::Passed),
            data(ids[2], 19, "edge", "float", Status::Passed),
            data(&script, 19, "wrap", "float", Status::Passed),
            data(&img, 21, "constant", "int4", Status::Passed),
        ],
        gates: Default::default(),
        duration: Duration::ZERO,
        baseline: None,
        runtime: None,
        shard: None,
        run: None,
    };
    let mut failing = passing.clone();
    failing.backend = format!("evil {IMG_NAME}");
    failing.runtime = Some(
        RuntimeInfo::new(format!("rt {IMG_NAME}"))
            .version("1.2")
            .build(SCRIPT_NAME)
            .device(format!("gpu {IMG_NAME}")),
    );
    failing.outcomes[1] = outcome(Data {
        id: ids[1],
        version: 19,
        mode: "wrap",
        dtype: "float",
        shape: Some(vec![3, 4]),
        status: Status::Errored,
        basis: Basis::Spec,
        message: &format!("no kernel for Pad(19) {IMG_NAME}\nsecond line {SCRIPT_NAME}"),
    });
    failing.outcomes[3] = outcome(Data {
        id: &script,
        version: 19,
        mode: "wrap",
        dtype: "float",
        shape: Some(vec![1, 2]),
        status: Status::Errored,
        basis: Basis::Spec,
        message: &format!("no kernel for Pad(21) {IMG_NAME}\n<b>bold</b>"),
    });
    failing.outcomes[4] = outcome(Data {
        id: &img,
        version: 21,
        mode: "constant",
        dtype: "int4",
        shape: Some(vec![2, 2]),
        status: Status::Failed,
        basis: Basis::Rule,
        message: "output 0 \"y\": 1 of 6 elements differ",
    });
    (passing, failing)
}

fn page(reports: &[RunReport]) -> (String, Html) {
    let boards: Vec<Board<'_>> = reports
        .iter()
        .map(|r| Board::new(r, Rerun::new(&format!("exec:{}", r.backend), &[], &[])))
        .collect();
    let mut out = Vec::new();
    write_scoreboard(&boards, &Provenance::default(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let html = Html::parse_document(&text);
    (text, html)
}

pub(in crate::cli) fn select<'a>(html: &'a Html, selector: &str) -> Vec<ElementRef<'a>> {
    html.select(&Selector::parse(selector).unwrap()).collect()
}

pub(in crate::cli) fn within<'a>(element: ElementRef<'a>, selector: &str) -> Vec<ElementRef<'a>> {
    element.select(&Selector::parse(selector).unwrap()).collect()
}

fn text(element: ElementRef<'_>) -> String {
    element.text().collect()
}

/// Nothing from the reports became markup: one script (ours), no images, no event
/// handlers, no links leaving the page, nothing fetched.
pub(in crate::cli) fn assert_inert(html: &Html) {
    let scripts = select(html, "script");
    assert_eq!(scripts.len(), 1);
    assert_eq!(text(scripts[0]).trim(), include_str!("../html/filter.js").trim());
    assert!(select(html, "img, link, iframe, object, embed, b").is_empty());
    for element in select(html, "*") {
        for (name, value) in element.value().attrs() {
            assert!(!name.starts_with("on"), "event handler {name}={value}");
            assert!(name != "src", "fetches {value}");
            // Inside the page, or a known failure's tracking link to a web address.
            let tracking = element.value().classes().any(|c| c == "tracking") && value.starts_with("https://");
            assert!(name != "href" || value.starts_with('#') || tracking, "links to {value}");
        }
    }
}

#[test]
fn the_page_is_one_document_that_fetches_nothing_and_fits_a_narrow_screen() {
    let (passing, failing) = reports();
    let (text, html) = page(&[passing, failing]);
    assert!(text.starts_with("<!DOCTYPE html>"));
    assert_inert(&html);
    let viewport = select(&html, "meta[name=viewport]");
    assert_eq!(
        viewport[0].value().attr("content"),
        Some("width=device-width, initial-scale=1")
    );
    assert_eq!(select(&html, "style").len(), 1);
    // Tables scroll sideways in their own box rather than widening the page: the totals, two
    // heatmaps and one what-fails table.
    assert_eq!(select(&html, "div.wrap > table").len(), 4);
    // The filter is hidden until the script shows it; expanding needs no script.
    assert!(
        select(&html, "p.filter")
            .iter()
            .all(|p| p.value().attr("hidden").is_some())
    );
    assert!(!select(&html, "details.group").is_empty());
}

#[test]
fn hostile_names_and_messages_stay_text() {
    let (passing, failing) = reports();
    let (text, html) = page(&[passing, failing.clone()]);
    assert_inert(&html);
    assert!(!text.contains(SCRIPT_NAME) && !text.contains("<img"));
    let codes: Vec<String> = select(&html, "p.data-set code").into_iter().map(text_of).collect();
    assert!(codes.contains(&format!("extended/{SCRIPT_NAME}/0")), "{codes:?}");
    let names: Vec<String> = select(&html, "ul.names > li").into_iter().map(text_of).collect();
    assert!(names.contains(&format!("extended/{IMG_NAME}/0")), "{names:?}");
    // The reproducer's message, whole (it is short), its markup text.
    let messages: Vec<String> = select(&html, "pre.message").into_iter().map(text_of).collect();
    assert!(messages.contains(&failing.outcomes[3].message()), "{messages:?}");
    let section = select(&html, "section.backend")[1];
    assert_eq!(section.value().attr("data-backend"), Some(failing.backend.as_str()));
    assert_eq!(text_of(within(section, "h2")[0]), failing.backend);
}

pub(in crate::cli) fn text_of(element: ElementRef<'_>) -> String {
    text(element)
}

/// The heatmap cell of operator version `op` (its column's heading) and element type `dtype`
/// (its row's).
fn cell<'a>(section: ElementRef<'a>, op: &str, dtype: &str) -> ElementRef<'a> {
    let columns: Vec<String> = within(section, "table.heatmap thead th")
        .into_iter()
        .map(text_of)
        .collect();
    let column = columns.iter().position(|c| c == op).unwrap() - 1;
    let row = (within(section, "table.heatmap tbody tr").into_iter())
        .find(|row| text_of(within(*row, "th")[0]) == dtype)
        .unwrap();
    within(row, "td")[column]
}

#[test]
fn totals_split_into_upstream_and_extended() {
    let (passing, failing) = reports();
    let (_, html) = page(&[passing, failing]);
    let rows = select(&html, "tr.backend-row");
    assert_eq!(rows.len(), 2);
    let cells = |row: ElementRef<'_>| within(row, "td").into_iter().map(text_of).collect::<Vec<_>>();
    // backend, runtime, version, share, passed, failed, errored, skipped, unsupported, not gating,
    // not verified
    assert_eq!(
        cells(rows[0]),
        ["ref", "100.0%", "5", "0", "0", "0", "0", "0", "0", "–", "–"]
    );
    let evil = format!("evil {IMG_NAME}");
    let runtime = format!("rt {IMG_NAME}");
    let version = format!("1.2 ({SCRIPT_NAME}) on gpu {IMG_NAME}");
    assert_eq!(
        cells(rows[1]),
        [
            evil.as_str(),
            "40.0%",
            "2",
            "0",
            "2",
            "0",
            "0",
            "1",
            "0",
            &runtime,
            &version,
        ]
    );
    // The runtime as data: attributes a script sorts or filters by, escaped like the text.
    assert_eq!(rows[1].value().attr("data-runtime"), Some(runtime.as_str()));
    assert_eq!(rows[1].value().attr("data-version"), Some("1.2"));
    assert_eq!(rows[1].value().attr("data-build"), Some(SCRIPT_NAME));
    assert_eq!(
        rows[1].value().attr("data-device"),
        Some(format!("gpu {IMG_NAME}").as_str())
    );
    assert_eq!(rows[0].value().attr("data-device"), Some(""));
    assert_eq!(rows[0].value().attr("data-version"), Some(""));
    let parts: Vec<Vec<String>> = select(&html, "tr.part-row").into_iter().map(cells).collect();
    assert_eq!(parts.len(), 4);
    assert_eq!(
        parts[2],
        ["upstream releases", "100.0%", "1", "0", "0", "0", "0", "0", "0", "", ""]
    );
    assert_eq!(
        parts[3],
        ["extended corpus", "25.0%", "1", "0", "2", "0", "0", "1", "0", "", ""]
    );
    assert!(rows[1].value().classes().any(|c| c == "backend-row"));
    let share = within(rows[1], "td.share")[0];
    assert!(share.value().classes().any(|c| c == "s4"), "40% is in the fifth colour");
}

#[test]
fn the_heatmap_is_the_coverage_grid_with_shares_and_modes() {
    let (passing, failing) = reports();
    let (_, html) = page(&[passing, failing]);
    let columns = OpVersion::all().count();
    let sections = select(&html, "section.backend");
    for section in &sections {
        assert_eq!(
            within(*section, "table.heatmap tbody td").len(),
            columns * DataType::ALL.len()
        );
        assert_eq!(within(*section, "table.heatmap thead th").len(), columns + 1);
    }
    // ref: Pad-19 × float holds three data sets (wrap twice, edge once), all passed.
    let ok = cell(sections[0], "Pad-19", "float");
    assert!(ok.value().classes().any(|c| c == "s10"));
    assert_eq!(text_of(ok), "ew3/3");
    assert_eq!(text_of(within(ok, "i")[0]), "3/3", "the number, always printed");
    assert_eq!(ok.value().attr("title"), None, "everything passed: nothing to add");
    // The failing backend: one wrap data set errored, so wrap is struck and the share is 2/3.
    let bad = cell(sections[1], "Pad-19", "float");
    assert_eq!(text_of(bad), "ew1/3");
    assert!(bad.value().classes().any(|c| c == "s3"));
    assert_eq!(within(bad, "del").into_iter().map(text_of).collect::<Vec<_>>(), ["w"]);
    assert_eq!(bad.value().attr("title"), Some("e 1/1, w 0/2"));
    // Not accepted by the version, and no data: a dot.
    let na = cell(sections[0], "Pad-11", "int4");
    assert!(na.value().classes().any(|c| c == "na"));
    assert_eq!(text_of(na), "·");
    // Not accepted by the version, with data sets that must be refused: outlined.
    let refusal = RunReport {
        backend: "ref".into(),
        outcomes: vec![data(
            "extended/test_ext_pad19_err_dtype_int4",
            19,
            "constant",
            "int4",
            Status::Passed,
        )],
        gates: Default::default(),
        duration: Duration::ZERO,
        baseline: None,
        runtime: None,
        shard: None,
        run: None,
    };
    let (_, refusal_page) = page(&[refusal]);
    let outlined = cell(select(&refusal_page, "section.backend")[0], "Pad-19", "int4");
    assert!(outlined.value().classes().any(|c| c == "refusals"));
    // A mode the version does not accept, refused as it must be: no letter says it is
    // supported; the tooltip says what it holds.
    let wrap_before_19 = RunReport::of(
        "ref",
        vec![
            data("extended/test_ext_pad11_err_wrap", 11, "wrap", "float", Status::Passed),
            data("extended/test_ext_pad11_edge", 11, "edge", "float", Status::Passed),
        ],
    );
    let (_, wrap_page) = page(&[wrap_before_19]);
    let pad11 = cell(select(&wrap_page, "section.backend")[0], "Pad-11", "float");
    assert_eq!(text_of(pad11), "e2/2");
    assert!(
        pad11.value().attr("title").unwrap().contains("w must be refused 1/1"),
        "{:?}",
        pad11.value().attr("title")
    );
    assert!(!ok.value().classes().any(|c| c == "refusals"));
    // Legal, without data here.
    assert!(
        cell(sections[0], "Pad-13", "double")
            .value()
            .classes()
            .any(|c| c == "empty")
    );
}

#[test]
fn failures_are_grouped_by_reason_and_basis_with_the_smallest_first() {
    let (passing, failing) = reports();
    let (_, html) = page(&[passing, failing.clone()]);
    let sections = select(&html, "section.backend");
    assert!(within(sections[0], "details.group").is_empty());
    assert!(text_of(sections[0]).contains("No data set failed or errored."));
    let groups = within(sections[1], "details.group");
    assert_eq!(
        groups.len(),
        2,
        "no kernel (spec, errored) and the mismatch (rule, failed)"
    );
    let first = groups[0];
    assert_eq!(text_of(within(first, "span.count")[0]), "2");
    assert_eq!(text_of(within(first, "span.basis")[0]), "spec");
    assert_eq!(
        text_of(within(first, "span.reason")[0]),
        "no kernel for Pad(21) \"><img src=x onerror=alert(2)>",
        "the smallest data set's message, as said"
    );
    let smallest = within(first, "div.repro p.data-set code")[0];
    assert_eq!(
        text_of(smallest),
        format!("extended/{SCRIPT_NAME}/0"),
        "2 elements before 12"
    );
    let items: Vec<String> = within(first, "ul.names > li").into_iter().map(text_of).collect();
    assert_eq!(
        items,
        [format!("extended/{SCRIPT_NAME}/0"), "extended/test_a/0".to_owned()]
    );
    let rerun = within(first, "div.repro code.rerun")[0];
    assert_eq!(
        text_of(rerun),
        format!(
            "pad-conformance --backend 'exec:evil \"><img src=x onerror=alert(2)>' --filter 'extended/{SCRIPT_NAME}/0'"
        )
    );
    let second = groups[1];
    assert_eq!(text_of(within(second, "span.basis")[0]), "rule");
    assert!(text_of(second).contains("not gating"));
    assert_eq!(
        text_of(within(second, "span.reason")[0]),
        "output 0 \"y\": 1 of 6 elements differ"
    );
}

#[test]
fn what_fails_lists_each_group_with_a_link_to_its_reproducer() {
    let (passing, failing) = reports();
    let (_, html) = page(&[passing, failing]);
    let sections = select(&html, "section.backend");
    // The passing backend has no table; the failing one a row per failure group.
    assert!(within(sections[0], "table.what-fails").is_empty());
    let groups = within(sections[1], "details.group").len();
    let rows = within(sections[1], "table.what-fails tbody tr");
    assert_eq!(rows.len(), groups);
    assert!(groups > 0);
    for row in rows {
        let link = within(row, "a")[0];
        let target = link.value().attr("href").unwrap().strip_prefix('#').unwrap().to_owned();
        // The link lands on a reproducer of this backend, whose name it shows.
        let landed = within(sections[1], &format!("div.repro[id=\"{target}\"]"));
        assert_eq!(landed.len(), 1, "{target}");
        let name = text_of(within(landed[0], "p.data-set code")[0]);
        assert_eq!(text_of(within(link, "code")[0]), name);
    }
}

/// A run weighed against a baseline: a spec group of two known failures; a reference group of
/// a new failure and a known one; a fixed entry; a refusal not verified; a stale entry.
fn gated() -> RunReport {
    use crate::gate::gate_result::GateResult;
    use crate::gate::judging::GateSummary;
    let failed = |id: &str, basis: Basis, message: &str| {
        outcome(Data {
            id,
            version: 19,
            mode: "wrap",
            dtype: "float",
            shape: Some(vec![2, 2]),
            status: Status::Failed,
            basis,
            message,
        })
    };
    let outcomes = vec![
        failed("extended/test_k1", Basis::Spec, "wrong values"),
        failed("extended/test_k2", Basis::Spec, "wrong values"),
        failed("extended/test_k3", Basis::Reference, "\x1b[1;31mno kernel\x1b[0m"),
        failed("extended/test_n", Basis::Reference, "\x1b[1;31mno kernel\x1b[0m"),
        data("extended/test_f", 19, "edge", "float", Status::Passed),
        Outcome::example_said(
            "extended/test_v",
            Status::NotVerified,
            "refusal not verified: its twin failed",
        ),
    ];
    let known = |reason: &str, tracking: &str| GateResult::KnownFailure {
        reason: reason.into(),
        tracking: Some(tracking.into()),
    };
    let hostile = format!("no wrap {SCRIPT_NAME}");
    let gates = [
        known(&hostile, "https://bugs.example/7"),
        known(&hostile, "https://bugs.example/7"),
        known("no kernel", "javascript:alert(1)"),
        GateResult::NewFailure,
        GateResult::Fixed {
            was: Status::Failed,
            reason: "was broken".into(),
        },
        GateResult::NotVerified,
    ];
    let summary = GateSummary::of(outcomes.iter().zip(&gates), vec!["extended/test_gone/0".to_owned()]);
    let mut report = RunReport::of("ort", outcomes.clone());
    report.gates = outcomes.iter().map(|o| o.name()).zip(gates).collect();
    report.baseline = Some(summary);
    report
}

#[test]
fn a_gated_page_says_first_how_the_gate_went() {
    let report = gated();
    let (text, html) = page(std::slice::from_ref(&report));
    assert_inert(&html);
    // Before the totals, and before any backend's section.
    let gate_at = text.find("<section id=\"gate\"").unwrap();
    assert!(gate_at < text.find("<h2 id=\"totals\">").unwrap());
    let summary = select(&html, "section#gate div.gate-summary")[0];
    assert!(
        summary.value().classes().any(|c| c == "fails"),
        "a new failure fails the gate"
    );
    let data = |name: &str| summary.value().attr(name).unwrap().to_owned();
    assert_eq!(
        [
            data("data-new"),
            data("data-known"),
            data("data-fixed"),
            data("data-stale")
        ],
        ["1", "3", "1", "1"]
    );
    assert_eq!(text_of(within(summary, "p.verdict")[0]), "Gate: fails");
    let counts: Vec<String> = within(summary, "ul.gate-counts > li")
        .into_iter()
        .map(text_of)
        .collect();
    assert!(counts[0].starts_with("1 new failures"), "{counts:?}");
    assert!(counts[1].starts_with("3 known failures"), "{counts:?}");
    assert!(
        counts.iter().any(|c| c.starts_with("1 refusals not verified")),
        "{counts:?}"
    );
    let lists: Vec<String> = within(summary, "details.gate-list").into_iter().map(text_of).collect();
    assert!(
        lists[0].starts_with("New failures (1)") && lists[0].contains("extended/test_n/0"),
        "{lists:?}"
    );
    assert!(lists.iter().any(|l| l.contains("extended/test_gone/0")), "{lists:?}");
    // The backend's own section says it too.
    let line = select(&html, "section.backend p.gate-line")[0];
    assert_eq!(text_of(line), "gate fails: 1 new failures, 3 known, 1 fixed, 1 stale.");
    // Without a baseline, no gate at all.
    let (ungated, _) = page(&[reports().0]);
    assert!(!ungated.contains("id=\"gate\"") && !ungated.contains("gate-line"));
}

#[test]
fn new_failures_come_first_and_known_ones_show_their_reason_and_tracking_link() {
    let report = gated();
    let (text, html) = page(std::slice::from_ref(&report));
    let groups = select(&html, "details.group");
    assert_eq!(groups.len(), 2);
    // The reference group holds the new failure: before the spec group, which the basis alone
    // would put first.
    assert_eq!(text_of(within(groups[0], "span.basis")[0]), "reference");
    assert_eq!(text_of(within(groups[0], "span.gate.g-new")[0]), "1 new");
    assert_eq!(text_of(within(groups[0], "span.gate.g-known")[0]), "1 known");
    let names: Vec<String> = within(groups[0], "ul.names > li summary, ul.names > li:not(:has(summary))")
        .into_iter()
        .map(text_of)
        .collect();
    assert_eq!(names, ["extended/test_n/0", "extended/test_k3/0"], "new before known");
    // A new failure expands to its own message, colours removed.
    let new = within(groups[0], "ul.names > li details.data-set")[0];
    assert_eq!(text_of(within(new, "pre.message")[0]), "no kernel");
    // The known ones under their reason; a tracking link only to a web address.
    let clusters: Vec<ElementRef<'_>> = within(groups[0], "p.cluster");
    assert_eq!(clusters.len(), 2);
    assert!(text_of(clusters[0]).starts_with("new failure"));
    assert!(
        text_of(clusters[1]).starts_with("known no kernel tracking: javascript:alert(1)"),
        "{}",
        text_of(clusters[1])
    );
    assert!(within(clusters[1], "a").is_empty());
    let spec = within(groups[1], "p.cluster")[0];
    assert_eq!(
        text_of(within(spec, ".known-reason")[0]),
        format!("no wrap {SCRIPT_NAME}")
    );
    let link = within(spec, "a.tracking")[0];
    assert_eq!(link.value().attr("href"), Some("https://bugs.example/7"));
    assert_eq!(text_of(within(spec, "span.muted")[0]), "(2)");
    // The what-fails table says the same, in the same order.
    let rows = select(&html, "table.what-fails tbody tr");
    assert_eq!(text_of(within(rows[0], "td")[1]), "1 new 1 known");
    assert_eq!(text_of(within(rows[1], "td")[1]), "2 known");
    // The refusal not verified says so, in its list and in the gate.
    let unverified = text_of(select(&html, "details.not-verified li")[0]);
    assert!(
        unverified.contains("not verified its twin did not pass"),
        "{unverified}"
    );
    assert!(!text.contains('\x1b') && !text.contains(SCRIPT_NAME));
}

#[test]
fn terminal_escapes_are_removed_from_messages_and_shown_in_names() {
    let (_, mut failing) = reports();
    failing.backend = "w\x1b[31m".into();
    failing.outcomes[1] = outcome(Data {
        id: "extended/test_a",
        version: 19,
        mode: "wrap",
        dtype: "float",
        shape: Some(vec![1]),
        status: Status::Errored,
        basis: Basis::Spec,
        message: "\x1b[1;31m2026 [E:onnxruntime] boom\x1b[m\r\x07",
    });
    let (text, html) = page(&[failing]);
    assert!(!text.contains('\x1b') && !text.contains('\x07') && !text.contains('\r'));
    assert_eq!(text_of(select(&html, "section.backend h2")[0]), "w\\u{1b}[31m");
    let messages: Vec<String> = select(&html, "pre.message").into_iter().map(text_of).collect();
    assert!(
        messages.contains(&"2026 [E:onnxruntime] boom\\r\\u{7}".to_owned()),
        "{messages:?}"
    );
}

#[test]
fn failure_details_are_bounded_however_many_and_long() {
    // 200 failing data sets, each with a 400-line message of 300-character lines: 24 MB of
    // text, on a page of a few kilobytes.
    let line = "x".repeat(300);
    let message: String = (0..400).map(|i| format!("{i} {line}\n")).collect();
    let outcomes: Vec<Outcome> = (0..200)
        .map(|i| {
            outcome(Data {
                id: &format!("extended/test_{i:04}"),
                version: 19,
                mode: "wrap",
                dtype: "float",
                shape: Some(vec![2, 2]),
                status: Status::Errored,
                basis: Basis::Spec,
                message: &message,
            })
        })
        .collect();
    let report = RunReport::of("big", outcomes);
    let (text, html) = page(std::slice::from_ref(&report));
    assert!(text.len() < 40_000, "{} bytes", text.len());
    let shown = select(&html, "pre.message");
    assert_eq!(shown.len(), 1, "the reproducer's message only");
    let lines: Vec<String> = text_of(shown[0]).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 4 + 1 + 10);
    assert_eq!(lines[4], "[… 386 lines left out …]");
    assert!(
        lines[14].starts_with("399 x") && lines[14].chars().count() == 201,
        "{}",
        lines[14]
    );
    assert_eq!(select(&html, "ul.names > li").len(), 50);
    assert!(text.contains("… and 150 more data sets"));
}
