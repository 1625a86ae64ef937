//! The per-case command backend, `exec-per-case:CMD` (docs/backend-protocol.md#one-process-per-data-set-exec-per-case):
//! CMD runs once per data set, as `CMD MODEL OUTPUT_DIR INPUT_0 INPUT_1 ...`, and its exit code
//! is its answer — 0 outputs written, 65 refused, 69 unsupported, anything else failed — so a
//! C++ test binary becomes a backend through a short wrapper, with no JSON loop. Each run is
//! a process group of its own, killed when it ends or times out, and its own directory in the
//! scratch directory, made for the run and removed after it: a run cannot see another's files.
//! The directory holds a scratch directory for the command's own files; kept
//! ([`KEEP_RUNS_VARIABLE`]), it holds a script that runs the command again as it was run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::exec::{ScratchDir, StartError, write_request_file};
use super::node_description::describe;
use super::process::{Process, plain_words};
use super::reply::{ErrorFields, error_fields, raw_descriptor, resolve_outputs, shortened};
use super::stderr::{Stderr, Writer};
use super::worker_error::{ExecError, Unanswered, WorkerError, WorkerFailure, outputs_read};
use super::{Backend, BackendError, Driven, ErrorKind, RuntimeInfo};
use crate::cancel::Cancel;
use crate::model::Model;
use crate::platform::{RunClock, no_follow_private, private_dir_builder};
use crate::tensor::{
    DataType, DecodeOptions, Tensor, TensorFile, dtype_name, group_limit, read_file_group, read_small_file, write_raw,
};
use crate::text::shell_quote;

/// The exit code of a refusal: sysexits' EX_DATAERR, the model or its inputs are invalid.
pub(crate) const EXIT_REFUSED: i32 = 65;
/// The exit code of an unsupported data set: sysexits' EX_UNAVAILABLE.
pub(crate) const EXIT_UNSUPPORTED: i32 = 69;
/// The variable that states the runtime behind the command, as the hello's `runtime` object.
pub(crate) const RUNTIME_VARIABLE: &str = "PAD_CONFORMANCE_RUNTIME";
/// The variable that keeps each run's directory in the directory it names, with the script
/// that runs the command again (`command.sh`): what a failure's `rerun:` line sets.
pub(crate) const KEEP_RUNS_VARIABLE: &str = "PAD_CONFORMANCE_KEEP_RUNS";
/// How many run directories a kept run looks past, already there, for a free number.
const KEEP_RUNS_TRIES: u64 = 10_000;
/// The largest error.json or raw output descriptor read: a few fields, not a log.
const MAX_JSON_FILE: u64 = 64 << 10;
/// How often a running command is checked for its exit, the deadline and cancellation.
const POLL: Duration = Duration::from_millis(20);

/// How a per-case command gets its input tensors and writes its outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TensorFiles {
    /// TensorProto files, `input_K.pb` and `output_K.pb` (`exec-per-case:`).
    TensorProto,
    /// Raw little-endian elements (docs/backend-protocol.md#raw-tensor-files), `input_K.bin`,
    /// and `output_K.bin` with its `output_K.json` of dtype and shape (`exec-per-case-raw:`).
    Raw,
}

impl TensorFiles {
    /// The name `PAD_CONFORMANCE_TENSORS` gives it.
    fn name(self) -> &'static str {
        match self {
            TensorFiles::TensorProto => "tensorproto",
            TensorFiles::Raw => "raw",
        }
    }

    /// The files' extension.
    fn extension(self) -> &'static str {
        match self {
            TensorFiles::TensorProto => "pb",
            TensorFiles::Raw => "bin",
        }
    }
}

/// A backend that runs a command once per data set (module docs).
pub(crate) struct ExecPerCaseBackend {
    command: String,
    name: String,
    runtime: Option<RuntimeInfo>,
    tensors: TensorFiles,
    timeout: Duration,
    max_tensor_bytes: u64,
    scratch: ScratchDir,
    /// Where the runs' directories are kept ([`KEEP_RUNS_VARIABLE`]); `None`: each is removed
    /// after its run.
    keep_runs: Option<PathBuf>,
    /// Numbers the runs' directories.
    next_run: AtomicU64,
    /// Tripped: runs in flight are killed at once and none start.
    cancel: Cancel,
}

