//! The bundled corpus's data sets by content: the digest of each one's model, inputs and
//! expected files, with its case and the digest of its case.json, as build.rs computed them
//! from the bundled manifests' checksums (src/data/content_key.rs). A data set found anywhere
//! else with a bundled one's content is a copy of it, and keeps its basis and expectation
//! whatever root or sidecar it lies with (src/case/bundled_origin.rs): a copy of
//! `test_wrap_pad` beside a case.json saying `undefined` gated nothing.
//!
//! A generated case's basis is in its case.json. When a copy's case.json is not the bundled
//! one, the bundled one is read from the bundled corpus itself — the source tree's, else
//! (feature `embedded-corpus`) the copy unpacked into the cache — and taken only when its
//! digest is the one this build carries.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::data::bundled;
use crate::data::content_key::half;
use crate::data::manifest::hash_file;

/// build.rs's table: `max-file-bytes\tN`, then one line per content.
const TABLE: &str = include_str!(concat!(env!("OUT_DIR"), "/bundled-content.tsv"));

/// One bundled data set.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BundledDataSet {
    /// Its case, relative to the corpus root: `onnx-1.22.0/node/test_wrap_pad`.
    pub(crate) case: &'static str,
    /// The N of its `test_data_set_N`.
    pub(crate) number: usize,
    /// The first half of its case.json's sha256; `None` for an upstream case (ONNX's own,
    /// listed in the corpus root's manifest), which has none: its basis is the spec.
    pub(crate) info: Option<[u8; 16]>,
}

struct Table {
    /// The largest bundled case file: a larger one is no bundled file, and is not read.
    max_file_bytes: u64,
    /// The bundled models' sizes, known before a model is read.
    model_sizes: HashSet<u64>,
    /// The first half of each bundled model's sha256.
    models: HashSet<[u8; 16]>,
    by_content: HashMap<[u8; 16], BundledDataSet>,
}

fn table() -> &'static Table {
    static READ: OnceLock<Table> = OnceLock::new();
    READ.get_or_init(|| parse(TABLE))
}

/// Written by build.rs in the same build: a line that does not parse is a bug of the build.
fn parse(text: &'static str) -> Table {
    let mut lines = text.lines();
    let max_file_bytes = lines
        .next()
        .and_then(|line| line.strip_prefix("max-file-bytes\t"))
        .and_then(|n| n.parse().ok())
        .expect("build.rs writes the largest file's size first");
    let mut table = Table {
        max_file_bytes,
        model_sizes: HashSet::new(),
        models: HashSet::new(),
        by_content: HashMap::new(),
    };
    for line in lines {
        let fields: Vec<&'static str> = line.split('\t').collect();
        let [model, model_bytes, content, info, kind, case, number] = fields[..] else {
            unreachable!("build.rs writes seven fields per line: {line:?}")
        };
        let digest = |hex: &str| parse_half(hex).expect("build.rs writes 32 hex digits");
        table
            .model_sizes
            .insert(model_bytes.parse().expect("build.rs writes sizes as whole numbers"));
        table.models.insert(digest(model));
        let info = (kind == "g").then(|| digest(info));
        table.by_content.insert(
            digest(content),
            BundledDataSet {
                case,
                number: number
                    .parse()
                    .expect("build.rs writes data set numbers as whole numbers"),
                info,
            },
        );
    }
    table
}

fn parse_half(hex: &str) -> Option<[u8; 16]> {
    let mut out = [0u8; 16];
    if hex.len() != 32 || !hex.is_ascii() {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Whether a model of `bytes` bytes may be a bundled one: known from its size alone, so a
/// corpus of other cases costs no read.
pub(crate) fn may_be_bundled_model(bytes: u64) -> bool {
    table().model_sizes.contains(&bytes)
}

/// Whether the model whose sha256 is `sha256` is a bundled case's.
pub(crate) fn is_bundled_model(sha256: &[u8; 32]) -> bool {
    table().models.contains(&half(sha256))
}

/// The largest file of a bundled case: a file larger than that is no bundled one.
pub(crate) fn max_file_bytes() -> u64 {
    table().max_file_bytes
}

/// The bundled data set of `content` ([`content_key::content`](super::content_key::content)), if any.
pub(crate) fn with_content(content: &[u8; 16]) -> Option<&'static BundledDataSet> {
    table().by_content.get(content)
}

/// Why a bundled case's case.json cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum BundledCorpusError {
    /// Neither the source tree's corpus nor the embedded one holds the case.json this build
    /// carries the digest of (a gate built without `embedded-corpus` whose source tree was
    /// edited or removed).
    #[error(
        "{} is not the bundled case.json this build carries, and no embedded corpus holds it: rebuild",
        crate::text::shown_path(path)
    )]
    Changed {
        /// The source tree's file.
        path: PathBuf,
    },
    /// The embedded corpus cannot be unpacked.
    #[error(transparent)]
    Unpack(#[from] bundled::BundleError),
}

