//! Writing promoted findings into a versioned corpus, as one transaction under the corpus's
//! lock: each case under `fuzz/` in a directory of its own (never over one that exists), the
//! case.json of an existing case written anew where the batch gives it a twin,
//! `fuzz/MANIFEST.tsv` with every file's size and sha256, one `## N` section of CHANGELOG.md
//! for the whole batch, and VERSION raised by one. Cases are staged in `.promote/` (where
//! discovery matches nothing), listed, moved in, then the changelog and VERSION written last,
//! each file whole or not at all; a journal there, beside the files as they were, lets the
//! next run undo a promotion that died part-way, and a failure (a full disk) is undone at once.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::data::atomic_file::write_atomically;
use crate::data::corpus::{CHANGELOG_FILE, Corpus, VERSION_FILE};
use crate::data::manifest::{GENERATED_HEADER, MANIFEST_FILE};
use crate::data::side_file::{MAX_CORPUS_LIST_BYTES, read_text_capped};
use sha2::{Digest, Sha256};

use crate::cli::fatal::Fatal;

/// The corpus subdirectory promoted findings go in.
pub(super) const FUZZ_DIR: &str = "fuzz";

const README: &str = "# Promoted fuzz findings

Written by `pad-conformance promote`; do not edit by hand. Each `test_fuzz_<cause>_<digest>_pad/`
is a finding of `pad-conformance fuzz --out` made a fixed regression test: `model.onnx`,
`test_data_set_0/` (inputs, and the reference's outputs or `expected_error.txt`), `description.txt`
(the cause and the case as the fuzzer found them) and `case.json` with the basis of the expected
result and its `promotion`: the finding it came from, `found_by` (the runtime it was made
against, when the promotion named it), and `oracle` — `confirmed` when a second oracle (ONNX's
reference evaluator) agrees with the reference, `reference-only` with a `note` saying why none
could. `<digest>` is the start of a sha256 of the model and the data set, so
a finding promoted twice is one case. A finding that must be refused names its valid twin
(case.json's `twin`), `test_fuzz_<cause>_<digest>_pad_twin/`: the same node with the property
it breaks repaired, its expected output the reference's, its case.json's `promotion` saying
whose twin it is (`twin_of`), what was `repaired` and what the second oracle said.
`MANIFEST.tsv` lists every file with its size and sha256; CHANGELOG.md one level up names
every case, in the corpus version that added it. See docs/corpus.md.
";

/// A case to add: its directory name and files (relative path, bytes).
pub(super) struct NewCase {
    /// `test_fuzz_<slug>_<digest>_pad`.
    pub name: String,
    /// Its files.
    pub files: Vec<(String, Vec<u8>)>,
    /// Why it is added, for the changelog: `new, ...`.
    pub why: String,
}

/// A file of an existing case written anew: a must-refuse case's case.json, naming the twin
/// the batch adds.
pub(super) struct Rewrite {
    /// The case's directory name under `fuzz/`.
    pub case: String,
    /// The file's new bytes.
    pub bytes: Vec<u8>,
    /// Why, for the changelog: the case's line.
    pub why: String,
}

/// The only file a rewrite writes: no test file of a published case ever changes.
pub(super) const REWRITTEN_FILE: &str = crate::case::info::CASE_INFO_FILE;

/// What one release adds: new cases, and files of existing ones written anew.
#[derive(Default)]
pub(super) struct Batch {
    /// The cases added.
    pub cases: Vec<NewCase>,
    /// The files rewritten.
    pub rewrites: Vec<Rewrite>,
}

/// The corpus's `fuzz/` directory.
pub(super) fn fuzz_dir(corpus: &Corpus) -> PathBuf {
    corpus.dir.join(FUZZ_DIR)
}

/// The case under `fuzz/` that holds the test whose digest is `digest` (its name ends in
/// `_<digest>_pad`): `Some((name, true))` when it holds exactly `files` (bytes compared),
/// `Some((name, false))` when other files; `None` when there is none.
pub(super) fn existing(corpus: &Corpus, digest: &str, files: &[(&str, &[u8])]) -> Option<(String, bool)> {
    let suffix = format!("_{digest}_pad");
    let entries = fs::read_dir(fuzz_dir(corpus)).ok()?;
    let name = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|name| name.starts_with("test_fuzz_") && name.ends_with(&suffix))?;
    let dir = fuzz_dir(corpus).join(&name);
    let same = files.iter().all(|(file, bytes)| {
        crate::data::side_file::read_capped(&dir.join(file), bytes.len() as u64).is_ok_and(|b| b == *bytes)
    });
    Some((name, same))
}

/// The transaction's directory in the corpus: the journal, the files as they were, and the
/// staged cases. Hidden, and its entries are not named `test_*`: discovery never lists them.
pub(super) const TRANSACTION_DIR: &str = ".promote";
/// The journal: what a transaction under way changes, so that the next run can undo it.
const JOURNAL: &str = "journal";
const JOURNAL_HEADER: &str = "pad-conformance promote journal 1";
/// A staged case's directory name: `staged-<name>`, matched by no discovery pattern.
const STAGED: &str = "staged-";
/// The files as they were, beside the journal.
const MANIFEST_BEFORE: &str = "fuzz-MANIFEST.tsv.before";
const CHANGELOG_BEFORE: &str = "CHANGELOG.md.before";

/// Where a rewritten case's file is kept as it was, beside the journal.
fn before(case: &str) -> String {
    format!("before-{case}-{REWRITTEN_FILE}")
}

/// The steps of a release, in order: a failure at any of them is undone (`Step` names where,
/// for the tests' injected failures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// The journal and the files as they were are saved.
    Journal,
    /// The cases are written under the transaction's directory.
    Stage,
    /// `fuzz/MANIFEST.tsv` is written, listing them.
    Manifest,
    /// The cases are moved into `fuzz/`.
    Publish,
    /// CHANGELOG.md is written.
    Changelog,
    /// VERSION is written: the release is done.
    Version,
    /// The transaction's directory is removed.
    Clean,
}

