//! Running data sets in child processes: the test binary itself, re-executed to serve trials,
//! so that an abort, a stack overflow, a segfault in native code or the OOM killer costs the
//! trial it struck (errored, naming the signal) and the rest run. catch_unwind covers panics
//! only.
//!
//! A child serves many trials, one at a time: requests arrive as JSON lines on its stdin,
//! results leave as JSON lines on a pipe of their own (the backend may print anything on
//! stdout and stderr, which go to a file quoted when the child dies). A child that dies is
//! replaced. Its death is recorded against the trial it was running, whatever the child served
//! before (memory an earlier trial corrupted included): without retries the crash is that
//! trial's verdict, and only the retry rule (`Harness::retries`, judge/retry.rs) runs the trial
//! again, alone in a fresh child ([`Pool::run_alone`]), where a pass is "passed after a crash",
//! counted. A rerun of the pool's own would let a pass hide the crash. The run ends its children
//! itself ([`Pool::end`]); a child whose stdin closes (the run ended, or died) exits at once,
//! even mid-trial, and on Windows each child's Job object ends it with the run's last handle.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::trial_result::{TrialRef, failed, not_loadable};
use crate::backend::exit_failure;
use crate::judge::check::Outcome;
use crate::judge::verdict::Failure;
use crate::platform::{
    Group, Overrun, RunClock, describe_crash, group_of_started, has_exited, pass_pipe, start_in_new_group, take_pipe,
};
use crate::report::json_case::JsonCase;
use crate::text::strip_ansi;

/// Set in a child: what names the write end of its result pipe ([`take_pipe`]).
const CHILD_SERVE_ENV: &str = "PAD_CONFORMANCE_CHILD_SERVE";

/// The exit status of a child that cannot serve (no result pipe): it says why on stderr.
const NOT_SERVING_STATUS: i32 = 3;

/// How many lines of a crashed child's output an errored trial quotes.
const OUTPUT_LINES: usize = 20;

/// The longest result line read from a child: one data set's verdict and message are a few
/// kilobytes, and a child that sends more is broken.
const MAX_RESULT_BYTES: u64 = 16 << 20;

/// How long a child whose stdin closed may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// What a child is asked to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Request {
    /// The request's number in this child, from 1: its reply must carry it back.
    pub seq: u64,
    /// The case directory.
    pub case_dir: PathBuf,
    /// The data set's index among the case's.
    pub data_set: usize,
    /// Record the digest of the backend's outputs, to compare the tries of a retry.
    pub digest: bool,
}

/// What a child answers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Reply {
    /// Started, and ready for requests: sent once, first.
    Ready,
    /// The data set's outcome, as the JSON report writes it, and where a panic happened while
    /// it was checked (which the entry says only in its message).
    Outcome {
        /// The outcome's entry.
        outcome: Box<JsonCase>,
        /// Where the backend panicked, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        panicked_at: Option<String>,
    },
    /// The case or data set is not there: the trial is not loadable, no backend is to blame.
    NotFound(String),
}

/// A reply as it travels: with the number of the request it answers (0 for [`Reply::Ready`]),
/// so that a reply for another trial, or a second one for the same trial (a backend that
/// forks without exec sends two), is a protocol break, never the next trial's answer.
#[derive(Debug, Serialize, Deserialize)]
struct Answer {
    seq: u64,
    reply: Reply,
}

/// Whether this process is a child serving trials.
pub(super) fn is_child() -> bool {
    std::env::var_os(CHILD_SERVE_ENV).is_some()
}

/// In a child process: once `prepare` has run, says it is ready and serves requests until
/// stdin closes, each answered by `check` on the result pipe. Exits the process.
pub(super) fn serve(prepare: impl FnOnce(), check: impl Fn(&Request) -> Reply) -> ! {
    let token = std::env::var(CHILD_SERVE_ENV).unwrap_or_default();
    let Some(results) = take_pipe(&token) else {
        eprintln!(
            "error: {CHILD_SERVE_ENV}={token:?} names no result pipe: a child process is started by Harness::isolate"
        );
        std::process::exit(NOT_SERVING_STATUS);
    };
    let mut results = std::io::BufWriter::new(results);
    let mut send = move |seq: u64, reply: Reply| {
        let sent = serde_json::to_writer(&mut results, &Answer { seq, reply })
            .map_err(std::io::Error::other)
            .and_then(|()| results.write_all(b"\n"))
            .and_then(|()| results.flush());
        if let Err(e) = sent {
            eprintln!("error: writing a result to the parent: {e}");
            std::process::exit(101);
        }
    };
    // Stdin on a thread of its own: when it closes, the run is over (or dead), and the child
    // exits even while a trial hangs.
    let (sender, requests) = channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
        std::process::exit(0)
    });
    prepare();
    send(0, Reply::Ready);
    for line in requests {
        match serde_json::from_str::<Request>(&line) {
            Ok(request) => send(request.seq, check(&request)),
            // Numbered 0, as no request is: the parent counts it a protocol break.
            Err(e) => send(
                0,
                Reply::NotFound(format!("the child process could not read its request: {e}")),
            ),
        }
    }
    std::process::exit(0)
}

