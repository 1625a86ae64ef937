//! `pad-conformance coverage`: which (operator version, dtype, mode) triples the generated
//! cases cover, read from their case.json files, against every triple the operator table
//! ([`crate::operators`]) makes legal.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::case::info::{CASE_INFO_FILE, CaseInfo};
use crate::case::narrowing::Narrowing;
use crate::data::json_file::{JsonFileError, read_json};
use crate::data::side_file::MAX_CASE_INFO_BYTES;
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::tensor::DataType;

/// Why the coverage of a corpus cannot be read.
#[derive(Debug, thiserror::Error)]
pub(super) enum CoverageError {
    /// A directory that cannot be walked.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Read {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A case.json that cannot be read, or is not JSON of the expected shape.
    #[error(transparent)]
    CaseJson(#[from] JsonFileError),
    /// A case.json naming an operator, element type or mode this project does not know.
    #[error("{}: unknown {field} {value:?}", crate::text::shown_path(path))]
    Unknown {
        /// The case.json.
        path: PathBuf,
        /// `operator`, `dtype` or `mode`.
        field: &'static str,
        /// The value it holds.
        value: String,
    },
    /// No case.json at all.
    #[error(
        "no test cases found under {}: no case.json files (coverage reads the generated corpus, onnx-testdata/extended)",
        .0.display()
    )]
    Empty(PathBuf),
}

/// Case counts per (operator version, dtype, mode), for cases expecting outputs; the mode is
/// `None` for CenterCropPad, which has none.
#[derive(Clone, Debug, Default)]
pub(super) struct Coverage {
    /// Cases per (operator version, dtype, mode).
    pub counts: BTreeMap<(OpVersion, DataType, Option<PadMode>), usize>,
    /// Cases that must be refused.
    pub refusals: usize,
    /// Per (narrowing, dtype) of the cases that name one in case.json (with outputs or
    /// refused): the operator versions they run at, and how many cases.
    pub narrowings: BTreeMap<(Narrowing, DataType), (BTreeSet<OpVersion>, usize)>,
}

impl Coverage {
    /// Reads every case.json under `root`; finding none is an error naming the root.
    pub(super) fn read(root: &Path) -> Result<Coverage, CoverageError> {
        let mut coverage = Coverage::default();
        for entry in WalkDir::new(root).sort_by_file_name() {
            let entry = entry.map_err(|e| CoverageError::Read {
                path: e.path().unwrap_or(root).to_owned(),
                source: e.into(),
            })?;
            if entry.file_name() != CASE_INFO_FILE {
                continue;
            }
            let path = entry.path();
            let unknown = |field, value: &str| CoverageError::Unknown {
                path: path.to_owned(),
                field,
                value: value.to_owned(),
            };
            let info: CaseInfo = read_json(path, MAX_CASE_INFO_BYTES)?;
            let op = PadOp::of(&info.domain, &info.op)
                .ok_or_else(|| unknown("operator", &format!("{}.{}", info.domain, info.op)))?;
            let data_type = DataType::from_name(&info.dtype).ok_or_else(|| unknown("dtype", &info.dtype))?;
            let op_version = OpVersion {
                op,
                version: info.version,
            };
            if let Some(narrowing) = info.narrowing {
                let (versions, cases) = coverage.narrowings.entry((narrowing, data_type)).or_default();
                versions.insert(op_version);
                *cases += 1;
            }
            if info.expect == "error" {
                coverage.refusals += 1;
                continue;
            }
            let mode = match info.mode.as_deref() {
                None => None,
                Some(name) => Some(PadMode::from_name(name).ok_or_else(|| unknown("mode", name))?),
            };
            let key = (op_version, data_type, mode);
            *coverage.counts.entry(key).or_default() += 1;
        }
        if coverage.counts.is_empty() && coverage.refusals == 0 {
            return Err(CoverageError::Empty(root.to_owned()));
        }
        Ok(coverage)
    }

