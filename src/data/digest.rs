//! sha256 digests, in hex, of what a report names by digest: a run's selection of data sets
//! and the profile file it ran under; and of a data set's content, which keys a runtime's
//! stored results across releases (`pad-conformance history`).

use std::io;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::case::TestCase;
use crate::data::side_file::open_regular;

/// The sha256 (hex) of a set of data set names: the same for the same names in any order.
pub fn selection_digest<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> String {
    let mut names: Vec<S> = names.into_iter().collect();
    names.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
    let mut digest = Sha256::new();
    for name in names {
        digest.update(name.as_ref().as_bytes());
        digest.update(b"\n");
    }
    hex(&digest.finalize())
}

/// The sha256 (hex) of a file's bytes: how a report names the profile it ran under.
pub(crate) fn bytes_digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_digest_is_of_the_names_in_any_order() {
        assert_eq!(selection_digest(["b/0", "a/0"]), selection_digest(["a/0", "b/0"]));
        assert_ne!(selection_digest(["a/0"]), selection_digest(["a/0", "b/0"]));
        // Names are separated: "a/0" + "b/0" is not "a/0b/0".
        assert_ne!(selection_digest(["a/0", "b/0"]), selection_digest(["a/0b/0"]));
        assert_eq!(
            bytes_digest(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
