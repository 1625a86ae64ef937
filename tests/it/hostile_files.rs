//! The files beside the data, made hostile: FIFOs, devices and huge files where a profile,
//! case.json, VERSION, CHANGELOG.md, baseline or report should be; and profiles and options
//! that would silently run nothing. Each gives a clear error naming the file, promptly, and
//! no hang (a FIFO opened for reading without a writer would block forever).

use crate::support;

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Output;

use support::files::{copy_dir, run, testdata};
use support::hanging_worker::interrupt_in_request;

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo(3) reads the NUL-terminated path only.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A file of `len` bytes that takes no disk: a hole.
fn sparse(path: &Path, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One vendored case in a fresh directory.
fn tree() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    dir
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn a_profile_that_is_a_fifo_a_device_or_huge_is_refused_naming_it() {
    let tree = tree();
    let fifo = tree.path().join("fifo.toml");
    mkfifo(&fifo);
    let out = run(&["--profile", arg(&fifo), arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("reading {}: not a regular file but a FIFO", fifo.display())),
        "{}",
        stderr(&out)
    );
    let out = run(&["--profile", "/dev/zero", arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("reading /dev/zero: not a regular file but a device"),
        "{}",
        stderr(&out)
    );
    // 3 GiB, refused by its size before a byte is read.
    let huge = tree.path().join("huge.toml");
    sparse(&huge, 3 << 30);
    let out = run(&["--profile", arg(&huge), arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "reading {}: 3221225472 bytes, over the 16777216 bytes this file may hold",
            huge.display()
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_toml_error_quotes_an_excerpt_not_the_whole_line() {
    let tree = tree();
    let profile = tree.path().join("long.toml");
    // Within the cap, one line of 1,000,000 characters that is not TOML.
    std::fs::write(&profile, format!("modes = [\"constant\"] {}\n", "x".repeat(1_000_000))).unwrap();
    let out = run(&["--profile", arg(&profile), arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    let error = stderr(&out);
    assert!(error.contains("long.toml"), "{error}");
    assert!(error.contains("line 1"), "{error}");
    assert!(error.len() < 2_000, "an error of {} bytes", error.len());
}

#[test]
fn empty_profiles_and_empty_lists_are_refused() {
    let tree = tree();
    let profile = tree.path().join("p.toml");
    for (text, expected) in [
        ("", "p.toml: the profile sets nothing (no key)"),
        ("# only a comment\n", "p.toml: the profile sets nothing (no key)"),
        (
            "operators = []\n",
            "p.toml: operators = [] would leave every data set unsupported",
        ),
        (
            "dtypes = []\n",
            "p.toml: dtypes = [] would leave every data set unsupported",
        ),
        (
            "modes = []\n",
            "p.toml: modes = [] would leave every data set unsupported",
        ),
    ] {
        std::fs::write(&profile, text).unwrap();
        let out = run(&["--profile", arg(&profile), arg(tree.path())]);
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        assert!(stderr(&out).contains(expected), "{text:?}: {}", stderr(&out));
    }
    // A profile setting only the way inputs are taken is not empty.
    std::fs::write(&profile, "inputs_as_constants = false\n").unwrap();
    let out = run(&["--profile", arg(&profile), arg(tree.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn zero_jobs_is_refused() {
    let tree = tree();
    let out = run(&["--jobs", "0", arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("0 threads would run nothing"), "{}", stderr(&out));
    let out = run(&["matrix", "--backend", "ref", "--jobs", "0", arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["--jobs", "1", arg(tree.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_case_json_that_is_a_fifo_errors_that_case_and_the_rest_runs() {
    let tree = tree();
    let hostile = tree.path().join("test_fifo_pad");
    copy_dir(&testdata("onnx-1.22.0/node/test_edge_pad"), &hostile);
    mkfifo(&hostile.join("case.json"));
    for list in [false, true] {
        let mut args = vec![arg(tree.path())];
        if list {
            args.push("--list");
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("case.json: not a regular file but a FIFO"), "{stdout}");
        assert!(stdout.contains("test_edge_pad/0"), "{stdout}");
    }
    // `coverage` reads every case.json: the FIFO is an error naming it, not a hang.
    let out = run(&["coverage", arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "reading {}: not a regular file but a FIFO",
            hostile.join("case.json").display()
        )),
        "{}",
        stderr(&out)
    );
    // A huge case.json: refused by its size.
    std::fs::remove_file(hostile.join("case.json")).unwrap();
    sparse(&hostile.join("case.json"), 3 << 30);
    let out = run(&[arg(tree.path())]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("case.json: 3221225472 bytes, over the 1048576 bytes"),
        "{stdout}"
    );
}

/// A corpus root (VERSION, CHANGELOG.md, MANIFEST.tsv) around one generated case.
fn corpus() -> tempfile::TempDir {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    std::fs::write(dir.path().join("VERSION"), "1\n").unwrap();
    std::fs::write(dir.path().join("CHANGELOG.md"), "## 1\n").unwrap();
    std::fs::write(
        dir.path().join("MANIFEST.tsv"),
        "release\tcase\tfile\torigin\tbytes\tsha256\n",
    )
    .unwrap();
    copy_dir(
        &testdata("onnx-1.22.0/node/test_edge_pad"),
        &dir.path().join("test_edge_pad"),
    );
    dir
}

#[test]
fn a_changelog_or_version_that_is_a_fifo_or_huge_is_refused_naming_it() {
    let corpus = corpus();
    let out = run(&[arg(corpus.path())]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let changelog = corpus.path().join("CHANGELOG.md");
    std::fs::remove_file(&changelog).unwrap();
    mkfifo(&changelog);
    // A FIFO in a corpus root is refused naming it, never read (it would block) nor passed
    // over (the root's checksums would silently stop).
    let out = run(&[arg(corpus.path())]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{}: not a regular file but a FIFO", changelog.display())),
        "{}",
        stderr(&out)
    );
    // A huge one is refused by its size.
    std::fs::remove_file(&changelog).unwrap();
    sparse(&changelog, 3 << 30);
    let out = run(&[arg(corpus.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("reading {}: 3221225472 bytes, over the", changelog.display())),
        "{}",
        stderr(&out)
    );
    std::fs::write(&changelog, "## 1\n").unwrap();
    std::fs::write(corpus.path().join("VERSION"), format!("{}\n", "9".repeat(3000))).unwrap();
    let out = run(&[arg(corpus.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a corpus version"), "{}", stderr(&out));
    assert!(stderr(&out).len() < 500, "{}", stderr(&out));
}

#[test]
fn a_baseline_or_report_that_is_a_fifo_or_huge_is_refused_naming_it() {
    let tree = tree();
    let fifo = tree.path().join("fifo.json");
    mkfifo(&fifo);
    let huge = tree.path().join("huge.json");
    sparse(&huge, 3 << 30);
    for path in [&fifo, &huge] {
        let out = run(&["--baseline", arg(path), arg(tree.path())]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains(&format!("reading {}: ", path.display())),
            "{}",
            stderr(&out)
        );
        let out = run(&["diff", arg(path), arg(path)]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains(&format!("reading {}: ", path.display())),
            "{}",
            stderr(&out)
        );
    }
}

/// The tree with test_edge_pad passing and test_wrap_pad failing (one value changed).
fn failing_tree() -> tempfile::TempDir {
    let dir = tree();
    support::files::failing_wrap(&dir.path().join("test_wrap_pad"));
    dir
}

#[test]
fn a_report_onto_a_link_a_fifo_or_a_device_is_refused_and_the_target_left_as_it_is() {
    let tree = tree();
    let real = tree.path().join("real.json");
    std::fs::write(&real, "mine").unwrap();
    let link = tree.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let dangling = tree.path().join("dangling.json");
    std::os::unix::fs::symlink(tree.path().join("nowhere"), &dangling).unwrap();
    let fifo = tree.path().join("fifo.json");
    mkfifo(&fifo);
    for (target, kind) in [
        (link.as_path(), "symbolic link"),
        (&dangling, "symbolic link"),
        (&fifo, "FIFO"),
        (Path::new("/dev/null"), "device"),
    ] {
        let case = tree.path().join("test_edge_pad");
        for option in ["--output", "--write-baseline"] {
            let out = run(&["--format", "json", option, arg(target), arg(&case)]);
            assert_eq!(out.status.code(), Some(2), "{option} {}", target.display());
            let error = stderr(&out);
            let expected = format!("it is a {kind}, not a regular file; refusing to replace it");
            assert!(error.contains(&expected), "{option} {}: {error}", target.display());
            assert!(error.contains(&target.display().to_string()), "{error}");
        }
    }
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "mine");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn write_baseline_refuses_a_json_file_that_is_no_baseline_before_the_run() {
    let tree = failing_tree();
    let target = tree.path().join("known.json");
    for text in [
        r#"{"expected": {}, "notes": "mine"}"#,
        r#"{"format": 3, "backend": "ref", "cases": []}"#,
        r#"[1, 2]"#,
    ] {
        std::fs::write(&target, text).unwrap();
        let out = run(&["--write-baseline", arg(&target), arg(tree.path())]);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(
            stderr(&out).contains(&format!("{}: not a baseline", target.display())),
            "{}",
            stderr(&out)
        );
        // Refused before anything ran.
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), text);
    }
    let error = stderr(&run(&["--write-baseline", arg(&target), arg(tree.path())]));
    assert!(error.contains("it has no \"expected\" object"), "{error}");
    std::fs::write(&target, r#"{"expected": {}, "notes": "mine"}"#).unwrap();
    let error = stderr(&run(&["--write-baseline", arg(&target), arg(tree.path())]));
    assert!(error.contains("it has a key \"notes\" that no baseline has"), "{error}");
    // A path that cannot be written fails before the run too.
    let under_a_file = tree.path().join("known.json/inner.json");
    let out = run(&["--write-baseline", arg(&under_a_file), arg(tree.path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains(&format!("writing {}", under_a_file.display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn new_reports_and_baselines_follow_the_umask() {
    let tree = failing_tree();
    let report = tree.path().join("report.json");
    let baseline = tree.path().join("known.json");
    let script = format!(
        "umask 027; exec '{}' --format json --output '{}' --write-baseline '{}' '{}'",
        env!("CARGO_BIN_EXE_pad-conformance"),
        report.display(),
        baseline.display(),
        tree.path().display()
    );
    let out = std::process::Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    use std::os::unix::fs::PermissionsExt;
    for path in [&report, &baseline] {
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "{}", path.display());
    }
}

/// A run stopped by a signal had its workers killed by the runner: their failures are not
/// the backend's, and no baseline records them.
#[test]
fn an_interrupted_run_writes_no_baseline_and_says_so() {
    let tree = failing_tree();
    let baseline = tree.path().join("known.json");
    let args = [OsStr::new("--write-baseline"), baseline.as_ref(), tree.path().as_ref()];
    let (out, error) = interrupt_in_request(args, libc::SIGINT);
    assert_eq!(out.status.code(), Some(130), "{error}");
    assert!(
        error.contains(&format!("the baseline {} was not written", baseline.display())),
        "{error}"
    );
    assert!(!baseline.exists());
}
