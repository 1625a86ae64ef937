//! Which data sets a run takes: `--filter` as both the CLI and library users apply it.

use crate::run::runner::Job;

/// A data-set name filter: a substring, or a glob when the pattern holds `*`, `?` or `[`.
#[derive(Clone, Debug)]
pub(crate) enum NameFilter {
    /// Names containing the string.
    Substring(String),
    /// Names matching the glob.
    Glob(glob::Pattern),
}

/// A filter that cannot be applied.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SelectionError {
    /// A pattern with glob characters that is not a glob.
    #[error("--filter {pattern:?}: {source}")]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// Why it does not compile.
        #[source]
        source: glob::PatternError,
    },
    /// Nothing passes: a green run over nothing would mean nothing.
    #[error("no data set matches --filter {0:?}")]
    NothingMatches(String),
}

impl NameFilter {
    /// The filter `pattern` describes.
    pub(crate) fn new(pattern: &str) -> Result<NameFilter, SelectionError> {
        if pattern.contains(['*', '?', '[']) {
            let glob = glob::Pattern::new(pattern).map_err(|source| SelectionError::Pattern {
                pattern: pattern.to_owned(),
                source,
            })?;
            Ok(NameFilter::Glob(glob))
        } else {
            Ok(NameFilter::Substring(pattern.to_owned()))
        }
    }

    /// Whether `name` (`onnx-1.22.0/node/test_wrap_pad/0`) passes.
    pub(crate) fn matches(&self, name: &str) -> bool {
        match self {
            NameFilter::Substring(s) => name.contains(s.as_str()),
            NameFilter::Glob(g) => g.matches(name),
        }
    }
}

/// The jobs whose names pass `pattern` (all of them without one); none passing is an error.
pub(crate) fn select<'a>(mut jobs: Vec<Job<'a>>, pattern: Option<&str>) -> Result<Vec<Job<'a>>, SelectionError> {
    if let Some(pattern) = pattern {
        let filter = NameFilter::new(pattern)?;
        jobs.retain(|job| filter.matches(&job.name()));
        if jobs.is_empty() {
            return Err(SelectionError::NothingMatches(pattern.to_owned()));
        }
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::NameFilter;

    #[test]
    fn a_pattern_with_glob_characters_is_a_glob_and_any_other_a_substring() {
        let glob = NameFilter::new("onnx-1.22.0/*/test_wrap_pad/?").unwrap();
        assert!(glob.matches("onnx-1.22.0/node/test_wrap_pad/0"));
        assert!(!glob.matches("x/onnx-1.22.0/node/test_wrap_pad/0"));
        let substring = NameFilter::new("wrap_pad").unwrap();
        assert!(substring.matches("onnx-1.22.0/node/test_wrap_pad/0"));
        assert!(!substring.matches("onnx-1.22.0/node/test_edge_pad/0"));
        assert!(NameFilter::new("[").is_err());
    }
}