impl ExecPerCaseBackend {
    /// The backend of `command`, its runtime as `runtime` states it (the value of
    /// [`RUNTIME_VARIABLE`], a JSON object like a hello's `runtime`), each run killed after
    /// `timeout` or once `cancel` trips. Nothing is started until a data set runs.
    pub(crate) fn new(
        command: &str,
        tensors: TensorFiles,
        runtime: Option<&str>,
        timeout: Duration,
        max_tensor_bytes: u64,
        cancel: Cancel,
    ) -> Result<ExecPerCaseBackend, StartError> {
        let runtime = runtime
            .map(|text| {
                let value = serde_json::from_str::<Value>(text).map_err(|e| e.to_string())?;
                RuntimeInfo::from_hello(Some(&value))
            })
            .transpose()
            .map_err(|why| StartError::Runtime {
                variable: RUNTIME_VARIABLE,
                why,
            })?
            .flatten();
        Ok(ExecPerCaseBackend {
            command: command.to_owned(),
            name: command_name(command),
            runtime,
            tensors,
            timeout,
            max_tensor_bytes,
            scratch: ScratchDir::new(max_tensor_bytes)?,
            keep_runs: None,
            next_run: AtomicU64::new(0),
            cancel,
        })
    }

    /// The backend, each run's directory kept in `dir` (made, private, when missing) rather
    /// than removed, with a script that runs the command again as it was run; `None` keeps
    /// nothing.
    pub(crate) fn keeping_runs(mut self, dir: Option<PathBuf>) -> Result<ExecPerCaseBackend, StartError> {
        if let Some(dir) = &dir {
            let mut builder = private_dir_builder();
            builder.recursive(true);
            builder
                .create(dir)
                .and_then(|()| dir.canonicalize())
                .map(|dir| self.keep_runs = Some(dir))
                .map_err(|source| StartError::Scratch {
                    path: dir.clone(),
                    source,
                })?;
        }
        Ok(self)
    }

    /// Runs the command on one data set.
    fn run_once(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
        if self.cancel.is_cancelled() {
            return Err(WorkerError::Cancelled.into());
        }
        let model_path = std::fs::canonicalize(&model.path).map_err(|source| WorkerError::ModelPath {
            path: model.path.clone(),
            source,
        })?;
        let run = match &self.keep_runs {
            None => RunDir::new(
                self.scratch.path(),
                self.next_run.fetch_add(1, Ordering::Relaxed),
                false,
            )?,
            Some(dir) => self.kept_run_dir(dir)?,
        };
        let input_paths = run.write_inputs(&model.graph.inputs, inputs, self.tensors)?;
        let descriptors: Vec<Value> = match self.tensors {
            TensorFiles::TensorProto => input_paths.iter().map(|path| json!(path)).collect(),
            TensorFiles::Raw => input_paths
                .iter()
                .zip(inputs)
                .map(|(path, tensor)| {
                    json!({"path": path, "dtype": dtype_name(tensor.data_type()), "shape": tensor.shape()})
                })
                .collect(),
        };
        let mut args: Vec<OsString> = vec![model_path.clone().into(), run.output.clone().into()];
        args.extend(input_paths.iter().map(|p| p.clone().into()));
        let environment = [
            ("PAD_CONFORMANCE_MODEL", model_path.into_os_string()),
            ("PAD_CONFORMANCE_OUTPUT_DIR", run.output.clone().into_os_string()),
            ("PAD_CONFORMANCE_INPUTS", Value::from(descriptors).to_string().into()),
            ("PAD_CONFORMANCE_NODE", describe(model, inputs).to_string().into()),
            ("PAD_CONFORMANCE_TENSORS", self.tensors.name().into()),
            ("PAD_CONFORMANCE_SCRATCH", run.scratch.clone().into_os_string()),
        ];
        if run.keep {
            run.write_script(&self.command, &environment, &args)?;
        }
        let mut process = Process::start(&self.command, &args, Writer::Command, |command| {
            command
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .envs(environment.iter().map(|(k, v)| (k, v)));
        })
        .map_err(WorkerError::Start)?;
        let (status, stderr) = self.wait(&mut process)?;
        let status = process.shell_hid_a_signal(status).unwrap_or(status);
        let failed = |error: WorkerError| {
            ExecError::Failed(WorkerFailure {
                error,
                stderr: stderr.clone(),
            })
        };
        let kind = match status.code() {
            // A signal: a crash, never an answer.
            None => return Err(failed(WorkerError::Exited(status))),
            Some(0) => {
                let read = self.read_outputs(model, &run.output);
                return read.map_err(|unanswered| ExecError::unanswered(unanswered, stderr.clone()));
            }
            Some(EXIT_REFUSED) => ErrorKind::Refused,
            Some(EXIT_UNSUPPORTED) => ErrorKind::Unsupported,
            Some(_) => ErrorKind::Failed,
        };
        // A malformed error.json is the command's failure: it never makes a refusal.
        let ErrorFields { rule, code, message } = read_error_file(&run.output).map_err(failed)?;
        Err(ExecError::Refused {
            kind,
            message: message.unwrap_or_else(|| exit_message(status, kind)),
            rule,
            code,
            stderr,
        })
    }

