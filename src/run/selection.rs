//! Which data sets a run takes by name: `--filter` (repeatable: any pattern selects) and
//! `--skip` (repeatable: any pattern removes), with one pattern syntax for both.

use crate::run::runner::Job;

/// A data-set name pattern: a substring, or a glob when the pattern holds `*`, `?` or `[`.
#[derive(Clone, Debug)]
pub(crate) enum NameFilter {
    /// Names containing the string.
    Substring(String),
    /// Names matching the glob.
    Glob(glob::Pattern),
}

/// A selection that cannot be applied.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SelectionError {
    /// A pattern with glob characters that is not a glob.
    #[error("{option} {pattern:?}: {source}")]
    Pattern {
        /// `--filter` or `--skip`.
        option: &'static str,
        /// The pattern as given.
        pattern: String,
        /// Why it does not compile.
        #[source]
        source: glob::PatternError,
    },
    /// No filter matches a data set: a green run over nothing would mean nothing.
    #[error("no data set matches {}", shown(&["--filter"], .0))]
    NothingMatches(Vec<String>),
    /// The skips remove every data set the filters selected.
    #[error("{} removes all {selected} data sets selected: nothing is left to run", shown(&["--skip"], .skips))]
    AllSkipped {
        /// The `--skip` patterns as given.
        skips: Vec<String>,
        /// How many data sets the filters selected.
        selected: usize,
    },
}

/// `--filter "a" or --filter "b"`.
fn shown(option: &[&str], patterns: &[String]) -> String {
    let each: Vec<String> = patterns.iter().map(|p| format!("{} {p:?}", option[0])).collect();
    each.join(" or ")
}

impl NameFilter {
    /// The pattern `pattern` describes, given as `option`.
    fn new(option: &'static str, pattern: &str) -> Result<NameFilter, SelectionError> {
        if pattern.contains(['*', '?', '[']) {
            let glob = glob::Pattern::new(pattern).map_err(|source| SelectionError::Pattern {
                option,
                pattern: pattern.to_owned(),
                source,
            })?;
            Ok(NameFilter::Glob(glob))
        } else {
            Ok(NameFilter::Substring(pattern.to_owned()))
        }
    }

    /// Whether `name` (`onnx-1.22.0/node/test_wrap_pad/0`) matches.
    fn matches(&self, name: &str) -> bool {
        match self {
            NameFilter::Substring(s) => name.contains(s.as_str()),
            NameFilter::Glob(g) => g.matches(name),
        }
    }
}

/// The data sets a run takes by name: those any filter matches (every one without a filter),
/// less those any skip matches.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameSelection {
    filters: Vec<(String, NameFilter)>,
    skips: Vec<(String, NameFilter)>,
}

impl NameSelection {
    /// The selection `--filter` and `--skip` patterns describe; each is checked here.
    pub(crate) fn new(filters: &[String], skips: &[String]) -> Result<NameSelection, SelectionError> {
        let compile = |option, patterns: &[String]| {
            patterns
                .iter()
                .map(|p| Ok((p.clone(), NameFilter::new(option, p)?)))
                .collect::<Result<Vec<_>, SelectionError>>()
        };
        Ok(NameSelection {
            filters: compile("--filter", filters)?,
            skips: compile("--skip", skips)?,
        })
    }

    /// Whether the filters select `name`, skips aside.
    fn filtered(&self, name: &str) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|(_, f)| f.matches(name))
    }

    /// Whether a skip removes `name`.
    fn skipped(&self, name: &str) -> bool {
        self.skips.iter().any(|(_, f)| f.matches(name))
    }

    /// The jobs it selects, in order; none selected is an error, saying whether no filter
    /// matched or the skips removed everything.
    pub(crate) fn select<'a>(&self, mut jobs: Vec<Job<'a>>) -> Result<Vec<Job<'a>>, SelectionError> {
        jobs.retain(|job| self.filtered(&job.name()));
        if jobs.is_empty() && !self.filters.is_empty() {
            return Err(SelectionError::NothingMatches(patterns(&self.filters)));
        }
        let selected = jobs.len();
        jobs.retain(|job| !self.skipped(&job.name()));
        if jobs.is_empty() && selected > 0 {
            return Err(SelectionError::AllSkipped {
                skips: patterns(&self.skips),
                selected,
            });
        }
        Ok(jobs)
    }
}

fn patterns(compiled: &[(String, NameFilter)]) -> Vec<String> {
    compiled.iter().map(|(p, _)| p.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::TestCase;

    #[test]
    fn a_pattern_with_glob_characters_is_a_glob_and_any_other_a_substring() {
        let glob = NameFilter::new("--filter", "onnx-1.22.0/*/test_wrap_pad/?").unwrap();
        assert!(glob.matches("onnx-1.22.0/node/test_wrap_pad/0"));
        assert!(!glob.matches("x/onnx-1.22.0/node/test_wrap_pad/0"));
        let substring = NameFilter::new("--filter", "wrap_pad").unwrap();
        assert!(substring.matches("onnx-1.22.0/node/test_wrap_pad/0"));
        assert!(!substring.matches("onnx-1.22.0/node/test_edge_pad/0"));
        let error = NameSelection::new(&[], &["ok".into(), "[".into()]).unwrap_err();
        assert!(error.to_string().starts_with("--skip \"[\": "), "{error}");
    }

    fn names(selection: &NameSelection, cases: &[TestCase]) -> Result<Vec<String>, String> {
        let jobs = crate::run::runner::jobs(cases);
        match selection.select(jobs) {
            Ok(jobs) => Ok(jobs.iter().map(Job::name).collect()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn any_filter_selects_and_any_skip_removes() {
        let cases: Vec<TestCase> = [
            "a/test_wrap_pad",
            "a/test_edge_pad",
            "b/test_wrap_pad",
            "b/test_reflect_pad",
        ]
        .into_iter()
        .map(|id| TestCase {
            id: id.into(),
            dir: std::path::PathBuf::from("/nonexistent").join(id),
            data_sets: Vec::new(),
            problem: None,
            basis: crate::data::basis::BasisNote::upstream(),
            info: None,
            twin: None,
        })
        .collect();
        let select = |filters: &[&str], skips: &[&str]| {
            let owned = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
            names(&NameSelection::new(&owned(filters), &owned(skips)).unwrap(), &cases)
        };
        assert_eq!(select(&[], &[]).unwrap().len(), 4);
        assert_eq!(
            select(&["edge", "b/*"], &[]).unwrap(),
            ["a/test_edge_pad/0", "b/test_wrap_pad/0", "b/test_reflect_pad/0"]
        );
        assert_eq!(
            select(&["edge", "b/*"], &["wrap", "*reflect*"]).unwrap(),
            ["a/test_edge_pad/0"]
        );
        assert_eq!(
            select(&[], &["a/"]).unwrap(),
            ["b/test_wrap_pad/0", "b/test_reflect_pad/0"]
        );
        assert_eq!(
            select(&["nothing", "none*"], &[]).unwrap_err(),
            "no data set matches --filter \"nothing\" or --filter \"none*\""
        );
        assert_eq!(
            select(&["wrap"], &["test_"]).unwrap_err(),
            "--skip \"test_\" removes all 2 data sets selected: nothing is left to run"
        );
    }
}
