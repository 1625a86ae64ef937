//! `pad-conformance promote`: fuzz findings made cases of a copy of the vendored corpus — one
//! corpus version per batch, a manifest that verifies, a changelog that names every new data
//! set, each case passing with the reference — hostile or inconsistent findings refused with
//! the file named, nothing written over, and a second oracle that contradicts a finding
//! keeping it out. Without Python: the reference-only path, and a second oracle in sh. ONNX's
//! own evaluator confirming findings is the ignored test .ci/run runs. And `fuzz-merge`: the
//! JSON reports of a fuzz run's shards joined are the unsharded run's report.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use crate::support::fuzz_shape::small_inputs;
use pad_conformance::testing::{
    CheckOptions, Corpus, Driven, Finding, FuzzOptions, Patterns, Status, check_data_set, discover, fuzz,
    refusal_rules, write_reproducer,
};
use pad_conformance::{AttributeValue, Backend, BackendError, Basis, Model, RefBackend, Rule, Tensor};
use serde_json::Value;
use support::manifest::{files_on_disk, parse_manifest};

/// The reference with two defects: edge padded as constant, and wrap accepted before Pad-19
/// (padded as constant) — findings with expected outputs and findings that must be refused.
struct TwoDefects;

fn with_mode(model: &Model, from: &str, to: &str) -> Model {
    let mut model = model.clone();
    for attribute in &mut model.graph.nodes[0].attributes {
        if attribute.name == "mode" && attribute.value == AttributeValue::String(from.as_bytes().to_vec()) {
            attribute.value = AttributeValue::String(to.as_bytes().to_vec());
        }
    }
    model
}

impl Backend for TwoDefects {
    fn name(&self) -> &str {
        "two-defects"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        match RefBackend.run(&with_mode(model, "edge", "constant"), inputs) {
            Err(e) if refusal_rules(&e) == [Rule::ModeNotInVersion] => {
                RefBackend.run(&with_mode(model, "wrap", "constant"), inputs)
            }
            answer => answer,
        }
    }
}

impl Driven for TwoDefects {}

/// The findings of a fuzz run against [`TwoDefects`], written as `fuzz --out` writes them,
/// sorted by name. The run is made once for all the tests.
fn findings(dir: &Path) -> Vec<PathBuf> {
    static FOUND: OnceLock<Vec<Finding>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let options = FuzzOptions {
            cases: Some(300),
            seed: 2,
            shape: small_inputs(),
            ..FuzzOptions::default()
        };
        let report = fuzz(&TwoDefects, &options, &mut |_| {}).unwrap();
        report.findings.into_iter().chain(report.not_gating).collect()
    });
    std::fs::create_dir_all(dir).unwrap();
    let mut written: Vec<PathBuf> = found.iter().map(|f| write_reproducer(f, dir).unwrap()).collect();
    written.sort();
    let names: Vec<String> = written.iter().map(|p| name(p)).collect();
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("test_fuzz_wrong-values_edge-padding")),
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("test_fuzz_accepts-forbidden_breaks-mode-not-in-version")),
        "{names:?}"
    );
    written
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Whether the case (or finding) at `dir` must be refused.
fn must_refuse(dir: &Path) -> bool {
    dir.join("test_data_set_0/expected_error.txt").exists()
}

/// How many data sets promoting the findings `written` adds: each, and the twin of each that
/// must be refused.
fn with_twins(written: &[impl AsRef<Path>]) -> usize {
    written.len() + written.iter().filter(|f| must_refuse(f.as_ref())).count()
}

/// A copy of the vendored corpus's root files — VERSION, CHANGELOG.md, MANIFEST.tsv — without
/// its data: a corpus to promote into, quick to make.
fn corpus_root_copy(into: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let to = into.join("onnx-testdata");
    std::fs::create_dir_all(&to).unwrap();
    for file in ["VERSION", "CHANGELOG.md", "MANIFEST.tsv"] {
        std::fs::copy(from.join(file), to.join(file)).unwrap();
    }
    to
}

/// A copy of the whole vendored corpus, to promote into. What promotion writes — the root's
/// files and fuzz/ — is copied; the data sets it only reads are hard links where the file
/// system allows (quick, and a write through one would show in the checkout's own tests).
fn corpus_copy(into: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let to = into.join("onnx-testdata");
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let relative = entry.path().strip_prefix(&from).unwrap();
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            let written = relative.components().count() == 1 || relative.starts_with("fuzz");
            if written || std::fs::hard_link(entry.path(), &target).is_err() {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
    to
}

fn promote(args: &[&str], corpus: &Path) -> (Output, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .arg("promote")
        .args(args)
        .args(["--corpus", corpus.to_str().unwrap()])
        .args(if args.contains(&"--date") {
            &[][..]
        } else {
            &["--date", "2026-11-25"]
        })
        .env_remove("PAD_CONFORMANCE_PYTHON")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

fn case_json(case_dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(case_dir.join("case.json")).unwrap()).unwrap()
}

/// The promoted cases' directories, by the lines of the command's report.
fn promoted(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("promoted      fuzz/"))
        .map(|rest| rest.split_whitespace().next().unwrap().to_owned())
        .collect()
}