/// What is called before each step: production passes [`no_fault`]; the tests fail a step, as a
/// full disk would, or stop there, as a crash would.
pub(super) type Faults<'a> = &'a dyn Fn(Step) -> Result<(), Fault>;

/// A failure injected before a step.
#[derive(Debug)]
pub(super) enum Fault {
    /// The step fails with this error: the release undoes what it did.
    Fails(std::io::Error),
    /// The process dies here: nothing more is done, the next run recovers.
    #[cfg(test)]
    Crash,
}

/// No failure injected.
pub(super) fn no_fault(_: Step) -> Result<(), Fault> {
    Ok(())
}

/// The corpus's directory locked against other promotions (and baseline recordings into it)
/// for as long as the returned handle lives: the lock baseline recording takes
/// ([`crate::platform::lock_dir`]: on the directory itself on Unix, on a file in it on
/// Windows, which cannot open a directory as a file).
pub(super) fn lock(dir: &Path) -> Result<fs::File, Fatal> {
    crate::platform::lock_dir(dir).map_err(|e| Fatal(format!("locking {}: {e}", crate::text::shown_path(dir))))
}

/// Finishes or undoes a promotion a previous run left under way (killed, or out of space),
/// from its journal; a transaction directory without a journal had changed nothing and is
/// removed. Returns what it did, for the user, or `None` when there was nothing to do. Call
/// under [`lock`].
pub(super) fn recover(dir: &Path) -> Result<Option<String>, Fatal> {
    let transaction = dir.join(TRANSACTION_DIR);
    if fs::symlink_metadata(&transaction).is_err() {
        return Ok(None);
    }
    let journal_path = transaction.join(JOURNAL);
    let said = match fs::symlink_metadata(&journal_path) {
        Err(_) => "removed a promotion's staging that had not started".to_owned(),
        Ok(_) => {
            let text = read_text_capped(&journal_path, MAX_CORPUS_LIST_BYTES)
                .map_err(|e| Fatal(format!("reading {}: {e}", journal_path.display())))?;
            let journal = Journal::parse(&text).ok_or_else(|| {
                Fatal(format!(
                    "{}: not a promotion journal; remove {} by hand once the corpus is checked",
                    journal_path.display(),
                    transaction.display()
                ))
            })?;
            let version_path = dir.join(VERSION_FILE);
            let now = read_text_capped(&version_path, crate::data::side_file::MAX_VERSION_BYTES)
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok());
            if now.is_some_and(|v| v >= journal.version) {
                format!(
                    "finished the promotion of corpus version {} a previous run left under way",
                    journal.version
                )
            } else {
                undo(dir, &journal)?;
                format!(
                    "undid the promotion of corpus version {} a previous run left unfinished",
                    journal.version
                )
            }
        }
    };
    fs::remove_dir_all(&transaction).map_err(|e| Fatal(format!("removing {}: {e}", transaction.display())))?;
    Ok(Some(said))
}

