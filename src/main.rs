//! The `pad-conformance` command: parses arguments, calls the library, maps the outcome to
//! an exit code (0 success, 1 a check failed, 2 a usage or infrastructure error).

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use pad_conformance::DataType;
use pad_conformance::backend::{Backend, BackendOptions, backend_from_spec};
use pad_conformance::baseline::Baseline;
use pad_conformance::bench::{BenchOptions, bench_decode, bench_pad};
use pad_conformance::case::{Patterns, TestCase, discover};
use pad_conformance::check::{CheckOptions, Outcome};
use pad_conformance::compare::Tolerance;
use pad_conformance::coverage::Coverage;
use pad_conformance::listing::list_case;
use pad_conformance::matrix::Matrix;
use pad_conformance::operators::PadMode;
use pad_conformance::report::{
    Colors, Format, RunReport, write_json, write_junit, write_markdown, write_outcome, write_summary,
};
use pad_conformance::runner::{Job, jobs as jobs_of, run_jobs};
use pad_conformance::tensor::DEFAULT_MAX_BYTES;

const EXAMPLES: &str = "\
Examples:
  pad-conformance                                  check every vendored case with the ref backend
  pad-conformance --list                           list the cases and data sets found
  pad-conformance --filter test_wrap_pad           run the data sets whose name contains test_wrap_pad
  pad-conformance --filter 'onnx-1.22.0/*' --format junit --output junit.xml
  pad-conformance --backend exec:'.venv/bin/python scripts/backends/onnxruntime-worker' \\
                  --baseline baselines/onnxruntime.json
  pad-conformance matrix --backend ref --backend exec:'...' --failures-only
  pad-conformance bench";

/// Conformance suite and runner for ONNX's padding operators (Pad 1–25, CenterCropPad 18,
/// com.microsoft Pad).
#[derive(Parser, Debug)]
#[command(version, after_help = EXAMPLES, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Time the reference kernels against a plain copy of the same bytes (ratios, not
    /// seconds, are the figure of merit).
    Bench(BenchArgs),
    /// Run several backends over the same data sets and write one table (Markdown or JSON).
    Matrix(MatrixArgs),
    /// Tabulate which (operator version, dtype, mode) the generated cases cover.
    Coverage(CoverageArgs),
}

/// Which data sets to run.
#[derive(Args, Debug)]
struct Selection {
    /// Run only the data sets whose name (`onnx-1.22.0/node/test_wrap_pad/0`) contains
    /// PATTERN, or matches it as a glob when it holds `*`, `?` or `[`.
    #[arg(long, value_name = "PATTERN")]
    filter: Option<String>,
    /// Directory-name glob that marks a case directory (repeatable; replaces the defaults
    /// test_*_pad*, test_center_crop_pad_* and test_*Pad*).
    #[arg(long = "pattern", value_name = "GLOB")]
    patterns: Vec<String>,
    /// Largest tensor, in bytes, a file may declare.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_tensor_bytes: u64,
    /// Directories to search for cases.
    #[arg(value_name = "PATH", default_value = "onnx-testdata")]
    paths: Vec<PathBuf>,
}

/// How data sets are run and compared.
#[derive(Args, Debug)]
struct Checking {
    /// Relative tolerance for floating outputs (a finite number ≥ 0).
    #[arg(long, value_name = "X", default_value_t = Tolerance::default().rtol, value_parser = tolerance,
          allow_negative_numbers = true)]
    rtol: f64,
    /// Absolute tolerance for floating outputs (a finite number ≥ 0).
    #[arg(long, value_name = "Y", default_value_t = Tolerance::default().atol, value_parser = tolerance,
          allow_negative_numbers = true)]
    atol: f64,
    /// Require bit-identical outputs.
    #[arg(long)]
    exact: bool,
    /// Data sets run in parallel on N threads (default: the number of cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Seconds an external worker may take on one data set before it is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    timeout: f64,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The backend to check: `ref`, or `exec:COMMAND` for an external worker
    /// (docs/backend-protocol.md).
    #[arg(long, value_name = "BACKEND", default_value = "ref")]
    backend: String,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to FILE instead of standard output (the summary line still goes to
    /// standard error).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// List the discovered cases and data sets instead of running them; exits 1 (after
    /// listing everything) when any case or data set fails to load.
    #[arg(long)]
    list: bool,
    /// Known failures (JSON): exit 0 unless a data set fails that the baseline does not list.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// With --baseline: also fail when the baseline is outdated: a listed data set passes,
    /// fails with another status than listed, or does not exist.
    #[arg(long, requires = "baseline")]
    strict: bool,
    /// Record this run's failures as a baseline, keeping the reasons already in FILE (or in
    /// --baseline).
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    #[command(flatten)]
    checking: Checking,
    #[command(flatten)]
    selection: Selection,
}

