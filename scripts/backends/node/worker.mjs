// A pad-conformance backend worker (docs/backend-protocol.md) for onnxruntime's JavaScript
// builds: `onnxruntime-node` (the native library, a build apart from the Python wheel) or
// `onnxruntime-web` (its WebAssembly build, run in Node). It asks for raw tensors in the
// hello, so it needs no protobuf codec: the inputs are little-endian files with a dtype and a
// shape, and so are the outputs it writes.
//
//   node scripts/backends/node/worker.mjs node|web
//
// Packages: scripts/backends/node/package.json, installed by scripts/setup-node (pinned by its
// package-lock.json). No package is installed at run time.

import { createInterface } from "node:readline";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const flavour = process.argv[2];
if (flavour !== "node" && flavour !== "web") {
    process.stderr.write("usage: worker.mjs node|web\n");
    process.exit(2);
}
const require = createRequire(import.meta.url);
const ort = require(flavour === "node" ? "onnxruntime-node" : "onnxruntime-web");
// ort.env.versions came with onnxruntime-common 1.16: an older release names its version only
// in its package.json.
const version = ort.env.versions?.[flavour] ?? require(`onnxruntime-${flavour}/package.json`).version;
if (flavour === "web") {
    // One thread, no proxy worker: the runner runs several workers side by side instead.
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
}

// Replies only on stdout; console.log from anywhere (ours or a library's) goes to stderr.
const reply = (message) => process.stdout.write(JSON.stringify(message) + "\n");
console.log = (...args) => process.stderr.write(args.join(" ") + "\n");
console.info = console.log;
console.warn = console.log;

/** What the backend does not implement: an `unsupported` reply, never a refusal. */
class Unsupported extends Error {}

// The raw layout's element types (docs/backend-protocol.md#raw-tensors) that onnxruntime's
// JavaScript API takes, with the typed array of each; the others have no JavaScript tensor.
const ARRAYS = {
    float32: Float32Array,
    float64: Float64Array,
    int8: Int8Array,
    int16: Int16Array,
    int32: Int32Array,
    int64: BigInt64Array,
    uint8: Uint8Array,
    uint16: Uint16Array,
    uint32: Uint32Array,
    uint64: BigUint64Array,
    bool: Uint8Array,
    float16: Uint16Array,
};
// Whether this release runs a float16 tensor: before 1.19, onnxruntime-node's binding throws
// for one at run time ("Tensor.data must be a typed array (-1) for float16 tensors"). Decided
// once, by running a one-node float16 Identity model (IR 3, opset 7; the bytes below), so that
// such a release's float16 data sets are unsupported — what it lacks — not failures. The model
// runs in a process of its own (this file with --probe-float16): a session made in this one
// would change what its heap holds, and onnxruntime's wrap padding of bool outputs reads memory
// it never wrote, so later data sets' verdicts would depend on whether the probe ran.
const FLOAT16_IDENTITY = "CAMSADo5ChAKAXgSAXkiCElkZW50aXR5EgNmMTZaDwoBeBIKCggIChIECgIIAWIPCgF5EgoKCAgKEgQKAggBQgQKABAH";
const PROBE_RUNS = 0;
const PROBE_RUNS_NOT = 3;

/** The probe, in its own process: exits PROBE_RUNS or PROBE_RUNS_NOT; a model that does not
 * load is a failure (of the runtime or this worker), never a missing feature: it throws. */
async function probeFloat16() {
    const model = Buffer.from(FLOAT16_IDENTITY, "base64");
    const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
    try {
        const x = new ort.Tensor("float16", new Uint16Array([0x3c00]), [1]);
        const { y } = await session.run({ x });
        // Compared as bits: where JavaScript has a Float16Array, the data holds 1, not 0x3c00.
        const bits = new Uint16Array(y.data.buffer, y.data.byteOffset, 1);
        return y.type === "float16" && bits[0] === 0x3c00 ? PROBE_RUNS : PROBE_RUNS_NOT;
    } catch (error) {
        process.stderr.write(`onnxruntime-${flavour} ${version} runs no float16 tensor: ${error.message ?? error}\n`);
        return PROBE_RUNS_NOT;
    }
}

if (process.argv[3] === "--probe-float16") {
    process.exit(await probeFloat16());
}

let float16Runs;
function runsFloat16() {
    if (float16Runs === undefined) {
        const probe = spawnSync(process.execPath, [fileURLToPath(import.meta.url), flavour, "--probe-float16"], {
            encoding: "utf8",
            stdio: ["ignore", "ignore", "pipe"],
        });
        if (probe.status === PROBE_RUNS || probe.status === PROBE_RUNS_NOT) {
            float16Runs = probe.status === PROBE_RUNS;
            process.stderr.write(probe.stderr);
        } else {
            // Every float16 data set fails with it, the same way: the probe is not run again.
            float16Runs = new Error(`the float16 probe failed (${probe.error ?? `exit ${probe.status}, signal ${probe.signal}`}): ${probe.stderr.trim()}`);
        }
    }
    if (float16Runs instanceof Error) throw float16Runs;
    return float16Runs;
}