/// What a promotion under way changes.
#[derive(Debug, PartialEq, Eq)]
struct Journal {
    /// The version it releases.
    version: u32,
    /// Whether `fuzz/` was there before.
    fuzz_existed: bool,
    /// Whether `fuzz/MANIFEST.tsv` was there before (saved as [`MANIFEST_BEFORE`]).
    manifest_existed: bool,
    /// The cases it adds.
    cases: Vec<String>,
    /// The cases whose case.json it writes anew (saved by [`before`]).
    rewrites: Vec<String>,
}

impl Journal {
    fn text(&self) -> String {
        let mut text = format!(
            "{JOURNAL_HEADER}\nversion\t{}\nfuzz\t{}\nmanifest\t{}\n",
            self.version, self.fuzz_existed, self.manifest_existed
        );
        for case in &self.cases {
            text.push_str(&format!("case\t{case}\n"));
        }
        for case in &self.rewrites {
            text.push_str(&format!("rewrite\t{case}\n"));
        }
        text
    }

    fn parse(text: &str) -> Option<Journal> {
        let mut lines = text.lines();
        (lines.next()? == JOURNAL_HEADER).then_some(())?;
        let mut field = |name: &str| lines.next()?.strip_prefix(name)?.strip_prefix('\t').map(str::to_owned);
        let version = field("version")?.parse().ok()?;
        let fuzz_existed = field("fuzz")?.parse().ok()?;
        let manifest_existed = field("manifest")?.parse().ok()?;
        let (mut cases, mut rewrites) = (Vec::new(), Vec::new());
        for line in lines {
            match line.split_once('\t')? {
                ("case", case) => cases.push(case.to_owned()),
                ("rewrite", case) => rewrites.push(case.to_owned()),
                _ => return None,
            }
        }
        // A name from the journal is removed or restored on undo: only a promoted case's,
        // never a path.
        cases
            .iter()
            .chain(&rewrites)
            .all(|c| c.starts_with("test_fuzz_") && !c.contains('/') && !c.contains('\\') && !c.contains(".."))
            .then_some(Journal {
                version,
                fuzz_existed,
                manifest_existed,
                cases,
                rewrites,
            })
    }
}

/// Puts the corpus back as the journal says it was: the published cases removed, the manifest,
/// the changelog and the rewritten files restored by renames (which need no free space).
fn undo(dir: &Path, journal: &Journal) -> Result<(), Fatal> {
    let transaction = dir.join(TRANSACTION_DIR);
    let fuzz = dir.join(FUZZ_DIR);
    let io =
        |path: &Path, e: std::io::Error| Fatal(format!("undoing a promotion: {}: {e}", crate::text::shown_path(path)));
    for case in &journal.cases {
        let published = fuzz.join(case);
        if fs::symlink_metadata(&published).is_ok() {
            fs::remove_dir_all(&published).map_err(|e| io(&published, e))?;
        }
    }
    let restore = |saved: &str, path: &Path, existed: bool| -> Result<(), Fatal> {
        let saved = transaction.join(saved);
        if fs::symlink_metadata(&saved).is_ok() {
            fs::rename(&saved, path).map_err(|e| io(path, e))?;
        } else if !existed && fs::symlink_metadata(path).is_ok() {
            fs::remove_file(path).map_err(|e| io(path, e))?;
        }
        Ok(())
    };
    restore(MANIFEST_BEFORE, &fuzz.join(MANIFEST_FILE), journal.manifest_existed)?;
    for case in &journal.rewrites {
        restore(&before(case), &fuzz.join(case).join(REWRITTEN_FILE), true)?;
    }
    restore(CHANGELOG_BEFORE, &dir.join(CHANGELOG_FILE), true)?;
    if !journal.fuzz_existed && fs::symlink_metadata(&fuzz).is_ok() {
        fs::remove_dir_all(&fuzz).map_err(|e| io(&fuzz, e))?;
    }
    Ok(())
}

