//! What a long command shows while it runs, on standard error: on a terminal one line redrawn
//! in place (`[ 412/1356] onnxruntime 1.32.0 · 3 failing · 0:42`), cleared before any other
//! line is written and when the run ends; anywhere else (a CI log) a heartbeat line once a
//! minute (`PAD_CONFORMANCE_HEARTBEAT` seconds), because CI services end a job that has been
//! silent for ten minutes, and a run streams nothing while a slow data set holds up the ones
//! after it.

use std::io::{self, IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cli::fatal::Fatal;
use crate::data::seconds::bounded_seconds;
use crate::text::escape_line;

/// The variable that sets the seconds between heartbeat lines (0: none).
pub(super) const HEARTBEAT_VARIABLE: &str = "PAD_CONFORMANCE_HEARTBEAT";
/// The seconds between heartbeat lines when the variable is not set.
const HEARTBEAT_SECONDS: f64 = 60.0;
/// How often the line on a terminal is redrawn while nothing finishes: its clock moves.
const REDRAW: Duration = Duration::from_secs(1);
/// The most characters of the backend's name the line shows, so that it fits 80 columns.
const NAME_CHARS: usize = 40;
/// The columns of a terminal that does not say.
const COLUMNS: usize = 80;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// One line on a terminal of that many columns, redrawn in place: cut to fit them, as a
    /// line that wraps could not be cleared in place.
    Line(usize),
    /// A line every so often, for a log.
    Heartbeat(Duration),
    /// Nothing.
    Quiet,
}

impl Mode {
    /// A line when standard error is a terminal, else a heartbeat every
    /// `PAD_CONFORMANCE_HEARTBEAT` seconds (60 unless set; 0 for none).
    pub(super) fn of_stderr() -> Result<Mode, Fatal> {
        if io::stderr().is_terminal() {
            let columns = terminal_size::terminal_size_of(io::stderr()).map(|(width, _)| usize::from(width.0));
            return Ok(Mode::Line(columns.unwrap_or(COLUMNS)));
        }
        Mode::heartbeat(std::env::var(HEARTBEAT_VARIABLE).ok().as_deref())
    }

    /// The heartbeat the variable's value asks for.
    fn heartbeat(value: Option<&str>) -> Result<Mode, Fatal> {
        let seconds = match value {
            None => HEARTBEAT_SECONDS,
            Some(text) => text.trim().parse::<f64>().map_err(|e| {
                Fatal(format!(
                    "{HEARTBEAT_VARIABLE}={}: not a number of seconds: {e}",
                    escape_line(text)
                ))
            })?,
        };
        let every = bounded_seconds(seconds).map_err(|e| Fatal(format!("{HEARTBEAT_VARIABLE}: {e}")))?;
        Ok(if every.is_zero() {
            Mode::Quiet
        } else {
            Mode::Heartbeat(every)
        })
    }
}

/// What has run so far, and what of it is on the terminal.
struct State {
    mode: Mode,
    /// The backend running, escaped, as the line names it.
    what: String,
    done: usize,
    total: usize,
    /// Those that fail the run: new failures under a baseline, else gating failures.
    failing: usize,
    started: Instant,
    /// When the last heartbeat was written (or the run started).
    last_beat: Instant,
    /// Whether a line stands on the terminal, to be cleared before anything else is written.
    drawn: bool,
    out: Box<dyn Write + Send>,
}

impl State {
    fn new(mode: Mode, out: Box<dyn Write + Send>, now: Instant) -> State {
        State {
            mode,
            what: String::new(),
            done: 0,
            total: 0,
            failing: 0,
            started: now,
            last_beat: now,
            drawn: false,
            out,
        }
    }

    /// Starts counting `total` data sets of backend `what`, at `now`.
    fn begin(&mut self, what: &str, total: usize, now: Instant) {
        let what = escape_line(what).into_owned();
        self.what = match what.chars().count() > NAME_CHARS {
            true => format!("{}…", what.chars().take(NAME_CHARS - 1).collect::<String>()),
            false => what,
        };
        (self.done, self.total, self.failing) = (0, total, 0);
        (self.started, self.last_beat) = (now, now);
        self.draw(now);
    }

    /// One more data set finished, at `now`.
    fn finished(&mut self, failing: bool, now: Instant) {
        self.done += 1;
        self.failing += usize::from(failing);
        self.draw(now);
    }

