//! Discovery: the roots walked (walkdir) for case directories, links not followed and the
//! walk bounded, each case listed ([`listing`](super::listing)), and every case given a name
//! of its own across roots.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::listing::load_case_dir;
use super::{ListingProblem, TestCase};
use crate::cancel::Cancel;
use crate::case::error::{Error, NameClash};
use crate::case::twin::resolve_twins;
use crate::data::DataRoot;

/// The directory-name patterns a case must match, unless `--pattern` replaces them.
pub(crate) const DEFAULT_PATTERNS: [&str; 3] = ["test_*_pad*", "test_center_crop_pad_*", "test_*Pad*"];

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
    // Once every case has its final name: a twin is named by its id.
    resolve_twins(&mut cases);
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
            return Err(Error::SameName(Box::new(NameClash {
                id: case.id.clone(),
                first: cases[first].dir.clone(),
                first_root: roots[root_of[first]].path.clone(),
                second: case.dir.clone(),
                second_root: roots[root_of[i]].path.clone(),
            })));
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
        let Error::SameName(clash) = &error else {
            panic!("{error}")
        };
        let NameClash {
            id,
            first,
            first_root,
            second,
            second_root,
        } = &**clash;
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
