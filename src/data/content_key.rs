//! The digest that recognises a bundled data set wherever a copy of it lies: its content —
//! model, inputs and expected files — without its case.json, the sidecar that says what the
//! content rests on. build.rs computes it from the bundled manifests' checksums, the runner
//! from the files it finds (src/data/bundled_content.rs): this one file serves both, so the
//! two cannot disagree.

use sha2::{Digest, Sha256};

/// A data set's content, from the sha256 of its model, of its inputs and expected outputs in
/// order, and of its `expected_error.txt` (when present): equal for two data sets that hand a
/// backend the same model and tensors and expect the same of it. 128 bits: no two of the
/// bundled corpus's few thousand data sets, nor a data set made to pass for one, share them.
pub(crate) fn content(
    model: &[u8; 32],
    inputs: &[[u8; 32]],
    outputs: &[[u8; 32]],
    expected_error: Option<&[u8; 32]>,
) -> [u8; 16] {
    let mut digest = Sha256::new();
    digest.update(b"data set content\0");
    digest.update(model);
    for files in [inputs, outputs] {
        digest.update((files.len() as u64).to_le_bytes());
        for file in files {
            digest.update(file);
        }
    }
    match expected_error {
        Some(sha256) => {
            digest.update([1]);
            digest.update(sha256);
        }
        None => digest.update([0]),
    }
    half(&digest.finalize().into())
}

/// The first 128 bits of a sha256: how the table names files (a case.json, a model).
pub(crate) fn half(sha256: &[u8; 32]) -> [u8; 16] {
    let mut half = [0u8; 16];
    half.copy_from_slice(&sha256[..16]);
    half
}
