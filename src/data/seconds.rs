//! A number of seconds read from a file or an option, checked against one bound before it
//! becomes a `Duration`: `Duration::from_secs_f64` panics past `u64::MAX` seconds, and an
//! `Instant` or a sum of durations overflows well before that (docs/cli.md states the bound).

use std::time::Duration;

/// The longest duration any option or report may state: 30 days. Longer than any campaign or
/// worker's data set, short enough that a deadline from now, or a report's sum, never overflows.
pub(crate) const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

/// A number of seconds that is not one from 0 to [`MAX_SECONDS`].
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("{seconds} is not a number of seconds from 0 to {MAX_SECONDS}")]
pub(crate) struct SecondsError {
    /// The value as read.
    pub(crate) seconds: f64,
}

/// `seconds` as a duration, when it is a number from 0 to [`MAX_SECONDS`].
pub(crate) fn bounded_seconds(seconds: f64) -> Result<Duration, SecondsError> {
    if (0.0..=MAX_SECONDS).contains(&seconds) {
        Ok(Duration::from_secs_f64(seconds))
    } else {
        Err(SecondsError { seconds })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_seconds_within_the_bound_become_durations() {
        assert_eq!(bounded_seconds(1.5), Ok(Duration::from_millis(1500)));
        assert_eq!(bounded_seconds(MAX_SECONDS), Ok(Duration::from_secs(2_592_000)));
        for bad in [1e19, 1e20, MAX_SECONDS + 1.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(bounded_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(
            bounded_seconds(1e19).unwrap_err().to_string(),
            "10000000000000000000 is not a number of seconds from 0 to 2592000"
        );
    }
}
