//! The clock a backend's time limit is read on: time the backend had a processor for, or did
//! not want one, never time it sat ready to run while other work held the processors. On a
//! shared machine under 16 busy loops per core, starting Python with numpy takes 0.4 s of
//! processor time but 15 to 60 s on the wall clock, nearly all of it queued: a wall-clock limit
//! made that a time-out, and a verdict depend on the load.
//!
//! Linux counts, for every thread, the time it waited on a run queue (`schedstat`'s second
//! field). Over each sample interval the clock discounts the longest such wait among the
//! threads of the backend's process group — the group it leads, so a shell, a shim and what
//! they start count with it — capped at the interval: a backend held back for the whole
//! interval by other work has not used it. A hang (sleeping, blocked, waiting on a lock) is
//! never discounted and times out after the limit whatever the load. A backend that queues
//! behind its own threads is discounted too, so the wall clock stays bounded: a limit is spent
//! at [`MAX_STRETCH`] times its length on the wall clock, whatever the discount.
//!
//! Elsewhere (macOS, Windows, a kernel without schedstat) the clock is the wall clock.
//!
//! Reading the group means scanning /proc, a millisecond or more on a busy machine, which a
//! worker's request of a few milliseconds must not pay: the group is first read at the first
//! sample, [`SAMPLE`] after the start, and that first interval counts whole (its waits are
//! unknown). A limit therefore loses at most one interval of discount, and a request that ends
//! sooner reads nothing.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How many times its length a limit may last on the wall clock, however loaded the machine.
pub(crate) const MAX_STRETCH: u32 = 10;

/// How often the group's run delays are read: a process of the group that lives and ends
/// between two samples is not discounted (its time counts as run time).
const SAMPLE: Duration = Duration::from_millis(250);

/// A backend's clock, from the moment it is started: see the module's comment.
pub(crate) struct RunClock {
    /// The process group whose threads' waits are discounted; `None` reads the wall clock.
    group: Option<u32>,
    started: Instant,
    sampled_at: Instant,
    /// Run time up to `sampled_at`.
    ran: Duration,
    /// Each thread's run delay (nanoseconds) when last sampled, by (process, thread); `None`
    /// until the first sample reads the group.
    delays: Option<HashMap<(u32, u32), u64>>,
}

/// A limit a backend spent: what a time-out says about it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overrun {
    /// The limit.
    pub(crate) limit: Duration,
    /// The wall-clock time it lasted.
    pub(crate) wall: Duration,
    /// Of that, the time the backend waited for a processor (not counted).
    pub(crate) queued: Duration,
}

impl std::fmt::Display for Overrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "timed out after {} s", self.limit.as_secs_f64())?;
        // Below a second the wait is the machine's noise, not worth a reader's attention.
        if self.queued >= Duration::from_secs(1) {
            write!(
                f,
                " of run time ({:.0} s on the clock, {:.0} s of it waiting for a processor behind other work)",
                self.wall.as_secs_f64(),
                self.queued.as_secs_f64()
            )?;
        }
        Ok(())
    }
}

impl RunClock {
    /// The clock of the process group `group` leads (every backend process is started as the
    /// leader of its own group), from now. Nothing is read yet: see the module's comment.
    pub(crate) fn start(group: u32) -> RunClock {
        let now = Instant::now();
        RunClock {
            group: Some(group),
            started: now,
            sampled_at: now,
            ran: Duration::ZERO,
            delays: None,
        }
    }

    /// The wall clock, for a backend with no process of its own (in this process).
    #[cfg(test)]
    pub(crate) fn wall() -> RunClock {
        let now = Instant::now();
        RunClock {
            group: None,
            started: now,
            sampled_at: now,
            ran: Duration::ZERO,
            delays: None,
        }
    }

    /// Whether `limit` is spent: the backend ran (or slept) that long, or the wall clock
    /// reached [`MAX_STRETCH`] times it.
    pub(crate) fn spent(&mut self, limit: Duration) -> bool {
        self.sample();
        self.ran() >= limit || self.started.elapsed() >= limit.saturating_mul(MAX_STRETCH)
    }

    /// What a time-out of `limit` says: the wall time and the time discounted.
    pub(crate) fn overrun(&mut self, limit: Duration) -> Overrun {
        self.sample();
        let wall = self.started.elapsed();
        Overrun {
            limit,
            wall,
            queued: wall.saturating_sub(self.ran()),
        }
    }

