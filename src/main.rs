//! The `pad-conformance` command: parses arguments, calls the library, maps the outcome to
//! an exit code (0 success, 1 a check failed, 2 a usage or infrastructure error).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::args::Cli::parse();
    cli::signals::install();
    match cli::dispatch(&args) {
        Ok(code) => code,
        Err(cli::Fatal(message)) => {
            // Errors quote paths and values from the data: shown, never executed.
            eprintln!("pad-conformance: {}", pad_conformance::text::escape_text(&message));
            ExitCode::from(2)
        }
    }
}
