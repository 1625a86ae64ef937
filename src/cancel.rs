//! A cancellation token: what a host program trips to stop a run, a fuzz or a worker's
//! request in flight, without a process-wide latch.
//!
//! Clones share one state: trip any of them and every holder sees it. A token may also carry
//! a deadline, after which it counts as tripped (the fuzzer's `time` budget). Tripping is an
//! atomic store, so a signal handler may call [`Cancel::cancel`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A cloneable cancellation token; the default one is never tripped until told.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<State>);

#[derive(Debug)]
struct State {
    tripped: AtomicBool,
    /// The deadline, in nanoseconds after `since`; `u64::MAX` for none.
    deadline: AtomicU64,
    since: Instant,
}

impl Default for State {
    fn default() -> State {
        State {
            tripped: AtomicBool::new(false),
            deadline: AtomicU64::new(u64::MAX),
            since: Instant::now(),
        }
    }
}

impl Cancel {
    /// A token nothing has tripped.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Trips the token. Async-signal-safe: one atomic store.
    pub fn cancel(&self) {
        self.0.tripped.store(true, Ordering::SeqCst);
    }

    /// Trips the token at `deadline`, or earlier if one was set already and is sooner.
    pub fn cancel_at(&self, deadline: Instant) {
        let nanos = deadline.saturating_duration_since(self.0.since).as_nanos();
        self.0
            .deadline
            .fetch_min(u64::try_from(nanos).unwrap_or(u64::MAX - 1), Ordering::SeqCst);
    }

    /// Whether the token was tripped or its deadline passed.
    pub fn is_cancelled(&self) -> bool {
        self.0.tripped.load(Ordering::SeqCst) || self.0.since.elapsed() >= self.deadline_offset()
    }

    fn deadline_offset(&self) -> Duration {
        match self.0.deadline.load(Ordering::SeqCst) {
            u64::MAX => Duration::MAX,
            nanos => Duration::from_nanos(nanos),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trip_is_seen_by_every_clone_and_a_new_token_starts_untripped() {
        let cancel = Cancel::new();
        let seen_by_a_worker = cancel.clone();
        assert!(!seen_by_a_worker.is_cancelled());
        cancel.cancel();
        assert!(seen_by_a_worker.is_cancelled());
        assert!(!Cancel::new().is_cancelled());
    }

    #[test]
    fn a_deadline_trips_every_clone_and_the_sooner_one_wins() {
        let cancel = Cancel::new();
        let clone = cancel.clone();
        cancel.cancel_at(Instant::now() + Duration::from_secs(3600));
        assert!(!clone.is_cancelled());
        cancel.cancel_at(Instant::now());
        assert!(clone.is_cancelled());
        cancel.cancel_at(Instant::now() + Duration::from_secs(3600));
        assert!(clone.is_cancelled(), "a later deadline does not undo an earlier one");
    }
}
