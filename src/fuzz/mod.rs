//! Differential fuzzing: random Pad-family configurations drawn from the operator table, the
//! reference backend as the oracle, any backend as the subject. Disagreements are grouped by
//! root cause ([`CauseKey`]): the first case showing a cause is shrunk to a small case that
//! still shows that cause on the same or a stronger basis, and can be written as a node-test
//! case that `pad-conformance` runs as it stands. Case `i` of seed `s` is drawn by a
//! generator of its own ([`generate_case`]), so runs split into shards.

mod basis;
mod case;
pub(crate) mod encoding;
mod error;
mod evaluate;
mod finding;
pub(crate) mod from_model;
mod generate;
mod options;
mod report;
pub(crate) mod reproducer;
mod shrink;
pub(crate) mod twin;
mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::backend::Driven;
use crate::judge::cause_key::CauseKey;
use crate::tensor::Tensor;

pub(crate) use case::FuzzCase;
pub(crate) use case::encoded_inputs;
use encoding::Encoding;
pub(crate) use error::FuzzError;
use evaluate::{Evaluation, evaluate};
pub use finding::Finding;
pub(crate) use finding::Site;
pub use generate::Shape;
use generate::generate;
pub use options::FuzzOptions;
pub use report::FuzzReport;
pub(crate) use report::Progress;

/// Fuzzes `backend` against the reference. `progress` is called now and then.
pub fn fuzz(
    backend: &dyn Driven,
    options: &FuzzOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<FuzzReport, FuzzError> {
    let max_elements = options.shape.max_elements;
    if !(1..=Shape::MAX_ELEMENTS).contains(&max_elements) {
        return Err(FuzzError::MaxElements(max_elements));
    }
    let threads = options.threads.max(1);
    // A batch's cases, expected outputs and answers are all held at once: fewer cases of a
    // larger shape, so that a batch holds about as many elements whatever the shape.
    let batch_size = (BATCH_ELEMENTS / max_elements).clamp(threads, BATCH);
    // Model files, one per case for backends that read them: on a memory file system where
    // one has room (a case's largest tensor, complex128, and its folded model, per thread).
    let room = (max_elements as u64).saturating_mul(64).saturating_mul(threads as u64);
    let scratches = (0..threads)
        .map(|_| crate::data::scratch::private_dir("pad-conformance-fuzz-", room))
        .collect::<Result<Vec<_>, _>>()
        .map_err(FuzzError::Scratch)?;
    let start = Instant::now();
    if let Some(time) = options.time {
        options.cancel.cancel_at(start + time);
    }
    let mut report = FuzzReport::default();
    let mut seen: BTreeMap<(Encoding, CauseKey), Finding> = BTreeMap::new();
    let mut dropped: BTreeSet<(Encoding, CauseKey)> = BTreeSet::new();
    let mut stored = 0;
    let mut last_progress = Instant::now();
    let mut indices = options.shard.indices(options.case_limit());
    loop {
        if options.cancel.is_cancelled() {
            break;
        }
        let batch: Vec<u64> = indices.by_ref().take(batch_size).collect();
        if batch.is_empty() {
            break;
        }
        let evaluations = evaluate_all(backend, &batch, &scratches, options);
        for (index, evaluation) in batch.into_iter().zip(evaluations) {
            // Not evaluated, or cut short by the cancellation: not a case of the run.
            let Some(evaluation) = evaluation else { continue };
            let (case, evaluation) = evaluation?;
            report.cases += 1;
            report.unsupported += u64::from(evaluation.unsupported);
            report.reencoded += u64::from(evaluation.reencoded);
            let Some((encoding, key)) = evaluation.shows() else {
                continue;
            };
            let key = (encoding, key.clone());
            match seen.get_mut(&key) {
                Some(finding) if !finding.weaker_than(evaluation.basis.kind) => finding.hit(Site::of(&case)),
                None if stored >= options.stored_elements => {
                    dropped.insert(key);
                }
                // The first case of a cause, or the first on a stronger basis: it is shrunk and
                // reported, the counts so far kept.
                _ => {
                    let scratch = scratches[0].path();
                    let mut finding = shrink::shrink(backend, (index, case), evaluation, &key, scratch, options)?;
                    if let Some(known) = seen.remove(&key) {
                        stored -= elements_of(&known);
                        finding.absorb(known);
                    }
                    stored += elements_of(&finding);
                    seen.insert(key, finding);
                }
            }
        }
        if last_progress.elapsed() >= Duration::from_millis(200) {
            last_progress = Instant::now();
            progress(&Progress {
                cases: report.cases,
                elapsed: start.elapsed(),
                findings: seen.len(),
            });
        }
    }
    report.duration = start.elapsed();
    report.dropped = dropped.len() as u64;
    report.split(seen.into_values(), &options.check.gating);
    Ok(report)
}

/// Case `index` of the run seeded `seed`: each case draws from a generator of its own, so any
/// case can be drawn again alone and a run split into shards.
pub fn generate_case(seed: u64, index: u64, shape: &Shape) -> FuzzCase {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    generate(&mut rng, shape)
}

/// Cases drawn at a time, at most: evaluated in parallel, then taken in order.
const BATCH: usize = 256;
/// The elements of the largest cases a batch draws, together: 4 Mi.
const BATCH_ELEMENTS: usize = 1 << 22;

/// The tensor elements `finding` holds.
fn elements_of(finding: &Finding) -> usize {
    let outputs = finding.expected.as_ref().map_or(0, |o| o.iter().map(Tensor::len).sum());
    finding.case.data.len() + finding.original.data.len() + outputs
}

/// Draws and evaluates the cases `indices` on `scratches.len()` threads, each with its own
/// scratch directory, each taking the next case left as it finishes one (cases differ in cost
/// a thousandfold: fixed shares would leave a thread idle); results come back in the order of
/// `indices`, `None` for those the cancellation stopped.
fn evaluate_all(
    backend: &dyn Driven,
    indices: &[u64],
    scratches: &[crate::data::scratch::Scratch],
    options: &FuzzOptions,
) -> Vec<Option<Result<(FuzzCase, Evaluation), FuzzError>>> {
    let next = AtomicUsize::new(0);
    let mut results: Vec<_> = indices.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = scratches
            .iter()
            .take(indices.len())
            .map(|scratch| {
                let next = &next;
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let position = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&index) = indices.get(position) else { break };
                        if options.cancel.is_cancelled() {
                            break;
                        }
                        let case = generate_case(options.seed, index, &options.shape);
                        let reencode = options.reencoding_for(index, backend);
                        let evaluation = evaluate(backend, &case, scratch.path(), &options.check, reencode);
                        if options.cancel.is_cancelled() {
                            break;
                        }
                        done.push((position, evaluation.map(|e| (case, e))));
                    }
                    done
                })
            })
            .collect();
        for handle in handles {
            for (position, result) in handle.join().expect("evaluation catches the backend's panics") {
                results[position] = Some(result);
            }
        }
    });
    results
}
