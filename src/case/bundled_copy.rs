//! Recognising a copy of a bundled data set while a case directory is listed: its content's
//! digest against the build's, its bundled case.json read, and each field the copy's own
//! case.json disagrees on ([`super::bundled_origin`] says what a copy keeps).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::DataSet;
use super::info::{CASE_INFO_FILE, CaseInfo};
use crate::data::basis::BasisNote;
use crate::data::bundled_content::{
    BundledDataSet, bundled_case_info, is_bundled_model, max_file_bytes, may_be_bundled_model, with_content,
};
use crate::data::content_key::{self, half};
use crate::data::json_file::read_json;
use crate::data::manifest::{ListedCase, hash_file};
use crate::data::side_file::MAX_CASE_INFO_BYTES;
use crate::platform::slash_separated;

use super::bundled_origin::{BundledOrigin, BundledOriginError, Disagreement};

/// The case at `dir`, whose model is `model_bytes` long (when known), with the data sets
/// listed there: each whose content is a bundled data set's gets its [`BundledOrigin`] (or a
/// problem, when the bundled case.json cannot be had). `listed` is the case's entry in its
/// own corpus's manifest, already verified (its checksums spare reading the files again);
/// `info` its case.json as read, whose disagreements are reported.
pub(super) fn recognise(
    dir: &Path,
    model_bytes: Option<u64>,
    listed: Option<&ListedCase>,
    info: Option<&CaseInfo>,
    data_sets: &mut [DataSet],
) {
    // Most cases are no copy, known by their model's size alone.
    if !model_bytes.is_some_and(may_be_bundled_model) {
        return;
    }
    let files = Files { dir, listed };
    let Some(model) = files.sha256(&dir.join("model.onnx")).filter(is_bundled_model) else {
        return;
    };
    let described = dir.join(CASE_INFO_FILE);
    let own_info = files.sha256(&described).map(|sha256| half(&sha256));
    for data_set in data_sets.iter_mut().filter(|d| d.problem.is_none()) {
        let Some(bundled) = files.content(&model, data_set).and_then(|c| with_content(&c)) else {
            continue;
        };
        let name = format!("{}/{}", bundled.case, bundled.number);
        match origin(bundled, name, own_info.as_ref(), &described, &data_set.dir) {
            Ok(mut origin) => {
                if let Some(own) = info {
                    origin.disagreements = disagreements(own, &origin, data_set, &described);
                }
                data_set.bundled = Some(Arc::new(origin));
            }
            Err(problem) => data_set.problem = Some(super::ListingProblem::Bundled(Arc::new(problem))),
        }
    }
}

/// The files of the case being recognised, by their sha256.
struct Files<'a> {
    dir: &'a Path,
    listed: Option<&'a ListedCase>,
}

impl Files<'_> {
    /// The sha256 of the file at `path`: its manifest's, when a manifest lists the case (its
    /// files were verified against it), else read; `None` for a file that is not there,
    /// cannot be read or is larger than any bundled file (no bundled file, then).
    fn sha256(&self, path: &Path) -> Option<[u8; 32]> {
        if let Some(listed) = self.listed
            && let Some(relative) = path.strip_prefix(self.dir).ok().and_then(slash_separated)
            && let Some(file) = listed.files.iter().find(|f| f.file == relative)
        {
            return Some(file.sha256);
        }
        if std::fs::symlink_metadata(path).is_err() {
            return None;
        }
        let limit = max_file_bytes();
        hash_file(path, limit)
            .ok()
            .filter(|(bytes, _)| *bytes <= limit)
            .map(|(_, sha256)| sha256)
    }

    /// The content digest of `data_set` with the model `model` (`None` when a file of it
    /// cannot be read).
    fn content(&self, model: &[u8; 32], data_set: &DataSet) -> Option<[u8; 16]> {
        let all = |paths: &[PathBuf]| paths.iter().map(|p| self.sha256(p)).collect::<Option<Vec<_>>>();
        let error = match &data_set.expected_error {
            Some(path) => Some(self.sha256(path)?),
            None => None,
        };
        Some(content_key::content(
            model,
            &all(&data_set.inputs)?,
            &all(&data_set.outputs)?,
            error.as_ref(),
        ))
    }
}