/// What differs between `corpus`/fuzz/MANIFEST.tsv and the files under `corpus`/fuzz/test_*:
/// a file missing, unlisted, or of another size or sha256 (the loader catches the first and
/// the last; this catches a case or file added beside the listed ones).
fn fuzz_manifest_problems(corpus: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let Ok(manifest) = std::fs::read_to_string(corpus.join("fuzz/MANIFEST.tsv")) else {
        assert!(!corpus.join("fuzz").exists(), "fuzz/ without its MANIFEST.tsv");
        return problems;
    };
    let listed = parse_manifest(
        &manifest,
        "case\tfile\tbytes\tsha256",
        true,
        |n| format!("fuzz/{}/{}", n[0], n[1]),
        &mut problems,
    );
    let on_disk: std::collections::BTreeMap<_, _> = files_on_disk(corpus, |n| n == "fuzz")
        .into_iter()
        .filter(|(path, _)| path.starts_with("fuzz/test_"))
        .collect();
    for (path, file) in &on_disk {
        match listed.get(path) {
            None => problems.push(format!("not in fuzz/MANIFEST.tsv: {path}")),
            Some(listed) if listed != file => problems.push(format!("changed: {path}")),
            Some(_) => {}
        }
    }
    problems.extend(
        listed
            .keys()
            .filter(|p| !on_disk.contains_key(*p))
            .map(|p| format!("missing: {p}")),
    );
    problems
}

/// The promoted findings committed in the vendored corpus, if any, are those its manifest lists.
#[test]
fn the_committed_fuzz_cases_are_those_of_their_manifest() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    assert_eq!(fuzz_manifest_problems(&corpus), Vec::<String>::new());
}

