//! The command line's arguments: clap's derive types, and nothing else. clap appears only in
//! this module and main.rs.

use std::path::PathBuf;

use crate::data::shard::Shard;
use crate::tensor::{DEFAULT_MAX_BYTES, DataType};
use clap::{Args, Parser, Subcommand, ValueEnum};

// Each line fits 80 columns: clap wraps the rest of --help to the terminal's width, and a
// command broken by it would no longer be one to copy.
const EXAMPLES: &str = "\
Examples:
  pad-conformance                          every vendored case, the ref backend
  pad-conformance --list                   the cases and data sets found
  pad-conformance --filter test_wrap_pad   the data sets whose name holds it
  pad-conformance --filter 'onnx-1.22.0/*' --output target/junit.xml
  ort='.venv/bin/python scripts/backends/onnxruntime-worker'
  pad-conformance --backend exec:\"$ort\" \\
      --profile baselines/onnxruntime.profile.toml \\
      --baseline baselines/onnxruntime.json
  pad-conformance matrix --backend ref --backend exec:\"$ort\" --failures-only
  pad-conformance matrix --backend ref --backend exec:\"$ort\" \\
      --format html --output matrix.html
  pad-conformance --backend exec:\"$ort\" --shard 2/4 --output part-2.json
  pad-conformance merge part-*.json --baseline baselines/onnxruntime.json
  pad-conformance diff before.json after.json --format markdown
  pad-conformance fuzz --backend exec:\"$ort\" --time 60 --out target/findings
  pad-conformance promote target/findings --dry-run
  pad-conformance fuzz-merge causes-1.json causes-2.json --output causes.json
  pad-conformance rules --format markdown
  pad-conformance history case onnx-1.22.0/node/test_wrap_pad/0
  pad-conformance baseline upgrade known.json --backend exec:\"$ort\" \\
      --output known-v5.json
  pad-conformance bench

Exit status: 0 when nothing failed or errored on a gating basis (--basis);
unsupported, skipped and not-gating data sets and unverified refusals never
fail a run. With --baseline, 0 unless something failed that it does not list
(--strict, --strict-corpus, --require-tracking and --require-verified fail on
more); --write-baseline exits 0 once the file is written. 1 when the run
failed (matrix: in any backend; diff: a regression; fuzz, fuzz-merge: a
finding on a gating basis; promote: a finding refused or contradicted). 2 when
it could not be made (bad arguments, unreadable files, no cases). 130 or 143
when interrupted (SIGINT, SIGTERM).

Environment: NO_COLOR, CLICOLOR and CLICOLOR_FORCE (with --color auto);
PAD_CONFORMANCE_HEARTBEAT, the seconds between progress lines on a standard
error that is no terminal (60; 0 for none); PAD_CONFORMANCE_DATA, the default
PATH. docs/cli.md says more.";