    /// A new directory for a run in `dir`, kept after it: the next number not taken there.
    fn kept_run_dir(&self, dir: &Path) -> Result<RunDir, WorkerError> {
        let mut tries = 0;
        loop {
            let number = self.next_run.fetch_add(1, Ordering::Relaxed);
            match RunDir::new(dir, number, true) {
                Err(WorkerError::Scratch { source, .. })
                    if source.kind() == std::io::ErrorKind::AlreadyExists && tries < KEEP_RUNS_TRIES =>
                {
                    tries += 1;
                }
                made => return made,
            }
        }
    }

    /// Waits for `process` to exit, up to the timeout or until cancelled, then kills its
    /// group (whatever it left running goes too) and returns its exit status and stderr.
    fn wait(&self, process: &mut Process) -> Result<(ExitStatus, Stderr), WorkerFailure> {
        let mut clock = RunClock::start(process.child_mut().id());
        loop {
            let error = if self.cancel.is_cancelled() {
                WorkerError::Cancelled
            } else if clock.spent(self.timeout) {
                WorkerError::TimedOut(clock.overrun(self.timeout))
            } else if process.wait_for_exit(Instant::now() + POLL) {
                return match process.kill_and_take_stderr() {
                    (Some(status), stderr) => Ok((status, stderr)),
                    (None, stderr) => Err(WorkerFailure {
                        error: WorkerError::Closed("exited with no status".into()),
                        stderr,
                    }),
                };
            } else {
                continue;
            };
            let (_, stderr) = process.kill_and_take_stderr();
            return Err(WorkerFailure { error, stderr });
        }
    }

    /// The outputs the command wrote, `output_K.pb` (or `.bin`) for each of the graph's
    /// outputs, each a regular file inside `dir`.
    fn read_outputs(&self, model: &Model, dir: &Path) -> Result<Vec<Tensor>, Unanswered> {
        let extension = self.tensors.extension();
        let named: Vec<PathBuf> = (0..model.graph.outputs.len())
            .map(|k| dir.join(format!("output_{k}.{extension}")))
            .collect();
        let resolved = resolve_outputs(&named, dir)?;
        // A raw file's dtype and shape come from the `.json` beside it; the group is then read
        // as a worker reply's is, under the same budget.
        let files = resolved
            .into_iter()
            .map(|path| match self.tensors {
                TensorFiles::Raw => {
                    let (data_type, shape) = read_descriptor(&path.with_extension("json"), dir)?;
                    Ok(TensorFile::Raw { path, data_type, shape })
                }
                _ => Ok(TensorFile::Proto(path)),
            })
            .collect::<Result<Vec<_>, WorkerError>>()?;
        let options = DecodeOptions {
            base_dir: Some(dir.to_owned()),
            max_bytes: self.max_tensor_bytes,
        };
        let read = read_file_group(&files, &options, group_limit(self.max_tensor_bytes), "command output");
        outputs_read(read, &model.graph.outputs, files.len())
    }
}