    /// The legal (operator version, dtype, mode) triples no case covers.
    pub(super) fn missing(&self) -> Vec<(OpVersion, DataType, Option<PadMode>)> {
        let mut missing = Vec::new();
        for op in OpVersion::all() {
            for data_type in op.data_types() {
                for mode in modes(op) {
                    if !self.counts.contains_key(&(op, data_type, mode)) {
                        missing.push((op, data_type, mode));
                    }
                }
            }
        }
        missing
    }

    /// One row per dtype, one column per operator version; a cell lists the modes covered by
    /// their initials (c, r, e, w; ✓ for CenterCropPad) with the case count, `·` where the
    /// version does not accept the dtype, and MISSING for an uncovered legal triple. Markdown,
    /// or plain columns for a terminal.
    pub(super) fn write_table(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        let ops: Vec<OpVersion> = OpVersion::all().collect();
        let mut rows = vec![
            std::iter::once("dtype".to_owned())
                .chain(ops.iter().map(|op| op.short_label()))
                .collect(),
        ];
        for data_type in DataType::ALL {
            let cells = ops.iter().map(|op| self.cell(*op, data_type));
            rows.push(
                std::iter::once(data_type.to_string())
                    .chain(cells)
                    .collect::<Vec<String>>(),
            );
        }
        match style {
            Style::Markdown => {
                for (i, row) in rows.iter().enumerate() {
                    writeln!(out, "| {} |", row.join(" | "))?;
                    if i == 0 {
                        writeln!(out, "|---|{}", "---|".repeat(ops.len()))?;
                    }
                }
            }
            Style::Human => {
                let widths: Vec<usize> = (0..rows[0].len())
                    .map(|c| rows.iter().map(|row| row[c].chars().count()).max().unwrap_or(0))
                    .collect();
                for row in &rows {
                    let cells: Vec<String> = row
                        .iter()
                        .zip(&widths)
                        .map(|(cell, &w)| format!("{cell:<w$}"))
                        .collect();
                    writeln!(out, "{}", cells.join("  ").trim_end())?;
                }
            }
        }
        let total: usize = self.counts.values().sum();
        writeln!(
            out,
            "\n{total} cases with expected outputs, {} that must be refused.",
            self.refusals
        )?;
        writeln!(out, "\n{LEGEND}")?;
        self.write_narrowings(out, style)
    }

    /// The narrowing dimension, when some case names one: a row per (narrowing, dtype) with
    /// the operator versions its cases run at and their count.
    fn write_narrowings(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        if self.narrowings.is_empty() {
            return Ok(());
        }
        writeln!(out, "\nCases exposing a narrowing (case.json's `narrowing`):\n")?;
        let rows = self
            .narrowings
            .iter()
            .map(|((narrowing, data_type), (versions, cases))| {
                let versions: Vec<String> = versions.iter().map(|op| op.short_label()).collect();
                [
                    narrowing.to_string(),
                    data_type.to_string(),
                    versions.join(", "),
                    cases.to_string(),
                ]
            });
        let header = ["narrowing", "dtype", "versions", "cases"].map(str::to_owned);
        match style {
            Style::Markdown => {
                writeln!(out, "| {} |\n|---|---|---|---:|", header.join(" | "))?;
                for row in rows {
                    writeln!(out, "| {} |", row.join(" | "))?;
                }
            }
            Style::Human => {
                for row in std::iter::once(header).chain(rows) {
                    writeln!(out, "{:<28}  {:<11}  {:<64}  {}", row[0], row[1], row[2], row[3])?;
                }
            }
        }
        let total: usize = self.narrowings.values().map(|(_, cases)| cases).sum();
        writeln!(out, "\n{total} cases expose a narrowing.")
    }

