//! `pad-conformance baseline upgrade`: an old baseline re-recorded over the corpus at hand,
//! each entry that moved listed under its cause, the reasons and links of those that hold
//! kept, OLD left as it is.

use std::path::Path;

use crate::example_worker::{pad_conformance, toy_worker};

/// The lines listed under `heading` (`corpus changed: N entries`), without their indent.
fn under<'a>(moves: &'a str, heading: &str) -> Vec<&'a str> {
    let mut lines = moves.lines().skip_while(|l| !l.starts_with(heading));
    lines.next();
    lines.take_while(|l| l.starts_with("  ")).map(str::trim_start).collect()
}

const WRAP: &str = "onnx-1.22.0/node/test_wrap_pad/0";
const CONSTANT: &str = "onnx-1.22.0/node/test_constant_pad/0";
/// Moved from basis rule to spec in corpus 5, so that its failure gates: the toy worker fails it.
const CHANGED: &str = "extended/test_ext_pad11_constant_uint32_r1/0";
/// Beyond float32's range: the toy worker keeps double as float.
const BEYOND_F32: &str = "extended/test_ext_pad11_constant_double_narrow_double_beyond_f32_range/0";

/// A baseline of corpus 4 for the toy worker: wrap (errored, still so, with a hand-written
/// reason and a link), constant (passes: the backend's doing), a data set corpus 5 changed
/// (listed errored, failed now), one beyond float32 (unsupported under the declared storage)
/// and one that no longer exists.
fn old_baseline(path: &Path) -> String {
    let text = serde_json::json!({
        "format": 2,
        "backend": "constant-only",
        "corpus_version": 4,
        "expected": {
            WRAP: {"status": "errored", "reason": "wrap: written by hand", "tracking": "https://bugs.example/7"},
            CONSTANT: {"status": "failed", "reason": "was off by one"},
            CHANGED: {"status": "errored", "reason": "negative pads"},
            BEYOND_F32: {"status": "failed", "reason": "double kept as float"},
            "extended/test_ext_gone/0": {"status": "failed", "reason": "gone since"},
        }
    })
    .to_string();
    std::fs::write(path, &text).unwrap();
    text
}

#[test]
fn an_upgrade_keeps_reasons_and_links_lists_each_move_by_cause_and_leaves_old_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new, profile) = (
        dir.path().join("old.json"),
        dir.path().join("new.json"),
        dir.path().join("p.toml"),
    );
    let before = old_baseline(&old);
    std::fs::write(&profile, "[storage]\nint64 = \"int32\"\ndouble = \"float\"\n").unwrap();
    let backend = format!("exec:{} worker", toy_worker().display());
    let path = |p: &Path| p.to_str().unwrap().to_owned();
    let (code, moves, stderr) = pad_conformance(&[
        "baseline",
        "upgrade",
        &path(&old),
        "--backend",
        &backend,
        "--profile",
        &path(&profile),
        "--output",
        &path(&new),
    ]);
    assert_eq!(code, Some(0), "{moves}\n{stderr}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), before);
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&new).unwrap()).unwrap();
    assert_eq!(written["corpus_version"], 5);
    let expected = &written["expected"];
    assert_eq!(
        expected[WRAP],
        serde_json::json!({"status": "errored", "reason": "wrap: written by hand", "tracking": "https://bugs.example/7"})
    );
    assert_eq!(expected[CHANGED]["status"], "failed");
    assert_eq!(expected[CHANGED]["reason"], "negative pads");
    for gone in [CONSTANT, BEYOND_F32, "extended/test_ext_gone/0"] {
        assert!(expected.get(gone).is_none(), "{gone}: {expected}");
    }

    let corpus = under(&moves, "corpus changed: ");
    assert!(
        corpus.contains(&"dropped extended/test_ext_gone/0 (was failed): no such data set now"),
        "{moves}"
    );
    let changed = format!("changed {CHANGED} (was errored, now failed): corpus version 5: basis rule → spec");
    assert!(corpus.iter().any(|l| l.starts_with(&changed)), "{moves}");
    // Corpus 5's new twins, which the toy worker errs on, are new failures of the corpus.
    assert!(
        corpus
            .iter()
            .any(|l| l
                .starts_with("added extended/test_ext_ms_pad1_err_mode_wrap_twin/0 (errored): corpus version 5: new")),
        "{moves}"
    );
    assert_eq!(
        under(&moves, "judging rule changed: "),
        [format!(
            "dropped {BEYOND_F32} (was failed, now unsupported): outside the profile"
        )]
    );
    // The old baseline lists few of the toy worker's failures: the others are new to it, the
    // backend's.
    let backend_moves = under(&moves, "backend changed: ");
    let dropped: Vec<&&str> = backend_moves.iter().filter(|l| l.starts_with("dropped")).collect();
    assert_eq!(dropped, [&format!("dropped {CONSTANT} (was failed, now passed)")]);
    assert!(
        backend_moves.contains(&"added onnx-1.22.0/node/test_edge_pad/0 (errored)"),
        "{moves}"
    );
    assert!(stderr.contains("wrote baseline"), "{stderr}");

    // NEW is there now: a second upgrade into it is refused, naming it; OLD is written over
    // only when asked.
    let (code, _, stderr) = pad_conformance(&["baseline", "upgrade", &path(&old), "--output", &path(&new)]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("new.json: already exists"), "{stderr}");
    let (code, moves, stderr) = pad_conformance(&["baseline", "upgrade", &path(&old), "--in-place"]);
    assert_eq!(code, Some(0), "{stderr}");
    // The reference passes every data set: each entry of a data set still there goes.
    assert_eq!(
        under(&moves, "backend changed: "),
        [
            format!("dropped {BEYOND_F32} (was failed, now passed)"),
            format!("dropped {CONSTANT} (was failed, now passed)"),
            format!("dropped {WRAP} (was errored, now passed)"),
        ]
    );
    let upgraded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    assert_eq!(upgraded["expected"], serde_json::json!({}));
    assert_eq!(upgraded["corpus_version"], 5);
}