/// Adds `batch` to `corpus` as version `corpus.version + 1`, dated `date`, the section's
/// prose `summary`, as one transaction: journal, staged cases, `fuzz/MANIFEST.tsv` listing
/// them, the cases moved into `fuzz/` and the rewritten files written, CHANGELOG.md, and
/// VERSION last. A failure undoes it; a crash leaves the journal, from which the next run
/// ([`recover`]) undoes it. Call under [`lock`], after [`recover`]. Returns the new version.
pub(super) fn release(
    corpus: &Corpus,
    batch: &Batch,
    date: &str,
    summary: &str,
    faults: Faults<'_>,
) -> Result<u32, Fatal> {
    let version = corpus.version.checked_add(1).ok_or_else(|| {
        Fatal(format!(
            "{}: version {} cannot be raised",
            corpus.dir.join(VERSION_FILE).display(),
            corpus.version
        ))
    })?;
    let dir = fuzz_dir(corpus);
    let fuzz_existed = match fs::symlink_metadata(&dir) {
        Err(_) => false,
        Ok(m) if m.is_dir() => true,
        Ok(_) => return Err(Fatal(format!("{}: not a directory", crate::text::shown_path(&dir)))),
    };
    let manifest_path = dir.join(MANIFEST_FILE);
    let manifest_existed = fs::symlink_metadata(&manifest_path).is_ok();
    if fuzz_existed && !manifest_existed {
        return Err(Fatal(format!(
            "{}: missing, while {} exists: the corpus's promoted cases are unlisted; restore it before promoting",
            manifest_path.display(),
            crate::text::shown_path(&dir)
        )));
    }
    let old_manifest = if manifest_existed {
        read_text_capped(&manifest_path, MAX_CORPUS_LIST_BYTES)
            .map_err(|e| Fatal(format!("reading {}: {e}", manifest_path.display())))?
    } else {
        String::new()
    };
    let changelog_path = corpus.dir.join(CHANGELOG_FILE);
    let changelog = read_text_capped(&changelog_path, MAX_CORPUS_LIST_BYTES)
        .map_err(|e| Fatal(format!("reading {}: {e}", changelog_path.display())))?;
    let journal = Journal {
        version,
        fuzz_existed,
        manifest_existed,
        cases: batch.cases.iter().map(|c| c.name.clone()).collect(),
        rewrites: batch.rewrites.iter().map(|r| r.case.clone()).collect(),
    };
    if let Some(missing) = batch
        .rewrites
        .iter()
        .map(|r| dir.join(&r.case).join(REWRITTEN_FILE))
        .find(|p| !fs::symlink_metadata(p).is_ok_and(|m| m.is_file()))
    {
        return Err(Fatal(format!(
            "{}: not a file, so it cannot be rewritten",
            crate::text::shown_path(&missing)
        )));
    }
    if let Some(there) = batch
        .cases
        .iter()
        .map(|c| dir.join(&c.name))
        .find(|p| fs::symlink_metadata(p).is_ok())
    {
        return Err(Fatal(format!(
            "{}: exists; an existing case is never written over",
            there.display()
        )));
    }
    let transaction = corpus.dir.join(TRANSACTION_DIR);
    // Made anew: a leftover one was recovered, and one made meanwhile is another's.
    fs::create_dir(&transaction).map_err(|e| Fatal(format!("writing {}: {e}", transaction.display())))?;
    match transact(
        corpus,
        batch,
        &journal,
        (&old_manifest, &changelog),
        date,
        summary,
        faults,
    ) {
        Ok(()) => {
            // Done: VERSION names the new version, so the journal has nothing left to undo.
            let _ = fs::remove_dir_all(&transaction);
            Ok(version)
        }
        Err(Fault::Fails(e)) => {
            let undone = undo(&corpus.dir, &journal).and_then(|()| {
                fs::remove_dir_all(&transaction).map_err(|e| Fatal(format!("removing {}: {e}", transaction.display())))
            });
            Err(Fatal(match undone {
                Ok(()) => format!("promoting into {}: {e}; nothing was changed", corpus.dir.display()),
                Err(Fatal(why)) => format!(
                    "promoting into {}: {e}; and undoing it: {why} (the next promote undoes it from {})",
                    corpus.dir.display(),
                    transaction.join(JOURNAL).display()
                ),
            }))
        }
        #[cfg(test)]
        Err(Fault::Crash) => Err(Fatal("crashed".into())),
    }
}

