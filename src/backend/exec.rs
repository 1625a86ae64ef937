//! The external-process backend: a worker command speaking JSON lines over stdin/stdout
//! (docs/backend-protocol.md). A worker that hangs, crashes or prints garbage costs the case
//! at hand only: it is killed and the next case starts a fresh one. Each worker runs in its own
//! process group, and killing it kills the group: a shell or shim in front of the worker, and
//! whatever the worker started, go with it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use prost::Message;
use serde_json::{Value, json};

use super::accepts::{Accepts, TensorFormat, offers};
use super::process::Process;
use super::reply::{OutputFile, WorkerReply, check_reply, resolve_outputs, shortened};
use super::request::run_request;
use super::stderr::{Stderr, Writer};
use super::worker_error::{ExecError, Unanswered, WorkerError, WorkerFailure, outputs_read};
use super::{Backend, BackendError, Driven, ErrorKind, Language, RuntimeInfo};
use crate::cancel::Cancel;
use crate::data::scratch::{Scratch, private_dir};
use crate::model::Model;
use crate::operators::{OpError, Rule};
use crate::platform::{RunClock, WorkerPipes, no_follow_private, private_dir_builder};
use crate::proto::ModelProto;
use crate::reference::{RunError, run_model};
use crate::tensor::{
    DecodeOptions, FileError, FileProblem, Tensor, TensorFile, encode_tensor, group_limit, read_file_group,
    read_limited, write_raw,
};

/// The protocol version this runner speaks.
pub(crate) const PROTOCOL_VERSION: u64 = 1;
/// The longest line a worker may print; longer is a protocol error, not an allocation.
const MAX_LINE: u64 = 1 << 20;
/// How often a worker that is being waited on is checked to be still alive: a worker that exits
/// while something it started still holds its stdout gives no end of file.
const POLL: Duration = Duration::from_millis(50);
/// How long a worker whose stdout closed gets to finish exiting, so that its status is known.
const EXIT_AFTER_EOF: Duration = Duration::from_millis(500);
/// How long the workers get to exit on their own once their stdin closes at shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// The least a worker's start (its handshake) may take before it is killed, whatever the time
/// limit of a data set: starting a runtime is no data set, and on a busy machine it takes
/// several times as long as on an idle one, so a short `--timeout` chosen to make hangs cheap
/// must not make the start fail. Five minutes: under 16 × nproc busy loops the numpy worker
/// of docs/python.md took over 60 s to say hello (scripts/gates-under-load).
const START_TIME_LIMIT: Duration = Duration::from_secs(300);

/// A backend run by an external worker command. Not the gate's API (hidden, as the `testing`
/// module that reaches it is): a gate serves its backend as a worker ([`Worker`](super::Worker)).
#[doc(hidden)]
pub struct ExecBackend {
    command: String,
    name: String,
    runtime: Option<RuntimeInfo>,
    /// What the first worker's hello says serves it, for messages advising its author.
    language: Language,
    /// The first worker's hello accepted model replies: every answer is the reference's
    /// evaluation of a model the worker rewrote (a graph optimizer's).
    rewrites_model: bool,
    timeout: Duration,
    max_tensor_bytes: u64,
    idle: Mutex<Vec<Worker>>,
    scratch: ScratchDir,
    next_id: AtomicU64,
    /// Numbers the workers' output directories.
    next_slot: AtomicU64,
    /// Tripped: requests in flight fail at once, their workers killed, and none start.
    cancel: Cancel,
}

impl ExecBackend {
    /// Starts one worker of `command` and checks its handshake, so that a command that is not
    /// a worker is an error before any case runs.
    pub fn start(command: &str, timeout: Duration, max_tensor_bytes: u64) -> Result<ExecBackend, StartError> {
        Self::start_cancelled_by(command, timeout, max_tensor_bytes, Cancel::new())
    }