    /// Time passed: the line's clock moves, or a heartbeat is due.
    fn tick(&mut self, now: Instant) {
        match self.mode {
            Mode::Line(_) => self.draw(now),
            Mode::Heartbeat(every) if now.duration_since(self.last_beat) >= every && !self.what.is_empty() => {
                self.last_beat = now;
                let line = format!(
                    "pad-conformance: {}: {} of {} data sets done, {} failing, {} in",
                    self.what,
                    self.done,
                    self.total,
                    self.failing,
                    clock(now.duration_since(self.started))
                );
                // A log that cannot be written to loses its heartbeat, not the run.
                let _ = writeln!(self.out, "{line}").and_then(|()| self.out.flush());
            }
            Mode::Heartbeat(_) | Mode::Quiet => {}
        }
    }

    /// Redraws the terminal's line, on a terminal.
    fn draw(&mut self, now: Instant) {
        let Mode::Line(columns) = self.mode else {
            return;
        };
        if self.what.is_empty() {
            return;
        }
        let width = self.total.to_string().len();
        let line = format!(
            "[{:>width$}/{}] {} · {} failing · {}",
            self.done,
            self.total,
            self.what,
            self.failing,
            clock(now.duration_since(self.started))
        );
        // The last column left free: a terminal may wrap a line that fills it.
        let line: String = line.chars().take(columns.saturating_sub(1)).collect();
        let _ = write!(self.out, "\r\x1b[K{line}").and_then(|()| self.out.flush());
        self.drawn = true;
    }

    /// Clears the terminal's line, when one stands.
    fn clear(&mut self) {
        if self.drawn {
            let _ = write!(self.out, "\r\x1b[K").and_then(|()| self.out.flush());
            self.drawn = false;
        }
    }
}

/// `m:ss` (or `h:mm:ss`).
fn clock(elapsed: Duration) -> String {
    let seconds = elapsed.as_secs();
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    match hours {
        0 => format!("{minutes}:{seconds:02}"),
        _ => format!("{hours}:{minutes:02}:{seconds:02}"),
    }
}

/// The progress of a command, shown on standard error until it is dropped.
pub(super) struct Progress {
    state: Arc<Mutex<State>>,
    /// The thread that moves the clock or writes the heartbeat, and what stops it.
    ticker: Option<(Sender<()>, JoinHandle<()>)>,
}

impl Progress {
    /// Shows progress as `mode` says, on standard error.
    pub(super) fn start(mode: Mode) -> Progress {
        Progress::onto(mode, Box::new(io::stderr()), true)
    }

    /// Shows progress as `mode` says, into `out`; as time passes too when `ticking` (not in
    /// tests, whose clock is their own).
    fn onto(mode: Mode, out: Box<dyn Write + Send>, ticking: bool) -> Progress {
        let state = Arc::new(Mutex::new(State::new(mode, out, Instant::now())));
        let period = match mode {
            _ if !ticking => return Progress { state, ticker: None },
            Mode::Line(_) => REDRAW,
            Mode::Heartbeat(every) => every,
            Mode::Quiet => return Progress { state, ticker: None },
        };
        let (stop, stopped) = mpsc::channel::<()>();
        let shared = Arc::clone(&state);
        let thread = std::thread::spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(period) {
                lock(&shared).tick(Instant::now());
            }
        });
        Progress {
            state,
            ticker: Some((stop, thread)),
        }
    }

    /// Starts counting `total` data sets of backend `what`.
    pub(super) fn begin(&self, what: &str, total: usize) {
        lock(&self.state).begin(what, total, Instant::now());
    }

    /// One more data set finished (`failing` when it fails the run), whose lines `write`
    /// writes: with the terminal's line cleared before and drawn again after, and no heartbeat
    /// in between.
    pub(super) fn finished<T>(&self, failing: bool, write: impl FnOnce() -> T) -> T {
        let mut state = lock(&self.state);
        state.clear();
        let written = write();
        state.finished(failing, Instant::now());
        written
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.ticker.take() {
            drop(stop);
            let _ = thread.join();
        }
        lock(&self.state).clear();
    }
}

