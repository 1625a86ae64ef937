//! Test case discovery and loading.
//!
//! A case is a directory holding model.onnx whose name matches one of the patterns (by
//! default `test_*_pad*`, `test_center_crop_pad_*` and, for pytorch exports, `test_*Pad*`),
//! with data sets `test_data_set_N/` holding `input_K.pb` and `output_K.pb`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use walkdir::WalkDir;

pub(crate) mod bundled_origin;
pub(crate) mod content_digest;
pub(crate) mod error;
pub(crate) mod info;
pub(crate) mod narrowing;
pub(crate) mod shared_model;

use crate::cancel::Cancel;
use crate::case::bundled_origin::{BundledOrigin, BundledOriginError, Disagreement};
use crate::case::error::Error;
use crate::case::info::{CASE_INFO_FILE, CaseInfo, Contradiction};
use crate::data::DataRoot;
use crate::data::basis::BasisNote;
use crate::data::json_file::{JsonFileError, read_json};
use crate::data::manifest::{ListedCase, Tampered};
use crate::data::side_file::MAX_CASE_INFO_BYTES;
use crate::model::Model;
use crate::platform::{lossless_name, slash_separated};
use crate::tensor::{DecodeOptions, Tensor, group_limit, read_small_file, read_tensor_group};

/// The directory-name patterns a case must match, unless `--pattern` replaces them.
pub(crate) const DEFAULT_PATTERNS: [&str; 3] = ["test_*_pad*", "test_center_crop_pad_*", "test_*Pad*"];

/// The file in a data set that replaces the expected outputs when the case must be refused.
pub(crate) const EXPECTED_ERROR_FILE: &str = "expected_error.txt";

/// A discovered test case: its directory and data sets, not yet loaded.
#[derive(Clone, Debug)]
pub struct TestCase {
    /// The path relative to the root it was found under: `onnx-1.22.0/node/test_wrap_pad`;
    /// prefixed with the root as given and `:` (`../other:node/test_wrap_pad`) when another
    /// root of the same discovery holds a case of that path too, so that a run never names
    /// two data sets alike (reports, `diff` and baselines key data sets by name).
    pub id: String,
    /// The case directory, holding model.onnx.
    pub dir: PathBuf,
    /// Its `test_data_set_N` directories, in numeric order of N.
    pub data_sets: Vec<DataSet>,
    /// Why the case directory could not be listed (or, for a directory that could not be
    /// walked at all, why): the case is errored with this message, the others run on.
    pub problem: Option<ListingProblem>,
    /// What its expected results rest on: its case.json's, or the spec for upstream cases
    /// (any case its corpus's root manifest lists, and any case without a case.json). A data
    /// set that is a copy of a bundled one rests on the bundled one's instead: judge by
    /// [`TestCase::basis_of`].
    pub basis: BasisNote,
    /// Its case.json, when it has one that counts (upstream cases' never does); for a copy of
    /// a bundled data set, the bundled one's counts ([`TestCase::info_of`]).
    pub info: Option<Arc<CaseInfo>>,
}

/// One `test_data_set_N` directory.
#[derive(Clone, Debug)]
pub struct DataSet {
    /// The N of `test_data_set_N`.
    pub index: usize,
    /// The data set directory.
    pub dir: PathBuf,
    /// `input_K.pb` files, in numeric order of K.
    pub inputs: Vec<PathBuf>,
    /// `output_K.pb` files, in numeric order of K.
    pub outputs: Vec<PathBuf>,
    /// `expected_error.txt`: the data set must be refused; the file says why.
    pub expected_error: Option<PathBuf>,
    /// Why the data set cannot run as listed (unreadable, or a gap in the file numbering).
    pub problem: Option<ListingProblem>,
    /// The bundled data set it is by content, outside the bundled corpus: its basis and
    /// expectation hold (`outputs` and `expected_error` are then the bundled files).
    pub bundled: Option<Arc<BundledOrigin>>,
}

impl DataSet {
    /// Why the data set cannot run with `model`, if it cannot: its own listing problem, or
    /// files that do not match the graph.
    pub fn problem_with(&self, model: &Model) -> Option<ListingProblem> {
        self.problem.clone().or_else(|| self.unlike(model))
    }