    /// [`ExecBackend::start`], `cancel` stopping the handshake too (a signal that comes before
    /// the worker's process group is known cannot kill it), then [`ExecBackend::cancelled_by`].
    pub(crate) fn start_cancelled_by(
        command: &str,
        timeout: Duration,
        max_tensor_bytes: u64,
        cancel: Cancel,
    ) -> Result<ExecBackend, StartError> {
        let scratch = ScratchDir::new(max_tensor_bytes)?;
        let slot = Slot::new(scratch.path(), 0).map_err(|source| StartError::Scratch {
            path: scratch.path().to_owned(),
            source,
        })?;
        let (worker, hello) =
            Worker::spawn(command, timeout, &cancel, slot).map_err(|failure| StartError::Handshake {
                command: command.to_owned(),
                failure: Box::new(failure),
            })?;
        Ok(ExecBackend {
            command: command.to_owned(),
            name: hello.name,
            runtime: hello.runtime,
            language: hello.language,
            rewrites_model: worker.accepts.model,
            timeout,
            max_tensor_bytes,
            idle: Mutex::new(vec![worker]),
            scratch,
            next_id: AtomicU64::new(1),
            next_slot: AtomicU64::new(1),
            cancel,
        })
    }

    /// The backend, stopped by `cancel`: once it is tripped (or its deadline passes), a
    /// request in flight fails within a poll interval, its worker's process group killed,
    /// and no further worker starts.
    pub fn cancelled_by(mut self, cancel: Cancel) -> ExecBackend {
        self.cancel = cancel;
        self
    }

    /// What its first worker's hello says serves it.
    pub(crate) fn language(&self) -> Language {
        self.language
    }

    /// An idle worker, or a new one. An idle worker that printed something while no request
    /// was waiting (a late duplicate reply) or whose output closed broke the protocol: it is
    /// dropped, which kills it, and the request goes to a fresh worker.
    fn take_worker(&self) -> Result<Worker, WorkerFailure> {
        if self.cancel.is_cancelled() {
            return Err(WorkerError::Cancelled.into());
        }
        loop {
            let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            match idle {
                Some(mut worker) => {
                    if worker.is_quiet() {
                        return Ok(worker);
                    }
                }
                None => {
                    let number = self.next_slot.fetch_add(1, Ordering::Relaxed);
                    let slot = Slot::new(self.scratch.path(), number).map_err(|source| WorkerError::Scratch {
                        path: self.scratch.path().join(number.to_string()),
                        source,
                    })?;
                    return Worker::spawn(&self.command, self.timeout, &self.cancel, slot)
                        .map(|(worker, _hello)| worker);
                }
            }
        }
    }

