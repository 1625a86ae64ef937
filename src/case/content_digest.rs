//! A data set's content digest: what keys a runtime's stored results across its releases
//! (`pad-conformance history`), so that a result stands for the same content wherever the
//! corpus lies and whatever the data set is named.

use std::io;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::TestCase;
use crate::data::digest::hex;
use crate::data::side_file::open_regular;

/// The first 16 hex digits of the sha256 of data set `index` of `case`: its model, its
/// case.json (which can change what it expects) and its own files, each with its role and
/// length, streamed from disk (a file of any size costs no memory). Equal digests mean equal
/// content wherever the corpus lies, so a result stored for one stands for the other.
pub(crate) fn data_set_digest(case: &TestCase, index: usize) -> io::Result<String> {
    let mut digest = Sha256::new();
    let mut add = |role: &str, path: &Path| -> io::Result<()> {
        // A regular file only (a FIFO would never end), of any size: it is streamed.
        let (mut file, length) =
            open_regular(path, u64::MAX).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        digest.update((role.len() as u64).to_le_bytes());
        digest.update(role.as_bytes());
        digest.update(length.to_le_bytes());
        // Only the length the metadata stated: a file growing while it is read cannot make
        // two contents one digest.
        let mut limited = io::Read::take(&mut file, length);
        let mut buffer = [0u8; 64 * 1024];
        let mut copied = 0u64;
        loop {
            let n = io::Read::read(&mut limited, &mut buffer)?;
            if n == 0 {
                break;
            }
            digest.update(&buffer[..n]);
            copied += n as u64;
        }
        if copied != length {
            return Err(io::Error::other(format!(
                "{}: shrank while it was read",
                path.display()
            )));
        }
        Ok(())
    };
    add("model", &case.dir.join("model.onnx"))?;
    let info = case.dir.join("case.json");
    if info.is_file() {
        add("case", &info)?;
    }
    if let Some(data_set) = case.data_sets.get(index) {
        for (k, input) in data_set.inputs.iter().enumerate() {
            add(&format!("input_{k}"), input)?;
        }
        for (k, output) in data_set.outputs.iter().enumerate() {
            add(&format!("output_{k}"), output)?;
        }
        if let Some(error) = &data_set.expected_error {
            add("expected_error", error)?;
        }
    }
    Ok(hex(&digest.finalize()[..8]))
}