    /// Says so when the data set holds more or fewer input_K.pb or output_K.pb files than the
    /// graph has inputs or outputs: a file is missing or stray, and no backend is to blame.
    fn unlike(&self, model: &Model) -> Option<ListingProblem> {
        let mismatch = |files: &[PathBuf], prefix: &'static str, names: &[String], what: &'static str| {
            (files.len() != names.len()).then(|| ListingProblem::UnlikeGraph {
                dir: self.dir.clone(),
                prefix,
                files: files.len(),
                what,
                names: names.to_vec(),
            })
        };
        let outputs = || match self.expected_error {
            Some(_) => None,
            None => mismatch(&self.outputs, "output_", &model.graph.outputs, "output"),
        };
        mismatch(&self.inputs, "input_", &model.graph.inputs, "input").or_else(outputs)
    }
}

/// Why a case or data set cannot run as its directory lists it; no backend is to blame.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ListingProblem {
    /// A case.json that cannot be read.
    #[error(transparent)]
    CaseInfo(Arc<JsonFileError>),
    /// A file of a case its corpus's manifest lists that is not as listed.
    #[error(transparent)]
    Tampered(Arc<Tampered>),
    /// A case.json that contradicts the model it describes.
    #[error(transparent)]
    Contradicts(Arc<Contradiction>),
    /// A copy of a bundled data set whose bundled expectation cannot be read.
    #[error(transparent)]
    Bundled(Arc<BundledOriginError>),
    /// A directory that cannot be read.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Unreadable {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// Two files with the same number (`output_0.pb`, `output_00.pb`).
    #[error("{}: {first} and {second} are both number {number}", crate::text::shown_path(dir))]
    DuplicateNumber {
        /// The data set directory.
        dir: PathBuf,
        /// The first file's name.
        first: String,
        /// The second file's name.
        second: String,
        /// Their number.
        number: usize,
    },
    /// A gap in the numbering: later files would shift onto the wrong input or output.
    #[error("{}: {prefix}{position}.pb is missing (found {found})", crate::text::shown_path(dir))]
    MissingNumber {
        /// The data set directory.
        dir: PathBuf,
        /// `input_` or `output_`.
        prefix: &'static str,
        /// The missing number.
        position: usize,
        /// The file found in its place.
        found: String,
    },
    /// An entry named like a numbered one whose number does not parse (or does not fit).
    #[error(
        "{}: the number in the name is not a non-negative integer that fits",
        crate::text::shown_path(path)
    )]
    BadNumber {
        /// The entry.
        path: PathBuf,
    },
    /// A `test_data_set_N` that is not a directory.
    #[error("{}: not a directory", crate::text::shown_path(path))]
    NotADirectory {
        /// The entry.
        path: PathBuf,
    },
    /// Both expected_error.txt and output files.
    #[error(
        "{}: holds both {EXPECTED_ERROR_FILE} and output_K.pb files; a data set expects one or the other",
        crate::text::shown_path(dir)
    )]
    BothExpectations {
        /// The data set directory.
        dir: PathBuf,
    },
    /// More or fewer files than the graph has inputs or outputs.
    #[error(
        "{}: {files} {prefix}K.pb files for {} graph {what}{} ({})",
        crate::text::shown_path(dir),
        names.len(),
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    )]
    UnlikeGraph {
        /// The data set directory.
        dir: PathBuf,
        /// `input_` or `output_`.
        prefix: &'static str,
        /// How many files there are.
        files: usize,
        /// `input` or `output`.
        what: &'static str,
        /// The graph's input or output names.
        names: Vec<String>,
    },
}

impl ListingProblem {
    fn unreadable(path: &Path, source: std::io::Error) -> ListingProblem {
        ListingProblem::Unreadable {
            path: path.to_owned(),
            source: Arc::new(source),
        }
    }
}

/// A data set's tensors, decoded.
#[derive(Clone, Debug)]
pub struct LoadedDataSet {
    /// The decoded `input_K.pb` tensors, in order of K.
    pub inputs: Vec<Tensor>,
    /// What the backend must produce.
    pub expected: Expected,
}

/// What a data set expects of the backend.
#[derive(Clone, Debug)]
pub enum Expected {
    /// The decoded `output_K.pb` tensors the backend must produce, in order of K.
    Outputs(Vec<Tensor>),
    /// The backend must refuse; the string is the reason from expected_error.txt.
    Error(String),
}

/// Why a case cannot run at all, before any data set is read.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// Its directory could not be listed.
    #[error(transparent)]
    Listing(ListingProblem),
    /// model.onnx does not load.
    #[error(transparent)]
    Model(Error),
    /// The graph holds no Pad-family node; the string names the ops it does hold.
    #[error("{0}")]
    NotApplicable(String),
}