impl Backend for ExecPerCaseBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn runtime(&self) -> Option<RuntimeInfo> {
        self.runtime.clone()
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        Ok(self.run_once(model, inputs)?)
    }
}

/// A command that reads the model file and computes its outputs: the defaults.
impl Driven for ExecPerCaseBackend {}

/// The name in reports: the file name of the command's program (its first word, or the
/// program `pad-conformance exec-wrap` runs), which a wrapper script names best; `sh` for a
/// command the shell runs.
fn command_name(command: &str) -> String {
    fn file_name(word: &str) -> &str {
        word.rsplit(['/', '\\']).next().unwrap_or(word)
    }
    let words = plain_words(command).unwrap_or_default();
    let wrapped = match words.as_slice() {
        [binary, "exec-wrap", rest @ ..] if ["pad-conformance", "pad-conformance.exe"].contains(&file_name(binary)) => {
            rest.iter().find(|word| !word.starts_with("--")).copied()
        }
        [program, ..] => Some(*program),
        [] => None,
    };
    format!("exec-per-case:{}", wrapped.map_or("sh", file_name))
}

/// What a run's exit says when error.json gives no message.
fn exit_message(status: ExitStatus, kind: ErrorKind) -> String {
    let code = status.code().unwrap_or_default();
    match kind {
        ErrorKind::Refused => format!("the command exited with {code} (EX_DATAERR): refused"),
        ErrorKind::Unsupported => format!("the command exited with {code} (EX_UNAVAILABLE): unsupported"),
        ErrorKind::Failed => format!("the command failed: exit code {code}"),
    }
}

/// The optional `OUTPUT_DIR/error.json` of a run that exited non-zero: `rule`, `code` and
/// `message`, checked as an error reply's are; absent, none of them. Anything else that
/// stands there — not a regular file inside the directory, too large, not a JSON object,
/// a field not valid — is a protocol error naming the file and the field.
fn read_error_file(dir: &Path) -> Result<ErrorFields, WorkerError> {
    let path = dir.join("error.json");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(ErrorFields {
            rule: None,
            code: None,
            message: None,
        });
    }
    let value = read_json_object(&path, dir)?;
    error_fields(&value).map_err(|why| in_file(&path, why))
}

/// A small JSON object the command wrote at `path`, a regular file inside `dir`.
fn read_json_object(path: &Path, dir: &Path) -> Result<Value, WorkerError> {
    let resolved = resolve_outputs(&[path.to_owned()], dir)?.remove(0);
    let bytes = read_small_file(&resolved, MAX_JSON_FILE).map_err(|e| in_file(path, e.to_string()))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| in_file(path, format!("not JSON ({e})")))?;
    if !value.is_object() {
        let why = format!("{} is not a JSON object", shortened(&value.to_string()));
        return Err(in_file(path, why));
    }
    Ok(value)
}

/// A protocol error in the file `path`.
fn in_file(path: &Path, why: String) -> WorkerError {
    WorkerError::Protocol(format!("{}: {why}", path.display()))
}

/// A raw output's descriptor, `{"dtype": "float32", "shape": [3, 4]}`, a regular file inside
/// `dir`; anything else is a protocol error naming the file and the field.
fn read_descriptor(path: &Path, dir: &Path) -> Result<(DataType, Vec<u64>), WorkerError> {
    raw_descriptor(&read_json_object(path, dir)?).map_err(|why| in_file(path, why))
}

/// One run's directory in the scratch directory: its inputs, its output directory beside them
/// (an input is never an output) and a scratch directory for the command's own files, made for
/// the run (0700) and removed after it, unless kept.
struct RunDir {
    dir: PathBuf,
    /// The output directory, resolved when made: outputs must resolve inside this path.
    output: PathBuf,
    /// The command's scratch directory (`PAD_CONFORMANCE_SCRATCH`).
    scratch: PathBuf,
    /// Kept after the run ([`KEEP_RUNS_VARIABLE`]).
    keep: bool,
}