    /// Run time so far.
    fn ran(&self) -> Duration {
        self.ran + self.sampled_at.elapsed()
    }

    /// Moves the clock to now, once the last sample is [`SAMPLE`] old.
    fn sample(&mut self) {
        let now = Instant::now();
        let interval = now.saturating_duration_since(self.sampled_at);
        let Some(group) = self.group else {
            self.ran += interval;
            self.sampled_at = now;
            return;
        };
        if interval < SAMPLE {
            return;
        }
        match (self.delays.take(), read_group_delays(group)) {
            (Some(before), after) => {
                // The group may have ended (its leader reaped): the interval then counts whole.
                let after = after.unwrap_or_default();
                self.ran += run_time(interval, &before, &after);
                self.delays = Some(after);
            }
            // The first read: the interval before it counts whole.
            (None, Some(after)) => {
                self.ran += interval;
                self.delays = Some(after);
            }
            // No schedstat here, or the leader is gone at once: the wall clock from now on.
            (None, None) => {
                self.ran += interval;
                self.group = None;
            }
        }
        self.sampled_at = now;
    }
}

/// The run time of an interval: the interval less the longest wait any thread had in it (a
/// thread first seen in it waited its whole delay in it), never below zero.
fn run_time(interval: Duration, before: &HashMap<(u32, u32), u64>, after: &HashMap<(u32, u32), u64>) -> Duration {
    let longest_wait = after
        .iter()
        .map(|(thread, &delay)| delay.saturating_sub(before.get(thread).copied().unwrap_or(0)))
        .max()
        .unwrap_or(0);
    interval.saturating_sub(Duration::from_nanos(longest_wait))
}

/// The run delay of every thread of every process in group `group`; `None` when the system
/// keeps none (not Linux, or no schedstat), or the group's leader cannot be read.
#[cfg(target_os = "linux")]
fn read_group_delays(group: u32) -> Option<HashMap<(u32, u32), u64>> {
    let mut delays = HashMap::new();
    // The leader first: when it cannot be read, the clock cannot be either.
    read_process_delays(group, &mut delays)?;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        if pid != group && process_group(pid) == Some(group) {
            // A member that ended since the directory was read is simply not counted.
            let _ = read_process_delays(pid, &mut delays);
        }
    }
    Some(delays)
}

#[cfg(not(target_os = "linux"))]
fn read_group_delays(_group: u32) -> Option<HashMap<(u32, u32), u64>> {
    None
}

/// Adds the run delay of each thread of process `pid`, from /proc/PID/task/TID/schedstat
/// ("RUN_NS WAIT_NS SLICES").
#[cfg(target_os = "linux")]
fn read_process_delays(pid: u32, delays: &mut HashMap<(u32, u32), u64>) -> Option<()> {
    for entry in std::fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten() {
        let Some(thread) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(entry.path().join("schedstat")) else {
            continue;
        };
        if let Some(wait) = schedstat_wait(&text) {
            delays.insert((pid, thread), wait);
        }
    }
    Some(())
}

