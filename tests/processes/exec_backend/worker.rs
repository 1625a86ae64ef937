//! The worker the protocol tests run: this test binary itself, started with the argument
//! `--serve-worker`, so `cargo test --test processes` needs nothing but Rust. (Arguments
//! starting `--`: a test-name filter, which cargo passes first, can never be one.)
//!
//! Its behaviour on a data set is chosen by WORKER_MODE, or per case by
//! WORKER_MODE_<case dir name>; "right" copies the case's expected output, "refuse" replies
//! an error with no `kind`, "refuse-KIND" one with the `kind` KIND (any string). Each request
//! appends the worker's pid, and the pid of any process it starts, to the file WORKER_PIDS.
//! With WORKER_GATE set, a request for test_wrap_pad waits until that file exists. With
//! WORKER_RUNTIME set, its hello gives that JSON as its `runtime`; with WORKER_ACCEPTS, that
//! JSON as its `accepts`. WORKER_MODE=node pads from the request's node alone (node_worker.rs);
//! raw-short answers a raw output shorter than its dtype and shape; bool-2-raw and
//! bool-2-proto the expected bool output with a byte of 2, as a raw file or a TensorProto. The model modes answer as
//! a graph optimizer does, with a model (the hello must accept `model`): "model" hands back a
//! copy of the model file WORKER_MODEL, "model-outside" names the case's own model.onnx,
//! "model-garbage" a file that is no model, "model-large" a (sparse) file of 64 MiB.
//!
//! Started with the arguments `--serve-backend-worker KIND` instead, it serves [`Kinded`], a Rust
//! backend, through the library's `Worker`.

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Duration;

use pad_conformance::testing::{DecodeOptions, Driven, encode_tensor, read_tensor_file};
use pad_conformance::{Backend, BackendError, BackendFailure, BackendUnsupported, ErrorKind, Model, Tensor, Worker};
use prost::Message;
use serde_json::{Value, json};

/// The argument that makes the test binary a worker.
pub const ARG: &str = "--serve-worker";
/// The argument that makes the test binary serve [`Kinded`] through `Worker`; the next
/// argument is the kind of error it returns.
pub const BACKEND_ARG: &str = "--serve-backend-worker";

/// A Rust backend that answers every data set with an error of one kind, each as a Rust
/// backend says it: a plain error, a [`BackendUnsupported`], a [`BackendFailure`].
pub struct Kinded(pub ErrorKind);

impl Backend for Kinded {
    fn name(&self) -> &str {
        "kinded"
    }

    fn run(&self, _: &Model, _: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        Err(match self.0 {
            ErrorKind::Refused => "wrap is not allowed before Pad-19".into(),
            ErrorKind::Unsupported => BackendUnsupported("mode wrap is not implemented".into()).into(),
            ErrorKind::Failed => BackendFailure("the device went away".into()).into(),
            other => panic!("no error of kind {other}"),
        })
    }
}

impl Driven for Kinded {}

/// Serves [`Kinded`] of the kind `kind` names, through the library's `Worker`.
pub fn serve_backend(kind: &str) {
    let Some(kind) = ErrorKind::from_name(kind) else {
        eprintln!("{BACKEND_ARG}: no error kind {kind:?}");
        std::process::exit(2);
    };
    if let Err(e) = Worker::new(Kinded(kind)).serve() {
        eprintln!("{e}");
        std::process::exit(3);
    }
}

fn record(pid: u32) {
    let Some(path) = std::env::var_os("WORKER_PIDS") else {
        return;
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    // One write per line, so workers running side by side never interleave their lines.
    file.write_all(format!("{pid}\n").as_bytes()).unwrap();
}

fn reply(value: Value) {
    print_line(&value.to_string());
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

fn sleep_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(600));
    }
}