/// What `bundled` rests on: for a generated case, its case.json — the copy's own when it is
/// that file (`own_info`, the first half of its sha256), else the bundled corpus's.
fn origin(
    bundled: &BundledDataSet,
    name: String,
    own_info: Option<&[u8; 16]>,
    described: &Path,
    data_set: &Path,
) -> Result<BundledOrigin, BundledOriginError> {
    let Some(digest) = &bundled.info else {
        return Ok(BundledOrigin {
            name,
            basis: BasisNote::upstream(),
            info: None,
            disagreements: Vec::new(),
        });
    };
    let path = if own_info == Some(digest) {
        described.to_owned()
    } else {
        bundled_case_info(bundled.case, digest).map_err(|source| BundledOriginError::Corpus {
            data_set: data_set.to_owned(),
            name: name.clone(),
            source,
        })?
    };
    let info = read_json::<CaseInfo>(&path, MAX_CASE_INFO_BYTES).map_err(|source| BundledOriginError::CaseInfo {
        data_set: data_set.to_owned(),
        name: name.clone(),
        source: Box::new(source),
    })?;
    Ok(BundledOrigin {
        name,
        basis: info.basis.clone(),
        info: Some(Arc::new(info)),
        disagreements: Vec::new(),
    })
}

/// The fields of the copy's case.json `own` that say otherwise than `origin`, the bundled
/// data set `data_set` is a copy of: its basis, what it expects, the rules it lists.
fn disagreements(own: &CaseInfo, origin: &BundledOrigin, data_set: &DataSet, described: &Path) -> Vec<Disagreement> {
    let rules = |rules: &[crate::operators::Rule]| {
        let ids: Vec<&str> = rules.iter().map(|r| r.id()).collect();
        format!("[{}]", ids.join(", "))
    };
    // An upstream data set has no case.json: it expects what its files say, and lists no rules.
    let (expect, their_rules) = match origin.info.as_deref() {
        Some(info) => (info.expect.clone(), rules(&info.rules)),
        None => {
            let expect = if data_set.expected_error.is_some() {
                "error"
            } else {
                "output"
            };
            (expect.to_owned(), rules(&[]))
        }
    };
    let fields = [
        ("basis", own.basis.kind.to_string(), origin.basis.kind.to_string()),
        ("expect", own.expect.clone(), expect),
        ("rules", rules(&own.rules), their_rules),
    ];
    fields
        .into_iter()
        .filter(|(_, claimed, bundled)| claimed != bundled)
        .map(|(field, claimed, bundled)| Disagreement {
            path: described.to_owned(),
            field,
            claimed,
            bundled,
            data_set: data_set.dir.clone(),
            bundled_name: origin.name.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Patterns, TestCase, discover};
    use crate::data::basis::Basis;
    use crate::data::bundled::source_corpus;

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &to.join(entry.file_name()));
            } else {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }

    /// The bundled case at `relative` copied under a root of its own, changed by `change`
    /// (given the copy's directory), and discovered there.
    fn copied(relative: &str, change: impl FnOnce(&Path)) -> (tempfile::TempDir, TestCase) {
        let root = crate::data::scratch_dir().unwrap();
        let name = Path::new(relative).file_name().unwrap();
        let dir = root.path().join("mine").join(name);
        copy_dir(&source_corpus().join(relative), &dir);
        change(&dir);
        let mut cases = discover(&[root.path().to_owned()], &Patterns::default()).unwrap();
        assert_eq!(cases.len(), 1);
        (root, cases.remove(0))
    }

    const WRAP: &str = "onnx-1.22.0/node/test_wrap_pad";

    fn claim(dir: &Path, basis: &str, extra: &str) {
        let text = format!(
            r#"{{"op": "Pad", "domain": "", "version": 25, "mode": "wrap", "dtype": "int32", "expect": "output",
                "basis": {{"kind": "{basis}", "section": "mine"}}{extra}}}"#
        );
        std::fs::write(dir.join(CASE_INFO_FILE), text).unwrap();
    }

    #[test]
    fn a_copy_keeps_the_bundled_basis_whatever_its_sidecar_says() {
        let (_root, case) = copied(WRAP, |dir| claim(dir, "undefined", ""));
        // The case.json is the case's own, and so is its basis; the data set's is the spec.
        assert_eq!(case.basis.kind, Basis::Undefined);
        assert_eq!(case.basis_of(0).kind, Basis::Spec);
        assert!(case.info_of(0).is_none());
        let origin = case.bundled(0).unwrap();
        assert!(origin.name.ends_with("/node/test_wrap_pad/0"), "{}", origin.name);
        let data_set = &case.data_sets[0];
        let [disagreement] = &origin.disagreements[..] else {
            panic!("{:?}", origin.disagreements)
        };
        assert_eq!(
            (
                disagreement.field,
                disagreement.claimed.as_str(),
                disagreement.bundled.as_str()
            ),
            ("basis", "undefined", "spec")
        );
        assert_eq!(disagreement.path, case.dir.join(CASE_INFO_FILE));
        assert_eq!(
            disagreement.to_string(),
            format!(
                "{}: its basis is undefined, but {} is the bundled {} by content, whose basis is spec: the bundled basis holds",
                crate::text::shown_path(&case.dir.join(CASE_INFO_FILE)),
                crate::text::shown_path(&data_set.dir),
                origin.name
            )
        );

        // A case.json listing rules and expecting a refusal: each field is named.
        let (_root, case) = copied(WRAP, |dir| {
            let text = r#"{"op": "Pad", "domain": "", "version": 25, "mode": "wrap", "dtype": "int32",
                "expect": "error", "rules": ["axis-repeated"], "basis": {"kind": "undefined", "section": "mine"}}"#;
            std::fs::write(dir.join(CASE_INFO_FILE), text).unwrap();
        });
        let fields: Vec<(&str, &str, &str)> = case
            .disagreements()
            .map(|d| (d.field, d.claimed.as_str(), d.bundled.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("basis", "undefined", "spec"),
                ("expect", "error", "output"),
                ("rules", "[axis-repeated]", "[]")
            ]
        );
        assert!(case.info_of(0).is_none());

        // A plain copy says nothing otherwise; one that agrees with the bundled data set
        // says nothing either.
        for change in [None, Some("spec")] {
            let (_root, case) = copied(WRAP, |dir| {
                if let Some(basis) = change {
                    claim(dir, basis, "");
                }
            });
            assert_eq!(case.basis_of(0).kind, Basis::Spec);
            assert!(case.bundled(0).is_some());
            assert_eq!(case.disagreements().count(), 0, "{change:?}");
        }
    }

    #[test]
    fn a_data_set_expecting_otherwise_is_one_of_its_own() {
        for file in ["input_0.pb", "output_0.pb"] {
            let (_root, case) = copied(WRAP, |dir| {
                claim(dir, "undefined", "");
                let path = dir.join("test_data_set_0").join(file);
                let mut bytes = std::fs::read(&path).unwrap();
                *bytes.last_mut().unwrap() ^= 1;
                std::fs::write(&path, bytes).unwrap();
            });
            assert!(case.bundled(0).is_none(), "{file}");
            assert_eq!(case.basis_of(0).kind, Basis::Undefined);
            assert_eq!(case.disagreements().count(), 0);
        }
    }

    /// A generated case copied with its case.json relabelled: the bundled case.json, read
    /// from the bundled corpus, holds — its basis, and the rules a must-refuse one breaks.
    #[test]
    fn a_generated_copy_keeps_its_bundled_case_json() {
        let relative = "extended/test_center_crop_pad_ext_dtype_float4e2m1";
        let (_root, case) = copied(relative, |dir| {
            let text = r#"{"op": "CenterCropPad", "domain": "", "version": 18, "mode": null, "dtype": "float4e2m1",
                "expect": "error", "basis": {"kind": "undefined", "section": "mine"}}"#;
            std::fs::write(dir.join(CASE_INFO_FILE), text).unwrap();
        });
        assert_eq!(case.basis.kind, Basis::Undefined);
        assert_eq!(case.basis_of(0).kind, Basis::Spec);
        let rules: Vec<&str> = case.info_of(0).unwrap().rules.iter().map(|r| r.id()).collect();
        assert_eq!(rules, ["data-type"]);
        assert_eq!(case.bundled(0).unwrap().name, format!("{relative}/0"));
        let fields: Vec<&str> = case.disagreements().map(|d| d.field).collect();
        assert_eq!(fields, ["basis", "rules"]);

        // Without a case.json at all: the bundled one, and nothing to warn of.
        let (_root, case) = copied(relative, |dir| std::fs::remove_file(dir.join(CASE_INFO_FILE)).unwrap());
        assert_eq!(case.basis_of(0).kind, Basis::Spec);
        assert_eq!(case.info_of(0).unwrap().rules.len(), 1);
        assert_eq!(case.disagreements().count(), 0);
    }
}