/// Whether a case's graph holds something this project checks.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Applicability {
    /// The graph holds a Pad-family node.
    Applicable,
    /// The graph holds no Pad-family node; the string names the ops it does hold.
    NotApplicable(String),
}

/// Compiled directory-name patterns.
#[derive(Clone, Debug)]
pub struct Patterns(Vec<glob::Pattern>);

impl Patterns {
    /// Compiles `patterns`, or the defaults when it is empty.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<Patterns, Error> {
        let compile = |p: &str| {
            glob::Pattern::new(p).map_err(|source| Error::Pattern {
                pattern: p.to_owned(),
                source,
            })
        };
        if patterns.is_empty() {
            DEFAULT_PATTERNS
                .iter()
                .map(|p| compile(p))
                .collect::<Result<_, _>>()
                .map(Patterns)
        } else {
            patterns
                .iter()
                .map(|p| compile(p.as_ref()))
                .collect::<Result<_, _>>()
                .map(Patterns)
        }
    }

    /// True when the directory name `name` matches a pattern.
    pub fn matches(&self, name: &str) -> bool {
        self.0.iter().any(|p| p.matches(name))
    }
}

impl Default for Patterns {
    fn default() -> Self {
        Patterns::new::<&str>(&[]).expect("the default patterns are valid")
    }
}

/// The most entries (files and directories, a case directory's own not counted) one root's
/// walk visits before it stops with [`Error::WalkLimit`]: a hundred times the largest corpus
/// measured, and a bound on the time a wrong root (`/`, `/sys`) can take.
pub(crate) const MAX_WALK_ENTRIES: usize = 10_000_000;

/// Finds the cases under each root, sorted by id (in natural order) within each root. A symbolic link inside
/// the root is not followed (a link to a directory inside the root names one the walk reaches
/// by its own path, and one leading outside is outside the data), so a link loop or a bomb of
/// links costs nothing; a link named like a case that leads nowhere readable is an errored
/// case. The root itself may be a link. Finding none at all is an error.
///
/// The roots are resolved by [`DataRoot::resolve`] (no roots: the default data).
///
/// ```
/// use pad_conformance::testing::{Patterns, discover};
/// // The default data (the bundled corpus), cases named test_wrap_pad only.
/// let cases = discover(&[], &Patterns::new(&["test_wrap_pad"])?)?;
/// assert!(cases.iter().all(|case| case.id.ends_with("/node/test_wrap_pad")));
/// assert_eq!(cases[0].data_set_name(0), format!("{}/0", cases[0].id));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn discover(roots: &[PathBuf], patterns: &Patterns) -> Result<Vec<TestCase>, Error> {
    discover_in(&DataRoot::resolve(roots)?, patterns)
}

/// [`discover`] over roots already resolved: a case its corpus's manifest lists has its
/// files verified against their checksums, and an upstream one rests on the spec whatever
/// a case.json beside it says (docs/semantics.md#basis).
pub(crate) fn discover_in(roots: &[DataRoot], patterns: &Patterns) -> Result<Vec<TestCase>, Error> {
    discover_until(roots, patterns, &Cancel::new())
}

/// `discover_in`, stopped with [`Error::Cancelled`] once `cancel` trips (checked at every
/// entry of the walk).
pub fn discover_until(roots: &[DataRoot], patterns: &Patterns, cancel: &Cancel) -> Result<Vec<TestCase>, Error> {
    let mut cases = Vec::new();
    let mut root_of = Vec::new();
    for (r, root) in roots.iter().enumerate() {
        let mut found = discover_root(root, patterns, cancel)?;
        // Natural order: onnx-1.2.1 before onnx-1.12.0, as a reader expects.
        found.sort_by(|a, b| crate::text::natural_cmp(&a.id, &b.id));
        root_of.extend(std::iter::repeat_n(r, found.len()));
        cases.extend(found);
    }
    qualify_repeated_ids(&mut cases, &root_of, roots);
    refuse_repeated_ids(&cases, &root_of, roots)?;
    if cases.is_empty() {
        return Err(Error::NoCases {
            roots: roots.iter().map(|r| r.path.clone()).collect(),
        });
    }
    Ok(cases)
}

