//! The `pad-conformance` command: parses arguments, calls the library, maps the outcome to
//! an exit code (0 success, 1 a check failed, 2 a usage or infrastructure error).

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use pad_conformance::DataType;
use pad_conformance::backend::backend_from_spec;
use pad_conformance::bench::{BenchOptions, bench_decode, bench_pad};
use pad_conformance::case::{Patterns, discover};
use pad_conformance::check::CheckOptions;
use pad_conformance::compare::Tolerance;
use pad_conformance::listing::list_case;
use pad_conformance::reference::pad_kernel::PadMode;
use pad_conformance::report::{Colors, Format, RunReport, write_human, write_json, write_junit, write_markdown};
use pad_conformance::runner::{jobs, run_jobs};
use pad_conformance::tensor::DEFAULT_MAX_BYTES;

const EXAMPLES: &str = "\
Examples:
  pad-conformance                                  check every vendored case with the ref backend
  pad-conformance --list                           list the cases and data sets found
  pad-conformance --filter test_wrap_pad           run the cases whose name contains test_wrap_pad
  pad-conformance --filter 'onnx-1.22.0/*' --format junit --output junit.xml
  pad-conformance --backend ref onnx-testdata/extended";

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
    /// Output format: human or json.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The backend to check: `ref` (this project's reference implementation).
    #[arg(long, value_name = "BACKEND", default_value = "ref")]
    backend: String,
    /// Run only the data sets whose name (`onnx-1.22.0/node/test_wrap_pad/0`) contains
    /// PATTERN, or matches it as a glob when it holds `*`, `?` or `[`.
    #[arg(long, value_name = "PATTERN")]
    filter: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report to FILE instead of standard output (the summary line still goes to
    /// standard error).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Relative tolerance for floating outputs.
    #[arg(long, value_name = "X", default_value_t = Tolerance::default().rtol)]
    rtol: f64,
    /// Absolute tolerance for floating outputs.
    #[arg(long, value_name = "Y", default_value_t = Tolerance::default().atol)]
    atol: f64,
    /// Require bit-identical outputs.
    #[arg(long)]
    exact: bool,
    /// Cases run in parallel on N threads (default: the number of cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// List the discovered cases and data sets instead of running them.
    #[arg(long)]
    list: bool,
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

fn run(args: &RunArgs) -> Result<ExitCode, Fatal> {
    let backend = backend_from_spec(&args.backend)?;
    let patterns = Patterns::new(&args.patterns)?;
    let cases = discover(&args.paths, &patterns)?;
    let filter = args.filter.as_deref().map(NameFilter::new).transpose()?;
    let mut jobs = jobs(&cases);
    if let Some(filter) = &filter {
        jobs.retain(|job| filter.matches(&job.name()));
        if jobs.is_empty() {
            return Err(Fatal(format!(
                "no data set matches --filter {:?}",
                args.filter.as_deref().unwrap_or("")
            )));
        }
    }
    if args.list {
        let mut out = io::stdout().lock();
        let mut listed = Vec::new();
        for job in &jobs {
            if !listed.iter().any(|c| std::ptr::eq(*c, job.case)) {
                listed.push(job.case);
                for line in list_case(job.case, args.max_tensor_bytes) {
                    if writeln!(out, "{line}").is_err() {
                        return Ok(ExitCode::SUCCESS);
                    }
                }
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let options = CheckOptions {
        tolerance: Tolerance {
            rtol: args.rtol,
            atol: args.atol,
            exact: args.exact,
        },
        max_tensor_bytes: args.max_tensor_bytes,
    };
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, Into::into));
    let report = run_jobs(backend.as_ref(), &jobs, &options, threads);
    write_report(&report, args)?;
    let summary = report.summary();
    Ok(if summary.failed + summary.errored == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn write_report(report: &RunReport, args: &RunArgs) -> Result<(), Fatal> {
    let (mut out, terminal): (Box<dyn Write>, bool) = match &args.output {
        Some(path) => {
            let file = File::create(path).map_err(|e| Fatal(format!("writing {}: {e}", path.display())))?;
            (Box::new(io::BufWriter::new(file)), false)
        }
        None => (Box::new(io::stdout().lock()), io::stdout().is_terminal()),
    };
    let written = match args.format {
        Format::Human => write_human(report, Colors::detect(terminal), &mut out),
        Format::Json => write_json(report, &mut out),
        Format::Junit => write_junit(report, &mut out),
        Format::Markdown => write_markdown(report, &mut out),
    };
    match written.and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Fatal(format!("writing the report: {e}"))),
        Ok(()) => {}
    }
    if args.output.is_some() || args.format != Format::Human {
        eprintln!("{}", report.summary().line());
    }
    Ok(())
}

fn bench(args: &BenchArgs) -> Result<ExitCode, Fatal> {
    let results = if args.decode {
        vec![bench_decode(args.decode_mib, args.repetitions)?]
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
                    .map(|v| v.trim().parse::<usize>())
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => Some(
                args.shape
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| match rank - i {
                        2 => d + 8,
                        1 => d.saturating_sub(8),
                        _ => d,
                    })
                    .collect(),
            ),
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
        };
        bench_pad(&options)?
    };
    if args.format == Format::Json {
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