/// Conformance suite and runner for ONNX's padding operators (Pad 1–25, CenterCropPad 18,
/// com.microsoft Pad).
#[derive(Parser, Debug)]
#[command(version, after_help = EXAMPLES, args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `--color`: whether a report on standard output is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Time the reference kernels against a plain copy of the same bytes (ratios, not
    /// seconds, are the figure of merit).
    Bench(BenchArgs),
    /// Run several backends over the same data sets and write one table (Markdown or JSON)
    /// or the HTML scoreboard. Exits 1 when any backend failed or errored on a gating basis,
    /// as a run does.
    Matrix(MatrixArgs),
    /// Tabulate which (operator version, dtype, mode) the generated cases cover.
    Coverage(CoverageArgs),
    /// Compare two JSON reports of a backend (before, after): fixed, regressed, changed
    /// status, added, removed. Exits 1 when anything regressed.
    Diff(DiffArgs),
    /// Differential fuzzing: random cases, the reference as the oracle, the backend as the
    /// subject; disagreements shrunk, de-duplicated and written as node-test cases.
    Fuzz(FuzzArgs),
    /// Print the rules the reference refuses by: id, basis, section of docs/semantics.md.
    Rules(RulesArgs),
    /// Join the JSON reports of a run's shards (`--shard K/N`) into the report of the whole
    /// run, and judge it against a baseline as one run; exits as that run would.
    Merge(MergeArgs),
    /// Make findings of `fuzz --out` fixed regression tests of the corpus: each loaded and
    /// passed with the reference, confirmed by a second oracle (ONNX's reference evaluator,
    /// when PAD_CONFORMANCE_PYTHON names a Python with onnx) or marked reference-only, one
    /// that must be refused with its valid twin, and written under the corpus's fuzz/ with its
    /// manifest and one CHANGELOG.md section, the corpus version raised once (`--twins` gives
    /// the cases promoted before twins theirs). Exits 1 when a finding was contradicted or
    /// refused.
    Promote(PromoteArgs),
    /// Join the JSON reports of one fuzz run's shards (`fuzz --shard K/N --format json`) into
    /// the cause report of the whole run; exits 1 when it holds a gating finding.
    FuzzMerge(FuzzMergeArgs),
    /// Runtimes across their releases (history/, scripts/sweep): store one release's run,
    /// write docs/history.md and its page, or show one data set across the releases.
    History(HistoryArgs),
    /// Baselines across corpus versions: `upgrade` re-records one over the corpus at hand.
    Baseline(BaselineArgs),
    /// Run COMMAND for a per-case backend and end as it ended, a crash as a crash: a signal
    /// that killed it, or one its exit code stands for (128 + N, a shell's; with
    /// --shim-codes, 256 - N for a crash or a kill, a Python shim's), is raised again on
    /// this process; any other exit code is passed on. Standard input, output and error
    /// are COMMAND's own. Exits 127 when COMMAND cannot be started.
    ExecWrap(ExecWrapArgs),
}

#[derive(Args, Debug)]
pub(crate) struct ExecWrapArgs {
    /// Read 256 - N as signal N too, for the signals a crash or a kill ends a program with
    /// (245 is SIGSEGV): the exit codes of a Python shim (a pip-installed console script)
    /// whose program crashed. A code a program may exit with on its own (exit(-11) is 245
    /// too), so only when COMMAND is such a shim.
    #[arg(long)]
    pub shim_codes: bool,
    /// The program and its arguments (after `--`).
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Args, Debug)]
pub(crate) struct BaselineArgs {
    #[command(subcommand)]
    pub verb: BaselineVerb,
}

#[derive(Subcommand, Debug)]
pub(crate) enum BaselineVerb {
    /// Run the gate's backend with an old baseline over the corpus at hand and write the new
    /// baseline, keeping every reason and tracking link of the entries that still hold, and
    /// list each entry that moved by cause: corpus changed, judging rule changed, backend
    /// changed. OLD is left as it is unless --in-place. Exits 0 once written.
    Upgrade(BaselineUpgradeArgs),
}

#[derive(Args, Debug)]
pub(crate) struct BaselineUpgradeArgs {
    /// The baseline to upgrade, written against an older corpus (its corpus_version).
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// Write the new baseline to FILE: a new file (one already there is refused).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "in_place",
        conflicts_with = "in_place"
    )]
    pub output: Option<PathBuf>,
    /// Write the new baseline over OLD.
    #[arg(long)]
    pub in_place: bool,
    /// The gate's backend: `ref`, `exec:COMMAND` or `exec-per-case[-raw]:COMMAND`.
    #[arg(long, value_name = "BACKEND", default_value = "ref")]
    pub backend: String,
    /// The gate's profile (TOML), as its runs give it.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// The gate's configuration: only its entries are upgraded (see the main command's
    /// --config).
    #[arg(long, value_name = "NAME", value_parser = config_name)]
    pub config: Option<crate::gate::config::ConfigName>,
    #[command(flatten)]
    pub checking: Checking,
    #[command(flatten)]
    pub selection: Selection,
}

#[derive(Args, Debug)]
pub(crate) struct HistoryArgs {
    #[command(subcommand)]
    pub verb: HistoryVerb,
}