#[test]
fn findings_become_one_corpus_version_that_verifies() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let written = findings(&dir.path().join("findings"));
    let corpus = corpus_copy(dir.path());
    let before = Corpus::find(&corpus).unwrap().unwrap().version;
    let (out, text) = promote(&[dir.path().join("findings").to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let names = promoted(&text);
    assert_eq!(names.len(), written.len(), "{text}");
    for (name, finding) in names.iter().zip(&written) {
        // The finding's cause, then the first 8 hex digits of its content's digest.
        let slug = self::name(finding);
        let slug = slug.strip_suffix("_pad").unwrap();
        let digest = name.strip_prefix(slug).unwrap().strip_suffix("_pad").unwrap();
        assert!(
            digest.len() == 9 && digest[1..].bytes().all(|b| b.is_ascii_hexdigit()),
            "{name}"
        );
    }

    // Each finding that must be refused comes with its valid twin, `<case>_twin`: the same
    // operator, answered by the reference; a valid finding with none.
    let refused: Vec<&String> = names
        .iter()
        .zip(&written)
        .filter(|(_, finding)| must_refuse(finding))
        .map(|(name, _)| name)
        .collect();
    assert_eq!(refused.len(), 2, "{text}");
    let fuzz = corpus.join("fuzz");
    for name in &names {
        let record = case_json(&fuzz.join(name));
        let twin = format!("{name}_twin");
        if !refused.contains(&name) {
            assert_eq!(record.get("twin"), None, "{name}");
            assert!(!fuzz.join(&twin).exists(), "{name}");
            continue;
        }
        assert_eq!(record["twin"], twin.as_str());
        let twin_record = case_json(&fuzz.join(&twin));
        assert_eq!(twin_record["expect"], "output");
        assert_eq!(twin_record.get("rules"), None);
        for field in ["op", "domain", "version"] {
            assert_eq!(twin_record[field], record[field], "{twin}: {field}");
        }
        assert_eq!(twin_record["promotion"]["twin_of"], name.as_str());
        assert_eq!(twin_record["promotion"]["oracle"], "reference-only");
        let repaired = twin_record["promotion"]["repaired"].as_str().unwrap();
        assert!(
            text.contains(&format!(
                "\n  with its twin  fuzz/{twin}  the same node with {repaired}, basis "
            )),
            "{text}"
        );
        let description = std::fs::read_to_string(fuzz.join(&twin).join("description.txt")).unwrap();
        assert!(
            description.starts_with(&format!("the valid twin of {name}: the same node with {repaired}: ")),
            "{description}"
        );
    }

    // One version for the batch, whose changelog section names every new data set.
    let read = Corpus::find(&corpus).unwrap().unwrap();
    assert_eq!(read.version, before + 1);
    let added: Vec<String> = read.changed_since(before, &corpus).into_keys().collect();
    let mut expected: Vec<String> = names.iter().map(|n| format!("fuzz/{n}/0")).collect();
    expected.extend(refused.iter().map(|n| format!("fuzz/{n}_twin/0")));
    expected.sort();
    assert_eq!(added, expected);
    let without = "reference-only: no second oracle installed, PAD_CONFORMANCE_PYTHON not set";
    for (data_set, why) in &read.changes[&read.version] {
        let name = data_set.strip_prefix("fuzz/").unwrap().strip_suffix("/0").unwrap();
        match name.strip_suffix("_twin") {
            Some(of) => {
                let start = format!("new, the valid twin of `fuzz/{of}/0`: the same node with ");
                assert!(why.starts_with(&start) && why.ends_with(without), "{why}");
            }
            None => {
                assert!(why.starts_with("new, fuzz finding `test_fuzz_"), "{why}");
                let end = match refused.iter().any(|r| *r == name) {
                    true => format!("{without}; names its valid twin `fuzz/{name}_twin/0`"),
                    false => without.to_owned(),
                };
                assert!(why.ends_with(&end), "{why}");
            }
        }
    }
    assert!(
        std::fs::read_to_string(corpus.join("CHANGELOG.md"))
            .unwrap()
            .contains(&format!("\n## {} (2026-11-25)\n", before + 1))
    );

    // The manifest lists exactly the files there, with their sizes and checksums.
    assert_eq!(fuzz_manifest_problems(&corpus), Vec::<String>::new());
    std::fs::write(corpus.join("fuzz").join(&names[0]).join("stray.txt"), "x").unwrap();
    assert_eq!(
        fuzz_manifest_problems(&corpus),
        [format!("not in fuzz/MANIFEST.tsv: fuzz/{}/stray.txt", names[0])]
    );
    std::fs::remove_file(corpus.join("fuzz").join(&names[0]).join("stray.txt")).unwrap();

    // The whole corpus still loads as the runner loads it — every listed file as listed, every
    // changelog entry an existing data set, every data set on a weaker basis than the spec in
    // the changelog — and each new case passes with the reference, on the finding's basis.
    let cases = discover(std::slice::from_ref(&corpus), &Patterns::default()).unwrap();
    let all: std::collections::BTreeSet<String> = cases.iter().map(|c| c.data_set_name(0)).collect();
    let listed: std::collections::BTreeSet<String> = read.changed_since(1, &corpus).into_keys().collect();
    assert!(listed.is_subset(&all));
    for case in &cases {
        assert!(case.problem.is_none(), "{}: {:?}", case.id, case.problem);
        if case.basis.kind != Basis::Spec {
            assert!(listed.contains(&case.data_set_name(0)), "{}", case.id);
        }
    }
    for (name, finding) in names.iter().zip(&written) {
        let case = cases.iter().find(|c| c.id == format!("fuzz/{name}")).unwrap();
        let outcome = check_data_set(&RefBackend, case, 0, &CheckOptions::default());
        assert_eq!(outcome.status(), Status::Passed, "{name}: {}", outcome.message());
        // Its twin, resolved at discovery, passes with the reference too.
        if let Some(twin) = case.twin_of(0) {
            assert_eq!(twin, format!("fuzz/{name}_twin/0"));
            let twin = cases.iter().find(|c| c.id == format!("fuzz/{name}_twin")).unwrap();
            let outcome = check_data_set(&RefBackend, twin, 0, &CheckOptions::default());
            assert_eq!(outcome.status(), Status::Passed, "{name}_twin: {}", outcome.message());
        }
        assert_eq!(
            check_data_set(&TwoDefects, case, 0, &CheckOptions::default()).status(),
            Status::Failed
        );
        let record = case_json(&case.dir);
        let original = case_json(finding);
        assert_eq!(record["basis"], original["basis"], "{name}");
        assert_eq!(record["promotion"]["finding"], self::name(finding).as_str());
        assert_eq!(record["promotion"]["oracle"], "reference-only");
        assert_eq!(record["promotion"].get("second_oracle"), None);
        for file in ["model.onnx", "description.txt", "test_data_set_0/input_0.pb"] {
            assert_eq!(
                std::fs::read(case.dir.join(file)).unwrap(),
                std::fs::read(finding.join(file)).unwrap()
            );
        }
    }

    // A promoted file changed afterwards is caught by its checksum.
    let first = corpus.join("fuzz").join(&names[0]);
    std::fs::write(first.join("test_data_set_0/input_0.pb"), b"changed").unwrap();
    let cases = discover(&[corpus.join("fuzz")], &Patterns::default()).unwrap();
    let case = cases.iter().find(|c| c.dir == first).unwrap();
    let outcome = check_data_set(&RefBackend, case, 0, &CheckOptions::default());
    assert_eq!(outcome.status(), Status::Errored);
    assert!(
        outcome
            .message()
            .contains("the file is not the one the corpus vouches for"),
        "{}",
        outcome.message()
    );
}

#[test]
fn promoting_again_adds_nothing_and_writes_over_nothing() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let findings_dir = dir.path().join("findings");
    let written = findings(&findings_dir);
    let corpus = corpus_root_copy(dir.path());
    let (out, text) = promote(&[findings_dir.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let version = Corpus::find(&corpus).unwrap().unwrap().version;
    let changelog = std::fs::read_to_string(corpus.join("CHANGELOG.md")).unwrap();

    // The same findings again, one named twice: the same tests, already there.
    let (out, text) = promote(&[findings_dir.to_str().unwrap(), written[0].to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("present ")).count(),
        written.len() + 1,
        "{text}"
    );
    assert!(
        text.contains(&format!("nothing to promote: the corpus stays at version {version}")),
        "{text}"
    );
    assert_eq!(Corpus::find(&corpus).unwrap().unwrap().version, version);
    assert_eq!(std::fs::read_to_string(corpus.join("CHANGELOG.md")).unwrap(), changelog);

    // A case of that name holding other files is never written over.
    let names = promoted(&promote(&["--dry-run", findings_dir.to_str().unwrap()], &corpus).1);
    assert!(names.is_empty());
    let existing = std::fs::read_dir(corpus.join("fuzz"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("model.onnx").exists())
        .unwrap();
    std::fs::write(existing.join("test_data_set_0/input_0.pb"), b"someone else's").unwrap();
    let (out, text) = promote(&[findings_dir.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "{} exists with other files; an existing case is never written over",
            existing.display()
        )),
        "{text}"
    );
    assert_eq!(
        std::fs::read(existing.join("test_data_set_0/input_0.pb")).unwrap(),
        b"someone else's"
    );
    assert_eq!(Corpus::find(&corpus).unwrap().unwrap().version, version);
}

#[cfg(unix)]
#[test]
fn hostile_and_inconsistent_findings_are_refused_and_the_rest_promoted() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let findings_dir = dir.path().join("findings");
    let written = findings(&findings_dir);
    let corpus = corpus_root_copy(dir.path());
    let before = Corpus::find(&corpus).unwrap().unwrap().version;
    let edge = written
        .iter()
        .find(|p| name(p).starts_with("test_fuzz_wrong-values_edge-padding"))
        .unwrap();
    let copy = |suffix: &str| {
        let to = findings_dir.join(format!("test_fuzz_{suffix}_pad"));
        std::fs::create_dir_all(to.join("test_data_set_0")).unwrap();
        for file in walkdir::WalkDir::new(edge).min_depth(1) {
            let file = file.unwrap();
            if file.file_type().is_file() {
                std::fs::copy(file.path(), to.join(file.path().strip_prefix(edge).unwrap())).unwrap();
            }
        }
        to
    };
    // A link to a file outside.
    let link = copy("link");
    std::os::unix::fs::symlink("/etc/hostname", link.join("test_data_set_0/input_9.pb")).unwrap();
    // An expected result the reference does not compute.
    let wrong = copy("wrong");
    let input = std::fs::read(wrong.join("test_data_set_0/input_0.pb")).unwrap();
    std::fs::write(wrong.join("test_data_set_0/output_0.pb"), input).unwrap();
    // The same test as a finding already there, filed under another cause: one case.
    let again = copy("zz_again");
    // A basis whose section is no section of docs/semantics.md.
    let section = copy("section");
    let mut record = case_json(&section);
    record["basis"]["section"] = "see https://example.com".into();
    std::fs::write(section.join("case.json"), record.to_string()).unwrap();
    // A case.json that relabels the operator version.
    let relabelled = copy("relabelled");
    let mut record = case_json(&relabelled);
    record["version"] = 99.into();
    std::fs::write(relabelled.join("case.json"), record.to_string()).unwrap();
    // A name whose newline would forge a line of the report.
    copy("x\npromoted      test_fuzz_forged");
    // Something that is no finding at all.
    std::fs::write(findings_dir.join("notes.txt"), "mine").unwrap();

    let (out, text) = promote(&[findings_dir.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let refused: Vec<&str> = text.lines().filter(|l| l.starts_with("REFUSED ")).collect();
    let path = |p: &Path| p.display().to_string();
    assert!(
        refused.iter().any(|l| l.contains(&format!(
            "{}: a symbolic link that no finding",
            path(&link.join("test_data_set_0/input_9.pb"))
        ))),
        "{text}"
    );
    assert!(
        refused
            .iter()
            .any(|l| l.contains(&format!("{}: the reference does not pass it (failed)", path(&wrong)))),
        "{text}"
    );
    assert!(
        refused.iter().any(|l| l.contains(&format!(
            "{}: its basis.section is \"see https://example.com\", not a section of docs/semantics.md",
            path(&section.join("case.json"))
        ))),
        "{text}"
    );
    assert!(
        refused
            .iter()
            .any(|l| l.contains(&path(&relabelled)) && l.contains("its version is \"99\"")),
        "{text}"
    );
    assert!(
        refused
            .iter()
            .any(|l| l.contains("the name \"notes.txt\" is not a finding's")),
        "{text}"
    );
    assert_eq!(refused.len(), 6, "{text}");
    // The newline is shown, never a line of its own.
    assert!(
        text.lines()
            .filter(|l| l.contains("test_fuzz_forged"))
            .all(|l| l.starts_with("REFUSED ") && l.contains(r"x\npromoted")),
        "{text}"
    );
    let present = format!("(from {})", path(&again));
    assert!(
        text.lines().any(|l| l.starts_with("present ") && l.ends_with(&present)),
        "{text}"
    );
    // The sound findings are promoted, as one version, with their twins.
    assert_eq!(promoted(&text).len(), written.len(), "{text}");
    let read = Corpus::find(&corpus).unwrap().unwrap();
    assert_eq!(read.version, before + 1);
    assert_eq!(read.changed_since(before, &corpus).len(), with_twins(&written));
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            // Named with `/` on every platform, as the manifest and the assertions name them.
            let relative = e.path().strip_prefix(dir).unwrap().to_string_lossy();
            (
                relative.replace(std::path::MAIN_SEPARATOR, "/"),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// `promote --twins` gives each case promoted before twins that must be refused its valid twin
/// and names it in its case.json, as one corpus version: the same twin, byte for byte, that
/// promoting the finding now makes. A directory of the twin's name that its case does not name
/// is never written over; run again, it adds nothing.
#[test]
fn promote_twins_gives_each_case_promoted_without_one_its_twin() {
    use sha2::{Digest, Sha256};

    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let findings_dir = dir.path().join("findings");
    findings(&findings_dir);
    let corpus = corpus_root_copy(dir.path());
    let (out, text) = promote(&[findings_dir.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let fuzz = corpus.join("fuzz");
    let promoted_now = tree(&fuzz);
    // The corpus as a promotion before twins left it: no twins, no case.json naming one.
    let mut refused = Vec::new();
    for entry in std::fs::read_dir(&fuzz).unwrap() {
        let path = entry.unwrap().path();
        if name(&path).ends_with("_twin") {
            std::fs::remove_dir_all(&path).unwrap();
        } else if let Some(twin) = std::fs::read_to_string(path.join("case.json")).ok().and_then(|json| {
            let line = format!("  \"twin\": \"{}_twin\",\n", name(&path));
            json.contains(&line).then(|| json.replace(&line, ""))
        }) {
            std::fs::write(path.join("case.json"), twin).unwrap();
            refused.push(name(&path));
        }
    }
    assert_eq!(refused.len(), 2);
    let mut manifest = String::from("case\tfile\tbytes\tsha256\n");
    for (file, bytes) in tree(&fuzz).iter().filter(|(f, _)| f.starts_with("test_")) {
        let (case, file) = file.split_once('/').unwrap();
        let sha: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
        manifest.push_str(&format!("{case}\t{file}\t{}\t{sha}\n", bytes.len()));
    }
    std::fs::write(fuzz.join("MANIFEST.tsv"), manifest).unwrap();
    assert_eq!(fuzz_manifest_problems(&corpus), Vec::<String>::new());
    let version = Corpus::read(&corpus).unwrap().version;

    // A directory of a twin's name that the case does not name: refused, the other one listed.
    std::fs::create_dir(fuzz.join(format!("{}_twin", refused[0]))).unwrap();
    let (out, text) = promote(&["--twins", "--dry-run"], &corpus);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "REFUSED       {}: {}_twin exists, but its case.json does not name it; an existing case is never written over",
            fuzz.join(&refused[0]).display(),
            refused[0]
        )),
        "{text}"
    );
    assert!(
        text.lines().any(
            |l| l.starts_with(&format!("would add twin fuzz/{}_twin  the same node with ", refused[1]))
                && l.ends_with(&format!("(of fuzz/{})", refused[1]))
        ),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "--dry-run: 1 twin would be added to {} as corpus version {}\n",
            fuzz.display(),
            version + 1
        )),
        "{text}"
    );
    std::fs::remove_dir(fuzz.join(format!("{}_twin", refused[0]))).unwrap();

    let (out, text) = promote(&["--twins"], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(tree(&fuzz), promoted_now, "{text}");
    let read = Corpus::read(&corpus).unwrap();
    assert_eq!(read.version, version + 1);
    let changes = &read.changes[&read.version];
    assert_eq!(changes.len(), 4, "{changes:?}");
    for case in &refused {
        assert_eq!(
            changes[&format!("fuzz/{case}/0")],
            format!("names its valid twin `fuzz/{case}_twin/0`")
        );
        assert!(
            changes[&format!("fuzz/{case}_twin/0")]
                .starts_with(&format!("new, the valid twin of `fuzz/{case}/0`: the same node with "))
        );
    }
    assert!(std::fs::read_to_string(corpus.join("CHANGELOG.md")).unwrap().contains(
        "made by `pad-conformance promote --twins`: 2 cases, each the same node with the property its finding breaks repaired, 0 confirmed by a second oracle, 2 on the reference alone; each finding's case.json names its twin."
    ));
    let (out, text) = promote(&["--twins"], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!(
            "no promoted case that must be refused lacks its twin: the corpus stays at version {}",
            version + 1
        )),
        "{text}"
    );
    // With findings, or --from, it is no --twins run.
    let (out, text) = promote(&["--twins", findings_dir.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("cannot be used with"), "{text}");
}

/// A worker, in sh, that answers every case with its first input as its output: it computes
/// other outputs than the reference wherever a case pads.
const ECHO_WORKER: &str = r#"exec:read hello; echo '{"type": "hello", "version": 1, "name": "echo", "runtime": {"name": "echo", "version": "1"}}'; while read request; do id=${request#*\"id\":}; id=${id# }; id=${id%%,*}; dir=${request#*\"output_dir\":}; dir=${dir# }; dir=${dir#\"}; dir=${dir%%\"*}; input=${request#*\"inputs\":}; input=${input# }; input=${input#\[\"}; input=${input%%\"*}; cp "$input" "$dir/output_0.pb"; echo "{\"type\": \"result\", \"id\": $id, \"outputs\": [\"output_0.pb\"]}"; done"#;

#[test]
fn a_second_oracle_that_contradicts_a_finding_keeps_it_out() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let findings_dir = dir.path().join("findings");
    let written = findings(&findings_dir);
    let corpus = corpus_root_copy(dir.path());
    let before = Corpus::find(&corpus).unwrap().unwrap().version;
    let (out, text) = promote(&["--oracle", ECHO_WORKER, findings_dir.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let edge = written
        .iter()
        .find(|p| name(p).starts_with("test_fuzz_wrong-values_edge-padding"))
        .unwrap();
    assert!(
        text.lines().any(|l| l.starts_with(&format!(
            "CONTRADICTED  {}: echo 1 computes other outputs; not promoted: ",
            edge.display()
        ))),
        "{text}"
    );
    // A case that must be refused, which the echo answers: the oracle cannot tell.
    let wrap = written
        .iter()
        .find(|p| name(p).starts_with("test_fuzz_accepts-forbidden_breaks-mode-not-in-version"))
        .unwrap();
    let names = promoted(&text);
    let promoted_wrap = names
        .iter()
        .find(|n| n.starts_with("test_fuzz_accepts-forbidden_breaks-mode-not-in-version"))
        .expect("promoted");
    let record = case_json(&corpus.join("fuzz").join(promoted_wrap));
    assert_eq!(record["promotion"]["oracle"], "reference-only");
    assert_eq!(record["promotion"]["second_oracle"], "echo 1");
    assert_eq!(
        record["promotion"]["note"],
        "echo 1 answers the case, which it does not check"
    );
    assert_eq!(record["promotion"]["finding"], name(wrap).as_str());
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("test_fuzz_wrong-values_edge-padding"))
    );
    let read = Corpus::find(&corpus).unwrap().unwrap();
    assert_eq!(read.version, before + 1);
    let cases: Vec<PathBuf> = names.iter().map(|n| corpus.join("fuzz").join(n)).collect();
    assert_eq!(read.changed_since(before, &corpus).len(), with_twins(&cases));
}

/// `--from RUNTIME DIR` records the runtime each finding was made against, in case.json and the
/// changelog, one batch and one version for several runtimes; a finding made against the second
/// oracle itself is promoted reference-only, though that oracle computes other outputs. Its
/// oracle is a shell script.
#[cfg(unix)]
#[test]
fn findings_of_several_runtimes_are_one_version_each_case_naming_its_runtime() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let findings_dir = dir.path().join("findings");
    let written = findings(&findings_dir);
    let edge = written
        .iter()
        .find(|p| name(p).starts_with("test_fuzz_wrong-values_edge-padding"))
        .unwrap();
    let wrap = written
        .iter()
        .find(|p| name(p).starts_with("test_fuzz_accepts-forbidden_breaks-mode-not-in-version"))
        .unwrap();
    let corpus = corpus_root_copy(dir.path());
    let before = Corpus::find(&corpus).unwrap().unwrap().version;
    let (out, text) = promote(
        &[
            "--oracle",
            ECHO_WORKER,
            "--from",
            "echo",
            edge.to_str().unwrap(),
            "--from",
            "two-defects 1",
            wrap.to_str().unwrap(),
        ],
        &corpus,
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    let names = promoted(&text);
    assert_eq!(names.len(), 2, "{text}");
    let record = |prefix: &str| {
        let name = names.iter().find(|n| n.starts_with(prefix)).unwrap();
        case_json(&corpus.join("fuzz").join(name))["promotion"].clone()
    };
    let edge_record = record("test_fuzz_wrong-values_edge-padding");
    assert_eq!(edge_record["found_by"], "echo");
    assert_eq!(edge_record["oracle"], "reference-only");
    assert_eq!(
        edge_record["note"],
        "the second oracle, echo 1, is the runtime this finding was made against"
    );
    let wrap_record = record("test_fuzz_accepts-forbidden_breaks-mode-not-in-version");
    assert_eq!(wrap_record["found_by"], "two-defects 1");
    assert_eq!(wrap_record["note"], "echo 1 answers the case, which it does not check");
    let read = Corpus::find(&corpus).unwrap().unwrap();
    assert_eq!(read.version, before + 1);
    let whys: Vec<&String> = read.changes[&read.version].values().collect();
    assert!(
        whys.iter()
            .any(|w| w.starts_with(&format!("new, fuzz finding `{}` against echo; ", name(edge)))),
        "{whys:?}"
    );
    assert!(
        whys.iter()
            .any(|w| w.starts_with(&format!("new, fuzz finding `{}` against two-defects 1; ", name(wrap)))),
        "{whys:?}"
    );
}

#[test]
fn a_dry_run_writes_nothing_and_bad_arguments_are_refused() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let findings_dir = dir.path().join("findings");
    let written = findings(&findings_dir);
    let corpus = corpus_root_copy(dir.path());
    let (out, text) = promote(&["--dry-run", findings_dir.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("would promote fuzz/")).count(),
        written.len()
    );
    assert!(!corpus.join("fuzz").exists());
    for (args, message) in [
        (
            vec!["--date", "yesterday"],
            "--date \"yesterday\" is not a date YYYY-MM-DD",
        ),
        (
            vec!["--oracle", "ref"],
            "--oracle ref: the reference cannot be its own second oracle",
        ),
        (vec!["--oracle", "exec:true"], "the second oracle exec:true: "),
        (
            vec!["--oracle", "exec:true", "--timeout", "0"],
            "pad-conformance: --timeout 0 is not a positive number of seconds\n",
        ),
    ] {
        let mut all = args.clone();
        all.push(findings_dir.to_str().unwrap());
        let (out, text) = promote(&all, &corpus);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(text.contains(message), "{text}");
        // A bad --timeout is named as such, not blamed on the oracle.
        assert!(
            !message.contains("--timeout") || !text.contains("second oracle"),
            "{text}"
        );
    }
    // A fuzz run that found nothing leaves an empty directory: nothing to promote.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (out, text) = promote(&[empty.to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("nothing to promote: the corpus stays at version"),
        "{text}"
    );
    let (out, text) = promote(&[findings_dir.to_str().unwrap()], &dir.path().join("nowhere"));
    assert_eq!(out.status.code(), Some(2), "{text}");
    let missing = Path::new("nowhere").join("VERSION");
    assert!(text.contains(&missing.display().to_string()), "{text}");
    assert!(!corpus.join("fuzz").exists());
}

