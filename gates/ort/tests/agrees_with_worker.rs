//! onnxruntime through `ort` (examples/conformance/) and through the Python worker
//! (scripts/backends/onnxruntime-worker) load the same libonnxruntime from the same wheel,
//! run under the same profile (baselines/onnxruntime.profile.toml) and are judged by the
//! same rules, so their baselines must list the same data sets with the same statuses. The
//! reasons may differ in wording (the Python binding prefixes its exceptions), and are not
//! compared. A difference means one of the two adapters converts something wrongly.

use std::collections::BTreeMap;
use std::path::Path;

use pad_conformance::testing::Baseline;

fn statuses(path: &Path) -> BTreeMap<String, String> {
    let baseline = Baseline::read(path).unwrap_or_else(|e| panic!("{e}"));
    baseline
        .expected
        .into_iter()
        // A data set may hold one entry per configuration: neither baseline names any.
        .map(|(name, entries)| {
            let statuses: Vec<String> = entries.0.iter().map(|e| format!("{:?}", e.status)).collect();
            (name, statuses.join(","))
        })
        .collect()
}

#[test]
fn the_ort_gate_and_the_python_worker_list_the_same_failures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ort = statuses(&dir.join("ort.known-failures.json"));
    let worker = statuses(&dir.join("../../baselines/onnxruntime.json"));
    let only_ort: Vec<_> = ort
        .iter()
        .filter(|(name, status)| worker.get(*name) != Some(status))
        .collect();
    let only_worker: Vec<_> = worker
        .iter()
        .filter(|(name, status)| ort.get(*name) != Some(status))
        .collect();
    assert!(
        only_ort.is_empty() && only_worker.is_empty(),
        "the baselines disagree;\n  ort.known-failures.json alone: {only_ort:?}\n  baselines/onnxruntime.json alone: {only_worker:?}"
    );
    // Not two empty lists agreeing: the worker's baseline has real failures in it.
    assert!(
        worker.len() >= 20,
        "baselines/onnxruntime.json lists {} failures",
        worker.len()
    );
}