impl RunDir {
    fn new(parent: &Path, number: u64, keep: bool) -> Result<RunDir, WorkerError> {
        let dir = parent.join(number.to_string());
        let made = |path: &Path| {
            private_dir_builder()
                .create(path)
                .and_then(|()| path.canonicalize())
                .map_err(|source| WorkerError::Scratch {
                    path: path.to_owned(),
                    source,
                })
        };
        let dir = made(&dir)?;
        let run = RunDir {
            output: dir.join("output"),
            scratch: dir.join("scratch"),
            dir,
            keep,
        };
        made(&run.output)?;
        made(&run.scratch)?;
        Ok(run)
    }

    /// Writes `command.sh`: the command run again as it was run, from the runner's working
    /// directory, with the variables `environment` and the arguments `args`.
    fn write_script(
        &self,
        command: &str,
        environment: &[(&str, OsString)],
        args: &[OsString],
    ) -> Result<(), WorkerError> {
        let path = self.dir.join("command.sh");
        let script = rerun_script(command, environment, args);
        no_follow_private(std::fs::OpenOptions::new().write(true).create_new(true))
            .open(&path)
            .and_then(|mut file| std::io::Write::write_all(&mut file, script.as_bytes()))
            .map_err(|source| WorkerError::Scratch { path, source })
    }