/// Prefixes with its root every id found under more than one root (`root_of[i]`: the index
/// of case `i`'s root), so that each copy keeps a name of its own. A root given twice is
/// told apart by its position (`data#2`).
fn qualify_repeated_ids(cases: &mut [TestCase], root_of: &[usize], roots: &[DataRoot]) {
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for case in cases.iter() {
        *copies.entry(case.id.as_str()).or_default() += 1;
    }
    let repeated: HashSet<String> = copies
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(id, _)| id.to_owned())
        .collect();
    if repeated.is_empty() {
        return;
    }
    let labels: Vec<String> = roots.iter().map(|r| r.path.display().to_string()).collect();
    let label = |r: usize| {
        if labels.iter().filter(|l| **l == labels[r]).count() > 1 {
            format!("{}#{}", labels[r], r + 1)
        } else {
            labels[r].clone()
        }
    };
    for (case, &r) in cases.iter_mut().zip(root_of) {
        if repeated.contains(&case.id) {
            case.id = format!("{}:{}", label(r), case.id);
        }
    }
}

/// Refuses the discovery when two cases still share a name once repeated ids are qualified:
/// a case found as `other:node/test_x_pad` under one root (a directory named so) and the
/// qualified copy of `node/test_x_pad` under the root `other`. Reports, `diff`, `merge` and
/// baselines key data sets by name; one name for two cases would let one's verdict stand for
/// the other's, so the run is refused rather than named by a guess.
fn refuse_repeated_ids(cases: &[TestCase], root_of: &[usize], roots: &[DataRoot]) -> Result<(), Error> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        if let Some(first) = seen.insert(case.id.as_str(), i) {
            return Err(Error::SameName {
                id: case.id.clone(),
                first: cases[first].dir.clone(),
                first_root: roots[root_of[first]].path.clone(),
                second: case.dir.clone(),
                second_root: roots[root_of[i]].path.clone(),
            });
        }
    }
    Ok(())
}

fn discover_root(data_root: &DataRoot, patterns: &Patterns, cancel: &Cancel) -> Result<Vec<TestCase>, Error> {
    discover_root_within(data_root, patterns, cancel, MAX_WALK_ENTRIES)
}

fn discover_root_within(
    data_root: &DataRoot,
    patterns: &Patterns,
    cancel: &Cancel,
    limit: usize,
) -> Result<Vec<TestCase>, Error> {
    let root = data_root.path.as_path();
    let mut cases = Vec::new();
    let mut walker = WalkDir::new(root).sort_by_file_name().into_iter();
    let mut visited = 0usize;
    while let Some(entry) = walker.next() {
        if cancel.is_cancelled() {
            return Err(Error::Cancelled);
        }
        visited += 1;
        if visited > limit {
            return Err(Error::WalkLimit {
                path: root.to_owned(),
                limit,
            });
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => match e.path().filter(|p| *p != root).map(Path::to_owned) {
                // A dangling link matters only where a case could be: named like one.
                Some(path)
                    if e.io_error().is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
                        && !path.file_name().is_some_and(|n| patterns.matches(&n.to_string_lossy())) =>
                {
                    continue;
                }
                // Inside the root, an unreadable directory is one errored entry, not the end
                // of the walk: it may hold cases, and the run must say so.
                Some(path) => {
                    let problem = ListingProblem::unreadable(&path, walk_error(e));
                    cases.push(TestCase::unlisted(root, &path, problem));
                    continue;
                }
                None => {
                    return Err(Error::Walk {
                        path: root.to_owned(),
                        source: walk_error(e),
                    });
                }
            },
        };
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_symlink() {
            // Not followed; but one named like a case that leads nowhere readable (dangling,
            // unreadable) says so, as an errored case, instead of hiding one.
            if patterns.matches(&name)
                && let Err(e) = std::fs::metadata(entry.path())
            {
                cases.push(TestCase::unlisted(
                    root,
                    entry.path(),
                    ListingProblem::unreadable(entry.path(), e),
                ));
            }
            continue;
        }
        if !entry.file_type().is_dir() {
            continue;
        }
        // Whatever model.onnx is — a directory, a FIFO, a dangling link — the case is listed,
        // and loading it says what is wrong, instead of the case vanishing.
        let model = entry.path().join("model.onnx");
        if patterns.matches(&name)
            && let Ok(metadata) = std::fs::symlink_metadata(&model)
        {
            // Its size, from the call that found it where it can be: most cases are no
            // bundled one's copy, known by size alone.
            let model_bytes = match metadata.is_file() {
                true => Some(metadata.len()),
                false => std::fs::metadata(&model).ok().filter(|m| m.is_file()).map(|m| m.len()),
            };
            cases.push(load_case_dir(data_root, entry.path(), model_bytes));
            walker.skip_current_dir();
        }
    }
    Ok(cases)
}