/// The release's steps, each announced to `faults` first.
fn transact(
    corpus: &Corpus,
    batch: &Batch,
    journal: &Journal,
    (old_manifest, changelog): (&str, &str),
    date: &str,
    summary: &str,
    faults: Faults<'_>,
) -> Result<(), Fault> {
    let named = |path: &Path, e: std::io::Error| {
        Fault::Fails(std::io::Error::new(
            e.kind(),
            format!("{}: {e}", crate::text::shown_path(path)),
        ))
    };
    let transaction = corpus.dir.join(TRANSACTION_DIR);
    let dir = fuzz_dir(corpus);
    let manifest_path = dir.join(MANIFEST_FILE);
    let changelog_path = corpus.dir.join(CHANGELOG_FILE);
    faults(Step::Journal)?;
    if journal.manifest_existed {
        let saved = transaction.join(MANIFEST_BEFORE);
        write_atomically(&saved, old_manifest.as_bytes()).map_err(|e| named(&saved, e))?;
    }
    let saved = transaction.join(CHANGELOG_BEFORE);
    write_atomically(&saved, changelog.as_bytes()).map_err(|e| named(&saved, e))?;
    // Saved before the journal names them: a journal's rewrite always has its file as it was.
    let mut rewritten = std::collections::BTreeSet::new();
    for rewrite in &batch.rewrites {
        let path = dir.join(&rewrite.case).join(REWRITTEN_FILE);
        let old = fs::read(&path).map_err(|e| named(&path, e))?;
        let saved = transaction.join(before(&rewrite.case));
        write_atomically(&saved, &old).map_err(|e| named(&saved, e))?;
        rewritten.insert(format!("{}\t{REWRITTEN_FILE}\t", rewrite.case));
    }
    let journal_path = transaction.join(JOURNAL);
    write_atomically(&journal_path, journal.text().as_bytes()).map_err(|e| named(&journal_path, e))?;
    faults(Step::Stage)?;
    // The rewritten files' lines go; they come back with their new sizes and digests.
    let mut lines: Vec<String> = old_manifest
        .lines()
        .skip(1)
        .filter(|line| !rewritten.iter().any(|r| line.starts_with(r.as_str())))
        .map(str::to_owned)
        .collect();
    for rewrite in &batch.rewrites {
        let sha: String = Sha256::digest(&rewrite.bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        lines.push(format!(
            "{}\t{REWRITTEN_FILE}\t{}\t{sha}",
            rewrite.case,
            rewrite.bytes.len()
        ));
    }
    for case in &batch.cases {
        let staged = transaction.join(format!("{STAGED}{}", case.name));
        fs::create_dir(&staged).map_err(|e| named(&staged, e))?;
        for (file, bytes) in &case.files {
            let path = staged.join(file);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(|e| named(parent, e))?;
            }
            let mut out = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| named(&path, e))?;
            out.write_all(bytes)
                .and_then(|()| out.sync_all())
                .map_err(|e| named(&path, e))?;
            let sha: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
            lines.push(format!("{}\t{file}\t{}\t{sha}", case.name, bytes.len()));
        }
    }
    faults(Step::Manifest)?;
    if !journal.fuzz_existed {
        fs::create_dir(&dir).map_err(|e| named(&dir, e))?;
        let readme = dir.join("README.md");
        write_atomically(&readme, README.as_bytes()).map_err(|e| named(&readme, e))?;
    }
    // Listed before they are there: a reader never finds a promoted case its manifest does
    // not list.
    lines.sort();
    let manifest = format!("{GENERATED_HEADER}\n{}\n", lines.join("\n"));
    write_atomically(&manifest_path, manifest.as_bytes()).map_err(|e| named(&manifest_path, e))?;
    faults(Step::Publish)?;
    for case in &batch.cases {
        let staged = transaction.join(format!("{STAGED}{}", case.name));
        let published = dir.join(&case.name);
        // An existing case is never written over (and a rename would replace an empty one).
        if fs::symlink_metadata(&published).is_ok() {
            return Err(named(&published, std::io::ErrorKind::AlreadyExists.into()));
        }
        fs::rename(&staged, &published).map_err(|e| named(&published, e))?;
    }
    for rewrite in &batch.rewrites {
        let path = dir.join(&rewrite.case).join(REWRITTEN_FILE);
        write_atomically(&path, &rewrite.bytes).map_err(|e| named(&path, e))?;
    }
    faults(Step::Changelog)?;
    let section = changelog_section(journal.version, date, summary, batch);
    write_atomically(&changelog_path, with_section(changelog, &section).as_bytes())
        .map_err(|e| named(&changelog_path, e))?;
    faults(Step::Version)?;
    // Last: the changelog already lists the version VERSION names.
    let version_path = corpus.dir.join(VERSION_FILE);
    write_atomically(&version_path, format!("{}\n", journal.version).as_bytes())
        .map_err(|e| named(&version_path, e))?;
    match faults(Step::Clean) {
        // Past VERSION a failure undoes nothing: the release is done.
        Err(Fault::Fails(_)) | Ok(()) => Ok(()),
        #[cfg(test)]
        Err(crash) => Err(crash),
    }
}