/// The wait (the second number) of a schedstat line.
#[cfg(any(target_os = "linux", test))]
fn schedstat_wait(text: &str) -> Option<u64> {
    text.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// The process group of `pid`, from /proc/PID/stat: `PID (COMMAND) STATE PPID PGRP …`, the
/// command (which may hold spaces and parentheses) ending at the last `)`.
#[cfg(target_os = "linux")]
fn process_group(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat_field(&stat, 2)?.parse().ok()
}

/// Field `n` after the command of a /proc/PID/stat line (0 is the state).
#[cfg(any(target_os = "linux", test))]
fn stat_field(stat: &str, n: usize) -> Option<&str> {
    stat[stat.rfind(')')? + 1..].split_ascii_whitespace().nth(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delays(entries: &[((u32, u32), u64)]) -> HashMap<(u32, u32), u64> {
        entries.iter().copied().collect()
    }

    #[test]
    fn an_interval_loses_the_longest_wait_of_any_thread() {
        let second = Duration::from_secs(1);
        let before = delays(&[((10, 10), 5_000_000_000), ((10, 11), 1_000_000_000)]);
        // One thread waited 0.3 s more, another 0.6 s more, a new one 0.1 s in all.
        let after = delays(&[
            ((10, 10), 5_300_000_000),
            ((10, 11), 1_600_000_000),
            ((12, 12), 100_000_000),
        ]);
        assert_eq!(run_time(second, &before, &after), Duration::from_millis(400));
        // A thread that waited longer than the interval (threads of its own queued) leaves none.
        let after = delays(&[((10, 10), 9_000_000_000)]);
        assert_eq!(run_time(second, &before, &after), Duration::ZERO);
        // A sleeping group, or one that ended, runs the whole interval.
        assert_eq!(run_time(second, &before, &before), second);
        assert_eq!(run_time(second, &before, &HashMap::new()), second);
    }

    #[test]
    fn schedstat_lines_give_their_wait() {
        assert_eq!(schedstat_wait("1875446 72242 2\n"), Some(72242));
        assert_eq!(schedstat_wait("1875446"), None);
        assert_eq!(schedstat_wait("1 x 2"), None);
    }

    #[test]
    fn a_time_out_says_the_wait_once_it_is_worth_saying() {
        let overrun = |wall, queued| Overrun {
            limit: Duration::from_secs(60),
            wall: Duration::from_secs(wall),
            queued: Duration::from_secs(queued),
        };
        assert_eq!(overrun(60, 0).to_string(), "timed out after 60 s");
        assert_eq!(
            overrun(95, 35).to_string(),
            "timed out after 60 s of run time (95 s on the clock, 35 s of it waiting for a processor behind other work)"
        );
    }

    #[test]
    fn the_wall_clock_bounds_any_discount() {
        let mut clock = RunClock::wall();
        // Pretend the backend queued for everything so far, 10 minutes ago.
        clock.started -= Duration::from_secs(600);
        clock.sampled_at = Instant::now();
        assert!(!clock.spent(Duration::from_secs(61)));
        assert!(
            clock.spent(Duration::from_secs(60)),
            "10 × 60 s on the wall clock spends a 60 s limit"
        );
    }

    /// A stopped group never waits for a processor: its clock is the wall clock.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_stopped_group_runs_on_the_wall_clock() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = child.id();
        unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        while stat_field(&std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap(), 0) != Some("T") {
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut clock = RunClock::start(pid);
        for _ in 0..3 {
            std::thread::sleep(SAMPLE);
            assert!(!clock.spent(Duration::from_secs(60)));
        }
        let readable = clock.group.is_some() && clock.delays.is_some();
        let overrun = clock.overrun(Duration::from_secs(60));
        let _ = child.kill();
        let _ = child.wait();
        assert!(readable, "the group's schedstat could not be read");
        assert_eq!(overrun.queued, Duration::ZERO, "{overrun:?}");
        assert!(overrun.wall >= SAMPLE * 3);
    }

    /// A group busier than the machine's processors (four spinning processes a core, children
    /// of a shell that leads the group) queues: most of its time is not run time.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_queued_group_is_discounted_through_its_members() {
        use std::os::unix::process::CommandExt;
        let spinners = 4 * std::thread::available_parallelism().map_or(1, usize::from);
        let script = format!("for i in $(seq {spinners}); do (while :; do :; done) & done; wait");
        let mut child = std::process::Command::new("sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .unwrap();
        let mut clock = RunClock::start(child.id());
        // Sampled as a waiting request samples it; the first interval counts whole.
        for _ in 0..8 {
            std::thread::sleep(SAMPLE);
            assert!(!clock.spent(Duration::from_secs(60)));
        }
        let overrun = clock.overrun(Duration::from_secs(60));
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        let _ = child.wait();
        assert!(overrun.queued >= overrun.wall / 4, "{overrun:?}");
        assert!(
            overrun.queued <= overrun.wall - SAMPLE,
            "the first interval counts whole: {overrun:?}"
        );
    }

    #[test]
    fn a_stat_line_is_read_past_a_command_with_parentheses() {
        let stat = "4242 (a (b) c) S 1 4200 4200 0 -1";
        assert_eq!(stat_field(stat, 0), Some("S"));
        assert_eq!(stat_field(stat, 2), Some("4200"));
        assert_eq!(stat_field("4242 no command", 0), None);
    }
}
