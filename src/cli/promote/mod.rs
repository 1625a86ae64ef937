//! `promote`: findings of `fuzz --out` made fixed regression tests of a versioned corpus. Each
//! finding is read as hostile input, loaded and run as the runner would, and must pass with
//! the reference; a second oracle (ONNX's reference evaluator) then confirms its expected
//! result, or cannot tell (the case is marked reference-only), or contradicts it (the finding
//! is not promoted, and is reported). The batch becomes one corpus version: the cases under
//! `fuzz/`, their manifest, one CHANGELOG.md section, VERSION raised once, under the corpus's
//! lock and as one transaction (corpus.rs). Each finding is read once: the checks run
//! on a copy of the bytes read, which are the bytes published. The corpus is then read back,
//! checksums verified, and every new case run with the reference again.

mod corpus;
mod finding;
mod second_oracle;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::backend::{Backend, RefBackend};
use crate::case::info::{CASE_INFO_FILE, CaseInfo};
use crate::case::{Patterns, TestCase, discover, discover_in};
use crate::cli::backend_spec::{backend_from_spec, worker_timeout};
use crate::data::DataRoot;
use crate::data::basis::BasisNote;
use crate::data::corpus::Corpus;
use crate::data::scratch::{Scratch, private_dir};
use crate::judge::check::{CheckOptions, Status, check_data_set};
use crate::tensor::DEFAULT_MAX_BYTES;
use crate::text::escape_line;
use serde::Serialize;

use crate::cli::args::PromoteArgs;
use crate::cli::fatal::Fatal;
use crate::cli::signals;
use crate::cli::today::today;
use crate::data::corpus::CHANGELOG_FILE;
use corpus::{FUZZ_DIR, NewCase, TRANSACTION_DIR, existing, fuzz_dir, lock, no_fault, recover, release};
use finding::Finding;
use second_oracle::{Confirmation, OracleStatus, PYTHON_ENV, onnx_reference_spec, onnx_reference_worker};

/// What became of one finding.
enum Disposition {
    /// Added as the case `name`.
    Promoted {
        case: NewCase,
        basis: BasisNote,
        confirmation: Confirmation,
    },
    /// The corpus, or this batch, holds the same test already.
    Present { name: String },
    /// The second oracle computes other outputs.
    Contradicted { oracle: String, message: String },
    /// Not a finding that can be promoted: unreadable, hostile, failing with the reference, or
    /// named like an existing case of other files.
    Refused(String),
}

/// The second oracle, and how it is named in sidecars and the changelog.
struct Oracle {
    backend: Box<dyn Backend>,
    label: String,
}

impl Oracle {
    /// Whether `runtime` (a `--from` label) names this oracle: by its worker's name or its
    /// runtime's label.
    fn is(&self, runtime: &str) -> bool {
        runtime == self.backend.name() || runtime == self.label
    }
}

