//! The files a run writes, checked before it starts against the files it reads: no output
//! may replace an input (a report written over its baseline loses the baseline's reasons),
//! two outputs may not name one file, and an output may not be a directory. Paths are
//! compared by what they resolve to, so `./b.json` and `b.json`, or a link, are one file; a
//! path that does not exist yet cannot be an input.

use std::path::{Path, PathBuf};

use crate::text::shown_path;

/// Why the files a run would write do not fit the files it reads.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OutputPathError {
    /// An output that is also an input.
    #[error(
        "{output} {} is also the {input}: the run would write over a file it reads; write to another file",
        shown_path(path)
    )]
    OverInput {
        /// The output's option (`--output`).
        output: &'static str,
        /// The input's (`--baseline`).
        input: &'static str,
        /// The path as the output names it.
        path: PathBuf,
    },
    /// Two outputs that are one file.
    #[error("{first} and {second} both name {}: one would replace the other", shown_path(path))]
    TwoOutputs {
        /// The first output's option.
        first: &'static str,
        /// The second's.
        second: &'static str,
        /// The path as the second names it.
        path: PathBuf,
    },
    /// An output that is a directory.
    #[error("{output} {} is a directory; it must name a file", shown_path(path))]
    Directory {
        /// The output's option.
        output: &'static str,
        /// The path.
        path: PathBuf,
    },
}

/// A file a run reads or writes, with the option (or variable) that names it; `None` for an
/// option not given.
pub(crate) type Named<'a> = (&'static str, Option<&'a Path>);

/// Checks `outputs` against `inputs` and each other before a run; `(output, input)` pairs in
/// `in_place` may be one file (a baseline updated in place, atomically).
pub(crate) fn check_outputs(
    outputs: &[Named<'_>],
    inputs: &[Named<'_>],
    in_place: &[(&str, &str)],
) -> Result<(), OutputPathError> {
    let inputs: Vec<(&str, PathBuf)> = inputs
        .iter()
        .filter_map(|&(role, path)| Some((role, path?.canonicalize().ok()?)))
        .collect();
    let mut written: Vec<(&'static str, PathBuf)> = Vec::new();
    for &(output, path) in outputs {
        let Some(path) = path else { continue };
        if path.is_dir() {
            return Err(OutputPathError::Directory {
                output,
                path: path.to_owned(),
            });
        }
        let resolved = resolve(path);
        if let Some((input, _)) = inputs
            .iter()
            .find(|(input, read)| *read == resolved && !in_place.contains(&(output, input)))
        {
            return Err(OutputPathError::OverInput {
                output,
                input,
                path: path.to_owned(),
            });
        }
        if let Some((first, _)) = written.iter().find(|(_, other)| *other == resolved) {
            return Err(OutputPathError::TwoOutputs {
                first,
                second: output,
                path: path.to_owned(),
            });
        }
        written.push((output, resolved));
    }
    Ok(())
}

/// What `path` resolves to: itself when it exists, else its resolved directory and its name.
fn resolve(path: &Path) -> PathBuf {
    if let Ok(resolved) = path.canonicalize() {
        return resolved;
    }
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match (parent.canonicalize(), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_over_an_input_or_another_output_or_a_directory_is_refused() {
        let dir = crate::data::scratch_dir().unwrap();
        let baseline = dir.path().join("bl.json");
        std::fs::write(&baseline, "{}").unwrap();
        let same = dir.path().join(".").join("bl.json");
        let report = dir.path().join("new.json");
        let inputs = [("--baseline", Some(baseline.as_path()))];
        assert_eq!(
            check_outputs(&[("--output", Some(&same))], &inputs, &[]),
            Err(OutputPathError::OverInput {
                output: "--output",
                input: "--baseline",
                path: same.clone()
            })
        );
        // A baseline updated in place is allowed; a report over it, next to that, is not.
        let in_place = [("--write-baseline", "--baseline")];
        assert_eq!(
            check_outputs(&[("--write-baseline", Some(&same))], &inputs, &in_place),
            Ok(())
        );
        assert!(
            check_outputs(
                &[("--write-baseline", Some(&same)), ("--output", Some(&baseline))],
                &inputs,
                &in_place
            )
            .is_err()
        );
        // Two outputs naming one file that does not exist yet.
        let again = dir.path().join(".").join("new.json");
        assert_eq!(
            check_outputs(
                &[("--output", Some(&report)), ("--write-baseline", Some(&again))],
                &[],
                &[]
            ),
            Err(OutputPathError::TwoOutputs {
                first: "--output",
                second: "--write-baseline",
                path: again
            })
        );
        assert_eq!(check_outputs(&[("--output", Some(&report))], &inputs, &[]), Ok(()));
        // An input that does not exist is not one; an output that is a directory is refused.
        let absent = dir.path().join("absent.json");
        assert_eq!(
            check_outputs(&[("--output", Some(&absent))], &[("--baseline", Some(&absent))], &[]),
            Ok(())
        );
        let error = check_outputs(&[("--output", Some(dir.path()))], &[], &[]).unwrap_err();
        assert!(matches!(error, OutputPathError::Directory { .. }), "{error}");
    }
}
