//! `bench`: the reference kernels against a plain copy of the same bytes.

use std::process::ExitCode;

use pad_conformance::DataType;
use pad_conformance::bench::{BenchOptions, bench_decode, bench_end_to_end, bench_pad};
use pad_conformance::operators::PadMode;

use super::Fatal;
use super::args::{BenchArgs, BenchFormat};

pub fn bench(args: &BenchArgs) -> Result<ExitCode, Fatal> {
    let results = if args.decode {
        vec![bench_decode(args.decode_mib, args.repetitions, args.max_tensor_bytes)?]
    } else if args.end_to_end {
        let (pads, modes) = pads_and_modes(args)?;
        modes
            .into_iter()
            .map(|mode| bench_end_to_end(&args.shape, &pads, mode, args.repetitions, args.max_tensor_bytes))
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
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        println!(
            "{:<14} {:<9} {:<8} {:>9} {:>11} {:>9} {:>7}",
            "op", "mode", "dtype", "GB/s", "fresh GB/s", "copy GB/s", "ratio"
        );
        for r in &results {
            println!(
                "{:<14} {:<9} {:<8} {:>9.2} {:>11.2} {:>9.2} {:>7.3}",
                r.op, r.mode, r.dtype, r.gbps, r.fresh_gbps, r.copy_gbps, r.ratio
            );
        }
    }
    Ok(ExitCode::SUCCESS)
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
