//! The runner's cost as the corpus grows: many small data sets, generated in a scratch
//! directory and run as the main command runs them (discovery, the run with the human report
//! streamed, the JSON report), so that anything that grows faster than the corpus shows as a
//! per-data-set cost that climbs with it.

use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::measure::BenchError;
use super::scratch_case::CaseFiles;
use crate::backend::RefBackend;
use crate::cancel::Cancel;
use crate::case::{Patterns, discover};
use crate::data::scratch::scratch_in;
use crate::fuzz::FuzzCase;
use crate::judge::check::{CheckOptions, Status};
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::report::{Colors, write_json, write_outcome, write_summary};
use crate::run::runner::{jobs, run_jobs};
use crate::tensor::Tensor;

/// How many data sets to time, and on how many threads.
#[derive(Clone, Debug)]
pub(crate) struct ScalingOptions {
    /// The corpus sizes, in data sets, one measurement each.
    pub counts: Vec<usize>,
    /// Threads the run uses. With one, the time not spent checking data sets is the runner's.
    pub threads: usize,
    /// Where the scratch corpora are written (default: the system's temporary directory). A
    /// memory file system (/dev/shm) takes the disk out of the figures.
    pub scratch: Option<PathBuf>,
}

impl Default for ScalingOptions {
    fn default() -> Self {
        ScalingOptions {
            counts: vec![1_000, 10_000, 100_000],
            threads: 1,
            scratch: None,
        }
    }
}

/// One corpus size, timed.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ScalingResult {
    /// Data sets in the corpus (one per case).
    pub data_sets: usize,
    /// Seconds to find the cases.
    pub discover_seconds: f64,
    /// Seconds of the run, the streamed human report included.
    pub run_seconds: f64,
    /// Seconds to write the JSON report.
    pub json_seconds: f64,
    /// Microseconds per data set, everything included.
    pub per_data_set_us: f64,
    /// Of those, the microseconds inside the check of a data set (reading its files, running
    /// the backend, comparing), summed over the data sets.
    pub check_us: f64,
    /// The rest: discovery, the case's model, scheduling and the reports, per data set. Only
    /// meaningful with one thread, where checks do not overlap.
    pub overhead_us: f64,
    /// `per_data_set_us` over that of the smallest corpus measured: 1 for linear cost.
    pub relative: f64,
}

/// The variants of the small cases: every mode, ranks 1 to 3, a negative pad among them.
fn variants() -> Vec<FuzzCase> {
    let shapes: [&[usize]; 4] = [&[5], &[3, 4], &[2, 3, 4], &[6, 2]];
    let modes = [PadMode::Constant, PadMode::Edge, PadMode::Reflect, PadMode::Wrap];
    let mut cases = Vec::new();
    for (i, shape) in shapes.iter().enumerate() {
        for (j, mode) in modes.iter().enumerate() {
            let count: usize = shape.iter().product();
            let rank = shape.len();
            // One pad before and two after on the last axis, and one removed at the front of
            // the first when there are two or more.
            let mut pads = vec![0i64; 2 * rank];
            pads[rank - 1] = 1;
            pads[2 * rank - 1] = 2;
            if rank > 1 && (i + j) % 2 == 0 {
                pads[0] = -1;
            }
            cases.push(FuzzCase {
                operator: OpVersion {
                    op: PadOp::Pad,
                    version: 19,
                },
                mode: Some(mode.name().to_owned()),
                data: Tensor::from_vec(shape, (0..count).map(|v| v as f32 * 0.5).collect()).expect("count elements"),
                pads,
                pads_2d: false,
                constant: None,
                axes: None,
                int32_indices: false,
            });
        }
    }
    cases
}

/// Writes `count` cases of one data set each under `root`, a thousand to a directory; stops
/// when `cancel` is tripped.
fn write_corpus(root: &Path, count: usize, files: &[CaseFiles], cancel: &Cancel) -> Result<(), BenchError> {
    for i in 0..count {
        interrupted(cancel)?;
        files[i % files.len()].write(&root.join(format!("group_{:04}/test_scale_{i:07}_pad", i / 1000)))?;
    }
    Ok(())
}