/// The case.json of the bundled `case` whose sha256 begins with `digest`: the source tree's
/// while it is still that file (a checkout, a gate built from its package), else the embedded
/// corpus's, unpacked into the cache.
pub(crate) fn bundled_case_info(case: &str, digest: &[u8; 16]) -> Result<PathBuf, BundledCorpusError> {
    let relative = Path::new(case).join("case.json");
    let is_it = |path: &Path| hash_file(path, max_file_bytes()).is_ok_and(|(_, sha256)| half(&sha256) == *digest);
    let source = bundled::source_corpus().join(&relative);
    if is_it(&source) {
        return Ok(source);
    }
    #[cfg(feature = "embedded-corpus")]
    {
        let unpacked = unpacked()?.join(&relative);
        if is_it(&unpacked) {
            return Ok(unpacked);
        }
    }
    Err(BundledCorpusError::Changed { path: source })
}

/// The embedded corpus, unpacked (and verified) once per process; an unpack that failed is
/// tried again by the next case that needs it.
#[cfg(feature = "embedded-corpus")]
fn unpacked() -> Result<&'static Path, bundled::BundleError> {
    static UNPACKED: OnceLock<PathBuf> = OnceLock::new();
    if let Some(path) = UNPACKED.get() {
        return Ok(path);
    }
    let path = bundled::unpacked_corpus()?;
    Ok(UNPACKED.get_or_init(|| path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::content_key;
    use sha2::{Digest, Sha256};

    fn sha256(path: &Path) -> [u8; 32] {
        Sha256::digest(std::fs::read(path).unwrap()).into()
    }

    #[test]
    fn a_bundled_data_set_is_known_by_its_content() {
        let case = bundled::source_corpus().join("onnx-1.22.0/node/test_wrap_pad");
        let model = std::fs::read(case.join("model.onnx")).unwrap();
        assert!(may_be_bundled_model(model.len() as u64));
        let model = sha256(&case.join("model.onnx"));
        assert!(is_bundled_model(&model));
        let data = case.join("test_data_set_0");
        let inputs = [sha256(&data.join("input_0.pb")), sha256(&data.join("input_1.pb"))];
        let outputs = [sha256(&data.join("output_0.pb"))];
        let found = with_content(&content_key::content(&model, &inputs, &outputs, None)).unwrap();
        // The same case in several releases: one of them names it.
        assert!(found.case.ends_with("/node/test_wrap_pad"), "{found:?}");
        assert_eq!((found.number, found.info), (0, None));
        // Other expected files, or the inputs in another order, are another content.
        assert_eq!(
            with_content(&content_key::content(&model, &inputs, &[inputs[0]], None)),
            None
        );
        let swapped = [inputs[1], inputs[0]];
        assert_eq!(
            with_content(&content_key::content(&model, &swapped, &outputs, None)),
            None
        );
        assert_eq!(
            with_content(&content_key::content(&model, &inputs, &outputs, Some(&model))),
            None
        );

        // A generated case, with the digest of its case.json.
        let relative = "extended/test_center_crop_pad_ext_axes_hwc";
        let case = bundled::source_corpus().join(relative);
        let data = case.join("test_data_set_0");
        let content = content_key::content(
            &sha256(&case.join("model.onnx")),
            &[sha256(&data.join("input_0.pb")), sha256(&data.join("input_1.pb"))],
            &[sha256(&data.join("output_0.pb"))],
            None,
        );
        let found = with_content(&content).unwrap();
        let info = content_key::half(&sha256(&case.join("case.json")));
        assert_eq!((found.case, found.info), (relative, Some(info)));
        assert!(max_file_bytes() >= std::fs::metadata(data.join("output_0.pb")).unwrap().len());
        // Read from the source tree, while it is the file the digest names.
        assert_eq!(bundled_case_info(relative, &info).unwrap(), case.join("case.json"));
    }

    #[test]
    fn a_bundled_case_json_neither_the_tree_nor_the_embedded_corpus_holds_is_an_error_naming_it() {
        let relative = "extended/test_center_crop_pad_ext_axes_hwc";
        let error = bundled_case_info(relative, &[0; 16]).unwrap_err();
        // The path as the system writes it: a backslash before case.json on Windows.
        let named = Path::new(relative).join("case.json");
        assert!(
            error
                .to_string()
                .contains(&format!("{} is not the bundled case.json", named.display())),
            "{error}"
        );
    }
}
