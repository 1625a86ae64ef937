//! The external-process backend: a worker command speaking JSON lines over stdin/stdout
//! (docs/backend-protocol.md). A worker that hangs, crashes or prints garbage costs the case
//! at hand only: it is killed and the next case starts a fresh one.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::{Backend, BackendError};
use crate::model::Model;
use crate::tensor::{DecodeOptions, Tensor, read_tensor_file, write_tensor_file};

/// The protocol version this runner speaks.
pub const PROTOCOL_VERSION: u64 = 1;
/// The longest line a worker may print; longer is a protocol error, not an allocation.
const MAX_LINE: u64 = 1 << 20;
/// How much of a worker's stderr is kept per request.
const MAX_STDERR: usize = 16 << 10;

/// A backend run by an external worker command.
pub struct ExecBackend {
    command: String,
    name: String,
    timeout: Duration,
    max_tensor_bytes: u64,
    idle: Mutex<Vec<Worker>>,
    scratch: ScratchDir,
    next_id: AtomicU64,
}

impl ExecBackend {
    /// Starts one worker of `command` and checks its handshake, so that a command that is not
    /// a worker is an error before any case runs.
    pub fn start(command: &str, timeout: Duration, max_tensor_bytes: u64) -> Result<ExecBackend, String> {
        let (worker, name) = Worker::spawn(command, timeout)?;
        Ok(ExecBackend {
            command: command.to_owned(),
            name,
            timeout,
            max_tensor_bytes,
            idle: Mutex::new(vec![worker]),
            scratch: ScratchDir::new()?,
            next_id: AtomicU64::new(1),
        })
    }

    fn take_worker(&self) -> Result<Worker, String> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(worker) => Ok(worker),
            None => Worker::spawn(&self.command, self.timeout).map(|(worker, _)| worker),
        }
    }

    fn give_back(&self, worker: Worker) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(worker);
    }

    fn run_in(&self, dir: &Path, id: u64, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, String> {
        let model_path = std::fs::canonicalize(&model.path).map_err(|e| format!("{}: {e}", model.path.display()))?;
        let mut input_paths = Vec::with_capacity(inputs.len());
        for (k, tensor) in inputs.iter().enumerate() {
            let path = dir.join(format!("input_{k}.pb"));
            let name = model.graph.inputs.get(k).map_or("", String::as_str);
            write_tensor_file(&path, tensor, name).map_err(|e| e.to_string())?;
            input_paths.push(path);
        }
        let request = json!({
            "type": "run", "id": id, "model": model_path, "inputs": input_paths, "output_dir": dir,
        });
        let mut worker = self.take_worker()?;
        // On failure the worker is in an unknown state: it is dropped, which kills it.
        let reply = worker.request(&request, self.timeout)?;
        let stderr = worker.take_stderr();
        let checked = check_reply(&reply, id);
        match checked {
            Err(protocol_error) => Err(with_stderr(protocol_error, &stderr)),
            Ok(Reply::Error(message)) => {
                self.give_back(worker);
                Err(with_stderr(message, &stderr))
            }
            Ok(Reply::Outputs(paths)) => {
                self.give_back(worker);
                let options = DecodeOptions {
                    base_dir: Some(dir.to_owned()),
                    max_bytes: self.max_tensor_bytes,
                };
                paths
                    .iter()
                    .map(|p| read_tensor_file(p, &options).map_err(|e| format!("worker output: {e}")))
                    .collect()
            }
        }
    }
}

impl Backend for ExecBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let dir = self.scratch.path.join(id.to_string());
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let result = self.run_in(&dir, id, model, inputs);
        let _ = std::fs::remove_dir_all(&dir);
        Ok(result?)
    }
}

enum Reply {
    Outputs(Vec<PathBuf>),
    Error(String),
}

/// Reads a `result` or `error` reply for request `id`.
fn check_reply(reply: &Value, id: u64) -> Result<Reply, String> {
    let protocol = |what: &str| format!("protocol error: {what} in reply {reply}");
    if reply.get("id").and_then(Value::as_u64) != Some(id) {
        return Err(protocol(&format!("expected id {id}")));
    }
    match reply.get("type").and_then(Value::as_str) {
        Some("result") => {
            let outputs = reply
                .get("outputs")
                .and_then(Value::as_array)
                .ok_or_else(|| protocol("no outputs array"))?;
            outputs
                .iter()
                .map(|p| {
                    p.as_str()
                        .map(PathBuf::from)
                        .ok_or_else(|| protocol("an output path is not a string"))
                })
                .collect::<Result<_, _>>()
                .map(Reply::Outputs)
        }
        Some("error") => {
            let message = reply.get("message").and_then(Value::as_str).unwrap_or("(no message)");
            Ok(Reply::Error(message.to_owned()))
        }
        _ => Err(protocol("type is neither \"result\" nor \"error\"")),
    }
}