    /// Writes `inputs`, the tensors named `names`, as the run's input files in the format
    /// `files`; returns their paths. The directory is new: no link stands in a file's place.
    fn write_inputs(
        &self,
        names: &[String],
        inputs: &[Tensor],
        files: TensorFiles,
    ) -> Result<Vec<PathBuf>, WorkerError> {
        inputs
            .iter()
            .enumerate()
            .map(|(k, tensor)| {
                let path = self.dir.join(format!("input_{k}.{}", files.extension()));
                match files {
                    TensorFiles::TensorProto => {
                        write_request_file(&path, tensor, names.get(k).map_or("", String::as_str))
                    }
                    TensorFiles::Raw => write_raw(tensor, &path),
                }
                .map(|()| path)
                .map_err(|e| WorkerError::Request(Box::new(e)))
            })
            .collect()
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A sh script that runs `command` with `args` and the variables `environment` (and
/// [`RUNTIME_VARIABLE`], when the runner has it), from the runner's working directory: what a
/// person reruns a failing data set's command with, under a debugger or by hand.
fn rerun_script(command: &str, environment: &[(&str, OsString)], args: &[OsString]) -> String {
    let quoted = |value: &std::ffi::OsStr| shell_quote(&value.to_string_lossy());
    let mut script =
        String::from("#!/bin/sh\n# The per-case command as pad-conformance ran it: `sh command.sh` runs it again.\n");
    if let Ok(cwd) = std::env::current_dir() {
        script.push_str(&format!("cd {} || exit\n", quoted(cwd.as_os_str())));
    }
    let runtime = std::env::var_os(RUNTIME_VARIABLE).map(|value| (RUNTIME_VARIABLE, value));
    for (name, value) in environment.iter().cloned().chain(runtime) {
        script.push_str(&format!("export {name}={}\n", quoted(&value)));
    }
    let args: Vec<String> = args.iter().map(|arg| quoted(arg)).collect();
    script.push_str(&format!("set -- {}\n{command} \"$@\"\n", args.join(" ")));
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_the_program_s_file_name() {
        assert_eq!(command_name("/opt/ci/run-pad-case --gpu"), "exec-per-case:run-pad-case");
        assert_eq!(command_name("cd /ci && ./run-pad-case"), "exec-per-case:sh");
        // The wrapper that keeps crashes is not the program.
        assert_eq!(
            command_name("pad-conformance exec-wrap --shim-codes -- ./iree-case.sh --gpu"),
            "exec-per-case:iree-case.sh"
        );
        assert_eq!(
            command_name("target/release/pad-conformance exec-wrap ci/run-case"),
            "exec-per-case:run-case"
        );
        // A backslash separates paths on Windows only; on Unix it makes a shell command.
        let windows = if cfg!(windows) { "pad.exe" } else { "sh" };
        assert_eq!(command_name(r"C:\ci\pad.exe"), format!("exec-per-case:{windows}"));
    }

    #[test]
    fn a_runtime_that_is_not_a_hello_s_runtime_object_names_the_variable() {
        let start = |runtime| {
            ExecPerCaseBackend::new(
                "true",
                TensorFiles::TensorProto,
                Some(runtime),
                Duration::from_secs(1),
                1 << 20,
                Cancel::new(),
            )
        };
        let backend = start(r#"{"name": "ort", "version": "1.19"}"#).unwrap();
        assert_eq!(backend.runtime(), Some(RuntimeInfo::new("ort").version("1.19")));
        for bad in ["ort 1.19", r#"{"version": "1"}"#, "[]"] {
            let error = start(bad).err().unwrap().to_string();
            assert!(error.starts_with("PAD_CONFORMANCE_RUNTIME: "), "{error}");
        }
    }

    #[test]
    fn error_json_must_be_an_object_of_valid_fields_and_names_the_file() {
        let dir = crate::data::scratch_dir().unwrap();
        let out = dir.path().canonicalize().unwrap();
        let fields = read_error_file(&out).unwrap();
        assert_eq!((fields.rule, fields.code, fields.message), (None, None, None));
        let write = |text: &str| std::fs::write(out.join("error.json"), text).unwrap();
        write(r#"{"rule": "mode-not-in-version", "code": "InvalidArgument", "message": "no wrap"}"#);
        let fields = read_error_file(&out).unwrap();
        assert_eq!(fields.rule, Some(crate::operators::Rule::ModeNotInVersion));
        assert_eq!(fields.code.as_deref(), Some("InvalidArgument"));
        assert_eq!(fields.message.as_deref(), Some("no wrap"));
        for (bad, named) in [
            ("{", "not JSON"),
            ("[]", "[] is not a JSON object"),
            (
                r#"{"rule": "no-such-rule"}"#,
                r#"the error's rule "no-such-rule" is not a rule id"#,
            ),
            (r#"{"code": "a\nb"}"#, "the error's code"),
            (r#"{"code": ""}"#, "the error's code"),
        ] {
            write(bad);
            let error = read_error_file(&out).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("protocol error: {}: ", out.join("error.json").display()))
                    && error.contains(named),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn a_raw_output_s_descriptor_names_its_file_and_field_when_wrong() {
        let dir = crate::data::scratch_dir().unwrap();
        let out = dir.path().canonicalize().unwrap();
        let path = out.join("output_0.json");
        std::fs::write(&path, r#"{"dtype": "int4", "shape": [2, 0]}"#).unwrap();
        assert_eq!(read_descriptor(&path, &out).unwrap(), (DataType::Int4, vec![2, 0]));
        for (bad, named) in [
            (r#"{"shape": [2]}"#, "dtype null is not"),
            (r#"{"dtype": "FLOAT", "shape": [2]}"#, r#"dtype "FLOAT" is not"#),
            (r#"{"dtype": "int8", "shape": [-1]}"#, "shape has extent -1, not"),
            (r#"{"dtype": "int8", "shape": 2}"#, "shape 2 is not"),
        ] {
            std::fs::write(&path, bad).unwrap();
            let error = read_descriptor(&path, &out).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("protocol error: {}: {named}", path.display())),
                "{bad}: {error}"
            );
        }
        // The bound is 64 KiB exactly: a valid descriptor padded to one byte over is refused.
        let descriptor = r#"{"dtype": "int8", "shape": [2]}"#;
        let padded = |total: u64| format!("{descriptor}{}", " ".repeat(total as usize - descriptor.len()));
        std::fs::write(&path, padded(MAX_JSON_FILE)).unwrap();
        assert_eq!(read_descriptor(&path, &out).unwrap(), (DataType::Int8, vec![2]));
        std::fs::write(&path, padded(MAX_JSON_FILE + 1)).unwrap();
        let error = read_descriptor(&path, &out).unwrap_err().to_string();
        assert!(error.contains("65537") && error.contains("65536"), "{error}");
    }
}