/// The I/O error under a walk error (links are not followed, so there is no loop).
fn walk_error(e: walkdir::Error) -> std::io::Error {
    e.into_io_error()
        .unwrap_or_else(|| std::io::Error::other("a link loop"))
}

/// `dir` relative to `root`, with `/` separators: `onnx-1.22.0/node/test_constant_pad`.
fn case_id(root: &Path, dir: &Path) -> String {
    let relative = dir.strip_prefix(root).unwrap_or(dir);
    if relative.as_os_str().is_empty() {
        dir.file_name().map(lossless_name).unwrap_or_default()
    } else {
        relative
            .components()
            .map(|c| lossless_name(c.as_os_str()))
            .collect::<Vec<_>>()
            .join("/")
    }
}

fn load_case_dir(data_root: &DataRoot, dir: &Path, model_bytes: Option<u64>) -> TestCase {
    let root = data_root.path.as_path();
    // Each directory is read once, and what is known from its entries is not asked again of
    // the file system: at 100,000 cases, every call per case counts.
    let entries = match Entries::read(dir) {
        Ok(entries) => entries,
        Err(problem) => return TestCase::unlisted(root, dir, problem),
    };
    let data_set_dirs = match entries.numbered("test_data_set_", "") {
        Ok(found) => found,
        Err(problem) => return TestCase::unlisted(root, dir, problem),
    };
    // A test_data_set_N that is not a directory, or two with one number (1 and 01), would
    // otherwise vanish or share a name: the case errors, naming it.
    for (position, (number, entry)) in data_set_dirs.iter().enumerate() {
        if !entry.is_dir() {
            return TestCase::unlisted(
                root,
                dir,
                ListingProblem::NotADirectory {
                    path: entry.path.clone(),
                },
            );
        }
        if let Some((previous, first)) = position.checked_sub(1).map(|p| &data_set_dirs[p])
            && previous == number
        {
            let name = |p: &Path| p.file_name().map(lossless_name).unwrap_or_default();
            let problem = ListingProblem::DuplicateNumber {
                dir: dir.to_owned(),
                first: name(&first.path),
                second: name(&entry.path),
                number: *number,
            };
            return TestCase::unlisted(root, dir, problem);
        }
    }
    let mut data_sets: Vec<DataSet> = data_set_dirs
        .into_iter()
        .map(|(index, entry)| list_data_set(index, entry.path.clone()))
        .collect();
    let described = entries.contains(CASE_INFO_FILE);
    let listed = data_root.listed_case(dir);
    if let Some(listed) = listed
        && let Err(tampered) = verify_listed(listed, dir, described, &mut data_sets)
    {
        return TestCase::unlisted(root, dir, ListingProblem::Tampered(Arc::new(tampered)));
    }
    // Upstream data is the spec's, whatever a sidecar says: the manifest decides, not a file.
    let info = match listed {
        Some(listed) if listed.upstream => None,
        _ if described => match read_json::<CaseInfo>(&dir.join(CASE_INFO_FILE), MAX_CASE_INFO_BYTES) {
            Ok(info) => Some(info),
            Err(e) => return TestCase::unlisted(root, dir, ListingProblem::CaseInfo(Arc::new(e))),
        },
        _ => None,
    };
    // The bundled corpus itself, vouched for by the digests this build carries, is what the
    // others are recognised by; any other case may be a copy of one of its data sets.
    if !listed.is_some_and(|l| data_root.anchors(l)) {
        bundled_origin::recognise(dir, model_bytes, listed, info.as_ref(), &mut data_sets);
    }
    TestCase {
        id: case_id(root, dir),
        dir: dir.to_owned(),
        data_sets,
        problem: None,
        basis: info
            .as_ref()
            .map_or_else(BasisNote::upstream, |info| info.basis.clone()),
        info: info.map(Arc::new),
    }
}