pub(super) fn promote(args: &PromoteArgs) -> Result<ExitCode, Fatal> {
    let date = match &args.date {
        Some(date) => chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d")
            .map_err(|e| Fatal(format!("--date {date:?} is not a date YYYY-MM-DD: {e}")))?
            .format("%Y-%m-%d")
            .to_string(),
        None => today(),
    };
    let read = || {
        Corpus::read(&args.corpus)
            .map_err(|e| Fatal(format!("--corpus {}: {e}", crate::text::shown_path(&args.corpus))))
    };
    // A corpus, before anything is locked or recovered in it.
    read()?;
    // One promotion at a time per corpus, from reading it to raising its version: two would
    // both release the next version.
    let _lock = lock(&args.corpus).map_err(|Fatal(e)| Fatal(format!("--corpus: {e}")))?;
    if args.dry_run {
        // A dry run writes nothing, not even the undoing of a promotion that died.
        if args.corpus.join(TRANSACTION_DIR).exists() {
            eprintln!(
                "pad-conformance: {}: a promotion was left under way; the next promote without --dry-run finishes or undoes it",
                crate::text::shown_path(&args.corpus)
            );
        }
    } else if let Some(done) = recover(&args.corpus)? {
        eprintln!("pad-conformance: {}: {done}", crate::text::shown_path(&args.corpus));
    }
    let corpus = read()?;
    let mut dirs: Vec<(PathBuf, Option<String>)> =
        finding_dirs(&args.findings)?.into_iter().map(|d| (d, None)).collect();
    for pair in args.from.chunks(2) {
        let [runtime, path] = pair else {
            unreachable!("clap takes --from's two values")
        };
        let runtime = escape_line(runtime).into_owned();
        for dir in finding_dirs(std::slice::from_ref(&PathBuf::from(path)))? {
            dirs.push((dir, Some(runtime.clone())));
        }
    }
    let oracle = second_oracle(args)?;
    // From here a signal stops the examination and nothing is written; one that comes while
    // the corpus is written lets it finish, so that it is never left half released.
    let _run = signals::CancelsRun::start();
    let without = if args.reference_only {
        "--reference-only was given".to_owned()
    } else {
        format!("no second oracle installed, {PYTHON_ENV} not set")
    };
    let mut results: Vec<(PathBuf, Disposition)> = Vec::new();
    for (dir, found_by) in dirs {
        if signals::interrupted().is_some() {
            break;
        }
        let batch: Vec<&str> = results
            .iter()
            .filter_map(|(_, d)| match d {
                Disposition::Promoted { case, .. } => Some(case.name.as_str()),
                _ => None,
            })
            .collect();
        let disposition = examine(&dir, found_by.as_deref(), &corpus, oracle.as_ref(), &without, &batch);
        results.push((dir, disposition));
    }
    if let Some(code) = signals::interrupted() {
        eprintln!("pad-conformance: interrupted; nothing was promoted");
        return Ok(code);
    }
    let promoted: Vec<&NewCase> = results
        .iter()
        .filter_map(|(_, d)| match d {
            Disposition::Promoted { case, .. } => Some(case),
            _ => None,
        })
        .collect();
    for (dir, disposition) in &results {
        println!("{}", line(dir, disposition, args.dry_run));
    }
    let failed = results
        .iter()
        .filter(|(_, d)| matches!(d, Disposition::Contradicted { .. } | Disposition::Refused(_)))
        .count();
    if promoted.is_empty() {
        println!("nothing to promote: the corpus stays at version {}", corpus.version);
    } else if args.dry_run {
        println!(
            "--dry-run: {} case{} would be added to {} as corpus version {}",
            promoted.len(),
            plural(promoted.len()),
            crate::text::shown_path(&fuzz_dir(&corpus)),
            corpus.version + 1
        );
    } else {
        let confirmed = results
            .iter()
            .filter(|(_, d)| {
                matches!(
                    d,
                    Disposition::Promoted {
                        confirmation: Confirmation::Confirmed,
                        ..
                    }
                )
            })
            .count();
        let summary = format!(
            "Findings of `pad-conformance fuzz` made fixed regression tests by `pad-conformance promote`: {} case{}, {confirmed} confirmed by a second oracle{}, {} on the reference alone. No existing data set changed.",
            promoted.len(),
            plural(promoted.len()),
            oracle.as_ref().map(|o| format!(" ({})", o.label)).unwrap_or_default(),
            promoted.len() - confirmed
        );
        let cases: Vec<NewCase> = results
            .into_iter()
            .filter_map(|(_, d)| match d {
                Disposition::Promoted { case, .. } => Some(case),
                _ => None,
            })
            .collect();
        let version = release(&corpus, &cases, &date, &summary, &no_fault)?;
        verify_promoted(&corpus.dir, &cases)?;
        println!(
            "corpus version {} → {version}: {} case{} added to {}, listed in {}",
            corpus.version,
            cases.len(),
            plural(cases.len()),
            crate::text::shown_path(&fuzz_dir(&corpus)),
            crate::text::shown_path(&corpus.dir.join(CHANGELOG_FILE))
        );
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One line of the report on a finding.
fn line(dir: &Path, disposition: &Disposition, dry_run: bool) -> String {
    let from = crate::text::shown_path(dir);
    match disposition {
        Disposition::Promoted {
            case,
            basis,
            confirmation,
        } => format!(
            "{}{FUZZ_DIR}/{}  basis {}, {}  (from {from})",
            if dry_run { "would promote " } else { "promoted      " },
            case.name,
            basis.kind,
            confirmation_text(confirmation)
        ),
        Disposition::Present { name } => {
            format!("present       {FUZZ_DIR}/{name}: the same test is there  (from {from})")
        }
        Disposition::Contradicted { oracle, message } => {
            format!("CONTRADICTED  {from}: {oracle} computes other outputs; not promoted: {message}")
        }
        Disposition::Refused(why) => format!("REFUSED       {why}"),
    }
}

fn confirmation_text(confirmation: &Confirmation) -> String {
    match confirmation {
        Confirmation::Confirmed => "confirmed".to_owned(),
        Confirmation::ReferenceOnly(why) => format!("reference-only: {why}"),
        Confirmation::Contradicted(why) => format!("contradicted: {why}"),
    }
}

/// The findings the arguments name: a directory `fuzz --out` wrote (each entry a finding),
/// or one finding's directory (it holds model.onnx).
fn finding_dirs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Fatal> {
    let mut dirs = Vec::new();
    for path in paths {
        if !std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Err(Fatal(format!(
                "{}: not a directory of findings (`fuzz --out DIR`) nor a finding",
                crate::text::shown_path(path)
            )));
        }
        if std::fs::symlink_metadata(path.join("model.onnx")).is_ok() {
            dirs.push(path.clone());
            continue;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| Fatal(format!("reading {}: {e}", crate::text::shown_path(path))))?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(|e| Fatal(format!("reading {}: {e}", crate::text::shown_path(path))))?;
        // An empty one is a fuzz run that found nothing: nothing to promote.
        entries.sort();
        dirs.extend(entries);
    }
    Ok(dirs)
}

/// The second oracle: `--oracle`, else ONNX's reference evaluator when PAD_CONFORMANCE_PYTHON
/// names a Python, else none. One that is asked for but does not start is an error.
fn second_oracle(args: &PromoteArgs) -> Result<Option<Oracle>, Fatal> {
    if args.reference_only {
        return Ok(None);
    }
    let spec = match (&args.oracle, std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty())) {
        (Some(spec), _) if spec == "ref" => {
            return Err(Fatal(
                "--oracle ref: the reference cannot be its own second oracle".into(),
            ));
        }
        (Some(spec), _) => spec.clone(),
        (None, Some(python)) => {
            let worker = onnx_reference_worker().map_err(|e| {
                Fatal(format!(
                    "{PYTHON_ENV} is set, but the bundled worker cannot be unpacked ({e}): give --oracle or --reference-only"
                ))
            })?;
            onnx_reference_spec(Path::new(&python), &worker)
        }
        (None, None) => return Ok(None),
    };
    // A bad --timeout is the command line's mistake, not the oracle's.
    let timeout = worker_timeout(args.timeout)?;
    let backend = backend_from_spec(&spec, timeout, DEFAULT_MAX_BYTES).map_err(|Fatal(e)| {
        Fatal(format!(
            "the second oracle {spec}: {e}; give --reference-only to promote on the reference alone"
        ))
    })?;
    let label = backend
        .runtime()
        .map_or_else(|| backend.name().to_owned(), |r| r.label());
    Ok(Some(Oracle {
        backend,
        label: escape_line(&label).into_owned(),
    }))
}