#[derive(Subcommand, Debug)]
pub(crate) enum HistoryVerb {
    /// Store one release's whole run (its JSON report) in history/RUNTIME.json, keyed by
    /// data-set content; a run of part of the corpus adds to what the release holds.
    Record(HistoryRecordArgs),
    /// Write docs/history.md (and with --html the page) from the stored releases: what changed
    /// in each release, each release's conformance and coverage, and per failure group the
    /// releases where it changed.
    Write(HistoryWriteArgs),
    /// One data set's verdict in every stored release, for bisecting.
    Case(HistoryCaseArgs),
    /// What changed in one release of a runtime (default its newest) against the release
    /// before it: new failures, moves, fixes, support, each with an example data set.
    Changes(HistoryChangesArgs),
    /// Move release files of format 1 (DIR/RUNTIME/VERSION.json) into their runtime's file,
    /// DIR/RUNTIME.json, as `record` writes it.
    Compact(HistoryCompactArgs),
}

#[derive(Args, Debug)]
pub(crate) struct HistoryChangesArgs {
    /// The runtime, as its stored file is named (`onnxruntime`).
    #[arg(value_name = "RUNTIME")]
    pub runtime: String,
    /// The release (default: the newest stored).
    #[arg(value_name = "VERSION")]
    pub version: Option<String>,
    /// The stored releases.
    #[arg(long, value_name = "DIR", default_value = "history")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub(crate) struct HistoryCompactArgs {
    /// The stored releases.
    #[arg(long, value_name = "DIR", default_value = "history")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub(crate) struct HistoryRecordArgs {
    /// The release's run: a JSON report (`--format json`) of a whole, unsharded run. Not
    /// needed for a release whose worker failed its self-check.
    #[arg(long, value_name = "REPORT.json")]
    pub report: Option<PathBuf>,
    /// The worker's self-check: a JSON report of the oldest upstream case, run on the
    /// release before the corpus. When it did not pass, the release is stored as a failure of
    /// the worker, with no results.
    #[arg(long, value_name = "REPORT.json")]
    pub self_check: PathBuf,
    /// What the release ran in (scripts/sweep writes it): `{"python": VERSION, "packages":
    /// [{"name", "version", "sha256"}]}`, or for npm `"node"` and each package's `"integrity"`.
    #[arg(long, value_name = "FILE")]
    pub environment: Option<PathBuf>,
    /// The day of the run, YYYY-MM-DD (default: today, UTC).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<String>,
    /// Where to store it: DIR/RUNTIME.json, RUNTIME as the report's runtime names itself
    /// (release files of format 1 of that runtime, DIR/RUNTIME/VERSION.json, are moved into it).
    #[arg(long, value_name = "DIR", default_value = "history")]
    pub dir: PathBuf,
    /// The corpus the run read (default as the main command's).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct HistoryWriteArgs {
    /// The stored releases: DIR/RUNTIME.json (or release files DIR/RUNTIME/VERSION.json).
    #[arg(long, value_name = "DIR", default_value = "history")]
    pub dir: PathBuf,
    /// Write the Markdown page to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct HistoryCaseArgs {
    /// The data set: its name (`onnx-1.22.0/node/test_wrap_pad/0`) or content digest.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The stored releases: DIR/RUNTIME.json (or release files DIR/RUNTIME/VERSION.json).
    #[arg(long, value_name = "DIR", default_value = "history")]
    pub dir: PathBuf,
    /// The corpus that names the data set (default as the main command's).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// A run judged against its known failures: the main command's and `merge`'s options.
#[derive(Args, Clone, Debug)]
pub(crate) struct GateArgs {
    /// Known failures (JSON): exit 0 unless a data set fails that the baseline does not list.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// With --baseline: also fail when the baseline is outdated: a listed data set passes,
    /// fails with another status than listed, or does not exist.
    #[arg(long, requires = "baseline")]
    pub strict: bool,
    /// With --baseline: also fail on verdicts that changed because the corpus changed since
    /// the baseline was written (onnx-testdata/CHANGELOG.md), not the backend.
    #[arg(long, requires = "baseline")]
    pub strict_corpus: bool,
    /// The configuration this run is (linux-x64-cpu, debug): baseline entries that list
    /// configurations apply only in those, matched exactly; --write-baseline records only
    /// this configuration's entries. 1 to 64 letters, digits, '.', '_' or '-'. Default: the
    /// unnamed configuration, where only entries for every configuration apply.
    #[arg(long, value_name = "NAME", value_parser = config_name)]
    pub config: Option<crate::gate::config::ConfigName>,
    /// With --baseline: also fail when a known failure in force for this configuration has
    /// no "tracking" link, naming them.
    #[arg(long, requires = "baseline")]
    pub require_tracking: bool,
    /// With --baseline: also fail when a data set that must be refused was refused but its
    /// valid twin did not pass (a refusal not verified), naming them. Not with --shard (a
    /// twin may run in another part): give it to merge.
    #[arg(long, requires = "baseline")]
    pub require_verified: bool,
}

/// A `--config` value, checked.
fn config_name(value: &str) -> Result<crate::gate::config::ConfigName, String> {
    crate::gate::config::ConfigName::new(value).map_err(|e| e.to_string())
}

#[derive(Args, Debug)]
pub(crate) struct FuzzMergeArgs {
    /// The shards' JSON reports, one per shard of the same seed and options.
    #[arg(value_name = "REPORT.json", required = true)]
    pub reports: Vec<PathBuf>,
    /// Write the merged report to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Report format [default: human, or json when --output names a .json file].
    #[arg(long, value_enum)]
    pub format: Option<BenchFormat>,
}

#[derive(Args, Debug)]
pub(crate) struct PromoteArgs {
    /// Directories `fuzz --out` wrote (each entry a finding), or findings' own directories.
    #[arg(value_name = "FINDINGS", required_unless_present_any = ["from", "twins"])]
    pub findings: Vec<PathBuf>,
    /// Findings made against RUNTIME (as the fuzz report names its backend: `onnxruntime
    /// 1.32.0`), recorded as each case's `found_by`; repeat it for each runtime of one batch.
    /// A finding made against the second oracle itself is marked reference-only: the runtime
    /// that fails a case cannot vouch for it.
    #[arg(long, num_args = 2, value_names = ["RUNTIME", "FINDINGS"])]
    pub from: Vec<String>,
    /// The corpus to promote into: its root, holding VERSION, CHANGELOG.md and MANIFEST.tsv.
    #[arg(long, value_name = "DIR", default_value = "onnx-testdata")]
    pub corpus: PathBuf,
    /// The second oracle, `exec:COMMAND` (default: ONNX's reference evaluator through
    /// scripts/backends/onnx-reference-worker, run by the Python PAD_CONFORMANCE_PYTHON names,
    /// when it is set; else none, and every case is marked reference-only).
    #[arg(long, value_name = "BACKEND", conflicts_with = "reference_only")]
    pub oracle: Option<String>,
    /// Promote on the reference alone, marking each case reference-only, even when a second
    /// oracle is installed.
    #[arg(long)]
    pub reference_only: bool,
    /// Promote no finding: give each promoted case of the corpus that must be refused and
    /// names no valid twin its twin (the property it breaks repaired, its expected output the
    /// reference's, checked by the second oracle too), its case.json naming it, as one corpus
    /// version. A finding promoted since twins came has one already.
    #[arg(long, conflicts_with_all = ["findings", "from"])]
    pub twins: bool,
    /// Check every finding and report what would be promoted, writing nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The date of the CHANGELOG.md section (default: today, UTC).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<String>,
    /// Seconds the second oracle may take on one finding before it is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
}

#[derive(Args, Debug)]
pub(crate) struct MergeArgs {
    /// The shards' JSON reports (`--format json`), one per part.
    #[arg(value_name = "REPORT.json", required = true)]
    pub reports: Vec<PathBuf>,
    /// Report format of the merged run [default: human, or json when --output names a .json
    /// file].
    #[arg(long, value_enum)]
    pub format: Option<RunFormat>,
    /// Write the merged report to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Colour the status words of a human report on standard output: auto (on a terminal,
    /// unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE colours a pipe too), always, never.
    /// A report written to a file is never coloured.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorWhen,
    /// Judge the run with this profile (TOML) as a run made with it: data sets outside it
    /// become unsupported. The parts must have run without a profile (or with this one), and
    /// the profile may not hand a data set's inputs to the backend as initializers that the
    /// run did not: those only a run made with the profile can judge.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    // The baseline, judged over the union of the shards as over one run.
    #[command(flatten)]
    pub gate: GateArgs,
    /// The directories the shards searched for cases, as the main command's PATHs (default as
    /// there): the merged report lists data sets in their order, and the baseline's entries
    /// for no data set under them are stale.
    #[arg(long = "data", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The case-directory globs the shards ran with (--pattern), if any.
    #[arg(long = "pattern", value_name = "GLOB")]
    pub patterns: Vec<String>,
    /// Record the merged run's failures as a baseline into FILE, as the main command's
    /// --write-baseline records a live run's: the same entries, the reasons and tracking links
    /// already in FILE (or in --baseline) kept, and the entries of data sets the run did not
    /// select. A baseline from a run's JSON report, run again nowhere. Exits 0 once written.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct RulesArgs {
    /// Output format [default: human, or json when --output names a .json file].
    #[arg(long, value_enum)]
    pub format: Option<TableFormat>,
    /// Write the table to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The formats of the verbs that print one table (`rules`, `coverage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TableFormat {
    Human,
    Json,
    Markdown,
}

#[derive(Args, Debug)]
pub(crate) struct FuzzArgs {
    /// The backend to check: `ref`, `exec:COMMAND` or `exec-per-case[-raw]:COMMAND`.
    #[arg(long, value_name = "BACKEND", default_value = "ref")]
    pub backend: String,
    /// Stop after N cases (default 10000 when --time is not given).
    #[arg(long, value_name = "N")]
    pub cases: Option<u64>,
    /// Stop after SECONDS.
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<f64>,
    /// The seed: the same seed draws the same cases on any machine.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The most elements a generated input or output may have.
    #[arg(long, value_name = "N", default_value_t = 65_536)]
    pub max_elements: usize,
    /// The share of cases that must be refused, 0 to 1.
    #[arg(long, value_name = "SHARE", default_value_t = 0.15)]
    pub refusals: f64,
    /// Run only shard K of N: the cases whose index is K−1 modulo N (of the --cases the
    /// whole run draws). The shards of one seed together draw the unsharded run's cases.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Write each root cause's smallest case as a node-test case under DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// What the backend supports (TOML): nothing outside it is a finding.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Report format [default: human, or json when --output names a .json file].
    #[arg(long, value_enum)]
    pub format: Option<BenchFormat>,
    /// Write the report to FILE instead of standard output (the findings' cases go to
    /// --out DIR).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The share of cases, 0 to 1, also handed to a backend that reads model files in
    /// another legal protobuf form (packed lists, typed data fields, reversed field order)
    /// when it answers the plain form correctly; what changes is reported apart and never
    /// gates. 0 turns this off.
    #[arg(long, value_name = "SHARE", default_value_t = crate::fuzz::FuzzOptions::default().encodings)]
    pub encodings: f64,
    #[command(flatten)]
    pub checking: Checking,
    /// Largest tensor, in bytes, a worker's output file may declare.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    pub max_tensor_bytes: u64,
}

/// Which data sets to run.
#[derive(Args, Debug)]
pub(crate) struct Selection {
    /// Run only the data sets whose name (`onnx-1.22.0/node/test_wrap_pad/0`) contains
    /// PATTERN, or matches it as a glob when it holds `*`, `?` or `[`. Repeatable: a data set
    /// is selected when any of them matches.
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// Leave out the data sets whose name matches PATTERN, as --filter matches it.
    /// Repeatable: any of them removes a data set, after --filter selected it.
    #[arg(long, value_name = "PATTERN")]
    pub skip: Vec<String>,
    /// Directory-name glob that marks a case directory (repeatable; replaces the defaults
    /// test_*_pad*, test_center_crop_pad_* and test_*Pad*).
    #[arg(long = "pattern", value_name = "GLOB")]
    pub patterns: Vec<String>,
    /// Run only part K of N of the selected data sets (e.g. 2/4): a data set's part is
    /// decided by a stable hash of its name, so the N parts make up the whole run on any
    /// machine; `pad-conformance merge` joins their JSON reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Largest tensor, in bytes, a file may declare.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    pub max_tensor_bytes: u64,
    /// Directories to search for cases (default: $PAD_CONFORMANCE_DATA when set, else
    /// ./onnx-testdata when it exists, else the cases bundled with this build).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// How data sets are run and compared.
#[derive(Args, Debug)]
pub(crate) struct Checking {
    /// Loosen the exact default for finite floating values: pass when |a − e| ≤ rtol ×
    /// max(|a|, |e|) (approx's RelativeEq), or within --atol (default 0). A finite number ≥ 0.
    /// One tolerance model per run: not with --ulps or --exact.
    #[arg(long, value_name = "X", value_parser = tolerance, allow_negative_numbers = true,
          conflicts_with_all = ["ulps", "exact"])]
    pub rtol: Option<f64>,
    /// Loosen the exact default for finite floating values: pass when |a − e| ≤ atol, or
    /// within --rtol (default 0). A finite number ≥ 0. Not with --ulps or --exact.
    #[arg(long, value_name = "Y", value_parser = tolerance, allow_negative_numbers = true,
          conflicts_with_all = ["ulps", "exact"])]
    pub atol: Option<f64>,
    /// Loosen the exact default for finite floating values: pass when at most N values of
    /// their format apart (units in the last place). NaN, infinities, the sign of zero and
    /// flushed subnormals are never excused. Not with --rtol, --atol or --exact.
    #[arg(long, value_name = "N", conflicts_with = "exact")]
    pub ulps: Option<u64>,
    /// Compare every bit, NaN payloads too (by default every NaN matches every NaN).
    #[arg(long)]
    pub exact: bool,
    /// The bases whose failures fail the run, comma-separated: spec, reference, rule
    /// (docs/semantics.md#basis). Failures on the others are reported and counted apart;
    /// undefined never gates.
    #[arg(long, value_name = "BASES", value_delimiter = ',', default_value = "spec,reference")]
    pub basis: Vec<String>,
    /// Hand the backend models whose inputs after the data are constants (initializers
    /// holding the data set's values), for backends that need pads, constant_value, axes
    /// and shape as constants.
    #[arg(long)]
    pub inputs_as_constants: bool,
    /// Fail a data set that must be refused when the backend names another spec rule than
    /// the one it breaks (an `error` reply's `rule`); without it that is a note.
    #[arg(long)]
    pub strict_rules: bool,
    /// Data sets run in parallel on N threads, one or more (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = threads)]
    pub jobs: Option<usize>,
    /// Seconds an external worker may take on one data set before it is killed, read on its
    /// run clock: on Linux, time it queued behind other work for a processor does not count
    /// (the wall clock ends it at 10 times the limit).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Run a data set whose worker crashed or timed out again, alone in a fresh worker, up to
    /// N times (0 to 10; default 0). One that then answers twice alike "passed after a
    /// crash"; two different answers fail it; a crash is never a refusal.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = retries)]
    pub retries: u32,
    /// Leave running what a worker or per-case command started in a session of its own
    /// (setsid), for a command that starts a long-lived server on purpose. By default, on
    /// Linux, the runner ends such processes when the command that started them ends.
    #[arg(long)]
    pub keep_detached: bool,
}