/// A listed case's files against its manifest: every listed file as listed, a case.json
/// only if listed, and each data set's files listed (a data set added to a listed case is
/// that data set's problem).
fn verify_listed(listed: &ListedCase, dir: &Path, described: bool, data_sets: &mut [DataSet]) -> Result<(), Tampered> {
    listed.verify(dir)?;
    let unlisted = |path: PathBuf| Tampered::Unlisted {
        path,
        manifest: listed.manifest.clone(),
    };
    if described && !listed.lists(CASE_INFO_FILE) {
        return Err(unlisted(dir.join(CASE_INFO_FILE)));
    }
    for data_set in data_sets.iter_mut().filter(|d| d.problem.is_none()) {
        let files = data_set
            .inputs
            .iter()
            .chain(&data_set.outputs)
            .chain(&data_set.expected_error);
        let stray = files.into_iter().find(|path| {
            // Manifests separate with `/`, whatever the system.
            let relative = path.strip_prefix(dir).ok().and_then(slash_separated);
            !relative.is_some_and(|r| listed.lists(&r))
        });
        if let Some(path) = stray {
            data_set.problem = Some(ListingProblem::Tampered(Arc::new(unlisted(path.clone()))));
        }
    }
    Ok(())
}

fn list_data_set(index: usize, dir: PathBuf) -> DataSet {
    let mut data_set = DataSet {
        index,
        inputs: Vec::new(),
        outputs: Vec::new(),
        expected_error: None,
        problem: None,
        bundled: None,
        dir,
    };
    let listed = Entries::read(&data_set.dir).and_then(|entries| {
        // Present in any form: one that is not a regular file is refused when read, by name.
        data_set.expected_error = entries
            .contains(EXPECTED_ERROR_FILE)
            .then(|| data_set.dir.join(EXPECTED_ERROR_FILE));
        Ok((entries.numbered_files("input_")?, entries.numbered_files("output_")?))
    });
    match listed {
        Ok((_, outputs)) if data_set.expected_error.is_some() && !outputs.is_empty() => {
            data_set.problem = Some(ListingProblem::BothExpectations {
                dir: data_set.dir.clone(),
            });
        }
        Ok((inputs, outputs)) => {
            data_set.inputs = inputs;
            data_set.outputs = outputs;
        }
        Err(problem) => data_set.problem = Some(problem),
    }
    data_set
}

/// One entry of a directory listing.
struct Entry {
    path: PathBuf,
    /// From the listing itself where the file system gives it (no call per entry).
    file_type: Option<std::fs::FileType>,
}

impl Entry {
    /// A directory, or a link to one (inside a case, a data set may be a link).
    fn is_dir(&self) -> bool {
        match self.file_type {
            Some(t) if t.is_dir() => true,
            Some(t) if !t.is_symlink() => false,
            _ => self.path.is_dir(),
        }
    }
}

/// A directory's entries, read once.
struct Entries {
    dir: PathBuf,
    entries: Vec<(std::ffi::OsString, Entry)>,
}

impl Entries {
    fn read(dir: &Path) -> Result<Entries, ListingProblem> {
        let unreadable = |source| ListingProblem::unreadable(dir, source);
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let listed = Entry {
                path: entry.path(),
                file_type: entry.file_type().ok(),
            };
            entries.push((entry.file_name(), listed));
        }
        Ok(Entries {
            dir: dir.to_owned(),
            entries,
        })
    }

    fn contains(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, _)| n == name)
    }

    /// The entries named `{prefix}{N}{suffix}`, in numeric order of N.
    fn numbered(&self, prefix: &str, suffix: &str) -> Result<Vec<(usize, &Entry)>, ListingProblem> {
        let mut found = Vec::new();
        for (name, entry) in &self.entries {
            let Some(digits) = name
                .to_str()
                .and_then(|n| n.strip_prefix(prefix))
                .and_then(|n| n.strip_suffix(suffix))
            else {
                continue;
            };
            // Named like one, but with no number that fits (`x`, `+1`, twenty digits): an error
            // naming it, not a file silently left out.
            match digits.parse::<usize>() {
                Ok(number) if digits.bytes().all(|b| b.is_ascii_digit()) => found.push((number, entry)),
                _ => {
                    return Err(ListingProblem::BadNumber {
                        path: entry.path.clone(),
                    });
                }
            }
        }
        found.sort_by(|a, b| (a.0, &a.1.path).cmp(&(b.0, &b.1.path)));
        Ok(found)
    }

    /// The `{prefix}K.pb` files, in order of K, which must run 0, 1, 2, … without a gap: a
    /// missing file would shift every later tensor onto the wrong input or output.
    fn numbered_files(&self, prefix: &'static str) -> Result<Vec<PathBuf>, ListingProblem> {
        let found = self.numbered(prefix, ".pb")?;
        let name = |path: &Path| path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        for (position, (number, entry)) in found.iter().enumerate() {
            if *number < position {
                let (_, previous) = &found[position - 1];
                return Err(ListingProblem::DuplicateNumber {
                    dir: self.dir.clone(),
                    first: name(&previous.path),
                    second: name(&entry.path),
                    number: *number,
                });
            }
            if *number > position {
                return Err(ListingProblem::MissingNumber {
                    dir: self.dir.clone(),
                    prefix,
                    position,
                    found: name(&entry.path),
                });
            }
        }
        Ok(found.into_iter().map(|(_, entry)| entry.path.clone()).collect())
    }
}