/// In a child: the cases it has listed and their models, so that the data sets of one case
/// decode its model once. Bounded: a corpus of thousands of cases costs a re-listing now and
/// then, never the memory of all of them.
pub(super) struct ChildCases<T> {
    cases: HashMap<PathBuf, Arc<T>>,
}

impl<T> ChildCases<T> {
    const MAX_CASES: usize = 64;

    pub(super) fn new() -> ChildCases<T> {
        ChildCases { cases: HashMap::new() }
    }

    /// The case at `dir`, listed by `list` the first time.
    pub(super) fn get<E>(&mut self, dir: &Path, list: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E> {
        if let Some(case) = self.cases.get(dir) {
            return Ok(Arc::clone(case));
        }
        if self.cases.len() >= Self::MAX_CASES {
            self.cases.clear();
        }
        let case = Arc::new(list()?);
        self.cases.insert(dir.to_owned(), Arc::clone(&case));
        Ok(case)
    }
}

/// The children of one run: idle ones wait here for the next trial.
pub(super) struct Pool {
    time_limit: Duration,
    idle: Mutex<Vec<Server>>,
}

impl Pool {
    /// A pool whose children get `time_limit` to start, and each trial the limit it is run with.
    pub(super) fn new(time_limit: Duration) -> Pool {
        Pool {
            time_limit,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The gate's time limit: a child's start, and every trial without one of its own.
    pub(super) fn time_limit(&self) -> Duration {
        self.time_limit
    }

    /// Runs `trial` in an idle child, or a new one, killing it after `limit`. A crash is this
    /// trial's outcome even in a child that served others before: its first try, which the
    /// retry rule alone may run again.
    pub(super) fn run(&self, trial: &TrialRef<'_>, limit: Duration) -> Outcome {
        if is_child() {
            // A child that did not take the child's path (its main does not end in
            // Harness::run) would start children of its own, without end.
            return failed(
                trial,
                Failure::Runner,
                "a child process started trials of its own: isolate() needs the test binary's main \
                 to call Harness::run"
                    .to_owned(),
            );
        }
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut server = match idle.map_or_else(Server::start, Ok) {
            Ok(server) => server,
            Err(e) => return could_not_start(trial, &e),
        };
        let outcome = server.serve(trial, false, self.time_limit, limit).outcome(trial);
        if server.is_alive() {
            self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(server);
        }
        outcome
    }

    /// A retry's try: runs `trial` alone in a fresh child, ended afterwards, killing it after
    /// `limit`. The outcome records its outputs' digest, which the retry rule compares tries by.
    pub(super) fn run_alone(&self, trial: &TrialRef<'_>, limit: Duration) -> Outcome {
        match Server::start() {
            Ok(mut server) => server.serve(trial, true, self.time_limit, limit).outcome(trial),
            Err(e) => could_not_start(trial, &e),
        }
    }

    /// Ends every idle child: stdin closed, a grace period to exit, then killed. After the
    /// trials, no child is busy.
    pub(super) fn end(&self) {
        let mut servers = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|e| e.into_inner()));
        for server in &mut servers {
            server.requests = None;
        }
        let until = Instant::now() + EXIT_GRACE;
        for server in &mut servers {
            server.end(until);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.end();
    }
}

fn could_not_start(trial: &TrialRef<'_>, e: &std::io::Error) -> Outcome {
    failed(trial, Failure::Runner, format!("could not start a child process: {e}"))
}

/// How a child served one trial.
enum Served {
    /// Its reply.
    Replied(Reply),
    /// It died first (its output's last lines).
    Died(ExitStatus, String),
    /// It did not answer within the limit and was killed (how long it took, its output's last
    /// lines).
    TimedOut(Overrun, String),
    /// It sent what is no reply, or could not be asked.
    Broken(String),
}

impl Served {
    /// The trial's outcome: the child's own, or how the child failed.
    fn outcome(self, trial: &TrialRef<'_>) -> Outcome {
        match self {
            // The case and its basis as the parent knows them: the child lists the case
            // alone, so its id is its directory's name, and its corpus (whose manifest gives
            // the basis) unknown.
            Served::Replied(Reply::Outcome { outcome, panicked_at }) => {
                let outcome = outcome
                    .into_outcome(trial.backend)
                    .with_id(trial.case.id.clone(), trial.case.data_number(trial.index))
                    .with_basis(trial.case.basis_of(trial.index).clone());
                let outcome = match panicked_at {
                    Some(location) => outcome.with_panic_location(location),
                    None => outcome,
                };
                let gates = outcome.gates_under(trial.gating);
                outcome.with_gates(gates)
            }
            Served::Replied(Reply::NotFound(why)) => not_loadable(trial, why),
            // serve() takes Ready apart from the trial's reply.
            Served::Replied(Reply::Ready) => failed(
                trial,
                Failure::Protocol,
                "the child process said it was ready in reply".to_owned(),
            ),
            Served::Died(status, tail) => failed(
                trial,
                exit_failure(status),
                format!("the child process running it {}{tail}", describe(status)),
            ),
            Served::TimedOut(overrun, tail) => failed(
                trial,
                Failure::Timeout,
                format!("{overrun}: the child process running it was killed{tail}"),
            ),
            Served::Broken(why) => failed(trial, Failure::Protocol, why),
        }
    }
}

/// One child process serving trials.
struct Server {
    child: Child,
    group: Group,
    /// Its stdin; `None` once closed.
    requests: Option<ChildStdin>,
    /// Its result lines, read by a thread of their own; `None` when the pipe closed.
    results: Receiver<Option<std::io::Result<Vec<u8>>>>,
    /// Its stdout and stderr, and its scratch directory.
    output: PathBuf,
    _dir: tempfile::TempDir,
    /// The number of the last request it was sent.
    seq: u64,
    /// It said it is ready: started, its cases discovered.
    ready: bool,
    /// Reaped: its group id may belong to another process now.
    reaped: bool,
}

impl Server {
    fn start() -> std::io::Result<Server> {
        let dir = crate::data::scratch_dir()?;
        let output_path = dir.path().join("output");
        let output = File::create(&output_path)?;
        let (reader, writer) = std::io::pipe()?;
        let mut command = Command::new(std::env::current_exe()?);
        let token = pass_pipe(&mut command, &writer)?;
        command
            .env(CHILD_SERVE_ENV, token)
            .stdin(Stdio::piped())
            .stdout(output.try_clone()?)
            .stderr(output);
        // Its own group, so a time-out kills whatever the backend started too.
        let mut child = start_in_new_group(&mut command).spawn()?;
        // The child holds the write end now: the pipe closes when it dies.
        drop(writer);
        let group = group_of_started(&mut child)?;
        let (sender, results) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            loop {
                let mut line = Vec::new();
                let read = (&mut reader).take(MAX_RESULT_BYTES).read_until(b'\n', &mut line);
                let sent = match read {
                    Ok(0) => None,
                    Ok(_) if line.last() != Some(&b'\n') => Some(Err(std::io::Error::other(format!(
                        "a result line over {MAX_RESULT_BYTES} bytes, or cut short"
                    )))),
                    Ok(_) => Some(Ok(line)),
                    Err(e) => Some(Err(e)),
                };
                let last = !matches!(sent, Some(Ok(_)));
                if sender.send(sent).is_err() || last {
                    break;
                }
            }
        });
        Ok(Server {
            requests: child.stdin.take(),
            child,
            group,
            results,
            output: output_path,
            _dir: dir,
            seq: 0,
            ready: false,
            reaped: false,
        })
    }