    fn give_back(&self, worker: Worker) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(worker);
    }

    /// One request: the inputs written beside the worker's output directory, the reply read.
    fn request(&self, id: u64, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
        let model_path = std::fs::canonicalize(&model.path).map_err(|source| WorkerError::ModelPath {
            path: model.path.clone(),
            source,
        })?;
        let mut worker = self.take_worker()?;
        let accepts = worker.accepts;
        if accepts.model != self.rewrites_model {
            // A backend's outcomes say whether a rewritten model answered them: all its
            // workers must agree.
            return Err(WorkerError::Protocol(format!(
                "this worker's hello accepts.model is {}, the first worker's {}",
                accepts.model, self.rewrites_model
            ))
            .into());
        }
        let input_paths = match worker.slot.write_inputs(&model.graph.inputs, inputs, accepts.tensors) {
            Ok(paths) => paths,
            Err(e) => {
                self.give_back(worker);
                return Err(WorkerError::Request(Box::new(e)).into());
            }
        };
        // On failure the worker is in an unknown state: it is dropped, which kills it and
        // removes its files.
        let dir = worker.slot.emptied().map_err(|source| WorkerError::Scratch {
            path: worker.slot.dir.clone(),
            source,
        })?;
        let request = run_request(id, &model_path, model, inputs, &input_paths, dir, accepts);
        // This data set's stderr is what the worker prints once the request is sent: what it
        // printed after its last reply (the end of a traceback) belongs to the data set before.
        worker.take_stderr();
        let reply = worker.request(&request, self.timeout, &self.cancel)?;
        let raw = accepts.tensors == TensorFormat::Raw;
        let checked = check_reply(&reply, id, raw, accepts.model).and_then(|reply| match worker.line_already_there() {
            // A second line already there: two replies to one request.
            Some(extra) => Err(WorkerError::StrayReply(match extra {
                Ok(line) => shortened(&line),
                Err(e) => e,
            })),
            None => Ok(reply),
        });
        let stderr = worker.take_stderr();
        match checked {
            Err(error) => Err(WorkerFailure { error, stderr }.into()),
            Ok(WorkerReply::Error {
                kind,
                message,
                rule,
                code,
            }) => {
                self.give_back(worker);
                Err(ExecError::Refused {
                    kind,
                    message,
                    rule,
                    code,
                    stderr,
                })
            }
            Ok(WorkerReply::Outputs(files)) => {
                let expected = model.graph.outputs.len();
                let read = if files.len() > expected {
                    Err(WorkerError::TooManyOutputs {
                        named: files.len(),
                        expected,
                    }
                    .into())
                } else {
                    self.read_outputs(&files, &worker.slot.dir, &model.graph.outputs)
                }
                .map_err(|unanswered| ExecError::unanswered(unanswered, stderr));
                // Read before the worker goes back: its next request empties the directory.
                self.give_back(worker);
                read
            }
            Ok(WorkerReply::Model(path)) => {
                let rewritten = self.read_model(&path, &worker.slot.dir);
                // Read before the worker goes back: its next request empties the directory.
                self.give_back(worker);
                let rewritten = rewritten.map_err(|error| WorkerFailure {
                    error,
                    stderr: stderr.clone(),
                })?;
                match self.evaluate_rewritten(model, inputs, &rewritten) {
                    Ok(outputs) => Ok(outputs),
                    // The optimized model breaks a Pad rule: optimizer and reference together
                    // refuse the data set, as a runtime loading that model would (a pass when
                    // it must be refused, a refused valid input when not).
                    Err(Rewritten::Refused(error)) => Err(ExecError::Refused {
                        kind: ErrorKind::Refused,
                        rule: error.rules().first().copied(),
                        message: format!(
                            "{}: the reference refuses the optimized model: {error}",
                            self.optimizer_name()
                        ),
                        code: None,
                        stderr,
                    }),
                    Err(Rewritten::Invalid(error)) => Err(WorkerFailure { error, stderr }.into()),
                }
            }
        }
    }

    /// The model file a worker named in a model reply: resolved inside its output directory
    /// `dir` as an output is, read once within twice `--max-tensor-bytes` (what a reply's
    /// output files may take together), and decoded, each initializer within
    /// `--max-tensor-bytes`.
    fn read_model(&self, named: &Path, dir: &Path) -> Result<Model, WorkerError> {
        let resolved = resolve_outputs(&[named.to_owned()], dir)?.remove(0);
        let options = DecodeOptions {
            base_dir: Some(dir.to_owned()),
            max_bytes: self.max_tensor_bytes,
        };
        let bytes = read_limited(&resolved, group_limit(self.max_tensor_bytes))
            .map_err(|e| WorkerError::RewrittenModel(Box::new(e.into())))?;
        let proto = ModelProto::decode(bytes::Bytes::from(bytes))
            .map_err(|e| WorkerError::RewrittenModel(Box::new(FileProblem::from(e).at(&resolved).into())))?;
        Model::from_proto(&resolved, proto, &options).map_err(|e| WorkerError::RewrittenModel(Box::new(e)))
    }

    /// The outputs of `rewritten`, evaluated by the reference on the data set's inputs to
    /// `model`, matched by name. A node the reference refuses by a rule is a refusal; a graph
    /// the reference cannot evaluate at all (an input the data set has not, a value or output
    /// nothing produces) is an invalid rewrite.
    fn evaluate_rewritten(
        &self,
        model: &Model,
        inputs: &[Tensor],
        rewritten: &Model,
    ) -> Result<Vec<Tensor>, Rewritten> {
        let invalid = |why: String| {
            Rewritten::Invalid(WorkerError::InvalidRewrite {
                optimizer: self.optimizer_name(),
                why,
            })
        };
        let fed = rewritten
            .graph
            .inputs
            .iter()
            .map(|name| {
                model
                    .graph
                    .inputs
                    .iter()
                    .position(|original| original == name)
                    .and_then(|k| inputs.get(k).cloned())
                    .ok_or_else(|| invalid(format!("its graph input {name:?} is none of the data set's inputs")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        run_model(rewritten, &fed).map_err(|e| match e {
            // An op the reference does not evaluate says nothing of the data set.
            RunError::Op(refused) if refused.rule != Rule::UnsupportedOp => Rewritten::Refused(refused),
            other => invalid(other.to_string()),
        })
    }

    /// The optimizer a rewritten model comes from, for its errors: the hello's runtime and
    /// its version, else the worker's name.
    fn optimizer_name(&self) -> String {
        match &self.runtime {
            Some(RuntimeInfo {
                name,
                version: Some(version),
                ..
            }) => format!("{name} {version}"),
            Some(runtime) => runtime.name.clone(),
            None => self.name.clone(),
        }
    }

    /// The output files a worker named for a graph whose outputs are `names`, each required to
    /// lie in its output directory `dir`; a raw one read as its element type and shape
    /// declare, its size checked first.
    fn read_outputs(&self, files: &[OutputFile], dir: &Path, names: &[String]) -> Result<Vec<Tensor>, Unanswered> {
        let paths: Vec<_> = files.iter().map(|file| file.path.clone()).collect();
        let resolved = resolve_outputs(&paths, dir)?;
        let files: Vec<_> = resolved
            .into_iter()
            .zip(files)
            .map(|(path, file)| match &file.raw {
                None => TensorFile::Proto(path),
                Some((data_type, shape)) => TensorFile::Raw {
                    path,
                    data_type: *data_type,
                    shape: shape.clone(),
                },
            })
            .collect();
        let options = DecodeOptions {
            base_dir: Some(dir.to_owned()),
            max_bytes: self.max_tensor_bytes,
        };
        let read = read_file_group(&files, &options, group_limit(self.max_tensor_bytes), "worker reply");
        outputs_read(read, names, files.len())
    }
}

impl Drop for ExecBackend {
    /// Closes every idle worker's stdin at once, gives them `SHUTDOWN_GRACE` together to exit,
    /// then kills what is left.
    fn drop(&mut self) {
        let mut idle = std::mem::take(self.idle.get_mut().unwrap_or_else(|e| e.into_inner()));
        for worker in &mut idle {
            worker.close_input();
        }
        let until = Instant::now() + SHUTDOWN_GRACE;
        for mut worker in idle {
            worker.stop(until);
        }
    }
}

impl Backend for ExecBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn runtime(&self) -> Option<RuntimeInfo> {
        self.runtime.clone()
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        Ok(self.request(id, model, inputs)?)
    }
}

impl Driven for ExecBackend {
    /// A worker that accepts model replies answers with the rewritten model, which the
    /// reference evaluates.
    fn answers_with_rewritten_model(&self) -> bool {
        self.rewrites_model
    }
}

/// A worker that cannot be started: the run stops before any case.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The command did not start, or did not complete the handshake.
    #[error("worker {command:?}: {failure}")]
    Handshake {
        /// The worker command.
        command: String,
        /// What went wrong, with what the worker printed on stderr (boxed: a Windows exit
        /// status makes it large, and it is rare).
        #[source]
        failure: Box<WorkerFailure>,
    },
    /// The runtime a variable states is not a hello's `runtime` object.
    #[error("{variable}: {why}")]
    Runtime {
        /// The variable.
        variable: &'static str,
        /// What is wrong with its value.
        why: String,
    },
    /// The scratch directory for request files cannot be made.
    #[error("making {}: {source}", path.display())]
    Scratch {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// What a worker's hello says about it.
struct Hello {
    /// The display name (the command, when the hello gives none).
    name: String,
    /// The optional `runtime`.
    runtime: Option<RuntimeInfo>,
    /// The optional `language`.
    language: Language,
}

/// One running worker process, the leader of its own process group. The thread that makes a
/// request writes it and reads the reply itself, waiting in poll(2) on both pipes (their ends
/// non-blocking): no thread of the runner stands between it and the worker, and a worker that
/// never reads its input, or never replies, costs the request its timeout, not the run.
struct Worker {
    /// The worker process, the leader of its process group (a Job object on Windows).
    process: Process,
    /// Its stdin and stdout.
    pipes: WorkerPipes,
    /// What was read from stdout and not yet taken as a line.
    read: Vec<u8>,
    /// Why stdout ended: end of file (`None`) or a read error; `Some` once it did.
    stdout_ended: Option<Option<String>>,
    /// Its output directory, removed after the worker is killed.
    slot: Slot,
    /// What its hello accepted of the protocol's optional additions.
    accepts: Accepts,
}

impl Worker {
    /// Starts `command` and performs the handshake, given `timeout` or [`START_TIME_LIMIT`],
    /// whichever is longer; returns the worker and what its hello says.
    fn spawn(command: &str, timeout: Duration, cancel: &Cancel, slot: Slot) -> Result<(Worker, Hello), WorkerFailure> {
        let mut process = Process::start(command, &[], Writer::Worker, |command| {
            command.stdin(Stdio::piped()).stdout(Stdio::piped());
        })
        .map_err(WorkerError::Start)?;
        let child = process.child_mut();
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        // On failure the process is dropped, which kills its group.
        let pipes = WorkerPipes::new(stdin, stdout).map_err(WorkerError::Start)?;
        let mut worker = Worker {
            process,
            pipes,
            read: Vec::new(),
            stdout_ended: None,
            slot,
            accepts: Accepts::default(),
        };
        let hello = json!({
            "type": "hello", "protocol": "pad-conformance-backend", "version": PROTOCOL_VERSION, "offers": offers(),
        });
        let reply = worker
            .request(&hello, timeout.max(START_TIME_LIMIT), cancel)
            .map_err(|failure| WorkerFailure {
                error: WorkerError::Handshake(Box::new(failure.error)),
                stderr: failure.stderr,
            })?;
        let version = reply.get("version").and_then(Value::as_u64);
        if reply.get("type").and_then(Value::as_str) != Some("hello") || version != Some(PROTOCOL_VERSION) {
            return Err(WorkerError::BadHello {
                version: PROTOCOL_VERSION,
                reply: reply.to_string(),
            }
            .into());
        }
        let name = reply.get("name").and_then(Value::as_str).unwrap_or(command).to_owned();
        let runtime = RuntimeInfo::from_hello(reply.get("runtime"))
            .map_err(|why| WorkerError::Handshake(Box::new(WorkerError::Protocol(why))))?;
        worker.accepts = Accepts::from_hello(reply.get("accepts"))
            .map_err(|why| WorkerError::Handshake(Box::new(WorkerError::Protocol(why))))?;
        let language = Language::from_hello(reply.get("language"))
            .map_err(|why| WorkerError::Handshake(Box::new(WorkerError::Protocol(why))))?;
        if worker.line_already_there().is_some() {
            return Err(WorkerError::StrayReply("a second line after the hello".into()).into());
        }
        worker.take_stderr();
        Ok((
            worker,
            Hello {
                name,
                runtime,
                language,
            },
        ))
    }

    /// Sends one request line and waits for one reply line, or until `cancel` trips. Any
    /// failure leaves the worker unusable: the caller drops it, which kills it.
    fn request(&mut self, request: &Value, timeout: Duration, cancel: &Cancel) -> Result<Value, WorkerFailure> {
        if !self.pipes.input_open() {
            return Err(WorkerError::ShutDown.into());
        }
        let line = format!("{request}\n").into_bytes();
        let mut written = 0;
        let mut clock = RunClock::start(self.process.child_mut().id());
        loop {
            if written < line.len()
                && let Err(e) = self.write_some(&line, &mut written)
            {
                return Err(self.ended(&format!("closed its input ({e})")));
            }
            if cancel.is_cancelled() {
                return Err(self.failure(WorkerError::Cancelled));
            }
            if let Some(line) = self.take_line() {
                return self.reply(line);
            }
            if self.stdout_ended.is_some() {
                return Err(self.ended("closed its output"));
            }
            if clock.spent(timeout) {
                return Err(self.failure(WorkerError::TimedOut(clock.overrun(timeout))));
            }
            let ready = self.wait(written < line.len(), POLL);
            if !ready && self.has_exited() {
                // A reply printed just before exiting still counts.
                self.wait(false, POLL);
                self.read_available();
                return match self.take_line() {
                    Some(line) => self.reply(line),
                    None => Err(self.ended("closed its output")),
                };
            }
            self.read_available();
        }
    }

    /// Writes what the worker's stdin takes of `line` past `written` without blocking.
    fn write_some(&mut self, line: &[u8], written: &mut usize) -> std::io::Result<()> {
        while *written < line.len() {
            match self.pipes.write(&line[*written..]) {
                Ok(n) => *written += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Waits up to `timeout` for stdout to have something (or end), or, when `writing`, for
    /// stdin to take more; says whether either happened.
    fn wait(&mut self, writing: bool, timeout: Duration) -> bool {
        self.pipes.wait(writing, timeout)
    }

    /// Reads whatever stdout has now, without blocking, up to one line too long to be a reply.
    fn read_available(&mut self) {
        let mut chunk = [0u8; 8192];
        while self.stdout_ended.is_none() && (self.read.len() as u64) <= MAX_LINE {
            match self.pipes.read(&mut chunk) {
                Ok(0) => self.stdout_ended = Some(None),
                Ok(n) => self.read.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => self.stdout_ended = Some(Some(e.to_string())),
            }
        }
    }

    /// The next line read, if a whole one is there: its text, or why it is no line (longer
    /// than [`MAX_LINE`], or stdout failed).
    fn take_line(&mut self) -> Option<Result<String, String>> {
        match self.read.iter().position(|&b| b == b'\n') {
            Some(end) if (end as u64) < MAX_LINE => {
                let line = String::from_utf8_lossy(&self.read[..end]).trim_end().to_owned();
                self.read.drain(..=end);
                Some(Ok(line))
            }
            _ if self.read.len() as u64 >= MAX_LINE => Some(Err(format!("a line longer than {MAX_LINE} bytes"))),
            _ => match &self.stdout_ended {
                Some(Some(error)) => Some(Err(error.clone())),
                // The last line, cut short by the end of stdout, is still a line.
                Some(None) if !self.read.is_empty() => {
                    let line = String::from_utf8_lossy(&self.read).trim_end().to_owned();
                    self.read.clear();
                    Some(Ok(line))
                }
                _ => None,
            },
        }
    }

    /// A line the worker printed after its reply, if one is there already.
    fn line_already_there(&mut self) -> Option<Result<String, String>> {
        self.read_available();
        self.take_line()
    }

    /// A line the worker printed, as the JSON reply it must be.
    fn reply(&mut self, line: Result<String, String>) -> Result<Value, WorkerFailure> {
        match line {
            Ok(line) => serde_json::from_str(&line).map_err(|e| {
                self.failure(WorkerError::Protocol(format!(
                    "the worker printed {:?}, not JSON ({e})",
                    shortened(&line)
                )))
            }),
            Err(e) => Err(self.failure(WorkerError::Protocol(e))),
        }
    }

    /// The message for a worker whose stdin or stdout closed (`closed` says which): "worker
    /// exited (status)" when it exited, else "worker {closed} without exiting". Either way
    /// what is left of its process group is killed.
    fn ended(&mut self, closed: &str) -> WorkerFailure {
        // An exiting process closes its pipes before its status is ready.
        let exited = self.wait_for_exit(Instant::now() + EXIT_AFTER_EOF);
        match self.kill() {
            Some(status) if exited => self.failure(WorkerError::Exited(status)),
            _ => self.failure(WorkerError::Closed(closed.to_owned())),
        }
    }

    /// The failure with the worker's stderr, after killing the worker's process group.
    fn failure(&mut self, error: WorkerError) -> WorkerFailure {
        let (_, stderr) = self.process.kill_and_take_stderr();
        WorkerFailure { error, stderr }
    }

    /// Whether the worker process has exited (not reaped: [`Process::has_exited`]).
    fn has_exited(&self) -> bool {
        self.process.has_exited()
    }

    /// Kills the worker's process group and reaps the worker ([`Process::kill`]).
    fn kill(&mut self) -> Option<std::process::ExitStatus> {
        self.process.kill()
    }

    /// Closes the worker's stdin: a well-behaved worker then exits (docs/backend-protocol.md).
    fn close_input(&mut self) {
        self.pipes.close_input();
    }

    /// True when the worker printed nothing since its last reply and its output is open.
    fn is_quiet(&mut self) -> bool {
        self.read_available();
        self.read.is_empty() && self.stdout_ended.is_none()
    }

    /// Closes the worker's stdin and waits until `until` for it to exit, then kills its process
    /// group, which also ends anything the worker left behind.
    fn stop(&mut self, until: Instant) {
        self.close_input();
        self.wait_for_exit(until);
        self.kill();
    }

    /// Waits until the worker exits or `until` passes; says whether it exited.
    fn wait_for_exit(&self, until: Instant) -> bool {
        self.process.wait_for_exit(until)
    }

    /// What the worker printed on stderr since the last call.
    fn take_stderr(&self) -> Stderr {
        self.process.take_stderr()
    }
}

impl Drop for Worker {
    /// A worker dropped outside shutdown misbehaved, or its backend is failing: no grace.
    fn drop(&mut self) {
        self.kill();
    }
}

/// A private directory for request files: an unpredictable name, mode 0700, made anew (never
/// an existing one), removed with the backend; on a memory file system when one has room for a
/// few requests at `max_tensor_bytes` ([`private_dir`]).
pub(super) struct ScratchDir(Scratch);

impl ScratchDir {
    pub(super) fn new(max_tensor_bytes: u64) -> Result<ScratchDir, StartError> {
        let dir = private_dir("pad-conformance-", max_tensor_bytes.saturating_mul(4)).map_err(|source| {
            StartError::Scratch {
                path: std::env::temp_dir(),
                source,
            }
        })?;
        Ok(ScratchDir(dir))
    }

    pub(super) fn path(&self) -> &Path {
        self.0.path()
    }
}

/// A worker's files in the scratch directory: its output directory, kept across its requests
/// and emptied before each, and its input files beside it (outside it: a worker cannot name
/// one as its output), rewritten for each request. A request so makes and removes no file
/// or directory of the runner's; all are removed with the worker.
struct Slot {
    /// The output directory, its path resolved once when made: outputs must resolve inside
    /// this path, so that a worker that swaps the directory for a link gains nothing.
    dir: PathBuf,
    /// The scratch directory.
    scratch: PathBuf,
    /// The worker's number, which names its files.
    number: u64,
    /// The most inputs a request of the worker had, so many files to remove.
    inputs: usize,
    /// The format its input files are written in, which names them.
    format: TensorFormat,
}

impl Slot {
    /// Makes directory `number` (0700) in `scratch`, which must not exist yet.
    fn new(scratch: &Path, number: u64) -> std::io::Result<Slot> {
        let dir = scratch.join(number.to_string());
        private_dir_builder().create(&dir)?;
        Ok(Slot {
            dir: dir.canonicalize()?,
            scratch: scratch.to_owned(),
            number,
            inputs: 0,
            format: TensorFormat::TensorProto,
        })
    }

    /// Input file `k`: `input_K.pb` for TensorProto, `input_K.bin` for raw.
    fn input_path(&self, k: usize) -> PathBuf {
        let extension = match self.format {
            TensorFormat::TensorProto => "pb",
            TensorFormat::Raw => "bin",
        };
        self.scratch.join(format!("{}-input_{k}.{extension}", self.number))
    }

    /// Writes `inputs` as the worker's input files in `format`, the tensors named `names` (the
    /// graph's inputs); returns their paths. A link the worker put in a file's place is not
    /// followed.
    fn write_inputs(
        &mut self,
        names: &[String],
        inputs: &[Tensor],
        format: TensorFormat,
    ) -> Result<Vec<PathBuf>, FileError> {
        self.inputs = self.inputs.max(inputs.len());
        // A worker's hello fixes its format: its files all have one name pattern.
        self.format = format;
        let mut paths = Vec::with_capacity(inputs.len());
        for (k, tensor) in inputs.iter().enumerate() {
            let path = self.input_path(k);
            let name = names.get(k).map_or("", String::as_str);
            if format == TensorFormat::Raw {
                write_raw(tensor, &path)?;
            } else {
                write_request_file(&path, tensor, name)?;
            }
            paths.push(path);
        }
        Ok(paths)
    }

    /// The output directory, empty: whatever the worker wrote there before is removed (the
    /// directory made anew, which never follows a link the worker put in its place).
    fn emptied(&self) -> std::io::Result<&Path> {
        if std::fs::read_dir(&self.dir)?.next().is_some() {
            std::fs::remove_dir_all(&self.dir)?;
            private_dir_builder().create(&self.dir)?;
        }
        Ok(&self.dir)
    }
}

/// Writes `tensor`, named `name`, as the TensorProto file `path` (0600), never through a
/// link put in its place.
pub(super) fn write_request_file(path: &Path, tensor: &Tensor, name: &str) -> Result<(), FileError> {
    let bytes = encode_tensor(tensor, name).encode_to_vec();
    no_follow_private(std::fs::OpenOptions::new().write(true).create(true).truncate(true))
        .open(path)
        .and_then(|mut file| file.write_all(&bytes))
        .map_err(|e| FileProblem::Io(e).at(path))
}

impl Drop for Slot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        for k in 0..self.inputs {
            let _ = std::fs::remove_file(self.input_path(k));
        }
    }
}

/// Why the reference gave no outputs for a rewritten model.
enum Rewritten {
    /// A node of it breaks a refusal rule.
    Refused(OpError),
    /// It cannot be evaluated: the optimizer broke the graph.
    Invalid(WorkerError),
}

#[cfg(test)]
mod tests {
    use super::{Slot, TensorFormat};
    use crate::backend::reply::resolve_outputs;
    use crate::tensor::{DataType, DecodeOptions, Tensor, TensorFile, read_file_group, read_tensor_file};

    const PROTO: TensorFormat = TensorFormat::TensorProto;

    #[test]
    fn a_raw_workers_inputs_are_bin_files_in_the_raw_layout_not_following_links_and_removed_with_it() {
        let scratch = crate::data::scratch_dir().unwrap();
        let mut slot = Slot::new(scratch.path(), 4).unwrap();
        let x = Tensor::from_vec(&[2], vec![1.5f32, -0.0]).unwrap();
        let paths = slot
            .write_inputs(&["x".to_owned()], std::slice::from_ref(&x), TensorFormat::Raw)
            .unwrap();
        assert_eq!(paths, [scratch.path().join("4-input_0.bin")]);
        assert_eq!(std::fs::read(&paths[0]).unwrap(), [0, 0, 0xc0, 0x3f, 0, 0, 0, 0x80]);
        let raw = TensorFile::Raw {
            path: paths[0].clone(),
            data_type: DataType::Float,
            shape: vec![2],
        };
        let read = read_file_group(&[raw], &DecodeOptions::default(), 1 << 20, "test").unwrap();
        assert_eq!(read.as_slice(), std::slice::from_ref(&x));
        #[cfg(unix)]
        {
            let victim = scratch.path().join("victim");
            std::fs::write(&victim, b"mine").unwrap();
            std::fs::remove_file(&paths[0]).unwrap();
            std::os::unix::fs::symlink(&victim, &paths[0]).unwrap();
            assert!(
                slot.write_inputs(&["x".to_owned()], std::slice::from_ref(&x), TensorFormat::Raw)
                    .is_err()
            );
            assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
            std::fs::remove_file(&victim).unwrap();
        }
        drop(slot);
        assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_worker_s_files_are_reused_kept_apart_and_removed_with_it() {
        let scratch = crate::data::scratch_dir().unwrap();
        let mut slot = Slot::new(scratch.path(), 3).unwrap();
        let names = ["x".to_owned()];
        let first = slot
            .write_inputs(&names, &[Tensor::from_vec(&[2], vec![1f32, 2.0]).unwrap()], PROTO)
            .unwrap();
        let second = Tensor::from_vec(&[1], vec![7i64]).unwrap();
        let paths = slot.write_inputs(&names, std::slice::from_ref(&second), PROTO).unwrap();
        assert_eq!(paths, first, "one worker's input paths repeat");
        assert_eq!(read_tensor_file(&paths[0], &DecodeOptions::default()).unwrap(), second);
        // An input is no output: it lies outside the output directory.
        let named = resolve_outputs(&paths, &slot.dir).unwrap_err().to_string();
        assert!(named.contains("outside the output directory"), "{named}");
        // What the worker wrote for one request is gone before the next.
        std::fs::write(slot.dir.join("output_0.pb"), b"stale").unwrap();
        assert_eq!(std::fs::read_dir(slot.emptied().unwrap()).unwrap().count(), 0);
        let victim = scratch.path().join("victim");
        std::fs::write(&victim, b"mine").unwrap();
        // A link put in an input's place is not followed (making one on Windows takes a
        // privilege the tests do not have).
        #[cfg(unix)]
        {
            std::fs::remove_file(&paths[0]).unwrap();
            std::os::unix::fs::symlink(&victim, &paths[0]).unwrap();
            assert!(slot.write_inputs(&names, std::slice::from_ref(&second), PROTO).is_err());
            assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
            std::fs::remove_file(&paths[0]).unwrap();
        }
        slot.write_inputs(&names, &[second.clone(), second], PROTO).unwrap();
        let dir = slot.dir.clone();
        drop(slot);
        let left: Vec<_> = std::fs::read_dir(scratch.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("victim")], "{dir:?}");
    }
}