/// Serves requests on standard input until it closes.
pub fn serve() {
    for line in std::io::stdin().lock().lines() {
        let request: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if request["type"] == "hello" {
            let mut hello = json!({"type": "hello", "version": 1, "name": "test-worker"});
            if let Ok(runtime) = std::env::var("WORKER_RUNTIME") {
                hello["runtime"] = serde_json::from_str(&runtime).unwrap();
            }
            if let Ok(accepts) = std::env::var("WORKER_ACCEPTS") {
                hello["accepts"] = serde_json::from_str(&accepts).unwrap();
            }
            reply(hello);
            continue;
        }
        record(std::process::id());
        let id = request["id"].clone();
        let model = Path::new(request["model"].as_str().unwrap());
        let case_dir = model.parent().unwrap();
        let case = case_dir.file_name().unwrap().to_str().unwrap();
        if let Some(gate) = std::env::var_os("WORKER_GATE")
            && case.contains("wrap")
        {
            while !Path::new(&gate).exists() {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let mode = std::env::var(format!("WORKER_MODE_{case}"))
            .or_else(|_| std::env::var("WORKER_MODE"))
            .unwrap_or_else(|_| "right".to_owned());
        let out = Path::new(request["output_dir"].as_str().unwrap()).join("output_0.pb");
        match mode.as_str() {
            "node" => {
                reply(super::node_worker::run(&request, out.parent().unwrap()));
                continue;
            }
            _ if mode.starts_with("model") => {
                let optimized = out.with_file_name("optimized.onnx");
                let named = match mode.as_str() {
                    "model" => {
                        std::fs::copy(std::env::var("WORKER_MODEL").unwrap(), &optimized).unwrap();
                        json!("optimized.onnx")
                    }
                    "model-outside" => request["model"].clone(),
                    "model-garbage" => {
                        std::fs::write(&optimized, b"this is not a model").unwrap();
                        json!(optimized)
                    }
                    "model-large" => {
                        let file = std::fs::File::create(&optimized).unwrap();
                        file.set_len(64 << 20).unwrap();
                        json!(optimized)
                    }
                    other => panic!("unknown WORKER_MODE {other:?}"),
                };
                reply(json!({"type": "result", "id": id, "model": named}));
                continue;
            }
            "bool-2-raw" | "bool-2-proto" => {
                // The expected bool output, its third element's byte made 2: what a runtime
                // leaves when it writes bools from memory it never initialised.
                let expected =
                    read_tensor_file(&case_dir.join("test_data_set_0/output_0.pb"), &DecodeOptions::default()).unwrap();
                let mut bytes = expected.raw_bytes().unwrap();
                bytes[2] = 2;
                let output = if mode == "bool-2-raw" {
                    let raw = out.with_file_name("output_0.bin");
                    std::fs::write(&raw, &bytes).unwrap();
                    json!({"path": raw, "dtype": "bool", "shape": expected.shape()})
                } else {
                    let mut proto = encode_tensor(&expected, "y");
                    proto.raw_data = Some(bytes.into());
                    std::fs::write(&out, proto.encode_to_vec()).unwrap();
                    json!(out)
                };
                reply(json!({"type": "result", "id": id, "outputs": [output]}));
                continue;
            }
            "raw-short" => {
                // Three bytes where float32[2] takes eight.
                let short = out.with_file_name("output_0.bin");
                std::fs::write(&short, [0u8; 3]).unwrap();
                let output = json!({"path": short, "dtype": "float32", "shape": [2]});
                reply(json!({"type": "result", "id": id, "outputs": [output]}));
                continue;
            }
            "right" => {
                std::fs::copy(case_dir.join("test_data_set_0/output_0.pb"), &out).unwrap();
            }
            "wrong" => {
                std::fs::copy(request["inputs"][0].as_str().unwrap(), &out).unwrap();
            }
            "refuse" => {
                reply(json!({"type": "error", "id": id, "message": "no kernel for this"}));
                continue;
            }
            "traceback" => {
                // A Python worker's way: the traceback on stderr, then the error reply.
                eprintln!("Traceback (most recent call last):\n  raised while running {case}");
                reply(json!({"type": "error", "id": id, "message": format!("no kernel for {case}")}));
                continue;
            }
            _ if mode.starts_with("refuse-") => {
                let kind = &mode["refuse-".len()..];
                reply(json!({"type": "error", "id": id, "kind": kind, "message": "no kernel for this"}));
                continue;
            }
            "hang" => sleep_forever(),
            "crash" => {
                eprintln!("boom: segfault imitation");
                std::process::exit(3);
            }
            "garbage" => {
                print_line("this is not json");
                continue;
            }
            "close" => {
                close_stdout();
                sleep_forever();
            }
            "spawn-hang" | "spawn-exit" => {
                // The child inherits the worker's stdout, so the worker exiting gives no end of file.
                // Never waited for on purpose: the runner must kill it with the worker's group.
                #[allow(clippy::zombie_processes)]
                let child = std::process::Command::new("sleep").arg("1000").spawn().unwrap();
                record(child.id());
                if mode == "spawn-exit" {
                    std::process::exit(5);
                }
                sleep_forever();
            }
            other => panic!("unknown WORKER_MODE {other:?}"),
        }
        reply(json!({"type": "result", "id": id, "outputs": [out]}));
    }
}

/// Closes this process's standard output, which nothing else uses.
#[cfg(unix)]
fn close_stdout() {
    // SAFETY: closing descriptor 1, which only this process's printing uses.
    unsafe { libc::close(1) };
}

/// Closes this process's standard output, which nothing else uses.
#[cfg(windows)]
fn close_stdout() {
    use windows_sys::Win32::Foundation::CloseHandle;
    use windows_sys::Win32::System::Console::{GetStdHandle, STD_OUTPUT_HANDLE};
    // SAFETY: closing the standard output handle, which only this process's printing uses.
    unsafe { CloseHandle(GetStdHandle(STD_OUTPUT_HANDLE)) };
}