fn with_stderr(message: String, stderr: &str) -> String {
    if stderr.trim().is_empty() {
        message
    } else {
        format!("{message}\nworker stderr:\n{}", stderr.trim_end())
    }
}

/// One running worker process.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Result<String, String>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Worker {
    /// Starts `command` and performs the handshake; returns the worker and its name.
    fn spawn(command: &str, timeout: Duration) -> Result<(Worker, String), String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting worker {command:?}: {e}"))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) if !line.ends_with(b"\n") && line.len() as u64 >= MAX_LINE => {
                        let _ = sender.send(Err(format!("a line longer than {MAX_LINE} bytes")));
                        break;
                    }
                    Ok(_) => {
                        if sender
                            .send(Ok(String::from_utf8_lossy(&line).trim_end().to_owned()))
                            .is_err()
                        {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = sender.send(Err(e.to_string()));
                        break;
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut pipe = stderr_pipe;
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                let mut kept = sink.lock().unwrap_or_else(|e| e.into_inner());
                kept.extend_from_slice(&chunk[..n]);
                let excess = kept.len().saturating_sub(MAX_STDERR);
                kept.drain(..excess);
            }
        });
        let mut worker = Worker {
            child,
            stdin,
            lines,
            stderr,
        };
        let hello = json!({"type": "hello", "protocol": "pad-conformance-backend", "version": PROTOCOL_VERSION});
        let reply = worker
            .request(&hello, timeout)
            .map_err(|e| format!("worker {command:?}: handshake: {e}"))?;
        let version = reply.get("version").and_then(Value::as_u64);
        if reply.get("type").and_then(Value::as_str) != Some("hello") || version != Some(PROTOCOL_VERSION) {
            return Err(format!(
                "worker {command:?}: handshake: expected a hello with version {PROTOCOL_VERSION}, got {reply}"
            ));
        }
        let name = reply.get("name").and_then(Value::as_str).unwrap_or(command).to_owned();
        worker.take_stderr();
        Ok((worker, name))
    }

    /// Sends one request line and waits for one reply line. Any failure leaves the worker
    /// unusable: the caller drops it, which kills it.
    fn request(&mut self, request: &Value, timeout: Duration) -> Result<Value, String> {
        let sent = writeln!(self.stdin, "{request}").and_then(|()| self.stdin.flush());
        if let Err(e) = sent {
            return Err(self.failure(format!("worker closed its input ({e})")));
        }
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(line)) => serde_json::from_str(&line)
                .map_err(|e| self.failure(format!("protocol error: the worker printed {line:?}, not JSON ({e})"))),
            Ok(Err(e)) => Err(self.failure(format!("protocol error: {e}"))),
            Err(RecvTimeoutError::Timeout) => Err(self.failure(format!("timed out after {} s", timeout.as_secs_f64()))),
            Err(RecvTimeoutError::Disconnected) => {
                // Give the process a moment to be reaped so the status is known.
                std::thread::sleep(Duration::from_millis(20));
                let status = match self.child.try_wait() {
                    Ok(Some(status)) => status.to_string(),
                    _ => "still running, stdout closed".to_owned(),
                };
                Err(self.failure(format!("worker exited ({status})")))
            }
        }
    }

    /// A failure message with the worker's stderr, after killing the worker.
    fn failure(&mut self, message: String) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The stderr thread may still be draining what the worker printed last.
        std::thread::sleep(Duration::from_millis(20));
        with_stderr(message, &self.take_stderr())
    }

    /// What the worker printed on stderr since the last call.
    fn take_stderr(&self) -> String {
        let mut kept = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&kept).into_owned();
        kept.clear();
        text
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A private directory for request files, removed with the backend.
struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    fn new() -> Result<ScratchDir, String> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let unique = format!(
            "pad-conformance-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(ScratchDir { path })
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