impl TestCase {
    /// The indices of the data sets to run: every one, or for a case without any, the one
    /// entry (`…/0`) that reports why it cannot run.
    pub fn job_indices(&self) -> std::ops::Range<usize> {
        0..self.data_sets.len().max(1)
    }

    /// `onnx-1.22.0/node/test_wrap_pad/0`: the name of data set `index` (an index into
    /// `data_sets`) in trials, reports and baselines. A case without data sets still has
    /// one entry, `…/0`, which says why it cannot run.
    pub fn data_set_name(&self, index: usize) -> String {
        format!("{}/{}", self.id, self.data_number(index))
    }

    /// What data set `index` rests on: the bundled data set's basis when it is a copy of one
    /// by content, else the case's.
    pub fn basis_of(&self, index: usize) -> &BasisNote {
        self.bundled(index).map_or(&self.basis, |b| &b.basis)
    }

    /// The case.json that says what data set `index` tests (the rules a must-refuse one
    /// breaks): the bundled data set's when it is a copy of one by content, else the case's.
    pub fn info_of(&self, index: usize) -> Option<&CaseInfo> {
        match self.bundled(index) {
            Some(bundled) => bundled.info.as_deref(),
            None => self.info.as_deref(),
        }
    }

    /// The bundled data set that data set `index` is by content, if any.
    pub fn bundled(&self, index: usize) -> Option<&BundledOrigin> {
        self.data_sets.get(index)?.bundled.as_deref()
    }

    /// Where this case's copies of bundled data sets said otherwise than the bundled ones:
    /// the warnings the command line and the harness print.
    pub fn disagreements(&self) -> impl Iterator<Item = &Disagreement> {
        self.data_sets
            .iter()
            .filter_map(|d| d.bundled.as_deref())
            .flat_map(|b| &b.disagreements)
    }

    /// The N of `test_data_set_N` for data set `index`, or `index` itself past the end.
    pub fn data_number(&self, index: usize) -> usize {
        self.data_sets.get(index).map_or(index, |d| d.index)
    }

    /// A directory that could not be listed: no data sets, and the reason as its problem.
    fn unlisted(root: &Path, dir: &Path, problem: ListingProblem) -> TestCase {
        TestCase {
            id: case_id(root, dir),
            dir: dir.to_owned(),
            data_sets: Vec::new(),
            problem: Some(problem),
            basis: BasisNote::upstream(),
            info: None,
        }
    }

    /// The decoding options for this case: external data resolves against its directory.
    pub fn decode_options(&self, max_bytes: u64) -> DecodeOptions {
        DecodeOptions {
            base_dir: Some(self.dir.clone()),
            max_bytes,
        }
    }

    /// Reads model.onnx.
    pub fn load_model(&self, options: &DecodeOptions) -> Result<Model, Error> {
        Ok(Model::read(&self.dir.join("model.onnx"), options)?)
    }

    /// The first steps every use of a case takes, the run and the listing alike: the case's
    /// directory listed without a problem, model.onnx loaded, and a Pad-family node in it.
    pub fn runnable_model(&self, options: &DecodeOptions) -> Result<Model, CaseError> {
        if let Some(problem) = &self.problem {
            return Err(CaseError::Listing(problem.clone()));
        }
        let model = self.load_model(options).map_err(CaseError::Model)?;
        if let Some(info) = &self.info
            && let Some(contradiction) = info.contradiction(&model, &self.dir)
        {
            return Err(CaseError::Listing(ListingProblem::Contradicts(Arc::new(contradiction))));
        }
        match applicability(&model) {
            Applicability::Applicable => Ok(model),
            Applicability::NotApplicable(reason) => Err(CaseError::NotApplicable(reason)),
        }
    }

