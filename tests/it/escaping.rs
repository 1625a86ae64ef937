//! Text from the data — a case directory's name, a worker's name and messages — in every
//! output the tool writes: control characters (ESC, CR, newline) shown, never executed; in
//! Markdown, no table row split by a newline or a pipe and no markup (`<img onerror>`,
//! `<script>`, `<!--`).

use crate::support;

use std::path::Path;
use std::process::Output;

use support::files::{copy_dir, run, testdata};

/// A case id with everything a terminal or a Markdown renderer would act on.
const HOSTILE_CASE: &str = "test_\x1b[2J\r\n<img src=x onerror=alert(1)><script><!--|x_pad";

/// A worker whose name holds the same, and which crashes on every data set with a
/// clear-screen sequence on its stderr.
const HOSTILE_WORKER: &str = r#"exec:read h; printf '%s\n' '{"type": "hello", "version": 1, "name": "w\u001b[31m|\r\n<img src=x onerror=alert(1)><script><!--"}'; read r; printf '\033[2J\033[Hgotcha' >&2; exit 3"#;

fn hostile_tree() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join(HOSTILE_CASE),
    );
    copy_dir(
        &testdata("onnx-1.22.0/node/test_wrap_pad"),
        &dir.path().join("test_wrap_pad"),
    );
    dir
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8(out.stdout.clone()).unwrap(),
        String::from_utf8(out.stderr.clone()).unwrap(),
    )
}

/// Nothing a terminal would act on.
fn assert_inert_for_a_terminal(text: &str) {
    assert!(!text.contains('\x1b'), "a raw ESC in:\n{text}");
    assert!(!text.contains('\r'), "a raw CR in:\n{text}");
}

/// Nothing a Markdown renderer would take as markup, and every table row whole: as many
/// unescaped pipes as its table's header.
fn assert_inert_markdown(markdown: &str) {
    assert_inert_for_a_terminal(markdown);
    for markup in ["<img", "<script", "<!--"] {
        assert!(!markdown.contains(markup), "{markup} in:\n{markdown}");
    }
    let pipes = |line: &str| {
        let bytes = line.as_bytes();
        (0..bytes.len())
            .filter(|&i| bytes[i] == b'|' && (i == 0 || bytes[i - 1] != b'\\'))
            .count()
    };
    let mut header = None;
    for line in markdown.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let expected = *header.get_or_insert(pipes(line));
        assert_eq!(pipes(line), expected, "a row split or widened: {line:?}");
    }
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn matrix_tables_escape_worker_names_and_case_ids() {
    let tree = hostile_tree();
    for extra in [None, Some("--failures-only"), Some("--groups")] {
        let mut args = vec![
            "matrix",
            "--backend",
            "ref",
            "--backend",
            HOSTILE_WORKER,
            arg(tree.path()),
        ];
        args.extend(extra);
        let out = run(&args);
        let (stdout, stderr) = text(&out);
        // The hostile worker errors on every data set: the matrix exits 1, as a run does.
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {stderr}");
        assert_inert_markdown(&stdout);
        assert_inert_for_a_terminal(&stderr);
        // Escaped, not dropped: the name is there, readable.
        assert!(
            stdout.contains(r"| w\u{1b}[31m\|\r\n&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;&lt;!-- |"),
            "{extra:?}:\n{stdout}"
        );
        if extra != Some("--groups") {
            assert!(
                stdout.contains(r"test_\u{1b}[2J\r\n&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;&lt;!--\|x_pad/0"),
                "{extra:?}:\n{stdout}"
            );
        }
    }
}

#[test]
fn the_run_reports_escape_case_ids_and_worker_names() {
    let tree = hostile_tree();
    let out = run(&["--backend", HOSTILE_WORKER, arg(tree.path())]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_inert_for_a_terminal(&stdout);
    assert_inert_for_a_terminal(&stderr);
    let out = run(&["--backend", HOSTILE_WORKER, "--format", "markdown", arg(tree.path())]);
    assert_inert_markdown(&text(&out).0);
}

#[test]
fn the_listing_escapes_case_ids() {
    let tree = hostile_tree();
    let out = run(&["--list", arg(tree.path())]);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_inert_for_a_terminal(&stdout);
    // One line per data set, then the totals: the newline in the id did not start another.
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(stdout.starts_with(r"test_\u{1b}[2J\r\n<img"), "{stdout}");
}

#[test]
fn the_fuzz_report_escapes_worker_messages() {
    let out = run(&["fuzz", "--backend", HOSTILE_WORKER, "--cases", "3", "--seed", "1"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_inert_for_a_terminal(&stdout);
    assert_inert_for_a_terminal(&stderr);
    assert!(stdout.contains("gotcha"), "{stdout}");
    // Each line the summary's, a root cause's, its indented details', or the blank line
    // between causes: the worker's name and message, newlines and all, cannot forge one.
    for line in stdout.lines() {
        assert!(
            line.is_empty()
                || line.starts_with("CAUSE ")
                || line.starts_with("NOT GATING ")
                || line.starts_with("      ")
                || line.starts_with("fuzz ")
                || line.ends_with(" not gating"),
            "{line:?}"
        );
    }
}

#[test]
fn errors_quoting_a_path_show_its_control_characters() {
    let tree = hostile_tree();
    let profile = tree.path().join("p\x1b[2J\r.toml");
    std::fs::write(&profile, "modes = []\n").unwrap();
    let out = run(&["--profile", arg(&profile), arg(tree.path())]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_inert_for_a_terminal(&stderr);
    assert!(stderr.contains(r"p\u{1b}[2J\r.toml: modes = []"), "{stderr}");
}

#[test]
fn a_newline_in_a_path_cannot_forge_a_line_of_an_error() {
    let tree = hostile_tree();
    let forged = "x\npromoted      test_fuzz_forged_pad  basis spec ";
    for (args, file) in [
        (vec!["--profile"], "p.toml"),
        (vec!["merge", "--data", arg(tree.path())], "part.json"),
    ] {
        let path = tree.path().join(format!("{forged}{file}"));
        std::fs::write(&path, "modes = []\n").unwrap();
        let mut all = args.clone();
        all.push(arg(&path));
        if all[0] == "--profile" {
            all.push(arg(tree.path()));
        }
        let out = run(&all);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        // One line: the path's newline is shown as `\n`, never a line of its own.
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(r"x\npromoted"), "{stderr}");
    }
}