#[derive(Args, Debug)]
struct MatrixArgs {
    /// A backend to run (repeatable, at least one): `ref` or `exec:COMMAND`.
    #[arg(long = "backend", value_name = "BACKEND", required = true)]
    backends: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    format: MatrixFormat,
    /// Write the table to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Markdown: show only the data sets some backend did not pass.
    #[arg(long)]
    failures_only: bool,
    #[command(flatten)]
    checking: Checking,
    #[command(flatten)]
    selection: Selection,
}

#[derive(Args, Debug)]
struct CoverageArgs {
    /// The generated corpus to read case.json files from.
    #[arg(value_name = "PATH", default_value = "onnx-testdata/extended")]
    path: PathBuf,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Input shape, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,64,512,512")]
    shape: Vec<usize>,
    /// Pads in ONNX layout [x1_begin, x2_begin, ..., x1_end, x2_end, ...], comma-separated
    /// (default: 2 on each side of the last two axes).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pads: Option<Vec<i64>>,
    /// Modes to time (repeatable; default: all four).
    #[arg(long = "mode", value_name = "MODE")]
    modes: Vec<String>,
    /// CenterCropPad target shape, comma-separated (default: the input's last two axes +8
    /// and -8; `none` to skip).
    #[arg(long)]
    center_crop_shape: Option<String>,
    /// Element type.
    #[arg(long, default_value = "float")]
    dtype: String,
    /// Timed runs per figure (the median is reported), after one warm-up run.
    #[arg(long, default_value_t = 10)]
    repetitions: usize,
    /// Time decoding a float TensorProto of --decode-mib MiB instead of padding.
    #[arg(long)]
    decode: bool,
    /// Size of the tensor --decode decodes.
    #[arg(long, default_value_t = 256)]
    decode_mib: usize,
    /// Largest input or output, in bytes, a benchmark may allocate; larger configurations are
    /// refused before anything is allocated.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_tensor_bytes: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: BenchFormat,
}

/// The formats `bench` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BenchFormat {
    Human,
    Json,
}

/// The formats `matrix` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MatrixFormat {
    Markdown,
    Json,
}

/// `--rtol`, `--atol`: a finite number, zero or more (NaN would pass nothing, a negative or
/// infinite tolerance would make the comparison meaningless).
fn tolerance(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|e| format!("{text:?} is not a number: {e}"))?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(format!("{text:?} is not a finite number zero or more"))
    }
}

/// A failure to run at all: exit code 2.
struct Fatal(String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Fatal {
        Fatal(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Bench(args)) => bench(args),
        Some(Command::Matrix(args)) => matrix(args),
        Some(Command::Coverage(args)) => coverage(args),
        None => run(&cli.run),
    };
    match result {
        Ok(code) => code,
        Err(Fatal(message)) => {
            eprintln!("pad-conformance: {message}");
            ExitCode::from(2)
        }
    }
}

impl Selection {
    /// Discovers the cases; zero cases, or a filter matching nothing, is an error.
    fn cases(&self) -> Result<Vec<TestCase>, Fatal> {
        Ok(discover(&self.paths, &Patterns::new(&self.patterns)?)?)
    }

    /// The data sets of `cases` that pass the filter.
    fn jobs<'a>(&self, cases: &'a [TestCase]) -> Result<Vec<Job<'a>>, Fatal> {
        let mut jobs = jobs_of(cases);
        if let Some(pattern) = &self.filter {
            let filter = NameFilter::new(pattern)?;
            jobs.retain(|job| filter.matches(&job.name()));
            if jobs.is_empty() {
                return Err(Fatal(format!("no data set matches --filter {pattern:?}")));
            }
        }
        Ok(jobs)
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
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, Into::into))
    }
}