/// ONNX's reference evaluator, through its worker, confirms what it computes alike
/// (PAD_CONFORMANCE_PYTHON names the Python; .ci/run runs it).
#[test]
#[ignore = "needs Python with onnx (PAD_CONFORMANCE_PYTHON)"]
fn onnx_reference_confirms_findings() {
    let python = support::python::python();
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let findings_dir = dir.path().join("findings");
    findings(&findings_dir);
    let corpus = corpus_root_copy(dir.path());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args([
            "promote",
            findings_dir.to_str().unwrap(),
            "--corpus",
            corpus.to_str().unwrap(),
        ])
        .env("PAD_CONFORMANCE_PYTHON", &python)
        // The worker script is bundled in the binary: unpacked here, not in the user's cache.
        .env("PAD_CONFORMANCE_CACHE", dir.path().join("cache"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let names = promoted(&text);
    let edge = names
        .iter()
        .find(|n| n.starts_with("test_fuzz_wrong-values_edge-padding"))
        .expect("promoted");
    let record = case_json(&corpus.join("fuzz").join(edge));
    assert_eq!(record["promotion"]["oracle"], "confirmed", "{text}");
    let oracle = record["promotion"]["second_oracle"].as_str().unwrap();
    assert!(oracle.starts_with("onnx.reference "), "{oracle}");
    let read = Corpus::find(&corpus).unwrap().unwrap();
    assert!(
        read.changes[&read.version]
            .values()
            .any(|why| why.ends_with(&format!("; confirmed by {oracle}"))),
        "{:?}",
        read.changes[&read.version]
    );
}

/// The JSON reports of fuzz runs against the echo worker, one per argument list, run at once
/// (each run waits on its worker most of the time). Inputs of at most 1,024 elements: the echo
/// copies each through a file, and shrinking a finding of the default 65,536 took seconds.
fn fuzz_jsons(runs: &[Vec<String>]) -> Vec<Value> {
    let children: Vec<_> = runs
        .iter()
        .map(|args| {
            std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
                .args([
                    "fuzz",
                    "--backend",
                    ECHO_WORKER,
                    "--cases",
                    "60",
                    "--max-elements",
                    "1024",
                    "--format",
                    "json",
                    "--jobs",
                    "1",
                ])
                .args(args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect()
}

fn fuzz_merge(dir: &Path, reports: &[&Value]) -> (Option<i32>, String, Option<Value>) {
    let mut paths = Vec::new();
    for (k, report) in reports.iter().enumerate() {
        let path = dir.join(format!("part-{}.json", k + 1));
        std::fs::write(&path, report.to_string()).unwrap();
        paths.push(path);
    }
    let merge = |format: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .arg("fuzz-merge")
            .args(&paths)
            .args(format)
            .output()
            .unwrap()
    };
    let out = merge(&["--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // Without --format, the same merge for a person: its totals last, exiting alike.
    let human = merge(&[]);
    assert_eq!(human.status.code(), out.status.code(), "{stderr}");
    if out.status.code() != Some(2) {
        let text = String::from_utf8_lossy(&human.stdout);
        let last = text.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("fuzz-merge, seed ") && last.ends_with(" not gating"),
            "{text}"
        );
    }
    (out.status.code(), stderr, serde_json::from_slice(&out.stdout).ok())
}

/// A report with its causes in order of key and each cause's sites in order of name, and
/// without its timings: what the merge of its shards must equal.
fn canonical(mut report: Value) -> Value {
    for list in ["findings", "not_gating"] {
        let findings = report[list].as_array_mut().unwrap();
        findings.sort_by_key(|f| f["key"].as_str().unwrap().to_owned());
        for finding in findings {
            finding["seen_in"]
                .as_array_mut()
                .unwrap()
                .sort_by_key(|s| s["site"].as_str().unwrap().to_owned());
        }
    }
    let object = report.as_object_mut().unwrap();
    object.remove("seconds");
    object.remove("cases_per_second");
    report
}

#[test]
fn fuzz_shards_merged_are_the_unsharded_run() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let mut runs = vec![args(&["--seed", "3"])];
    runs.extend((1..=3).map(|k| args(&["--seed", "3", "--shard", &format!("{k}/3")])));
    let mut reports = fuzz_jsons(&runs);
    let shards = reports.split_off(1);
    let whole = reports.pop().unwrap();
    let (code, stderr, merged) = fuzz_merge(dir.path(), &[&shards[2], &shards[0], &shards[1]]);
    assert_eq!(code, Some(1), "{stderr}");
    let merged = merged.unwrap();
    assert!(whole["findings"].as_array().unwrap().len() > 1, "{whole}");
    assert_eq!(whole["shard"], serde_json::json!({"index": 1, "count": 1}));
    assert_eq!(canonical(merged), canonical(whole));

    // Shards of different runs, or not the whole set, are refused, naming the files.
    let part = |k: usize| dir.path().join(format!("part-{k}.json")).display().to_string();
    let mut other_seed = shards[1].clone();
    other_seed["seed"] = 4.into();
    let (code, stderr, _) = fuzz_merge(dir.path(), &[&shards[0], &other_seed, &shards[2]]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains(&format!(
            "{}: seed 4, but {} has 3: not shards of one run",
            part(2),
            part(1)
        )),
        "{stderr}"
    );
    let (code, stderr, _) = fuzz_merge(dir.path(), &[&shards[0], &shards[2]]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("shards 2 of 3 are missing"), "{stderr}");
    let (code, stderr, _) = fuzz_merge(dir.path(), &[&shards[0], &shards[0], &shards[1], &shards[2]]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains(&format!("{} and {} are both shard 1/3", part(1), part(2))),
        "{stderr}"
    );
    let mut looser = shards[1].clone();
    looser["run"]["tolerance"] = "2 ulps".into();
    let (code, stderr, _) = fuzz_merge(dir.path(), &[&shards[0], &looser, &shards[2]]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains(&format!(
            "{}: comparison \"2 ulps\", but {} has \"exact\"",
            part(2),
            part(1)
        )),
        "{stderr}"
    );
    let mut old = shards[1].clone();
    old.as_object_mut().unwrap().remove("run");
    let (code, stderr, _) = fuzz_merge(dir.path(), &[&shards[0], &old, &shards[2]]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains(&format!("{}: states no options", part(2))), "{stderr}");
}

/// Two promotions into one corpus at once: one waits for the other (the corpus's lock), so
/// each releases a version of its own, and the corpus reads after both. Run again, they
/// promote nothing: a rerun is idempotent.
#[test]
fn overlapping_promotions_release_one_version_each() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let written = findings(&dir.path().join("findings"));
    let corpus = corpus_root_copy(dir.path());
    let before = Corpus::read(&corpus).unwrap().version;
    let (first, second) = written.split_at(written.len() / 2);
    let spawn = |findings: &[PathBuf]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args(["promote", "--date", "2026-11-25", "--corpus", corpus.to_str().unwrap()])
            .args(findings)
            .env_remove("PAD_CONFORMANCE_PYTHON")
            .output()
            .unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| spawn(first));
        let b = s.spawn(|| spawn(second));
        (a.join().unwrap(), b.join().unwrap())
    });
    for out in [&a, &b] {
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let read = Corpus::read(&corpus).unwrap();
    assert_eq!(read.version, before + 2);
    let added = read.changed_since(before, &corpus);
    assert_eq!(added.len(), with_twins(&written), "{added:?}");
    assert!(!corpus.join(".promote").exists());
    let (out, text) = promote(&[dir.path().join("findings").to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!("the corpus stays at version {}", before + 2)),
        "{text}"
    );
}

/// A promotion killed part-way (its journal left in `.promote/`, a case moved in, the manifest
/// and changelog already rewritten) is undone by the next promote, which then promotes.
#[test]
fn the_next_promote_undoes_one_that_died_part_way() {
    let dir = pad_conformance::testing::scratch_dir().unwrap();
    let written = findings(&dir.path().join("findings"));
    let corpus = corpus_root_copy(dir.path());
    let (first, rest) = written.split_at(1);
    let (out, text) = promote(&[first[0].to_str().unwrap()], &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let version = Corpus::read(&corpus).unwrap().version;
    // What a promotion of version + 1 leaves when killed after its changelog was written.
    let transaction = corpus.join(".promote");
    std::fs::create_dir(&transaction).unwrap();
    for (from, saved) in [
        ("fuzz/MANIFEST.tsv", "fuzz-MANIFEST.tsv.before"),
        ("CHANGELOG.md", "CHANGELOG.md.before"),
    ] {
        std::fs::copy(corpus.join(from), transaction.join(saved)).unwrap();
    }
    let dead = "test_fuzz_dead_00000000_pad";
    std::fs::write(
        transaction.join("journal"),
        format!(
            "pad-conformance promote journal 1\nversion\t{}\nfuzz\ttrue\nmanifest\ttrue\ncase\t{dead}\n",
            version + 1
        ),
    )
    .unwrap();
    std::fs::create_dir(corpus.join("fuzz").join(dead)).unwrap();
    std::fs::write(corpus.join("fuzz").join(dead).join("model.onnx"), "x").unwrap();
    let manifest = std::fs::read_to_string(corpus.join("fuzz/MANIFEST.tsv")).unwrap();
    std::fs::write(
        corpus.join("fuzz/MANIFEST.tsv"),
        format!("{manifest}{dead}\tmodel.onnx\t1\t{}\n", "0".repeat(64)),
    )
    .unwrap();
    let changelog = std::fs::read_to_string(corpus.join("CHANGELOG.md")).unwrap();
    let section = format!("## {} (2026-11-25)\n\nDead.\n\n", version + 1);
    let at = changelog.find("\n## ").unwrap() + 1;
    std::fs::write(
        corpus.join("CHANGELOG.md"),
        format!("{}{section}{}", &changelog[..at], &changelog[at..]),
    )
    .unwrap();

    let rest: Vec<&str> = rest.iter().map(|p| p.to_str().unwrap()).collect();
    let (out, text) = promote(&rest, &corpus);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!("undid the promotion of corpus version {}", version + 1)),
        "{text}"
    );
    let read = Corpus::read(&corpus).unwrap();
    assert_eq!(read.version, version + 1);
    assert!(!corpus.join("fuzz").join(dead).exists());
    assert!(!transaction.exists());
    assert_eq!(read.changed_since(version, &corpus).len(), with_twins(&rest));
    assert!(
        !std::fs::read_to_string(corpus.join("CHANGELOG.md"))
            .unwrap()
            .contains("Dead.")
    );
}