#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// The backend to check: `ref`, `exec:COMMAND` for an external worker, or
    /// `exec-per-case[-raw]:COMMAND` for a command run once per data set
    /// (docs/backend-protocol.md).
    #[arg(long, value_name = "BACKEND", default_value = "ref")]
    pub backend: String,
    /// Report format [default: human, or the format the one --output FILE's extension names].
    #[arg(long, value_enum)]
    pub format: Option<RunFormat>,
    /// Write the report to FILE instead of standard output (the summary line still goes to
    /// standard error). Repeatable: one run writes a report to each FILE, in the format its
    /// extension names (.json, .xml JUnit, .md Markdown, .html, .txt or .log human), the human
    /// log streaming to standard output unless one of them is human.
    #[arg(long, value_name = "FILE")]
    pub output: Vec<PathBuf>,
    /// Colour the status words of a human report on standard output: auto (on a terminal,
    /// unless NO_COLOR is set or CLICOLOR=0; CLICOLOR_FORCE colours a pipe too), always, never.
    /// A report written to a file is never coloured.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub color: ColorWhen,
    /// List the discovered cases and data sets instead of running them; exits 1 (after
    /// listing everything) when any case or data set fails to load.
    #[arg(long)]
    pub list: bool,
    /// Human and Markdown: show only the data sets that failed or errored (known failures
    /// included, labelled); the summary still counts every data set.
    #[arg(long)]
    pub failures_only: bool,
    /// What the backend supports (TOML, docs/report-format.md#profiles): data sets outside
    /// it are reported as unsupported, never failed.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    #[command(flatten)]
    pub gate: GateArgs,
    /// Record this run's failures as a baseline into FILE (created, with its directory),
    /// keeping the reasons and tracking links already in FILE (or in --baseline) of entries
    /// that still fail, and the entries of data sets this run did not select (--filter,
    /// --skip, another --shard) and of other configurations: the shards of a run recorded one
    /// after another into one FILE give the whole run's baseline. Written whole, under a lock.
    /// Prints the path and the entries per kind, and exits 0 once written (2 when it cannot be).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    #[command(flatten)]
    pub checking: Checking,
    #[command(flatten)]
    pub selection: Selection,
}