    fn is_alive(&mut self) -> bool {
        !self.reaped && self.requests.is_some()
    }

    /// Asks the child to run `trial` and waits, at most `time_limit`, for its reply. A new
    /// child's start (the test binary's main, the cases' discovery) has a time limit of its
    /// own before it, `start_limit`, the gate's: the trial's counts from its request, so a
    /// short limit given to a trial that hangs is never spent on starting a process.
    fn serve(&mut self, trial: &TrialRef<'_>, digest: bool, start_limit: Duration, time_limit: Duration) -> Served {
        let from = std::fs::metadata(&self.output).map_or(0, |m| m.len());
        if !self.ready {
            match self.reply(None, 0, from, start_limit) {
                Ok(Reply::Ready) => self.ready = true,
                Ok(_) => {
                    self.kill();
                    return Served::Broken("the child process answered before it was asked".to_owned());
                }
                Err(served) => return served,
            }
        }
        self.seq += 1;
        let request = Request {
            seq: self.seq,
            case_dir: trial.case.dir.clone(),
            data_set: trial.index,
            digest,
        };
        let mut line = serde_json::to_vec(&request).unwrap_or_default();
        line.push(b'\n');
        let asked = match self.requests.as_mut() {
            Some(stdin) => stdin.write_all(&line).and_then(|()| stdin.flush()),
            None => Err(std::io::Error::other("its stdin is closed")),
        };
        match self.reply(asked.err(), self.seq, from, time_limit) {
            Ok(Reply::Ready) => {
                self.kill();
                Served::Broken("the child process said it was ready twice".to_owned())
            }
            Ok(reply) => Served::Replied(reply),
            Err(served) => served,
        }
    }

