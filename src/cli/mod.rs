//! The command line over the library: argument types ([`args`]) and one module per command.
//! Every rule the CLI applies that the harness applies too lives in the library.

pub mod args;
mod bench;
mod check;
mod matrix;
mod output;
pub mod signals;

use std::process::ExitCode;
use std::time::Duration;

use pad_conformance::backend::{Backend, BackendOptions, backend_from_spec};
use pad_conformance::case::{Patterns, TestCase, discover};
use pad_conformance::check::CheckOptions;
use pad_conformance::compare::Tolerance;
use pad_conformance::runner::{Job, default_threads, jobs};
use pad_conformance::selection::select;

use args::{Checking, Cli, Command, Selection};

/// A failure to run at all: exit code 2.
pub struct Fatal(pub String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Fatal {
        Fatal(e.to_string())
    }
}

/// Runs the command `cli` names.
pub fn dispatch(cli: &Cli) -> Result<ExitCode, Fatal> {
    match &cli.command {
        Some(Command::Bench(args)) => bench::bench(args),
        Some(Command::Matrix(args)) => matrix::matrix(args),
        Some(Command::Coverage(args)) => matrix::coverage(args),
        None => check::run(&cli.run),
    }
}

impl Selection {
    /// Discovers the cases; zero cases is an error.
    fn cases(&self) -> Result<Vec<TestCase>, Fatal> {
        Ok(discover(&self.paths, &Patterns::new(&self.patterns)?)?)
    }

    /// The data sets of `cases` that pass the filter; none passing is an error.
    fn jobs<'a>(&self, cases: &'a [TestCase]) -> Result<Vec<Job<'a>>, Fatal> {
        Ok(select(jobs(cases), self.filter.as_deref())?)
    }
}

impl Checking {
    fn options(&self, selection: &Selection) -> CheckOptions {
        CheckOptions {
            tolerance: Tolerance {
                rtol: self.rtol,
                atol: self.atol,
                exact: self.exact,
            },
            max_tensor_bytes: selection.max_tensor_bytes,
        }
    }

    fn backend(&self, spec: &str, selection: &Selection) -> Result<Box<dyn Backend>, Fatal> {
        if !(self.timeout > 0.0 && self.timeout.is_finite()) {
            return Err(Fatal(format!(
                "--timeout {} is not a positive number of seconds",
                self.timeout
            )));
        }
        let options = BackendOptions {
            timeout: Duration::from_secs_f64(self.timeout),
            max_tensor_bytes: selection.max_tensor_bytes,
        };
        Ok(backend_from_spec(spec, &options)?)
    }

    fn threads(&self) -> usize {
        self.jobs.unwrap_or_else(default_threads)
    }
}