#[derive(Args, Debug)]
pub(crate) struct MatrixArgs {
    /// A backend to run (repeatable, at least one): `ref`, `exec:COMMAND` or
    /// `exec-per-case[-raw]:COMMAND`.
    #[arg(long = "backend", value_name = "BACKEND", required = true)]
    pub backends: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: MatrixFormat,
    /// Write the table to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the HTML scoreboard of the same run to FILE, so that one run gives both the
    /// table and the page (backends are slow: running them twice doubles the cost).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// The JSON report of a run a backend already made (repeatable: one per --backend, in
    /// the same order): its row is read from the report instead of running it again. The
    /// run must be whole and made without a profile, over the matrix's data and under its
    /// options (--retries, --basis, the tolerance, …), as its recorded "run" shows.
    #[arg(long = "report", value_name = "REPORT.json")]
    pub reports: Vec<PathBuf>,
    /// Markdown: show only the data sets some backend did not pass (the HTML page lists only
    /// failures in any case).
    #[arg(long)]
    pub failures_only: bool,
    /// Markdown: after the totals, each backend's failures grouped by reason and basis, and
    /// the defects among them stated for a bug report, instead of the per-data-set table.
    #[arg(long)]
    pub groups: bool,
    #[command(flatten)]
    pub checking: Checking,
    #[command(flatten)]
    pub selection: Selection,
}

