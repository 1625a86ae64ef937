//! What a backend's process prints on standard error, as a failure's message carries it: read
//! as it comes by a thread of its own (so the process never blocks on a full pipe), its first
//! 4 KiB and its last 12 KiB kept with the count of what lay between — a compiler's error line
//! before a dump of its IR survives as well as a traceback's last line — and taken per
//! request: everything the process wrote before the taking, nothing it wrote before the last.

use std::fmt;
use std::process::ChildStderr;
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::platform::StderrPipe;

/// How much of the start of a stretch of stderr is kept: the first error a tool prints.
const HEAD: usize = 4 << 10;
/// How much of its end is kept: a traceback, the last words before a crash.
const TAIL: usize = 12 << 10;
/// How much one taking reads from the pipe at most: more than a pipe holds (64 KiB on Linux by
/// default, 1 MiB at most unprivileged), so everything written before the taking is read, and
/// a process that writes without end cannot keep the taking reading.
const TAKE_AT_MOST: usize = 2 << 20;
/// How much the reading thread reads before it lets a taking have the buffer.
const READ_AT_ONCE: usize = 256 << 10;
/// How long the reading thread waits on the pipe before it looks again.
const WAIT: Duration = Duration::from_secs(1);

/// Whose stderr it is, which a message names: a long-lived worker's, or the one run of a
/// per-case command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Writer {
    /// An exec worker (`exec:`), serving many data sets.
    #[default]
    Worker,
    /// A per-case command (`exec-per-case:`), run for this data set alone.
    Command,
}

impl Writer {
    /// Every writer, for a reader of messages that looks for each label.
    pub(crate) const ALL: [Writer; 2] = [Writer::Worker, Writer::Command];

    /// The words that introduce it in a message, on a line of their own.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Writer::Worker => "worker stderr",
            Writer::Command => "stderr of the command",
        }
    }
}

/// What a process printed on stderr over one stretch (a request, a run), its first and last
/// lines within 16 KiB, with the count of the bytes left out between them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stderr {
    writer: Writer,
    text: String,
}

// For the Unix tests, which start processes.
#[cfg(all(test, unix))]
impl Stderr {
    /// The text kept, the mark of what was left out included.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

/// `\n{label}:\n…` after a message, when the process printed anything.
impl fmt::Display for Stderr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text.trim().is_empty() {
            Ok(())
        } else {
            write!(f, "\n{}:\n{}", self.writer.label(), self.text.trim_end())
        }
    }
}

/// The bytes of one stretch: its head, its tail, and how many fell between.
#[derive(Default)]
struct Kept {
    head: Vec<u8>,
    tail: Vec<u8>,
    left_out: u64,
}

impl Kept {
    fn push(&mut self, mut bytes: &[u8]) {
        let room = HEAD - self.head.len();
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        bytes = rest;
        self.tail.extend_from_slice(bytes);
        let excess = self.tail.len().saturating_sub(TAIL);
        self.tail.drain(..excess);
        self.left_out += excess as u64;
    }

    /// The stretch as text, and the next one begun.
    fn take(&mut self) -> String {
        let Kept { head, tail, left_out } = std::mem::take(self);
        if left_out == 0 {
            return String::from_utf8_lossy(&[head, tail].concat()).into_owned();
        }
        // Whole lines on both sides of the mark, when there are lines to cut at: the head up
        // to its last line break, the tail from its first (unless that leaves nothing of it).
        let head_end = head.iter().rposition(|&b| b == b'\n').map_or(head.len(), |i| i + 1);
        let tail_start = tail
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| i + 1)
            .filter(|&start| start < tail.len())
            .unwrap_or(0);
        let left_out = left_out + (head.len() - head_end + tail_start) as u64;
        let head = String::from_utf8_lossy(&head[..head_end]);
        let newline = if head.ends_with('\n') { "" } else { "\n" };
        format!(
            "{head}{newline}[… {left_out} bytes …]\n{}",
            String::from_utf8_lossy(&tail[tail_start..])
        )
    }
}

/// The pipe and what was read from it: whoever holds the lock reads the pipe, so a taking
/// that drains it knows nothing written before is still on its way.
struct Shared {
    pipe: StderrPipe,
    kept: Mutex<Kept>,
}

impl Shared {
    fn kept(&self) -> MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads what the pipe holds now into `kept`, up to `at_most` bytes; false at its end.
    fn drain(&self, kept: &mut Kept, at_most: usize) -> bool {
        let mut chunk = [0u8; 8192];
        let mut read = 0;
        while read < at_most {
            match self.pipe.read_now(&mut chunk) {
                Ok(Some(0)) | Err(_) => return false,
                Ok(Some(n)) => {
                    kept.push(&chunk[..n]);
                    read += n;
                }
                Ok(None) => break,
            }
        }
        true
    }
}

/// A process's stderr, read by a thread of its own into what [`Kept`] keeps.
pub(super) struct StderrReader {
    shared: Arc<Shared>,
    writer: Writer,
    /// Disconnected once the pipe reaches its end.
    closed: Receiver<()>,
}