/// The state, even after a thread panicked holding it: what it shows is only progress.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose bytes the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn take(&self) -> String {
            String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
        }
    }

    /// `text` with each clock (`0:00`) written `C`.
    fn without_clocks(text: &str) -> String {
        let mut shown = String::new();
        for (i, part) in text.split(" · ").enumerate() {
            if i > 0 {
                shown.push_str(" · ");
            }
            match part.split_once(':') {
                Some((minutes, rest)) if minutes.chars().all(|c| c.is_ascii_digit()) && !minutes.is_empty() => {
                    let digits = rest.chars().take_while(char::is_ascii_digit).count();
                    shown.push('C');
                    shown.push_str(&rest[digits..]);
                }
                _ => shown.push_str(part),
            }
        }
        shown
    }

    /// The clock is the test's: a heartbeat is due a whole interval after the last one, never
    /// before, and says how far the run is.
    #[test]
    fn a_heartbeat_is_written_once_an_interval_has_passed_since_the_last() {
        let out = Shared::default();
        let start = Instant::now();
        let mut state = State::new(Mode::Heartbeat(Duration::from_secs(60)), Box::new(out.clone()), start);
        state.begin("onnxruntime 1.32.0", 1356, start);
        for failing in [false, true, false] {
            state.finished(failing, start);
        }
        state.tick(start + Duration::from_secs(59));
        assert_eq!(out.take(), "");
        state.tick(start + Duration::from_secs(61));
        assert_eq!(
            out.take(),
            "pad-conformance: onnxruntime 1.32.0: 3 of 1356 data sets done, 1 failing, 1:01 in\n"
        );
        // The next is due an interval after this one, not after the start.
        state.tick(start + Duration::from_secs(120));
        assert_eq!(out.take(), "");
        state.tick(start + Duration::from_secs(121));
        assert!(out.take().starts_with("pad-conformance: onnxruntime 1.32.0: 3 of 1356"));
    }

    /// On a terminal the line is redrawn in place and cleared before other lines; a hostile
    /// name is shown escaped and cut, so the line fits 80 columns.
    #[test]
    fn the_terminal_line_is_redrawn_in_place_and_cleared_around_other_output() {
        let out = Shared::default();
        let start = Instant::now();
        let mut state = State::new(Mode::Line(80), Box::new(out.clone()), start);
        state.begin("w\x1b[2J", 20, start);
        state.finished(true, start + Duration::from_secs(75));
        let drawn = out.take();
        assert_eq!(
            drawn,
            "\r\x1b[K[ 0/20] w\\u{1b}[2J · 0 failing · 0:00\r\x1b[K[ 1/20] w\\u{1b}[2J · 1 failing · 1:15"
        );
        state.clear();
        assert_eq!(out.take(), "\r\x1b[K");
        // Nothing stands: nothing to clear.
        state.clear();
        assert_eq!(out.take(), "");
        state.begin(&"x".repeat(300), 1_000_000, start);
        let line = out.take();
        let shown = line.trim_start_matches("\r\x1b[K");
        assert!(shown.chars().count() < 80, "{shown}");
        // A narrow terminal: the line is cut to its width, less its last column.
        let mut narrow = State::new(Mode::Line(20), Box::new(out.clone()), start);
        narrow.begin("onnxruntime 1.32.0", 1356, start);
        assert_eq!(out.take(), "\r\x1b[K[   0/1356] onnxrun");
        assert_eq!(clock(Duration::from_secs(3 * 3600 + 62)), "3:01:02");
    }

    #[test]
    fn the_heartbeat_variable_is_seconds_and_zero_turns_it_off() {
        let mode = |value| Mode::heartbeat(value).ok();
        assert_eq!(mode(None), Some(Mode::Heartbeat(Duration::from_secs(60))));
        assert_eq!(mode(Some("0.5")), Some(Mode::Heartbeat(Duration::from_millis(500))));
        assert_eq!(mode(Some("0")), Some(Mode::Quiet));
        let bad = Mode::heartbeat(Some("soon\n")).unwrap_err().0;
        assert!(
            bad.starts_with("PAD_CONFORMANCE_HEARTBEAT=soon\\n: not a number"),
            "{bad}"
        );
        assert!(Mode::heartbeat(Some("-1")).is_err());
    }

    /// A quiet progress writes nothing at all; a line is cleared before a data set's lines
    /// and when the progress ends.
    #[test]
    fn quiet_progress_writes_nothing_and_a_line_is_cleared_around_what_is_written() {
        let out = Shared::default();
        let progress = Progress::onto(Mode::Quiet, Box::new(out.clone()), true);
        progress.begin("b", 3);
        assert_eq!(progress.finished(true, || 7), 7);
        drop(progress);
        assert_eq!(out.take(), "");
        let progress = Progress::onto(Mode::Line(80), Box::new(out.clone()), false);
        progress.begin("b", 3);
        progress.finished(false, || out.clone().write_all(b"PASS  a/0\n").unwrap());
        drop(progress);
        let shown = out.take();
        // The clock's figures are the machine's: what matters is where the line is cleared.
        let clocks = without_clocks(&shown);
        assert_eq!(
            clocks,
            "\r\x1b[K[0/3] b · 0 failing · C\r\x1b[KPASS  a/0\n\r\x1b[K[1/3] b · 0 failing · C\r\x1b[K"
        );
    }
}