#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// The JSON report of the earlier run (`--format json`).
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// The JSON report of the later run.
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: DiffFormat,
    /// Write the diff to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct CoverageArgs {
    /// The generated corpus to read case.json files from (default: the `extended/` directory
    /// of the default root, as for the main command).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Output format [default: human, or json when --output names a .json file].
    #[arg(long, value_enum)]
    pub format: Option<TableFormat>,
    /// Write the table to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct BenchArgs {
    /// Input shape, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,64,512,512")]
    pub shape: Vec<usize>,
    /// Pads in ONNX layout [x1_begin, x2_begin, ..., x1_end, x2_end, ...], comma-separated
    /// (default: 2 on each side of the last two axes).
    #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
    pub pads: Option<Vec<i64>>,
    /// Modes to time (repeatable; default: all four).
    #[arg(long = "mode", value_name = "MODE")]
    pub modes: Vec<String>,
    /// CenterCropPad target shape, comma-separated (default: the input's last two axes +8
    /// and -8; `none` to skip).
    #[arg(long)]
    pub center_crop_shape: Option<String>,
    /// Element type.
    #[arg(long, default_value = "float",
          value_parser = clap::builder::PossibleValuesParser::new(BENCH_TYPES.map(|t| t.name())))]
    pub dtype: String,
    /// Timed runs per figure (the median is reported), after one warm-up run: 1 to 10,000.
    #[arg(long, default_value_t = 10, value_parser = repetitions)]
    pub repetitions: usize,
    /// Time whole data sets instead (write a case, then load, pad and compare it, as a run
    /// does), against copies of the case's bytes, for each --mode.
    #[arg(long, conflicts_with = "decode")]
    pub end_to_end: bool,
    /// Time the runner instead: generate --data-sets small data sets in a scratch directory
    /// and run them as the main command does, reporting the cost per data set.
    #[arg(long, conflicts_with_all = ["end_to_end", "decode"])]
    pub scaling: bool,
    /// The corpus sizes --scaling times, comma-separated: 1 to 1,000,000 data sets each.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000", value_parser = scaling_data_sets)]
    pub data_sets: Vec<usize>,
    /// Threads for the --scaling run (with one, the time outside the checks is the runner's).
    #[arg(long, default_value_t = 1, value_parser = threads)]
    pub jobs: usize,
    /// Where --scaling writes its corpora (default: the system's temporary directory; a
    /// memory file system such as /dev/shm takes the disk out of the figures).
    #[arg(long, value_name = "DIR")]
    pub scratch: Option<PathBuf>,
    /// Time decoding a float TensorProto of --decode-mib MiB instead of padding.
    #[arg(long)]
    pub decode: bool,
    /// Size of the tensor --decode decodes.
    #[arg(long, default_value_t = 256)]
    pub decode_mib: usize,
    /// Largest input or output, in bytes, a benchmark may allocate; larger configurations are
    /// refused before anything is allocated.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    pub max_tensor_bytes: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: BenchFormat,
}

