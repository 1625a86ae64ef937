//! The tests of a `harness = false` test binary, run by libtest-mimic.

use libtest_mimic::{Arguments, Trial};

/// Runs `tests` as libtest's would (filters, --list, the summary) and exits. A panicking test
/// is a failed trial with the panic's message.
pub fn run_tests(tests: Vec<(&'static str, fn())>) -> ! {
    let trials = tests
        .into_iter()
        .map(|(name, test)| {
            Trial::test(name, move || {
                test();
                Ok(())
            })
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}