/// `## N (date)`, the prose, and a line per data set, by name.
fn changelog_section(version: u32, date: &str, summary: &str, batch: &Batch) -> String {
    let mut section = format!("## {version} ({date})\n\n{summary}\n\n");
    let mut lines: Vec<(&str, &str)> = batch
        .cases
        .iter()
        .map(|c| (c.name.as_str(), c.why.as_str()))
        .chain(batch.rewrites.iter().map(|r| (r.case.as_str(), r.why.as_str())))
        .collect();
    lines.sort();
    for (name, why) in lines {
        section.push_str(&format!("- `{FUZZ_DIR}/{name}/0`: {why}\n"));
    }
    section
}

/// `changelog` with `section` before its first `## ` heading (newest first), or at its end.
fn with_section(changelog: &str, section: &str) -> String {
    let at = changelog
        .match_indices("## ")
        .find(|(i, _)| *i == 0 || changelog.as_bytes()[i - 1] == b'\n')
        .map(|(i, _)| i);
    match at {
        Some(i) => format!("{}{section}\n{}", &changelog[..i], &changelog[i..]),
        None => {
            let separator = if changelog.ends_with("\n\n") || changelog.is_empty() {
                ""
            } else if changelog.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            format!("{changelog}{separator}{section}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const STEPS: [Step; 7] = [
        Step::Journal,
        Step::Stage,
        Step::Manifest,
        Step::Publish,
        Step::Changelog,
        Step::Version,
        Step::Clean,
    ];

    fn sha(bytes: &[u8]) -> String {
        Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// A corpus of no data at version 1, with `fuzz/` holding one promoted case when `promoted`.
    fn corpus(promoted: bool) -> tempfile::TempDir {
        let dir = crate::data::scratch_dir().unwrap();
        let write = |name: &str, text: &str| fs::write(dir.path().join(name), text).unwrap();
        write(VERSION_FILE, "1\n");
        write(CHANGELOG_FILE, "# Changes\n\n## 1 (2026-11-01)\n\nFirst.\n");
        write(MANIFEST_FILE, "release\tcase\tfile\torigin\tbytes\tsha256\n");
        if promoted {
            fs::create_dir_all(dir.path().join("fuzz/test_fuzz_old_00000000_pad")).unwrap();
            write("fuzz/test_fuzz_old_00000000_pad/a.txt", "a");
            write("fuzz/test_fuzz_old_00000000_pad/case.json", "{}");
            write(
                "fuzz/MANIFEST.tsv",
                &format!(
                    "{GENERATED_HEADER}\ntest_fuzz_old_00000000_pad\ta.txt\t1\t{}\ntest_fuzz_old_00000000_pad\tcase.json\t2\t{}\n",
                    sha(b"a"),
                    sha(b"{}")
                ),
            );
        }
        dir
    }

    /// Two new cases, and with `promoted` the existing case's case.json written anew.
    fn batch(promoted: bool) -> Batch {
        let cases = ["test_fuzz_x_0123abcd_pad", "test_fuzz_y_4567abcd_pad"]
            .map(|name| NewCase {
                name: name.to_owned(),
                files: vec![
                    ("model.onnx".to_owned(), name.as_bytes().to_vec()),
                    ("test_data_set_0/output_0.pb".to_owned(), b"out".to_vec()),
                ],
                why: "new, why".to_owned(),
            })
            .into();
        let rewrites = match promoted {
            true => vec![Rewrite {
                case: "test_fuzz_old_00000000_pad".into(),
                bytes: b"{\"twin\": 1}".to_vec(),
                why: "names its twin".into(),
            }],
            false => Vec::new(),
        };
        Batch { cases, rewrites }
    }

    /// Every file under `dir`, by relative path, with its bytes.
    fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .map(Result::unwrap)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                // Named with `/` on every platform, as the assertions name them.
                let relative = e.path().strip_prefix(dir).unwrap();
                (
                    crate::platform::slash_separated(relative).unwrap(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect()
    }

    fn release_with(dir: &Path, faults: Faults<'_>) -> Result<u32, Fatal> {
        let promoted = dir.join("fuzz").exists();
        release(
            &Corpus::read(dir).unwrap(),
            &batch(promoted),
            "2026-11-25",
            "Promoted.",
            faults,
        )
    }

    /// The corpus after a release that succeeds.
    fn released(promoted: bool) -> BTreeMap<String, Vec<u8>> {
        let done = corpus(promoted);
        assert_eq!(release_with(done.path(), &no_fault).unwrap(), 2);
        tree(done.path())
    }

    /// A release writes the rewritten file, lists it anew in the manifest, and names its case
    /// in the changelog among the new ones, by name.
    #[test]
    fn a_rewritten_case_json_is_listed_anew_and_named_in_the_changelog() {
        let after = released(true);
        let old = "fuzz/test_fuzz_old_00000000_pad/case.json";
        assert_eq!(after[old], b"{\"twin\": 1}");
        let manifest = String::from_utf8(after["fuzz/MANIFEST.tsv"].clone()).unwrap();
        let listed: Vec<&str> = manifest.lines().filter(|l| l.contains("test_fuzz_old")).collect();
        assert_eq!(
            listed,
            [
                format!("test_fuzz_old_00000000_pad\ta.txt\t1\t{}", sha(b"a")),
                format!("test_fuzz_old_00000000_pad\tcase.json\t11\t{}", sha(b"{\"twin\": 1}")),
            ]
        );
        let changelog = String::from_utf8(after[CHANGELOG_FILE].clone()).unwrap();
        assert!(
            changelog.contains(
                "Promoted.\n\n- `fuzz/test_fuzz_old_00000000_pad/0`: names its twin\n- `fuzz/test_fuzz_x_0123abcd_pad/0`: new, why\n"
            ),
            "{changelog}"
        );
        // A rewrite of a case that is not there is refused before anything is written.
        let dir = corpus(false);
        let before = tree(dir.path());
        let rewriting = batch(true);
        let Err(Fatal(e)) = release(
            &Corpus::read(dir.path()).unwrap(),
            &rewriting,
            "2026-11-25",
            "P.",
            &no_fault,
        ) else {
            panic!("released");
        };
        assert!(e.ends_with("case.json: not a file, so it cannot be rewritten"), "{e}");
        assert_eq!(tree(dir.path()), before);
    }

    #[test]
    fn a_release_that_fails_at_any_step_leaves_the_corpus_as_it_was() {
        for promoted in [false, true] {
            for step in STEPS {
                let dir = corpus(promoted);
                let before = tree(dir.path());
                let full = |at: Step| {
                    if at == step {
                        Err(Fault::Fails(std::io::Error::from(std::io::ErrorKind::StorageFull)))
                    } else {
                        Ok(())
                    }
                };
                match release_with(dir.path(), &full) {
                    // Past VERSION the release is done, and stays done.
                    Ok(version) => {
                        assert_eq!(step, Step::Clean);
                        assert_eq!(version, 2);
                        assert_eq!(tree(dir.path()), released(promoted));
                    }
                    Err(Fatal(e)) => {
                        assert!(e.contains("nothing was changed"), "{step:?}: {e}");
                        assert_eq!(tree(dir.path()), before, "{step:?}");
                        assert!(!dir.path().join(TRANSACTION_DIR).exists(), "{step:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_release_killed_at_any_step_is_undone_or_finished_by_the_next_run() {
        for promoted in [false, true] {
            for step in STEPS {
                let dir = corpus(promoted);
                let before = tree(dir.path());
                let crash = |at: Step| if at == step { Err(Fault::Crash) } else { Ok(()) };
                assert!(release_with(dir.path(), &crash).is_err(), "{step:?}");
                // Whatever was staged or half-published, discovery finds no case of it that
                // no manifest lists.
                if let Ok(found) = crate::case::discover(&[dir.path().to_owned()], &crate::case::Patterns::default()) {
                    for case in found {
                        let listed = fs::read_to_string(dir.path().join("fuzz/MANIFEST.tsv")).unwrap_or_default();
                        let name = case.dir.file_name().unwrap().to_string_lossy().into_owned();
                        assert!(listed.contains(&name), "{step:?}: {name} is found but unlisted");
                    }
                }
                let said = recover(dir.path()).unwrap().unwrap();
                if step == Step::Clean {
                    assert!(said.starts_with("finished"), "{said}");
                    assert_eq!(tree(dir.path()), released(promoted));
                } else {
                    let nothing_yet = step == Step::Journal && said.starts_with("removed");
                    assert!(said.starts_with("undid") || nothing_yet, "{step:?}: {said}");
                    assert_eq!(tree(dir.path()), before, "{step:?}");
                    // Rerun: it promotes, once.
                    assert_eq!(release_with(dir.path(), &no_fault).unwrap(), 2);
                    assert_eq!(tree(dir.path()), released(promoted));
                }
                assert_eq!(recover(dir.path()).unwrap(), None);
                assert!(Corpus::read(dir.path()).is_ok());
            }
        }
    }

    #[test]
    fn a_journal_names_only_promoted_cases() {
        let journal = Journal {
            version: 3,
            fuzz_existed: true,
            manifest_existed: false,
            cases: vec!["test_fuzz_a_01_pad".into()],
            rewrites: vec!["test_fuzz_b_02_pad".into()],
        };
        assert_eq!(Journal::parse(&journal.text()), Some(journal));
        for line in [
            "case\t../../home",
            "rewrite\t../../home",
            "rewrite\ttest_fuzz_x/../../y",
            "other\ttest_fuzz_x",
        ] {
            let hostile = format!("{JOURNAL_HEADER}\nversion\t3\nfuzz\ttrue\nmanifest\ttrue\n{line}\n");
            assert_eq!(Journal::parse(&hostile), None, "{line}");
        }
    }

    #[test]
    fn a_new_section_goes_before_the_newest() {
        let log = "# Corpus changelog\n\nProse with a ## inside.\n\n## 3 (2026-11-23)\n\nThird.\n";
        let case = NewCase {
            name: "test_fuzz_x_0123abcd_pad".into(),
            files: Vec::new(),
            why: "new, why".into(),
        };
        let batch = Batch {
            cases: vec![case],
            rewrites: Vec::new(),
        };
        let section = changelog_section(4, "2026-11-25", "Promoted.", &batch);
        assert_eq!(
            with_section(log, &section),
            "# Corpus changelog\n\nProse with a ## inside.\n\n## 4 (2026-11-25)\n\nPromoted.\n\n\
             - `fuzz/test_fuzz_x_0123abcd_pad/0`: new, why\n\n## 3 (2026-11-23)\n\nThird.\n"
        );
        assert_eq!(with_section("# Log\n", "## 1\n"), "# Log\n\n## 1\n");
    }
}