fn run(args: &RunArgs) -> Result<ExitCode, Fatal> {
    let selection = &args.selection;
    let cases = selection.cases()?;
    let jobs = selection.jobs(&cases)?;
    if args.list {
        return list(&jobs, selection.max_tensor_bytes);
    }
    let baseline = args.baseline.as_deref().map(Baseline::read).transpose()?;
    let backend = args.checking.backend(&args.backend, selection)?;
    let (mut out, terminal) = open_output(args.output.as_ref())?;
    // The human report streams: each line as soon as its data set (and those before) finish.
    let colors = Colors::detect(terminal);
    let mut written = Ok(());
    let mut write_line = |outcome: &Outcome| {
        if args.format == Format::Human && written.is_ok() {
            written = write_outcome(outcome, colors, &mut out).and_then(|()| out.flush());
        }
    };
    let report = run_jobs(
        backend.as_ref(),
        &jobs,
        &args.checking.options(selection),
        args.checking.threads(),
        &mut write_line,
    );
    write_report(&report, args, out, written)?;
    if let Some(path) = &args.write_baseline {
        let previous = match Baseline::read(path) {
            Ok(existing) => Some(existing),
            Err(_) => baseline.clone(),
        };
        Baseline::record(&report.backend, &report.outcomes, previous.as_ref()).write(path)?;
    }
    let summary = report.summary();
    let failed = match &baseline {
        Some(baseline) => {
            // Under --pattern, cases outside the patterns are not discovered, yet not stale.
            let discovered: HashSet<String> = jobs_of(&cases).iter().map(Job::name).collect();
            let exists = |name: &str| !selection.patterns.is_empty() || discovered.contains(name);
            let verdict = baseline.judge(&report.outcomes, exists);
            eprintln!("{}", verdict.describe());
            verdict.fails(args.strict)
        }
        None => summary.failed + summary.errored > 0,
    };
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `--list`: each selected case once, with its data sets. Exits 1 when any case or data set
/// failed to load, after listing everything.
fn list(jobs: &[Job<'_>], max_tensor_bytes: u64) -> Result<ExitCode, Fatal> {
    let mut out = io::stdout().lock();
    let mut listed: Vec<&TestCase> = Vec::new();
    let mut failed = 0;
    for job in jobs {
        if listed.iter().any(|c| std::ptr::eq(*c, job.case)) {
            continue;
        }
        listed.push(job.case);
        let listing = list_case(job.case, max_tensor_bytes);
        failed += usize::from(listing.failed);
        for line in listing.lines {
            if writeln!(out, "{line}").is_err() {
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    if failed > 0 {
        eprintln!("pad-conformance: {failed} of {} cases failed to load", listed.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens `--output FILE` or standard output; says whether it is a terminal.
fn open_output(path: Option<&PathBuf>) -> Result<(Box<dyn Write>, bool), Fatal> {
    Ok(match path {
        Some(path) => {
            let file = File::create(path).map_err(|e| Fatal(format!("writing {}: {e}", path.display())))?;
            (Box::new(io::BufWriter::new(file)), false)
        }
        None => (Box::new(io::stdout().lock()), io::stdout().is_terminal()),
    })
}

/// Finishes a report write: a closed pipe is not an error, anything else is.
fn finish(written: io::Result<()>, out: &mut dyn Write) -> Result<(), Fatal> {
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Fatal(format!("writing the report: {e}"))),
        Ok(()) => Ok(()),
    }
}

/// Writes the report to `out`, after the lines already streamed there (`written`: whether
/// that went well).
fn write_report(
    report: &RunReport,
    args: &RunArgs,
    mut out: Box<dyn Write>,
    written: io::Result<()>,
) -> Result<(), Fatal> {
    let written = written.and_then(|()| match args.format {
        Format::Human => write_summary(report, &mut out),
        Format::Json => write_json(report, &mut out),
        Format::Junit => write_junit(report, &mut out),
        Format::Markdown => write_markdown(report, &mut out),
    });
    finish(written, &mut out)?;
    if args.output.is_some() || args.format != Format::Human {
        eprintln!("{}", report.summary().line());
    }
    Ok(())
}

fn matrix(args: &MatrixArgs) -> Result<ExitCode, Fatal> {
    let selection = &args.selection;
    let cases = selection.cases()?;
    let jobs = selection.jobs(&cases)?;
    let options = args.checking.options(selection);
    let mut reports = Vec::new();
    for spec in &args.backends {
        let backend = args.checking.backend(spec, selection)?;
        let report = run_jobs(backend.as_ref(), &jobs, &options, args.checking.threads(), &mut |_| {});
        eprintln!("{}: {}", report.backend, report.summary().line());
        reports.push(report);
    }
    let matrix = Matrix::new(&reports);
    let (mut out, _) = open_output(args.output.as_ref())?;
    let written = match args.format {
        MatrixFormat::Json => serde_json::to_writer_pretty(&mut out, &matrix)
            .map_err(io::Error::other)
            .and_then(|()| writeln!(out)),
        MatrixFormat::Markdown => matrix.write_markdown(args.failures_only, &mut out),
    };
    finish(written, &mut out)?;
    Ok(ExitCode::SUCCESS)
}

fn coverage(args: &CoverageArgs) -> Result<ExitCode, Fatal> {
    let coverage = Coverage::read(&args.path)?;
    let mut out = io::stdout().lock();
    finish(coverage.write_markdown(&mut out), &mut out)?;
    let missing = coverage.missing();
    for (op, data_type, mode) in &missing {
        eprintln!(
            "missing: {} {data_type} {}",
            op.short_label(),
            mode.map_or("-", |m| m.name())
        );
    }
    Ok(if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn bench(args: &BenchArgs) -> Result<ExitCode, Fatal> {
    let results = if args.decode {
        vec![bench_decode(args.decode_mib, args.repetitions, args.max_tensor_bytes)?]
    } else {
        let rank = args.shape.len();
        let pads = match &args.pads {
            Some(p) if p.len() == 2 * rank => (0..rank).map(|i| (p[i], p[i + rank])).collect(),
            Some(p) => {
                return Err(Fatal(format!(
                    "--pads has {} values; shape {:?} needs {}",
                    p.len(),
                    args.shape,
                    2 * rank
                )));
            }
            None => (0..rank).map(|i| if i + 2 >= rank { (2, 2) } else { (0, 0) }).collect(),
        };
        let modes = if args.modes.is_empty() {
            BenchOptions::default().modes
        } else {
            args.modes
                .iter()
                .map(|m| PadMode::from_name(m).ok_or_else(|| Fatal(format!("unknown mode {m:?}"))))
                .collect::<Result<_, _>>()?
        };
        let center_crop_shape = match args.center_crop_shape.as_deref() {
            Some("none") => None,
            Some(list) => Some(
                list.split(',')
                    .map(|v| {
                        v.trim()
                            .parse::<usize>()
                            .map_err(|e| Fatal(format!("--center-crop-shape {list:?}: {v:?}: {e}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => {
                let target: Vec<usize> = args
                    .shape
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| match rank - i {
                        2 => d.saturating_add(8),
                        1 => d.saturating_sub(8),
                        _ => d,
                    })
                    .collect();
                // The default crops 8 off the last axis: on a shape that small it would leave
                // nothing to time, so the row is skipped, saying why.
                if target.contains(&0) && !args.shape.contains(&0) {
                    eprintln!(
                        "pad-conformance: skipping CenterCropPad: its default target {target:?} for shape {:?} \
                         has an empty axis (give --center-crop-shape to time it)",
                        args.shape
                    );
                    None
                } else {
                    Some(target)
                }
            }
        };
        let data_type =
            DataType::from_name(&args.dtype).ok_or_else(|| Fatal(format!("unknown element type {:?}", args.dtype)))?;
        let options = BenchOptions {
            shape: args.shape.clone(),
            pads,
            modes,
            center_crop_shape,
            data_type,
            repetitions: args.repetitions,
            max_bytes: args.max_tensor_bytes,
        };
        bench_pad(&options)?
    };
    if args.format == BenchFormat::Json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        println!(
            "{:<14} {:<9} {:<8} {:>9} {:>11} {:>9} {:>7}",
            "op", "mode", "dtype", "GB/s", "fresh GB/s", "copy GB/s", "ratio"
        );
        for r in &results {
            println!(
                "{:<14} {:<9} {:<8} {:>9.2} {:>11.2} {:>9.2} {:>7.3}",
                r.op, r.mode, r.dtype, r.gbps, r.fresh_gbps, r.copy_gbps, r.ratio
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--filter`: a substring, or a glob when the pattern holds glob characters.
enum NameFilter {
    Substring(String),
    Glob(glob::Pattern),
}

impl NameFilter {
    fn new(pattern: &str) -> Result<NameFilter, Fatal> {
        if pattern.contains(['*', '?', '[']) {
            let glob = glob::Pattern::new(pattern).map_err(|e| Fatal(format!("--filter {pattern:?}: {e}")))?;
            Ok(NameFilter::Glob(glob))
        } else {
            Ok(NameFilter::Substring(pattern.to_owned()))
        }
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            NameFilter::Substring(s) => name.contains(s.as_str()),
            NameFilter::Glob(g) => g.matches(name),
        }
    }
}