/// Generates each corpus size in a scratch directory and times a whole run of `ref` over it,
/// the reports written to a sink. `progress` hears what is under way (generating 100,000 cases
/// takes a while). A tripped `cancel` stops it, the scratch corpus removed.
pub(crate) fn bench_scaling(
    options: &ScalingOptions,
    cancel: &Cancel,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<ScalingResult>, BenchError> {
    if options.counts.contains(&0) {
        return Err(BenchError::Scaling(
            "a corpus of 0 data sets has nothing to time".to_owned(),
        ));
    }
    let files = variants()
        .iter()
        .enumerate()
        .map(|(i, case)| CaseFiles::new(case, &format!("test_scale_{i}_pad")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut results: Vec<ScalingResult> = Vec::new();
    for &count in &options.counts {
        let parent = options.scratch.clone().unwrap_or_else(std::env::temp_dir);
        let scratch = scratch_in(&parent, "pad-conformance-scaling-").map_err(|e| {
            let place = options.scratch.as_ref().map_or_else(
                || "the temporary directory".to_owned(),
                |dir| format!("{} (--scratch)", dir.display()),
            );
            BenchError::Scaling(format!("making a directory in {place}: {e}"))
        })?;
        progress(&format!("writing {count} data sets"));
        let measured = write_corpus(scratch.path(), count, &files, cancel).and_then(|()| {
            // The corpus's dirty pages go to disk now, not while the run is timed.
            #[cfg(unix)]
            // SAFETY: sync(2) takes no arguments and cannot fail.
            unsafe {
                libc::sync()
            };
            progress(&format!("running {count} data sets"));
            // sync(2) and discovery take seconds over 100,000 cases and watch no token: a
            // signal that came meanwhile stops here, before the run.
            interrupted(cancel)?;
            time_run(scratch.path(), count, options.threads, cancel)
        });
        if cancel.is_cancelled() {
            // Removing 100,000 cases takes a while: say why the command has not ended yet.
            progress("interrupted: removing the scratch corpus");
        }
        let result = measured?;
        let relative = results
            .first()
            .map_or(1.0, |first| result.per_data_set_us / first.per_data_set_us);
        results.push(ScalingResult { relative, ..result });
    }
    Ok(results)
}

/// Stops a cancelled measurement: its scratch corpus is removed as the error unwinds.
fn interrupted(cancel: &Cancel) -> Result<(), BenchError> {
    if cancel.is_cancelled() {
        return Err(BenchError::Scaling("interrupted".to_owned()));
    }
    Ok(())
}

/// One run over the corpus at `root`, as the main command makes it.
fn time_run(root: &Path, count: usize, threads: usize, cancel: &Cancel) -> Result<ScalingResult, BenchError> {
    let start = Instant::now();
    let cases = discover(&[root.to_owned()], &Patterns::default()).map_err(|e| BenchError::Scaling(e.to_string()))?;
    interrupted(cancel)?;
    let jobs = jobs(&cases);
    let discovered = start.elapsed();
    let options = CheckOptions::default();
    let mut out = BufWriter::new(io::sink());
    let mut written = Ok(());
    let report = run_jobs(&RefBackend, &jobs, &options, threads, cancel, &mut |outcome| {
        if written.is_ok() {
            written = write_outcome(outcome, None, Colors::Never, &mut out);
        }
    });
    written
        .and_then(|()| write_summary(&report, None, None, Colors::Never, &mut out))
        .map_err(|e| BenchError::Scaling(e.to_string()))?;
    let ran = start.elapsed();
    write_json(&report, &mut out).map_err(|e| BenchError::Scaling(e.to_string()))?;
    let total = start.elapsed();
    if report.outcomes.len() != count {
        return Err(BenchError::Scaling(format!(
            "{} data sets ran of the {count} written",
            report.outcomes.len()
        )));
    }
    if let Some(outcome) = report.outcomes.iter().find(|o| o.status() != Status::Passed) {
        return Err(BenchError::Scaling(format!(
            "{} did not pass: {}",
            outcome.name(),
            outcome.message()
        )));
    }
    let checking: Duration = report.outcomes.iter().map(|o| o.duration()).sum();
    let per = |time: Duration| time.as_secs_f64() * 1e6 / count as f64;
    Ok(ScalingResult {
        data_sets: count,
        discover_seconds: discovered.as_secs_f64(),
        run_seconds: (ran - discovered).as_secs_f64(),
        json_seconds: (total - ran).as_secs_f64(),
        per_data_set_us: per(total),
        check_us: per(checking),
        overhead_us: per(total.saturating_sub(checking)),
        relative: 1.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_corpus_runs_and_every_data_set_counts() {
        let scratch = crate::data::scratch_dir().unwrap();
        let options = ScalingOptions {
            counts: vec![20, 40],
            threads: 1,
            scratch: Some(scratch.path().to_owned()),
        };
        let results = bench_scaling(&options, &Cancel::new(), &mut |_| {}).unwrap();
        assert_eq!(results.iter().map(|r| r.data_sets).collect::<Vec<_>>(), [20, 40]);
        assert_eq!(results[0].relative, 1.0);
        // Each corpus is removed once timed.
        assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);
        for r in &results {
            assert!(r.check_us > 0.0 && r.overhead_us > 0.0, "{r:?}");
            let parts = r.check_us + r.overhead_us;
            assert!(
                (parts - r.per_data_set_us).abs() < 1e-6 * r.per_data_set_us.max(1.0),
                "{r:?}"
            );
        }
    }

    #[test]
    fn a_signal_at_any_step_stops_the_measurement_and_removes_its_corpus() {
        for at in ["writing", "running"] {
            let scratch = crate::data::scratch_dir().unwrap();
            let options = ScalingOptions {
                counts: vec![30, 60],
                threads: 1,
                scratch: Some(scratch.path().to_owned()),
            };
            let cancel = Cancel::new();
            let mut steps = Vec::new();
            let result = bench_scaling(&options, &cancel, &mut |step| {
                steps.push(step.to_owned());
                if step.starts_with(at) {
                    cancel.cancel();
                }
            });
            assert!(
                matches!(&result, Err(BenchError::Scaling(why)) if why == "interrupted"),
                "{at}: {result:?}"
            );
            // The first corpus size is the last begun, and nothing of it is left.
            assert_eq!(steps[steps.len() - 2], format!("{at} 30 data sets"));
            assert_eq!(steps.last().unwrap(), "interrupted: removing the scratch corpus");
            assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0, "{at}");
        }
    }

    #[test]
    fn every_variant_is_a_case_the_reference_passes() {
        // Sixteen distinct models: four shapes by four modes.
        let files: Vec<_> = variants()
            .iter()
            .map(|c| CaseFiles::new(c, "test_v_pad").unwrap())
            .collect();
        assert_eq!(files.len(), 16);
        let models: std::collections::HashSet<_> = files.iter().map(|f| f.model.clone()).collect();
        assert_eq!(models.len(), 16);
    }
}