    /// The cell of `op` and `data_type`: the modes covered and the case count, `·` or MISSING.
    fn cell(&self, op: OpVersion, data_type: DataType) -> String {
        if !op.accepts(data_type) {
            return "·".to_owned();
        }
        let mut letters = String::new();
        let mut cases = 0;
        for mode in modes(op) {
            match self.counts.get(&(op, data_type, mode)) {
                Some(&n) => {
                    cases += n;
                    letters.push_str(mode.map_or("✓", |m| &m.name()[..1]));
                }
                None => return "MISSING".to_owned(),
            }
        }
        format!("{letters} {cases}")
    }

    /// `{"format": 1, "cells": [{"operator", "domain", "version", "dtype", "mode", "cases"}],
    /// "refusals", "missing": [...], "narrowings": [{"narrowing", "dtype", "versions",
    /// "cases"}]}`: every legal triple with its count (0 when missing), and the narrowing
    /// dimension (added in place: format 1 readers ignore it).
    pub(super) fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let triple = |op: OpVersion, data_type: DataType, mode: Option<PadMode>| {
            serde_json::json!({
                "operator": op.op.op_type(),
                "domain": crate::family::domain_name(op.op.domain()),
                "version": op.version,
                "dtype": data_type.to_string(),
                "mode": mode.map(PadMode::name),
            })
        };
        let mut cells = Vec::new();
        for op in OpVersion::all() {
            for data_type in DataType::ALL.into_iter().filter(|&t| op.accepts(t)) {
                for mode in modes(op) {
                    let mut cell = triple(op, data_type, mode);
                    cell["cases"] = self.counts.get(&(op, data_type, mode)).copied().unwrap_or(0).into();
                    cells.push(cell);
                }
            }
        }
        let missing: Vec<_> = self.missing().into_iter().map(|(op, t, m)| triple(op, t, m)).collect();
        let narrowings: Vec<_> = self
            .narrowings
            .iter()
            .map(|((narrowing, data_type), (versions, cases))| {
                serde_json::json!({
                    "narrowing": narrowing.name(),
                    "dtype": data_type.to_string(),
                    "versions": versions.iter().map(|op| op.short_label()).collect::<Vec<_>>(),
                    "cases": cases,
                })
            })
            .collect();
        let json = serde_json::json!({
            "format": 1,
            "cells": cells,
            "refusals": self.refusals,
            "missing": missing,
            "narrowings": narrowings,
        });
        writeln!(out, "{json}")
    }
}

/// How a table is drawn: Markdown, or plain columns (no Markdown syntax on a terminal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    Human,
    Markdown,
}

/// What the table's symbols mean: every report that shows them says so.
const LEGEND: &str = "Legend: a cell lists the modes its cases with expected outputs cover \
(c constant, r reflect, e edge, w wrap; ✓ CenterCropPad, which has no mode), then how many \
cases; · the version does not accept the element type; MISSING a legal mode with no case.";