function readTensor({ path, dtype, shape }) {
    const bytes = readFileSync(path);
    if (dtype === "string") {
        const values = [];
        for (let at = 0; at < bytes.length; ) {
            const length = bytes.readUInt32LE(at);
            values.push(bytes.subarray(at + 4, at + 4 + length).toString("utf8"));
            at += 4 + length;
        }
        return new ort.Tensor("string", values, shape);
    }
    const Array = ARRAYS[dtype];
    if (!Array) {
        throw new Unsupported(`onnxruntime-${flavour} ${version} has no JavaScript tensor of element type ${dtype}`);
    }
    // A copy, aligned for the typed array (a Buffer may sit at any offset of its pool).
    const data = new Array(new Uint8Array(bytes).buffer);
    return new ort.Tensor(dtype, data, shape);
}

function writeTensor(tensor, dir, k) {
    const path = join(dir, `output_${k}.bin`);
    let bytes;
    if (tensor.type === "string") {
        const parts = [];
        for (const value of tensor.data) {
            const text = Buffer.from(value, "utf8");
            const length = Buffer.alloc(4);
            length.writeUInt32LE(text.length);
            parts.push(length, text);
        }
        bytes = Buffer.concat(parts);
    } else if (ARRAYS[tensor.type]) {
        const data = tensor.data;
        bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    } else {
        throw new Unsupported(`onnxruntime-${flavour} answered element type ${tensor.type}`);
    }
    writeFileSync(path, bytes);
    return { path, dtype: tensor.type, shape: tensor.dims.map(Number) };
}

// One session per model path: the model of a path does not change within a run.
const sessions = new Map();

async function run(request) {
    const inputs = request.input_tensors;
    if (!Array.isArray(inputs)) {
        throw new TypeError("the request has no input_tensors: the runner did not take the hello's raw tensors");
    }
    const feeds = {};
    if (inputs.some(({ dtype }) => dtype === "float16") && !runsFloat16()) {
        throw new Unsupported(`onnxruntime-${flavour} ${version} runs no float16 tensor`);
    }
    const tensors = inputs.map(readTensor);
    let session = sessions.get(request.model);
    try {
        if (!session) {
            session = await ort.InferenceSession.create(request.model, { intraOpNumThreads: 1 });
            sessions.set(request.model, session);
        }
        if (session.inputNames.length !== tensors.length) {
            throw new TypeError(`the request has ${tensors.length} inputs; the model takes ${session.inputNames.length}`);
        }
        session.inputNames.forEach((name, i) => (feeds[name] = tensors[i]));
        const results = await session.run(feeds);
        return session.outputNames.map((name, k) => writeTensor(results[name], request.output_dir, k));
    } catch (error) {
        // onnxruntime's own checks throw a plain Error: the runtime refusing the model or its
        // inputs. A TypeError, RangeError or the like is JavaScript or this worker breaking.
        if (error.constructor === Error) {
            error.kind = "refused";
        }
        throw error;
    }
}

function kindOf(error) {
    if (error instanceof Unsupported) return "unsupported";
    return error.kind === "refused" ? "refused" : "failed";
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
// Requests are answered one at a time, in order.
let queue = Promise.resolve();
lines.on("line", (line) => {
    if (!line.trim()) return;
    queue = queue.then(() => answer(line));
});

async function answer(line) {
    let request;
    try {
        request = JSON.parse(line);
    } catch (error) {
        reply({ type: "error", id: null, kind: "failed", code: "SyntaxError", message: String(error) });
        return;
    }
    if (request.type === "hello") {
        const offered = request.offers?.tensors ?? [];
        if (!offered.includes("raw")) {
            process.stderr.write("this worker needs a runner that offers raw tensors (pad-conformance 0.2 or later)\n");
            process.exit(2);
        }
        reply({
            type: "hello",
            version: 1,
            name: `onnxruntime-${flavour} ${version}`,
            runtime: { name: `onnxruntime-${flavour}`, version, device: flavour === "node" ? "CPUExecutionProvider" : "wasm" },
            accepts: { tensors: "raw" },
        });
        return;
    }
    try {
        const outputs = await run(request);
        reply({ type: "result", id: request.id, outputs });
    } catch (error) {
        const code = (error.constructor?.name ?? "Error").slice(0, 100);
        reply({ type: "error", id: request.id, kind: kindOf(error), code, message: String(error.message ?? error) });
    }
}