    /// The child's next reply, to request `seq`, waited for at most `time_limit`; how the child
    /// failed when it sent none, or sent one numbered for another request (which retires it).
    /// `unasked` is why its request could not be written, if it could not.
    fn reply(
        &mut self,
        unasked: Option<std::io::Error>,
        seq: u64,
        from: u64,
        time_limit: Duration,
    ) -> Result<Reply, Served> {
        let start = Instant::now();
        let mut clock = RunClock::start(self.child.id());
        let parse = |line: &[u8]| reply_to(line, seq);
        loop {
            match self.results.recv_timeout(Duration::from_millis(50)) {
                Ok(Some(Ok(line))) => {
                    return parse(&line).map_err(|why| {
                        self.kill();
                        Served::Broken(format!("the child process's result {why}"))
                    });
                }
                Ok(Some(Err(e))) => {
                    self.kill();
                    return Err(Served::Broken(format!("reading the child process's result: {e}")));
                }
                // The pipe closed, or its reader ended: the child is dying.
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.died(from, &mut clock, time_limit));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if has_exited(&self.child) {
                // A reply sent just before it exited still counts; what it started dies with it.
                if let Ok(Some(Ok(line))) = self.results.try_recv()
                    && let Ok(reply) = parse(&line)
                {
                    self.kill();
                    return Ok(reply);
                }
                return Err(self.died(from, &mut clock, time_limit));
            }
            if clock.spent(time_limit) {
                self.kill();
                return Err(Served::TimedOut(
                    clock.overrun(time_limit),
                    output_tail(&self.output, from),
                ));
            }
            if let Some(e) = &unasked
                && start.elapsed() >= EXIT_GRACE
            {
                self.kill();
                return Err(Served::Broken(format!(
                    "could not hand the child process its request: {e}"
                )));
            }
        }
    }

