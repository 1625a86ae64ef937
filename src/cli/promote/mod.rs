//! `promote`: findings of `fuzz --out` made fixed regression tests of a versioned corpus. Each
//! finding is read as hostile input, loaded and run as the runner would, and must pass with
//! the reference; a second oracle (ONNX's reference evaluator) then confirms its expected
//! result, or cannot tell (the case is marked reference-only), or contradicts it (the finding
//! is not promoted, and is reported). A finding that must be refused is promoted with its
//! valid twin (twin.rs), checked as it is, and its case.json names it; `--twins` gives each
//! promoted case that must be refused and names none its twin. The batch becomes one corpus
//! version: the cases under `fuzz/`, their manifest, one CHANGELOG.md section, VERSION raised
//! once, under the corpus's lock and as one transaction (corpus.rs). Each finding is read once:
//! the checks run on a copy of the bytes read, which are the bytes published. The corpus is
//! then read back, checksums verified, and every new case run with the reference again.

mod corpus;
mod finding;
mod record;
mod second_oracle;
mod twin;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::backend::{Backend, Driven, RefBackend};
use crate::case::info::CASE_INFO_FILE;
use crate::case::{Patterns, TestCase, discover, discover_in};
use crate::cli::backend_spec::{backend_from_spec, worker_timeout};
use crate::data::DataRoot;
use crate::data::basis::BasisNote;
use crate::data::corpus::Corpus;
use crate::data::scratch::{Scratch, private_dir};
use crate::judge::check::{CheckOptions, Status, check_data_set};
use crate::tensor::DEFAULT_MAX_BYTES;
use crate::text::escape_line;

use crate::cli::args::PromoteArgs;
use crate::cli::fatal::Fatal;
use crate::cli::signals;
use crate::cli::today::today;
use crate::data::corpus::CHANGELOG_FILE;
use corpus::{
    Batch, FUZZ_DIR, NewCase, REWRITTEN_FILE, Rewrite, TRANSACTION_DIR, existing, fuzz_dir, lock, no_fault, recover,
    release,
};
use finding::Finding;
use record::{PromotedInfo, Promotion, TwinInfo, TwinPromotion, case_json, naming_twin};
use second_oracle::{Confirmation, PYTHON_ENV, onnx_reference_spec, onnx_reference_worker};
use twin::{TWIN_SUFFIX, make_twin};

/// What became of one finding.
enum Disposition {
    /// Added as the case `name`, with its valid twin when it must be refused.
    Promoted {
        case: NewCase,
        basis: BasisNote,
        confirmation: Confirmation,
        twin: Option<Box<PromotedTwin>>,
    },
    /// The corpus, or this batch, holds the same test already.
    Present { name: String },
    /// The second oracle computes other outputs.
    Contradicted { oracle: String, message: String },
    /// Not a finding that can be promoted: unreadable, hostile, failing with the reference, or
    /// named like an existing case of other files.
    Refused(String),
}

/// Why a case that must be refused gets no twin: what its disposition becomes.
enum NoTwin {
    /// None can be made, or the reference does not pass it.
    Refused(String),
    /// The second oracle computes other outputs for it.
    Contradicted { oracle: String, message: String },
}

impl From<NoTwin> for Disposition {
    fn from(no: NoTwin) -> Disposition {
        match no {
            NoTwin::Refused(why) => Disposition::Refused(why),
            NoTwin::Contradicted { oracle, message } => Disposition::Contradicted { oracle, message },
        }
    }
}

/// A promoted case's valid twin, checked as the case it becomes.
struct PromotedTwin {
    /// Its directory name and files.
    case: NewCase,
    /// What it has instead of what the case breaks.
    repaired: String,
    basis: BasisNote,
    confirmation: Confirmation,
}

