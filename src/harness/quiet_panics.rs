//! A panic hook that keeps a backend's panics out of stderr while a trial runs: check.rs
//! already catches the panic and puts its message in the trial's failure, so the default
//! hook's message (and backtrace) would say it a second time, hundreds of times over a suite.
//! Panics elsewhere — in the harness, or on a thread the backend started — go to the previous
//! hook as before. [`check_quietly`] checks a data set under it.

use std::cell::{Cell, RefCell};
use std::sync::Once;

use crate::backend::Driven;
use crate::case::{CaseError, TestCase};
use crate::judge::check::{CheckOptions, Outcome, check_data_set_with};
use crate::model::Model;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's panics silenced; returns its result and, if it panicked
/// (even if the panic was caught inside `f`), where the last panic happened.
pub(super) fn quietly<R>(f: impl FnOnce() -> R) -> (R, Option<String>) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                let location = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LOCATION.set(location);
            } else {
                previous(info);
            }
        }));
    });
    LOCATION.set(None);
    QUIET.set(true);
    let result = f();
    QUIET.set(false);
    (result, LOCATION.take())
}

/// Checks a data set with the backend's panics kept off stderr (their message is the
/// trial's failure, with where it happened).
pub(super) fn check_quietly(
    backend: &dyn Driven,
    case: &TestCase,
    index: usize,
    model: &Result<Model, CaseError>,
    options: &CheckOptions,
) -> Outcome {
    let (outcome, location) = quietly(|| check_data_set_with(backend, case, index, model, options));
    match location {
        // The message of an error ends with it.
        Some(location) => outcome.with_panic_location(location),
        None => outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_is_silent_and_its_location_kept() {
        let (caught, location) = quietly(|| std::panic::catch_unwind(|| panic!("inside")).is_err());
        assert!(caught);
        let location = location.unwrap();
        assert!(location.starts_with("src/harness/quiet_panics.rs:"), "{location}");
        let (_, none) = quietly(|| 1);
        assert_eq!(none, None);
    }
}
