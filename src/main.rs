//! The `pad-conformance` command; all of it is the library's `cli` feature.
fn main() -> std::process::ExitCode {
    pad_conformance::cli_main()
}