impl StderrReader {
    /// Reads `pipe`, the stderr of a process that `writer` says whose it is.
    pub(super) fn start(pipe: ChildStderr, writer: Writer) -> std::io::Result<StderrReader> {
        let shared = Arc::new(Shared {
            pipe: StderrPipe::new(pipe)?,
            kept: Mutex::new(Kept::default()),
        });
        let reading = Arc::clone(&shared);
        let (open, closed) = channel::<()>();
        std::thread::Builder::new().name("stderr".into()).spawn(move || {
            let _open = open;
            loop {
                reading.pipe.wait(WAIT);
                if !reading.drain(&mut reading.kept(), READ_AT_ONCE) {
                    return;
                }
            }
        })?;
        Ok(StderrReader { shared, writer, closed })
    }

    /// What the process printed since the last taking: the pipe is drained first, so
    /// everything written before this call is in it, and nothing written before the last.
    pub(super) fn take(&self) -> Stderr {
        let mut kept = self.shared.kept();
        self.shared.drain(&mut kept, TAKE_AT_MOST);
        Stderr {
            writer: self.writer,
            text: kept.take(),
        }
    }

    /// [`StderrReader::take`], once the pipe has ended or `patience` has passed: a process
    /// whose group is killed closes it, and what it printed last is read.
    pub(super) fn take_at_end(&self, patience: Duration) -> Stderr {
        let _ = self.closed.recv_timeout(patience);
        self.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(pushes: &[&[u8]]) -> String {
        let mut kept = Kept::default();
        for bytes in pushes {
            kept.push(bytes);
        }
        kept.take()
    }

    #[test]
    fn a_short_stderr_is_kept_whole_and_a_taking_begins_the_next_stretch() {
        let mut kept = Kept::default();
        kept.push(b"error: pads must be int64\n");
        kept.push(b"in node 0\n");
        assert_eq!(kept.take(), "error: pads must be int64\nin node 0\n");
        assert_eq!(kept.take(), "");
        kept.push(b"next\n");
        assert_eq!(kept.take(), "next\n");
    }

    /// 20 KiB of stderr whose first line is the error: the error line and the last lines are
    /// kept, whole, with the count of what lies between, within the 16 KiB bound.
    #[test]
    fn a_long_stderr_keeps_its_first_and_last_lines_and_counts_what_lies_between() {
        let mut text = String::from("error: 'tensor.pad' op reflect of an empty axis\n");
        let mut k = 0;
        while text.len() < 20 << 10 {
            text.push_str(&format!("  %{k} = arith.constant {k} : i64\n"));
            k += 1;
        }
        text.push_str("compilation failed\n");
        // In pieces of a pipe's reads, the bytes as they came.
        let pieces: Vec<&[u8]> = text.as_bytes().chunks(4096).collect();
        let shown = kept(&pieces);
        assert!(
            shown.starts_with("error: 'tensor.pad' op reflect of an empty axis\n  %0 = "),
            "{shown}"
        );
        assert!(shown.ends_with("\ncompilation failed\n"), "{shown}");
        let (head, rest) = shown.split_once("[… ").unwrap();
        let (count, tail) = rest.split_once(" bytes …]\n").unwrap();
        assert!(head.ends_with('\n') && tail.starts_with("  %"), "{shown}");
        // Nothing is lost but what the mark counts.
        assert_eq!(head.len() + count.parse::<usize>().unwrap() + tail.len(), text.len());
        assert!(text.starts_with(head) && text.ends_with(tail));
        assert!(
            head.len() <= HEAD && tail.len() <= TAIL,
            "{} {}",
            head.len(),
            tail.len()
        );
        assert!(
            head.len() > HEAD - 64 && tail.len() > TAIL - 64,
            "{} {}",
            head.len(),
            tail.len()
        );
    }

    #[test]
    fn one_long_line_is_cut_at_the_bounds() {
        let text = "x".repeat(20 << 10);
        let shown = kept(&[text.as_bytes()]);
        let left_out = (20 << 10) - HEAD - TAIL;
        assert_eq!(
            shown,
            format!("{}\n[… {left_out} bytes …]\n{}", "x".repeat(HEAD), "x".repeat(TAIL))
        );
    }

    #[test]
    fn the_label_names_whose_stderr_it_is() {
        let stderr = |writer| Stderr {
            writer,
            text: "the kernel threw\n".into(),
        };
        assert_eq!(stderr(Writer::Worker).to_string(), "\nworker stderr:\nthe kernel threw");
        assert_eq!(
            stderr(Writer::Command).to_string(),
            "\nstderr of the command:\nthe kernel threw"
        );
        assert_eq!(Stderr::default().to_string(), "");
    }

    /// What a process wrote before a taking is in it, however late the reading thread is,
    /// and not in the next: a request's stderr is its own.
    #[cfg(unix)]
    #[test]
    fn a_taking_holds_everything_written_before_it_and_nothing_before_the_last() {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = Command::new("sh")
            .args(["-c", "while read line; do echo \"$line\" >&2; echo done; done"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let reader = StderrReader::start(child.stderr.take().unwrap(), Writer::Worker).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        for k in 0..50 {
            writeln!(stdin, "traceback of request {k}").unwrap();
            let mut reply = String::new();
            std::io::BufRead::read_line(&mut stdout, &mut reply).unwrap();
            // The reply came after the stderr line was written: the taking must hold it.
            assert_eq!(reader.take().text(), format!("traceback of request {k}\n"));
        }
        drop(stdin);
        child.wait().unwrap();
        assert_eq!(reader.take_at_end(Duration::from_secs(10)).text(), "");
    }
}