/// The disposition of the finding at `dir`, made against `found_by` when that is known; `batch`
/// names the cases this run promotes before it.
fn examine(
    dir: &Path,
    found_by: Option<&str>,
    corpus: &Corpus,
    oracle: Option<&Oracle>,
    without: &str,
    batch: &[&str],
) -> Disposition {
    match Finding::read(dir) {
        Ok(finding) => examine_finding(dir, finding, found_by, corpus, oracle, without, batch),
        Err(e) => Disposition::Refused(e.to_string()),
    }
}

/// [`examine`] of the finding read from `dir`: never read again.
fn examine_finding(
    dir: &Path,
    finding: Finding,
    found_by: Option<&str>,
    corpus: &Corpus,
    oracle: Option<&Oracle>,
    without: &str,
    batch: &[&str],
) -> Disposition {
    let digest = finding.content_digest();
    let name = format!("test_fuzz_{}_{digest}_pad", finding.slug);
    let test: Vec<(&str, &[u8])> = finding.test_files().collect();
    // One test is one case, whatever cause its finding was filed under.
    if let Some(earlier) = batch.iter().find(|n| n.ends_with(&format!("_{digest}_pad"))) {
        return Disposition::Present {
            name: (*earlier).to_owned(),
        };
    }
    match existing(corpus, &digest, &test) {
        Some((name, true)) => return Disposition::Present { name },
        Some((name, false)) => {
            return Disposition::Refused(format!(
                "{}: {} exists with other files; an existing case is never written over",
                crate::text::shown_path(dir),
                crate::text::shown_path(&fuzz_dir(corpus).join(name))
            ));
        }
        None => {}
    }
    // The checks run on the bytes read, which are the bytes published: a finding changed
    // meanwhile on disk changes nothing.
    let copy = match copy_of(&finding) {
        Ok(copy) => copy,
        Err(e) => {
            return Disposition::Refused(format!("{}: copying it to check it: {e}", crate::text::shown_path(dir)));
        }
    };
    let case = match load(&copy.path().join(&finding.name), dir) {
        Ok(case) => case,
        Err(why) => return Disposition::Refused(why),
    };
    let Some(info) = case.info.clone() else {
        return Disposition::Refused(format!("{}: no case.json was read", crate::text::shown_path(dir)));
    };
    if let Err(why) = check_section(&info.basis, &dir.join(CASE_INFO_FILE)) {
        return Disposition::Refused(why);
    }
    let options = CheckOptions::default();
    let reference = check_data_set(&RefBackend, &case, 0, &options);
    if reference.status() != Status::Passed {
        return Disposition::Refused(format!(
            "{}: the reference does not pass it ({}): {}",
            crate::text::shown_path(dir),
            reference.status().name(),
            escape_line(&reference.message())
        ));
    }
    let confirmation = match oracle {
        // The defendant is no witness: its answer is the finding, whatever it says now.
        Some(oracle) if found_by.is_some_and(|r| oracle.is(r)) => Confirmation::ReferenceOnly(format!(
            "the second oracle, {}, is the runtime this finding was made against",
            oracle.label
        )),
        Some(oracle) => Confirmation::of(
            &check_data_set(oracle.backend.as_ref(), &case, 0, &options),
            &oracle.label,
        ),
        None => Confirmation::ReferenceOnly(without.to_owned()),
    };
    if let Confirmation::Contradicted(message) = &confirmation {
        return Disposition::Contradicted {
            oracle: oracle.map(|o| o.label.clone()).unwrap_or_default(),
            message: message.clone(),
        };
    }
    let oracle_label = oracle.map(|o| o.label.as_str());
    let record = PromotedInfo {
        info: &info,
        promotion: Promotion {
            finding: &finding.name,
            found_by,
            oracle: confirmation.status(),
            second_oracle: oracle_label,
            note: match &confirmation {
                Confirmation::ReferenceOnly(why) => Some(why),
                _ => None,
            },
        },
    };
    let json = serde_json::to_string_pretty(&record).expect("case.json serializes");
    let files = finding
        .files
        .iter()
        .map(|(file, bytes)| match file.as_str() {
            CASE_INFO_FILE => (file.clone(), format!("{json}\n").into_bytes()),
            _ => (file.clone(), bytes.clone()),
        })
        .collect();
    let vouched = match (&confirmation, oracle_label) {
        (Confirmation::Confirmed, Some(label)) => format!("confirmed by {label}"),
        (Confirmation::ReferenceOnly(why), _) => format!("reference-only: {why}"),
        _ => "confirmed".to_owned(),
    };
    let against = found_by.map(|r| format!(" against {r}")).unwrap_or_default();
    let why = format!(
        "new, fuzz finding `{}`{against}; basis {}, {}; {vouched}",
        finding.name, info.basis.kind, info.basis.section
    );
    Disposition::Promoted {
        case: NewCase { name, files, why },
        basis: info.basis.clone(),
        confirmation,
    }
}