    /// The child's end, waited for until `clock` spends `limit` (then killed, as a time-out).
    fn died(&mut self, from: u64, clock: &mut RunClock, limit: Duration) -> Served {
        self.requests = None;
        loop {
            if has_exited(&self.child) {
                return match self.kill() {
                    Some(status) => Served::Died(status, output_tail(&self.output, from)),
                    None => Served::Broken("the child process ended, and its status cannot be read".to_owned()),
                };
            }
            if clock.spent(limit) {
                self.kill();
                return Served::TimedOut(clock.overrun(limit), output_tail(&self.output, from));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Kills the child's group — the child and whatever it started, exited or not — and then
    /// reaps the child, returning its exit status (`None` once reaped, or unreadable). The
    /// child is only ever reaped here: until then its pid, and so its group id, stays its own,
    /// so a helper the backend started (`sleep 120`, a forked copy) never outlives the gate.
    fn kill(&mut self) -> Option<ExitStatus> {
        self.requests = None;
        if self.reaped {
            return None;
        }
        self.group.kill();
        self.reaped = true;
        self.child.wait().ok()
    }

    /// Waits until `until` for a child whose stdin closed to exit, then kills its group.
    fn end(&mut self, until: Instant) {
        self.requests = None;
        while !self.reaped && !has_exited(&self.child) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        self.kill();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// The reply a result `line` carries, if it answers request `seq`; else why not (it does not
/// parse, or it answers another request).
fn reply_to(line: &[u8], seq: u64) -> Result<Reply, String> {
    let answer = serde_json::from_slice::<Answer>(line).map_err(|e| format!("does not parse: {e}"))?;
    if answer.seq != seq {
        return Err(format!(
            "answers request {} while request {seq} runs: a second reply to an earlier trial, or a \
             reply for another one (a backend that forks without exec replies twice)",
            answer.seq
        ));
    }
    Ok(answer.reply)
}

/// "was killed by signal 6 (SIGABRT)", "exited with status 3 without a result".
fn describe(status: ExitStatus) -> String {
    match (describe_crash(status), status.code()) {
        (Some(crash), _) => crash,
        (None, Some(code)) => format!("exited with status {code} without a result"),
        (None, None) => format!("ended without a result ({status})"),
    }
}

/// At most the last `max` bytes of the file at `path` after offset `from`: a child that
/// printed gigabytes costs no more.
fn read_tail(path: &Path, from: u64, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    let (mut file, len) = crate::data::side_file::open_regular(path, u64::MAX)?;
    file.seek(SeekFrom::Start(len.saturating_sub(max).max(from)))?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The last lines the child printed since offset `from` (this trial's), escapes stripped, as
/// a message's tail.
fn output_tail(path: &Path, from: u64) -> String {
    let text = read_tail(path, from, 64 << 10).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let text = strip_ansi(&text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let shown = &lines[lines.len().saturating_sub(OUTPUT_LINES)..];
    format!("\n  its output:\n    {}", shown.join("\n    "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_signal_is_named() {
        use std::os::unix::process::ExitStatusExt;
        let aborted = ExitStatus::from_raw(libc::SIGABRT);
        assert_eq!(describe(aborted), "was killed by signal 6 (SIGABRT)");
        let exited = ExitStatus::from_raw(3 << 8);
        assert_eq!(describe(exited), "exited with status 3 without a result");
    }

    #[cfg(windows)]
    #[test]
    fn a_crash_is_named_by_its_status() {
        use std::os::windows::process::ExitStatusExt;
        let crashed = ExitStatus::from_raw(0xc000_0005);
        assert_eq!(describe(crashed), "crashed with 0xc0000005 (STATUS_ACCESS_VIOLATION)");
        let exited = ExitStatus::from_raw(3);
        assert_eq!(describe(exited), "exited with status 3 without a result");
    }

    #[test]
    fn a_reply_counts_only_for_the_request_it_numbers() {
        let line = |seq: u64| {
            let answer = Answer {
                seq,
                reply: Reply::NotFound("x".into()),
            };
            serde_json::to_vec(&answer).unwrap()
        };
        assert!(matches!(reply_to(&line(2), 2), Ok(Reply::NotFound(why)) if why == "x"));
        // A forked backend's second reply to request 1, read while request 2 runs.
        let second = reply_to(&line(1), 2).unwrap_err();
        assert!(second.starts_with("answers request 1 while request 2 runs"), "{second}");
        // Ready is request 0's; an unnumbered line (an older child's) does not parse.
        assert!(reply_to(&line(0), 1).is_err());
        assert!(
            reply_to(br#"{"not-found":"x"}"#, 1)
                .unwrap_err()
                .starts_with("does not parse")
        );
    }

    #[test]
    fn the_tail_is_this_trial_s_output_only() {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("output");
        std::fs::write(&path, "earlier trial\nthis one\n").unwrap();
        assert_eq!(output_tail(&path, 14), "\n  its output:\n    this one");
        assert_eq!(output_tail(&path, 23), "");
    }

    #[test]
    fn a_child_lists_a_case_once_and_forgets_past_its_bound() {
        let mut cases = ChildCases::new();
        let mut listed = 0;
        for round in 0..2 {
            for i in 0..ChildCases::<usize>::MAX_CASES {
                let case = cases.get(Path::new(&i.to_string()), || {
                    listed += 1;
                    Ok::<_, ()>(i)
                });
                assert_eq!(*case.unwrap(), i, "round {round}");
            }
        }
        assert_eq!(listed, ChildCases::<usize>::MAX_CASES);
        let _ = cases.get(Path::new("one more"), || Ok::<_, ()>(0));
        assert_eq!(cases.cases.len(), 1);
    }
}
