//! The `pad-conformance` command: parses arguments, calls the library, maps the outcome to
//! an exit code (0 success, 1 a check failed, 2 a usage or infrastructure error).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pad_conformance::case::{Patterns, discover};
use pad_conformance::listing::list_case;
use pad_conformance::tensor::DEFAULT_MAX_BYTES;

/// Conformance suite and runner for ONNX's padding operators (Pad, CenterCropPad,
/// com.microsoft Pad).
#[derive(Parser, Debug)]
#[command(version, after_help = "Examples:\n  pad-conformance --list\n  pad-conformance --list onnx-testdata/onnx-1.22.0")]
struct Cli {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pad-conformance: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> Result<ExitCode, pad_conformance::Error> {
    let patterns = Patterns::new(&cli.patterns)?;
    let cases = discover(&cli.paths, &patterns)?;
    for case in &cases {
        for line in list_case(case, cli.max_tensor_bytes) {
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