/// The finding's files as read, written to a scratch directory of its name.
fn copy_of(finding: &Finding) -> std::io::Result<Scratch> {
    let scratch = private_dir("pad-conformance-promote-", 0)?;
    let root = scratch.path().join(&finding.name);
    for (file, bytes) in &finding.files {
        let path = root.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)?;
    }
    Ok(scratch)
}

/// The finding copied to `copy` from `dir`, discovered and loaded as the runner would: its
/// model, case.json (refused if it contradicts the model) and data set.
fn load(copy: &Path, dir: &Path) -> Result<TestCase, String> {
    let cases = discover(&[copy.to_owned()], &Patterns::default())
        .map_err(|e| format!("{}: {e}", crate::text::shown_path(dir)))?;
    match <[TestCase; 1]>::try_from(cases) {
        Ok([case]) if case.data_sets.len() == 1 => Ok(case),
        _ => Err(format!(
            "{}: not one case of one data set",
            crate::text::shown_path(dir)
        )),
    }
}

/// A basis section must be a section of docs/semantics.md: `docs/semantics.md#<section>`.
fn check_section(basis: &BasisNote, path: &Path) -> Result<(), String> {
    let anchor = basis.section.strip_prefix("docs/semantics.md#");
    if anchor.is_some_and(|a| {
        !a.is_empty()
            && a.len() <= 80
            && a.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    }) {
        Ok(())
    } else {
        Err(format!(
            "{}: its basis.section is {:?}, not a section of docs/semantics.md (docs/semantics.md#<section>)",
            crate::text::shown_path(path),
            crate::data::side_file::excerpt(&escape_line(&basis.section), 80)
        ))
    }
}

