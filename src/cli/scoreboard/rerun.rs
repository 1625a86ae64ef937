//! The command that reruns one data set, as the scoreboard shows it under each failure:
//! `pad-conformance --backend 'exec:…' --filter 'NAME'`, with the options that change a
//! verdict (profile, basis, tolerances) as the run had them.

pub(crate) use crate::text::shell_quote;

/// How a backend was run, to repeat it on one data set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rerun {
    /// The arguments after `pad-conformance` and before `--filter`: `--backend SPEC` and any
    /// option that changes a verdict. Empty when not known (a report read back from JSON).
    pub args: Vec<String>,
    /// The paths the run searched, when not the default.
    pub paths: Vec<String>,
    /// Variables set in front of the command, `NAME=value`: for a per-case command, its runs
    /// kept with the script that runs it again, and the runtime the run was told.
    pub environment: Vec<(String, String)>,
}

impl Rerun {
    /// A rerun of backend `spec` with the given further arguments and paths.
    pub(crate) fn new(spec: &str, options: &[String], paths: &[String]) -> Rerun {
        let mut args = vec!["--backend".to_owned(), spec.to_owned()];
        args.extend(options.iter().cloned());
        Rerun {
            args,
            paths: paths.to_vec(),
            environment: Vec::new(),
        }
    }

    /// The rerun with `environment` set in front of the command.
    pub(crate) fn with_environment(mut self, environment: Vec<(String, String)>) -> Rerun {
        self.environment = environment;
        self
    }

    /// The shell command that reruns data set `name` alone, or none when the backend's
    /// command is not known. A name holding glob characters is passed as an escaped glob, so
    /// that it matches only itself.
    ///
    /// ```text
    /// use crate::cli::scoreboard::Rerun;
    /// let rerun = Rerun::new("exec:python w.py", &[], &[]);
    /// assert_eq!(
    ///     rerun.command("extended/test_a/0").unwrap(),
    ///     "pad-conformance --backend 'exec:python w.py' --filter extended/test_a/0"
    /// );
    /// ```
    pub(crate) fn command(&self, name: &str) -> Option<String> {
        if self.args.is_empty() {
            return None;
        }
        let filter = if name.contains(['*', '?', '[']) {
            glob::Pattern::escape(name)
        } else {
            name.to_owned()
        };
        let mut words: Vec<String> = (self.environment.iter())
            .map(|(name, value)| format!("{name}={}", shell_quote(value)))
            .collect();
        words.push("pad-conformance".to_owned());
        words.extend(self.args.iter().map(|a| shell_quote(a)));
        words.push("--filter".to_owned());
        words.push(shell_quote(&filter));
        words.extend(self.paths.iter().map(|p| shell_quote(p)));
        Some(words.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_carries_options_paths_and_an_exact_filter() {
        let rerun = Rerun::new(
            "exec:.venv/bin/python scripts/backends/onnxruntime-worker",
            &["--profile".into(), "baselines/onnxruntime.profile.toml".into()],
            &["my data".into()],
        );
        assert_eq!(
            rerun.command("extended/test_[x]/1").unwrap(),
            "pad-conformance --backend 'exec:.venv/bin/python scripts/backends/onnxruntime-worker' \
             --profile baselines/onnxruntime.profile.toml --filter 'extended/test_[[]x[]]/1' 'my data'"
        );
        let pattern = glob::Pattern::new(&glob::Pattern::escape("extended/test_[x]/1")).unwrap();
        assert!(pattern.matches("extended/test_[x]/1") && !pattern.matches("extended/test_x/1"));
        assert_eq!(Rerun::default().command("a"), None);
        let kept = Rerun::new("exec-per-case:./iree-case.sh", &[], &[]).with_environment(vec![
            ("PAD_CONFORMANCE_KEEP_RUNS".into(), "pad-conformance-runs".into()),
            ("PAD_CONFORMANCE_RUNTIME".into(), r#"{"name": "iree"}"#.into()),
        ]);
        assert_eq!(
            kept.command("extended/test_a/0").unwrap(),
            "PAD_CONFORMANCE_KEEP_RUNS=pad-conformance-runs PAD_CONFORMANCE_RUNTIME='{\"name\": \"iree\"}' \
             pad-conformance --backend exec-per-case:./iree-case.sh --filter extended/test_a/0"
        );
    }
}