/// The second oracle, and how it is named in sidecars and the changelog.
struct Oracle {
    backend: Box<dyn Driven>,
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
    if args.twins {
        return add_twins(&corpus, oracle.as_ref(), &without, args.dry_run, &date);
    }
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
        let twins: Vec<&PromotedTwin> = results
            .iter()
            .filter_map(|(_, d)| match d {
                Disposition::Promoted { twin, .. } => twin.as_deref(),
                _ => None,
            })
            .collect();
        let with_twins = match twins.len() {
            0 => String::new(),
            n => format!(
                " The {n} that must be refused come with their valid twins, {} confirmed by a second oracle.",
                twins
                    .iter()
                    .filter(|t| t.confirmation == Confirmation::Confirmed)
                    .count()
            ),
        };
        let summary = format!(
            "Findings of `pad-conformance fuzz` made fixed regression tests by `pad-conformance promote`: {} case{}, {confirmed} confirmed by a second oracle{}, {} on the reference alone.{with_twins} No existing data set changed.",
            promoted.len(),
            plural(promoted.len()),
            oracle.as_ref().map(|o| format!(" ({})", o.label)).unwrap_or_default(),
            promoted.len() - confirmed
        );
        let cases: Vec<NewCase> = results
            .into_iter()
            .flat_map(|(_, d)| match d {
                Disposition::Promoted { case, twin, .. } => std::iter::once(case).chain(twin.map(|t| t.case)).collect(),
                _ => Vec::new(),
            })
            .collect();
        let batch = Batch {
            cases,
            rewrites: Vec::new(),
        };
        let version = release(&corpus, &batch, &date, &summary, &no_fault)?;
        let cases = batch.cases;
        verify_promoted(&corpus.dir, cases.iter().map(|c| c.name.as_str()))?;
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

/// The report's line on a finding (two with its twin).
fn line(dir: &Path, disposition: &Disposition, dry_run: bool) -> String {
    let from = crate::text::shown_path(dir);
    match disposition {
        Disposition::Promoted {
            case,
            basis,
            confirmation,
            twin,
        } => {
            let promoted = format!(
                "{}{FUZZ_DIR}/{}  basis {}, {}  (from {from})",
                if dry_run { "would promote " } else { "promoted      " },
                case.name,
                basis.kind,
                confirmation_text(confirmation)
            );
            match twin {
                Some(twin) => format!("{promoted}\n{}", twin_line(twin, dry_run, None)),
                None => promoted,
            }
        }
        Disposition::Present { name } => {
            format!("present       {FUZZ_DIR}/{name}: the same test is there  (from {from})")
        }
        Disposition::Contradicted { oracle, message } => {
            format!("CONTRADICTED  {from}: {oracle} computes other outputs; not promoted: {message}")
        }
        Disposition::Refused(why) => format!("REFUSED       {why}"),
    }
}

/// The report's line on a twin: under its finding's, or (`promote --twins`) naming the case
/// it is the twin of.
fn twin_line(twin: &PromotedTwin, dry_run: bool, of: Option<&str>) -> String {
    let what = match (of, dry_run) {
        (None, false) => "  with its twin ",
        (None, true) => "  would add twin",
        (Some(_), false) => "twin          ",
        (Some(_), true) => "would add twin",
    };
    format!(
        "{what} {FUZZ_DIR}/{}  the same node with {}, basis {}, {}{}",
        twin.case.name,
        twin.repaired,
        twin.basis.kind,
        confirmation_text(&twin.confirmation),
        of.map(|case| format!("  (of {FUZZ_DIR}/{case})")).unwrap_or_default()
    )
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
    // A refusal is worth something only beside its valid twin: promoted together, or not.
    let twin = match case.data_sets[0].expected_error {
        Some(_) => match promoted_twin(&case, &name, copy.path(), oracle, without) {
            Ok(twin) => Some(Box::new(twin)),
            Err(no) => return no.into(),
        },
        None => None,
    };
    let oracle_label = oracle.map(|o| o.label.as_str());
    let mut info = (*info).clone();
    info.twin = twin.as_ref().map(|t| t.case.name.clone());
    let record = PromotedInfo {
        info,
        promotion: Promotion {
            finding: finding.name.clone(),
            found_by: found_by.map(str::to_owned),
            oracle: confirmation.status(),
            second_oracle: oracle_label.map(str::to_owned),
            note: match &confirmation {
                Confirmation::ReferenceOnly(why) => Some(why.clone()),
                _ => None,
            },
        },
    };
    let json = case_json(&record);
    let files = finding
        .files
        .iter()
        .map(|(file, bytes)| match file.as_str() {
            CASE_INFO_FILE => (file.clone(), json.clone()),
            _ => (file.clone(), bytes.clone()),
        })
        .collect();
    let against = found_by.map(|r| format!(" against {r}")).unwrap_or_default();
    let basis = &record.info.basis;
    let mut why = format!(
        "new, fuzz finding `{}`{against}; basis {}, {}; {}",
        finding.name,
        basis.kind,
        basis.section,
        vouched(&confirmation, oracle_label)
    );
    if let Some(twin) = &twin {
        why.push_str(&format!("; names its valid twin `{FUZZ_DIR}/{}/0`", twin.case.name));
    }
    Disposition::Promoted {
        case: NewCase { name, files, why },
        basis: basis.clone(),
        confirmation,
        twin,
    }
}

/// How the changelog says a case's expected result is vouched for.
fn vouched(confirmation: &Confirmation, oracle: Option<&str>) -> String {
    match (confirmation, oracle) {
        (Confirmation::Confirmed, Some(label)) => format!("confirmed by {label}"),
        (Confirmation::ReferenceOnly(why), _) => format!("reference-only: {why}"),
        _ => "confirmed".to_owned(),
    }
}

/// The valid twin of the must-refuse `case`, which is published as `name`: written in
/// `scratch` and checked there as the case it becomes. The reference must pass it, and the
/// second oracle confirms its expected output, cannot tell, or contradicts it — and then the
/// case is not promoted either.
fn promoted_twin(
    case: &TestCase,
    name: &str,
    scratch: &Path,
    oracle: Option<&Oracle>,
    without: &str,
) -> Result<PromotedTwin, NoTwin> {
    let made = make_twin(case, name).map_err(NoTwin::Refused)?;
    let shown = crate::text::shown_path(&case.dir);
    let dir = scratch.join(&made.name);
    // Checked with a case.json of what it tests; published with whose twin it is too.
    let provisional = (CASE_INFO_FILE.to_owned(), case_json(&made.info));
    for (file, bytes) in made.files.iter().chain([&provisional]) {
        let path = dir.join(file);
        let written = match path.parent() {
            Some(parent) => std::fs::create_dir_all(parent).and_then(|()| std::fs::write(&path, bytes)),
            None => std::fs::write(&path, bytes),
        };
        written.map_err(|e| NoTwin::Refused(format!("{shown}: writing its twin to check it: {e}")))?;
    }
    let twin = load(&dir, &dir).map_err(NoTwin::Refused)?;
    let options = CheckOptions::default();
    let reference = check_data_set(&RefBackend, &twin, 0, &options);
    if reference.status() != Status::Passed {
        return Err(NoTwin::Refused(format!(
            "{shown}: its valid twin {} does not pass with the reference ({}): {}",
            made.name,
            reference.status().name(),
            escape_line(&reference.message())
        )));
    }
    let confirmation = match oracle {
        Some(oracle) => Confirmation::of(
            &check_data_set(oracle.backend.as_ref(), &twin, 0, &options),
            &oracle.label,
        ),
        None => Confirmation::ReferenceOnly(without.to_owned()),
    };
    let label = oracle.map(|o| o.label.as_str());
    if let Confirmation::Contradicted(message) = &confirmation {
        return Err(NoTwin::Contradicted {
            oracle: label.unwrap_or_default().to_owned(),
            message: format!("its valid twin {}: {message}", made.name),
        });
    }
    let record = TwinInfo {
        info: &made.info,
        promotion: TwinPromotion {
            twin_of: name,
            repaired: &made.repaired,
            oracle: confirmation.status(),
            second_oracle: label,
            note: match &confirmation {
                Confirmation::ReferenceOnly(why) => Some(why),
                _ => None,
            },
        },
    };
    let why = format!(
        "new, the valid twin of `{FUZZ_DIR}/{name}/0`: the same node with {} (basis {}); {}",
        made.repaired,
        made.basis().kind,
        vouched(&confirmation, label)
    );
    let mut files = made.files.clone();
    files.push((CASE_INFO_FILE.to_owned(), case_json(&record)));
    files.sort();
    Ok(PromotedTwin {
        basis: made.basis().clone(),
        case: NewCase {
            name: made.name,
            files,
            why,
        },
        repaired: made.repaired,
        confirmation,
    })
}

/// `promote --twins`: gives each promoted case of the corpus that must be refused and names no
/// twin its valid twin, checked as a promoted finding's is, and writes its case.json naming it,
/// as one corpus version. A case whose twin cannot be made, or whose twin the second oracle
/// contradicts, is reported and left as it is.
fn add_twins(
    corpus: &Corpus,
    oracle: Option<&Oracle>,
    without: &str,
    dry_run: bool,
    date: &str,
) -> Result<ExitCode, Fatal> {
    let fuzz = fuzz_dir(corpus);
    let cases = match std::fs::symlink_metadata(&fuzz) {
        Err(_) => Vec::new(),
        Ok(_) => discover_in(&DataRoot::resolve(std::slice::from_ref(&fuzz))?, &Patterns::default())?,
    };
    let scratch =
        private_dir("pad-conformance-promote-", 0).map_err(|e| Fatal(format!("making a scratch directory: {e}")))?;
    let mut batch = Batch::default();
    let mut twins = Vec::new();
    let mut failed = 0;
    for case in &cases {
        if signals::interrupted().is_some() {
            break;
        }
        let Some(name) = case.dir.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let must_refuse = case.data_sets.iter().any(|d| d.expected_error.is_some());
        if !must_refuse || case.info.as_ref().is_some_and(|i| i.twin.is_some()) {
            continue;
        }
        let shown = crate::text::shown_path(&case.dir);
        let outcome = match &case.problem {
            Some(problem) => Err(NoTwin::Refused(format!("{shown}: {problem}"))),
            None if fuzz.join(format!("{name}{TWIN_SUFFIX}")).exists() => Err(NoTwin::Refused(format!(
                "{shown}: {name}{TWIN_SUFFIX} exists, but its case.json does not name it; an existing case is never written over"
            ))),
            None => promoted_twin(case, &name, scratch.path(), oracle, without).and_then(|twin| {
                let path = case.dir.join(REWRITTEN_FILE);
                let bytes = crate::data::side_file::read_capped(&path, crate::data::side_file::MAX_CASE_INFO_BYTES)
                    .map_err(|e| NoTwin::Refused(format!("reading {}: {e}", crate::text::shown_path(&path))))?;
                let named = naming_twin(&bytes, &twin.case.name).map_err(|e| {
                    NoTwin::Refused(format!(
                        "{}: not a case.json `promote` wrote: {e}",
                        crate::text::shown_path(&path)
                    ))
                })?;
                let rewrite = Rewrite {
                    case: name.clone(),
                    bytes: named,
                    why: format!("names its valid twin `{FUZZ_DIR}/{}/0`", twin.case.name),
                };
                Ok((twin, rewrite))
            }),
        };
        match outcome {
            Ok((twin, rewrite)) => {
                println!("{}", twin_line(&twin, dry_run, Some(&name)));
                batch.rewrites.push(rewrite);
                twins.push(twin);
            }
            Err(no) => {
                failed += 1;
                println!("{}", line(&case.dir, &no.into(), dry_run));
            }
        }
    }
    if let Some(code) = signals::interrupted() {
        eprintln!("pad-conformance: interrupted; nothing was promoted");
        return Ok(code);
    }
    let confirmed = twins
        .iter()
        .filter(|t| t.confirmation == Confirmation::Confirmed)
        .count();
    batch.cases = twins.into_iter().map(|t| t.case).collect();
    let n = batch.cases.len();
    if n == 0 {
        println!(
            "no promoted case that must be refused lacks its twin: the corpus stays at version {}",
            corpus.version
        );
    } else if dry_run {
        println!(
            "--dry-run: {n} twin{} would be added to {} as corpus version {}",
            plural(n),
            crate::text::shown_path(&fuzz),
            corpus.version + 1
        );
    } else {
        let summary = format!(
            "The valid twins of promoted fuzz findings that must be refused, made by `pad-conformance promote --twins`: {n} case{}, each the same node with the property its finding breaks repaired, {confirmed} confirmed by a second oracle{}, {} on the reference alone; each finding's case.json names its twin. No expected result changed.",
            plural(n),
            oracle.map(|o| format!(" ({})", o.label)).unwrap_or_default(),
            n - confirmed
        );
        let version = release(corpus, &batch, date, &summary, &no_fault)?;
        let checked = batch.cases.iter().map(|c| c.name.as_str());
        verify_promoted(
            &corpus.dir,
            checked.chain(batch.rewrites.iter().map(|r| r.case.as_str())),
        )?;
        println!(
            "corpus version {} → {version}: {n} twin{} added to {}, listed in {}",
            corpus.version,
            plural(n),
            crate::text::shown_path(&fuzz),
            crate::text::shown_path(&corpus.dir.join(CHANGELOG_FILE))
        );
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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

/// After the release: the corpus reads, the cases it added or changed (`names`) verify against
/// the manifest and pass with the reference, each twin resolved.
fn verify_promoted<'a>(corpus_dir: &Path, names: impl Iterator<Item = &'a str>) -> Result<(), Fatal> {
    let corpus = Corpus::read(corpus_dir)?;
    let roots = DataRoot::resolve(&[fuzz_dir(&corpus)])?;
    let found = discover_in(&roots, &Patterns::default())?;
    for name in names {
        let case = found
            .iter()
            .find(|c| c.dir.file_name().is_some_and(|n| *n == *name))
            .ok_or_else(|| Fatal(format!("after promotion, {FUZZ_DIR}/{name} is not found")))?;
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