/// The formats a run writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunFormat {
    Human,
    Json,
    Junit,
    Markdown,
    Html,
}

/// The formats `bench` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum BenchFormat {
    Human,
    Json,
}

/// The formats `matrix` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MatrixFormat {
    Markdown,
    Json,
    Html,
}

/// The formats `diff` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
    Markdown,
    Html,
}

/// A number of threads: a whole number, one or more (zero threads would run nothing).
fn threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("0 threads would run nothing: give 1 or more".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{text:?} is not a whole number: {e}")),
    }
}

/// `--retries`: 0 to [`MAX_RETRIES`](crate::judge::retry::MAX_RETRIES).
fn retries(text: &str) -> Result<u32, String> {
    let max = crate::judge::retry::MAX_RETRIES;
    match text.trim().parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        Ok(n) => Err(format!("{n} retries: give 0 to {max}")),
        Err(e) => Err(format!("{text:?} is not a whole number: {e}")),
    }
}

/// The element types the padding benchmarks time: the widths 1, 2, 4 and 8 bytes, floating
/// and integer.
const BENCH_TYPES: [DataType; 7] = [
    DataType::Float,
    DataType::Double,
    DataType::Float16,
    DataType::Int8,
    DataType::Uint8,
    DataType::Int32,
    DataType::Int64,
];

/// The most timed runs `bench --repetitions` takes: a median of more says nothing new, and the
/// times of each are kept.
const MAX_REPETITIONS: usize = 10_000;
/// The largest corpus `bench --scaling` writes: a million data sets is gigabytes of scratch.
const MAX_SCALING_DATA_SETS: usize = 1_000_000;

/// A whole number from 1 to `max`, for the option `what` describes.
fn whole_within(text: &str, max: usize, what: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} {what}: give 1 to {max}")),
        Err(e) => Err(format!("{text:?} is not a whole number: {e}")),
    }
}

fn repetitions(text: &str) -> Result<usize, String> {
    whole_within(text, MAX_REPETITIONS, "timed runs")
}

fn scaling_data_sets(text: &str) -> Result<usize, String> {
    whole_within(text, MAX_SCALING_DATA_SETS, "data sets")
}

/// `--rtol`, `--atol`: a finite number, zero or more (NaN would pass nothing, a negative or
/// infinite tolerance would make the comparison meaningless).
pub(crate) fn tolerance(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|e| format!("{text:?} is not a number: {e}"))?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(format!("{text:?} is not a finite number zero or more"))
    }
}
