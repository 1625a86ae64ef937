//! The tests of a `harness = false` test binary, run by libtest-mimic.

use libtest_mimic::{Arguments, Trial};

/// Runs `tests` as libtest's would (filters, --list, the summary) and exits. A panicking test
/// is a failed trial with the panic's message. Every trial runs at once unless --test-threads
/// or RUST_TEST_THREADS says otherwise: these binaries' tests mostly wait on the processes they
/// start (a worker's timeout, a gate's children), not on a core.
pub fn run_tests(tests: Vec<(String, fn())>) -> ! {
    let mut arguments = Arguments::from_args();
    let from_env = std::env::var("RUST_TEST_THREADS").ok().and_then(|n| n.parse().ok());
    arguments.test_threads = arguments.test_threads.or(from_env).or(Some(tests.len().max(1)));
    let trials = tests
        .into_iter()
        .map(|(name, test)| {
            Trial::test(name, move || {
                test();
                Ok(())
            })
        })
        .collect();
    libtest_mimic::run(&arguments, trials).exit()
}
