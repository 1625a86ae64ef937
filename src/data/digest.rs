//! sha256 digests, in hex, of what a report names by digest: a run's selection of data sets
//! and the profile file it ran under.

use sha2::{Digest, Sha256};

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

pub(crate) fn hex(bytes: &[u8]) -> String {
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
