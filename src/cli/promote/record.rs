//! What a promoted case's case.json records beside what it tests: for a finding, how it was
//! promoted (`promotion`: the finding, who found it, the second oracle's word) and, when it
//! must be refused, its valid twin (`twin`); for a twin, the case it is the twin of, what was
//! repaired, and the second oracle's word on its expected output. Read back to name a twin in
//! a case promoted before twins, its other fields written as they were.

use serde::{Deserialize, Serialize};

use super::second_oracle::OracleStatus;
use crate::case::info::CaseInfo;

/// A promoted finding's case.json.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct PromotedInfo {
    /// What it tests.
    #[serde(flatten)]
    pub info: CaseInfo,
    /// How it was promoted.
    pub promotion: Promotion,
}

/// How a finding was promoted.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Promotion {
    /// The finding's directory name, as `fuzz --out` wrote it.
    pub finding: String,
    /// The runtime the finding was made against (`--from`), as the fuzz report names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_by: Option<String>,
    /// Whether a second oracle confirmed its expected result.
    pub oracle: OracleStatus,
    /// That oracle, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second_oracle: Option<String>,
    /// Why the reference alone vouches for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A twin's case.json.
#[derive(Debug, Serialize)]
pub(super) struct TwinInfo<'a> {
    /// What it tests.
    #[serde(flatten)]
    pub info: &'a CaseInfo,
    /// Whose twin it is.
    pub promotion: TwinPromotion<'a>,
}

/// Whose twin a case is, and how its expected output is vouched for.
#[derive(Debug, Serialize)]
pub(super) struct TwinPromotion<'a> {
    /// The must-refuse case's directory name.
    pub twin_of: &'a str,
    /// What the twin has instead of the property the case breaks: `mode "edge"`.
    pub repaired: &'a str,
    /// Whether a second oracle confirmed its expected output.
    pub oracle: OracleStatus,
    /// That oracle, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_oracle: Option<&'a str>,
    /// Why the reference alone vouches for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'a str>,
}

/// `record` as case.json holds it: pretty, with a final newline.
pub(super) fn case_json(record: &impl Serialize) -> Vec<u8> {
    let json = serde_json::to_string_pretty(record).expect("case.json serializes");
    format!("{json}\n").into_bytes()
}

/// The case.json `bytes` of a promoted finding, naming `twin` as its valid twin; every other
/// field as it was.
pub(super) fn naming_twin(bytes: &[u8], twin: &str) -> Result<Vec<u8>, serde_json::Error> {
    let mut record: PromotedInfo = serde_json::from_slice(bytes)?;
    record.info.twin = Some(twin.to_owned());
    Ok(case_json(&record))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every committed finding's case.json reads back and writes as it was, so naming a twin
    /// changes its `twin` alone.
    #[test]
    fn a_promoted_case_json_is_written_back_as_it_was_but_for_its_twin() {
        let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/fuzz");
        let mut findings = 0;
        for entry in std::fs::read_dir(fuzz).unwrap() {
            let path = entry.unwrap().path().join("case.json");
            let Ok(bytes) = std::fs::read(&path) else { continue };
            let record: Result<PromotedInfo, _> = serde_json::from_slice(&bytes);
            let Ok(record) = record else { continue };
            findings += 1;
            let Some(twin) = record.info.twin.clone() else {
                assert_eq!(case_json(&record), bytes, "{}", path.display());
                continue;
            };
            let text = String::from_utf8(bytes.clone()).unwrap();
            let without = text.replace(&format!("  \"twin\": {twin:?},\n"), "");
            assert_ne!(without, text);
            assert_eq!(
                naming_twin(without.as_bytes(), &twin).unwrap(),
                bytes,
                "{}",
                path.display()
            );
        }
        assert_eq!(findings, 52);
    }
}
