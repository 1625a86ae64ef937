//! The tests whose binary is also the other process they start, as modules of one
//! `harness = false` binary (Cargo.toml): main() is the external worker of exec_backend.rs
//! (given `--serve-worker`), the isolated gate of isolation.rs (with PROCESSES_GATE set), or
//! libtest-mimic over the tests of both. One binary, so the
//! time limits both wait out pass side by side. Select a module's tests by its name:
//! `cargo test --test processes -- isolation::`.

#[path = "../support/mod.rs"]
mod support;

mod exec_backend;
mod exec_per_case;
mod isolation;

fn main() {
    exec_backend::serve_if_asked();
    exec_per_case::run_if_asked();
    isolation::gate_if_asked();
    let modules = [
        ("exec_backend", exec_backend::TESTS),
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
