//! The tests whose binary is also the other process they start, as modules of one
//! `harness = false` binary (Cargo.toml): main() is the external worker of exec_backend.rs
//! (given `--serve-worker`), the isolated gate of isolation.rs (with PROCESSES_GATE set), or
//! libtest-mimic over the tests of both. One binary, so the
//! time limits both wait out pass side by side. Select a module's tests by its name:
//! `cargo test --test processes -- isolation::`.

#[path = "../support/mod.rs"]
mod support;

// Both run their workers through the built binary (feature `cli`); isolation is the harness's,
// which a gate built without it runs too.
#[cfg(feature = "cli")]
mod exec_backend;
#[cfg(feature = "cli")]
mod exec_per_case;
mod isolation;

fn main() {
    #[cfg(feature = "cli")]
    exec_backend::serve_if_asked();
    #[cfg(feature = "cli")]
    exec_per_case::run_if_asked();
    isolation::gate_if_asked();
    let modules = [
        #[cfg(feature = "cli")]
        ("exec_backend", exec_backend::TESTS),
        #[cfg(feature = "cli")]
        ("exec_per_case", exec_per_case::TESTS),
        ("isolation", &isolation::TESTS[..]),
    ];
    let tests = modules
        .iter()
        .flat_map(|(module, tests)| {
            tests
                .iter()
                .map(move |(name, test)| (format!("{module}::{name}"), *test))
        })
        .collect();
    support::trials::run_tests(tests);
}