    /// Reads one data set's inputs and expected outputs. Each tensor may take
    /// `options.max_bytes`, and the data set's files together twice that
    /// ([`crate::tensor::group_limit`]), checked from their sizes before any is read.
    pub fn load_data_set(&self, data_set: &DataSet, options: &DecodeOptions) -> Result<LoadedDataSet, Error> {
        let expected_outputs = match data_set.expected_error {
            Some(_) => &[][..],
            None => &data_set.outputs[..],
        };
        let paths: Vec<PathBuf> = data_set.inputs.iter().chain(expected_outputs).cloned().collect();
        let mut tensors = read_tensor_group(&paths, options, group_limit(options.max_bytes), "data set")?;
        let outputs = tensors.split_off(data_set.inputs.len());
        let expected = match &data_set.expected_error {
            Some(path) => {
                let reason = read_small_file(path, 1 << 16)?;
                Expected::Error(String::from_utf8_lossy(&reason).trim().to_owned())
            }
            None => Expected::Outputs(outputs),
        };
        Ok(LoadedDataSet {
            inputs: tensors,
            expected,
        })
    }
}

/// Whether `model` holds a Pad-family node; if not, names the ops it holds.
#[doc(hidden)]
pub fn applicability(model: &Model) -> Applicability {
    if model.pad_nodes().next().is_some() {
        Applicability::Applicable
    } else {
        let ops = model.op_types();
        let ops = if ops.is_empty() {
            "no ops".to_owned()
        } else {
            ops.join(", ")
        };
        Applicability::NotApplicable(format!(
            "no Pad, CenterCropPad or com.microsoft Pad node (graph holds {ops})"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Roots `left`, `right` and `third`: `node/test_dup_pad` under the first two is
    /// qualified by its root, and `third` holds a case whose own path is that qualified name.
    #[test]
    fn a_name_still_shared_once_qualified_is_refused_naming_both_cases_and_roots() {
        let roots: Vec<DataRoot> = ["left", "right", "third"]
            .iter()
            .map(|name| DataRoot {
                path: PathBuf::from(name),
                corpus: None,
            })
            .collect();
        let case = |root: &str, id: &str| {
            TestCase::unlisted(
                Path::new(root),
                &Path::new(root).join(id),
                ListingProblem::BadNumber { path: PathBuf::new() },
            )
        };
        let mut cases = vec![
            case("left", "node/test_dup_pad"),
            case("right", "node/test_dup_pad"),
            case("third", "left:node/test_dup_pad"),
        ];
        let root_of = [0, 1, 2];
        qualify_repeated_ids(&mut cases, &root_of, &roots);
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "left:node/test_dup_pad",
                "right:node/test_dup_pad",
                "left:node/test_dup_pad"
            ]
        );
        let error = refuse_repeated_ids(&cases, &root_of, &roots).unwrap_err();
        let Error::SameName {
            id,
            first,
            first_root,
            second,
            second_root,
        } = &error
        else {
            panic!("{error}")
        };
        assert_eq!(id, "left:node/test_dup_pad");
        assert_eq!(
            (first.as_path(), first_root.as_path()),
            (Path::new("left/node/test_dup_pad"), Path::new("left"))
        );
        assert_eq!(
            (second.as_path(), second_root.as_path()),
            (Path::new("third/left:node/test_dup_pad"), Path::new("third"))
        );
        // Without the third root, the qualified names are each one case's.
        cases.pop();
        assert!(refuse_repeated_ids(&cases, &root_of[..2], &roots).is_ok());
    }

    #[test]
    fn a_walk_past_its_limit_stops_with_an_error_naming_the_root() {
        let dir = crate::data::scratch_dir().unwrap();
        for i in 0..10 {
            std::fs::create_dir(dir.path().join(format!("d{i}"))).unwrap();
        }
        let root = DataRoot {
            path: dir.path().to_owned(),
            corpus: None,
        };
        // The root and its ten directories: eleven entries.
        assert!(
            discover_root_within(&root, &Patterns::default(), &Cancel::new(), 11)
                .unwrap()
                .is_empty()
        );
        let error = discover_root_within(&root, &Patterns::default(), &Cancel::new(), 10).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "walking {}: more than 10 entries, more than any corpus of cases holds; name the directory of the cases",
                dir.path().display()
            )
        );
    }
}