/// After the release: the corpus reads, its new cases verify against the manifest and pass
/// with the reference.
fn verify_promoted(corpus_dir: &Path, cases: &[NewCase]) -> Result<(), Fatal> {
    let corpus = Corpus::read(corpus_dir)?;
    let roots = DataRoot::resolve(&[fuzz_dir(&corpus)])?;
    let found = discover_in(&roots, &Patterns::default())?;
    for new in cases {
        let case = found
            .iter()
            .find(|c| c.dir.file_name().is_some_and(|n| *n == *new.name))
            .ok_or_else(|| Fatal(format!("after promotion, {FUZZ_DIR}/{} is not found", new.name)))?;
        let outcome = check_data_set(&RefBackend, case, 0, &CheckOptions::default());
        if outcome.status() != Status::Passed {
            return Err(Fatal(format!(
                "after promotion, {} does not pass with the reference: {}",
                case.dir.display(),
                escape_line(&outcome.message())
            )));
        }
    }
    Ok(())
}

/// A promoted case's case.json: the finding's, and how it was promoted.
#[derive(Serialize)]
struct PromotedInfo<'a> {
    #[serde(flatten)]
    info: &'a CaseInfo,
    promotion: Promotion<'a>,
}

#[derive(Serialize)]
struct Promotion<'a> {
    /// The finding's directory name, as `fuzz --out` wrote it.
    finding: &'a str,
    /// The runtime the finding was made against (`--from`), as the fuzz report names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    found_by: Option<&'a str>,
    oracle: OracleStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    second_oracle: Option<&'a str>,
    /// Why the reference alone vouches for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finding changed on disk after it was read is checked, and promoted, as read.
    #[test]
    fn a_finding_is_checked_on_the_bytes_read_not_on_the_disk_after() {
        let case = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("onnx-testdata/extended/test_ext_ms_pad1_edge_double_pads2d_value0d");
        let scratch = crate::data::scratch_dir().unwrap();
        let dir = scratch.path().join("test_fuzz_wrong-values_x_pad");
        std::fs::create_dir_all(dir.join("test_data_set_0")).unwrap();
        for file in [
            "model.onnx",
            "case.json",
            "test_data_set_0/input_0.pb",
            "test_data_set_0/input_1.pb",
            "test_data_set_0/input_2.pb",
            "test_data_set_0/output_0.pb",
        ] {
            std::fs::copy(case.join(file), dir.join(file)).unwrap();
        }
        let finding = Finding::read(&dir).unwrap();
        let output = std::fs::read(dir.join("test_data_set_0/output_0.pb")).unwrap();
        // Swapped after the read: the reference would not pass these outputs.
        std::fs::copy(
            dir.join("test_data_set_0/input_0.pb"),
            dir.join("test_data_set_0/output_0.pb"),
        )
        .unwrap();
        let corpus = Corpus {
            dir: scratch.path().join("corpus"),
            version: 1,
            changes: Default::default(),
            manifest: Default::default(),
        };
        match examine_finding(&dir, finding, None, &corpus, None, "no oracle", &[]) {
            Disposition::Promoted { case, .. } => {
                let published = case
                    .files
                    .iter()
                    .find(|(f, _)| f == "test_data_set_0/output_0.pb")
                    .unwrap();
                assert_eq!(published.1, output);
            }
            Disposition::Refused(why) => panic!("refused: {why}"),
            _ => panic!("neither promoted nor refused"),
        }
    }
}
