//! `bench`: the reference against the best copy of the same bytes, and the runner's cost per
//! data set as the corpus grows.

use std::io::IsTerminal;
use std::process::ExitCode;

use super::decode::bench_decode;
use super::end_to_end::bench_end_to_end;
use super::measure::BenchResult;
use super::pad::{BenchOptions, bench_pad};
use super::scaling::{ScalingOptions, ScalingResult, bench_scaling};
use crate::DataType;
use crate::operators::PadMode;

use crate::cli::args::{BenchArgs, BenchFormat};
use crate::cli::fatal::Fatal;

/// The JSON report's format: 1 was a bare array of results; 2 wraps it as `results` beside
/// `format`.
const BENCH_FORMAT: u32 = 2;

/// `{"format": 2, "results": [...]}`.
fn json_report(results: &impl serde::Serialize) -> Result<String, Fatal> {
    Ok(serde_json::to_string_pretty(
        &serde_json::json!({"format": BENCH_FORMAT, "results": results}),
    )?)
}

pub(crate) fn bench(args: &BenchArgs) -> Result<ExitCode, Fatal> {
    if args.scaling {
        return scaling(args);
    }
    let results = if args.decode {
        vec![bench_decode(args.decode_mib, args.repetitions, args.max_tensor_bytes)?]
    } else if args.end_to_end {
        let (pads, modes) = pads_and_modes(args)?;
        modes
            .into_iter()
            .map(|mode| {
                let cancel = crate::cli::signals::cancel();
                bench_end_to_end(
                    &args.shape,
                    &pads,
                    mode,
                    args.repetitions,
                    args.max_tensor_bytes,
                    &cancel,
                )
            })
            .collect::<Result<_, _>>()?
    } else {
        let (pads, modes) = pads_and_modes(args)?;
        let center_crop_shape = match args.center_crop_shape.as_deref() {
            Some("none") => None,
            Some(list) => Some(
                list.split(',')
                    .map(|v| {
                        v.trim()
                            .parse::<usize>()
                            .map_err(|e| Fatal(format!("--center-crop-shape {list:?}: {v:?}: {e}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            // Asked for modes only: CenterCropPad, which has none, was not asked for.
            None if !args.modes.is_empty() => None,
            // The default crops 8 off the last axis: on a shape that small it would leave
            // nothing to time, so the row is skipped, saying why.
            None => BenchOptions::default_center_crop(&args.shape)
                .inspect_err(|e| eprintln!("pad-conformance: skipping CenterCropPad: {e}"))
                .ok(),
        };
        let data_type =
            DataType::from_name(&args.dtype).ok_or_else(|| Fatal(format!("unknown element type {:?}", args.dtype)))?;
        let options = BenchOptions {
            shape: args.shape.clone(),
            pads,
            modes,
            center_crop_shape,
            data_type,
            repetitions: args.repetitions,
            max_bytes: args.max_tensor_bytes,
        };
        bench_pad(&options)?
    };
    if args.format == BenchFormat::Json {
        println!("{}", json_report(&results)?);
    } else {
        print_table(&results);
    }
    Ok(ExitCode::SUCCESS)
}

/// The human table: the operation, both copies, the ratio to the faster and its goal, and
/// for the kernels the same with fresh outputs.
fn print_table(results: &[BenchResult]) {
    let fresh = results.iter().any(|r| r.fresh.is_some());
    print!(
        "{:<14} {:<9} {:<8} {:>7} {:>7} {:>7} {:>6} {:>6}",
        "op", "mode", "dtype", "GB/s", "memcpy", "stream", "ratio", "goal"
    );
    if fresh {
        print!(" {:>7} {:>7} {:>7} {:>7}", "fresh", "f.copy", "f.ratio", "f.goal");
    }
    println!();
    for r in results {
        print!(
            "{:<14} {:<9} {:<8} {:>7.2} {:>7.2} {:>7.2} {:>6.3} {:>6}",
            r.op,
            r.mode,
            r.dtype,
            r.gbps,
            r.memcpy_gbps,
            r.stream_copy_gbps,
            r.ratio,
            goal_text(r.ratio, r.goal)
        );
        if let Some(f) = &r.fresh {
            print!(
                " {:>7.2} {:>7.2} {:>7.3} {:>7}",
                f.gbps,
                f.copy_gbps,
                f.ratio,
                goal_text(f.ratio, Some(f.goal))
            );
        }
        println!();
    }
    let missed: Vec<String> = results
        .iter()
        .filter(|r| !r.meets_goals())
        .map(BenchResult::label)
        .collect();
    println!(
        "GB/s: the kernel into a reused output; memcpy, stream: the two copies of the same bytes; ratio: GB/s over the faster copy, goal: the ratio it must reach"
    );
    if fresh {
        println!("fresh, f.copy, f.ratio, f.goal: the same into a freshly allocated output each run");
    }
    println!(
        "ratios are to the faster copy of the same bytes, measured in the same run; goals met by {} of {}{}",
        results.len() - missed.len(),
        results.len(),
        if missed.is_empty() {
            String::new()
        } else {
            format!(" (missed: {})", missed.join(", "))
        }
    );
}

/// `≥0.90` when met, `<0.90!` when not, `-` without a goal.
fn goal_text(ratio: f64, goal: Option<f64>) -> String {
    match goal {
        None => "-".to_owned(),
        Some(goal) if ratio >= goal => format!("≥{goal:.2}"),
        Some(goal) => format!("<{goal:.2}!"),
    }
}

/// `--scaling`: the runner over generated corpora of growing size.
fn scaling(args: &BenchArgs) -> Result<ExitCode, Fatal> {
    let options = ScalingOptions {
        counts: args.data_sets.clone(),
        threads: args.jobs.max(1),
        scratch: args.scratch.clone(),
    };
    let terminal = std::io::stderr().is_terminal();
    let results = bench_scaling(&options, &crate::cli::signals::cancel(), &mut |step| {
        if terminal {
            eprintln!("pad-conformance: {step}");
        }
    })?;
    if args.format == BenchFormat::Json {
        println!("{}", json_report(&results)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:>9} {:>10} {:>9} {:>9} {:>12} {:>10} {:>12} {:>9}",
        "data sets", "discover s", "run s", "json s", "µs/data set", "check µs", "overhead µs", "relative"
    );
    for r in &results {
        print_scaling_row(r);
    }
    println!(
        "relative: µs per data set over the smallest corpus's (1.0 is linear); overhead: all but the checks, on {} thread{}",
        options.threads,
        if options.threads == 1 {
            ""
        } else {
            "s (checks overlap: not the runner's alone)"
        }
    );
    Ok(ExitCode::SUCCESS)
}

fn print_scaling_row(r: &ScalingResult) {
    println!(
        "{:>9} {:>10.3} {:>9.3} {:>9.3} {:>12.1} {:>10.1} {:>12.1} {:>9.2}",
        r.data_sets,
        r.discover_seconds,
        r.run_seconds,
        r.json_seconds,
        r.per_data_set_us,
        r.check_us,
        r.overhead_us,
        r.relative
    );
}

/// (begin, end) pads per axis.
type AxisPads = Vec<(i64, i64)>;

/// `--pads` (or the default) per axis, and `--mode` (or every mode).
fn pads_and_modes(args: &BenchArgs) -> Result<(AxisPads, Vec<PadMode>), Fatal> {
    let pads = match &args.pads {
        Some(p) => BenchOptions::pads_from_onnx(&args.shape, p)?,
        None => BenchOptions::default_pads(args.shape.len()),
    };
    let modes = if args.modes.is_empty() {
        BenchOptions::default().modes
    } else {
        args.modes
            .iter()
            .map(|m| PadMode::from_name(m).ok_or_else(|| Fatal(format!("unknown mode {m:?}"))))
            .collect::<Result<_, _>>()?
    };
    Ok((pads, modes))
}