/// The modes a coverage cell distinguishes: each mode the version accepts, or the single
/// `None` of CenterCropPad.
fn modes(op: OpVersion) -> Vec<Option<PadMode>> {
    match op.modes() {
        [] => vec![None],
        modes => modes.iter().copied().map(Some).collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::case::narrowing::Narrowing;
    use crate::operators::{OpVersion, PadMode};
    use crate::tensor::DataType;

    use super::{Coverage, Style};

    /// The generated corpus covers every legal (operator version, dtype, mode) triple.
    #[test]
    fn no_legal_triple_is_missing() {
        let coverage = Coverage::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/extended")).unwrap();
        let missing: Vec<String> = coverage
            .missing()
            .iter()
            .map(|(op, t, mode)| format!("{} {t} {mode:?}", op.short_label()))
            .collect();
        assert!(missing.is_empty(), "uncovered legal triples: {missing:?}");
        // The legal space docs/semantics.md defines: 591 Pad triples (9 + 9 + 33 + 48 + 48 + 64 + 88 + 92
        // + 96 + 104 by version), 16 CenterCropPad dtypes (its schema's) and 9 com.microsoft Pad triples.
        let legal: usize = OpVersion::all()
            .map(|op| op.data_types().count() * op.modes().len().max(1))
            .sum();
        assert_eq!(legal, 616);
        assert!(coverage.refusals > 0);
    }

    #[test]
    fn a_missing_triple_is_reported() {
        let dir = crate::data::scratch_dir().unwrap();
        let case = dir.path().join("test_one_pad");
        std::fs::create_dir(&case).unwrap();
        let json = r#"{"op": "Pad", "domain": "", "version": 21, "mode": "wrap", "dtype": "int4", "expect": "output",
                       "basis": {"kind": "spec", "section": "docs/semantics.md#wrap-mode"}}"#;
        std::fs::write(case.join("case.json"), json).unwrap();
        let coverage = Coverage::read(dir.path()).unwrap();
        let missing = coverage.missing();
        assert_eq!(missing.len(), 615);
        assert!(
            !missing.iter().any(|(op, t, mode)| op.short_label() == "Pad-21"
                && *t == DataType::Int4
                && *mode == Some(PadMode::Wrap))
        );
    }

    fn one_case(narrowing: &str, version: i64, expect: &str) -> tempfile::TempDir {
        let dir = crate::data::scratch_dir().unwrap();
        let case = dir.path().join("test_one_pad");
        std::fs::create_dir(&case).unwrap();
        let json = format!(
            r#"{{"op": "Pad", "domain": "", "version": {version}, "mode": "constant", "dtype": "uint64",
                 "expect": "{expect}", "narrowing": "{narrowing}",
                 "basis": {{"kind": "spec", "section": "docs/semantics.md#constant-mode"}}}}"#
        );
        std::fs::write(case.join("case.json"), json).unwrap();
        dir
    }

    #[test]
    fn the_narrowing_dimension_counts_cases_per_narrowing_and_dtype() {
        let dir = one_case("beyond-63-bits", 13, "output");
        let coverage = Coverage::read(dir.path()).unwrap();
        let (versions, cases) = &coverage.narrowings[&(Narrowing::Beyond63Bits, DataType::Uint64)];
        assert_eq!(*cases, 1);
        assert_eq!(
            versions.iter().map(|op| op.short_label()).collect::<Vec<_>>(),
            ["Pad-13"]
        );
        let mut table = Vec::new();
        coverage.write_table(&mut table, Style::Markdown).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(table.contains("| beyond-63-bits | uint64 | Pad-13 | 1 |"), "{table}");
        assert!(table.ends_with("\n1 cases expose a narrowing.\n"), "{table}");
        let mut json = Vec::new();
        coverage.write_json(&mut json).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(
            json["narrowings"],
            serde_json::json!([{"narrowing": "beyond-63-bits", "dtype": "uint64", "versions": ["Pad-13"], "cases": 1}])
        );
    }

    #[test]
    fn a_refused_case_counts_under_its_narrowing_too() {
        let dir = one_case("axes-beyond-int32", 18, "error");
        let coverage = Coverage::read(dir.path()).unwrap();
        assert_eq!(coverage.refusals, 1);
        assert_eq!(
            coverage.narrowings[&(Narrowing::AxesBeyondInt32, DataType::Uint64)].1,
            1
        );
    }

    #[test]
    fn an_unknown_narrowing_is_an_error_naming_the_file_field_and_value() {
        let dir = one_case("double-as-half", 13, "output");
        let error = Coverage::read(dir.path()).unwrap_err().to_string();
        let file = dir.path().join("test_one_pad").join("case.json");
        assert!(error.starts_with(&format!("reading {}: ", file.display())), "{error}");
        assert!(error.contains("narrowing \"double-as-half\" is not one of"), "{error}");
    }

    #[test]
    fn a_tree_without_case_json_is_an_error_naming_it() {
        let dir = crate::data::scratch_dir().unwrap();
        std::fs::create_dir(dir.path().join("test_one_pad")).unwrap();
        let error = Coverage::read(dir.path()).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("no test cases found under {}", dir.path().display())),
            "{error}"
        );
    }
}
