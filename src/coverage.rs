//! `pad-conformance coverage`: which (operator version, dtype, mode) triples the generated
//! cases cover, read from their case.json files, against every triple SEMANTICS.md makes
//! legal.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde::Deserialize;
use walkdir::WalkDir;

use crate::model::PadOp;
use crate::reference::accepts_type;
use crate::tensor::DataType;

/// What a generated case says it tests (its case.json).
#[derive(Clone, Debug, Deserialize)]
pub struct CaseInfo {
    pub op: String,
    pub domain: String,
    pub version: i64,
    pub mode: Option<String>,
    pub dtype: String,
    /// `output`, or `error` for a case that must be refused.
    pub expect: String,
}

/// An operator at a version, as the coverage table's columns name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct OpVersion {
    pub op: PadOpKey,
    pub version: i64,
}

/// Column order: Pad by version, then CenterCropPad, then com.microsoft Pad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PadOpKey {
    Pad,
    CenterCropPad,
    MicrosoftPad,
}

impl OpVersion {
    /// Every operator version this project checks.
    pub fn all() -> Vec<OpVersion> {
        let pad = [1, 2, 11, 13, 18, 19, 21, 23, 24, 25].map(|version| OpVersion {
            op: PadOpKey::Pad,
            version,
        });
        let mut all = pad.to_vec();
        all.push(OpVersion {
            op: PadOpKey::CenterCropPad,
            version: 18,
        });
        all.push(OpVersion {
            op: PadOpKey::MicrosoftPad,
            version: 1,
        });
        all
    }

    /// `Pad-19`, `CCP-18`, `ms.Pad-1`.
    pub fn label(&self) -> String {
        match self.op {
            PadOpKey::Pad => format!("Pad-{}", self.version),
            PadOpKey::CenterCropPad => format!("CCP-{}", self.version),
            PadOpKey::MicrosoftPad => format!("ms.Pad-{}", self.version),
        }
    }

    /// The modes this operator version accepts (`-` standing for CenterCropPad's none).
    pub fn modes(&self) -> &'static [&'static str] {
        match (self.op, self.version) {
            (PadOpKey::CenterCropPad, _) => &["-"],
            (PadOpKey::Pad, v) if v >= 19 => &["constant", "reflect", "edge", "wrap"],
            _ => &["constant", "reflect", "edge"],
        }
    }

    /// Whether this operator version accepts `data_type`.
    pub fn accepts(&self, data_type: DataType) -> bool {
        match self.op {
            PadOpKey::Pad => accepts_type(PadOp::Pad, self.version, data_type),
            PadOpKey::MicrosoftPad => accepts_type(PadOp::MicrosoftPad, self.version, data_type),
            // SEMANTICS.md: every dtype of Pad-13 and later.
            PadOpKey::CenterCropPad => true,
        }
    }
}

/// Case counts per (operator version, dtype, mode), for cases expecting outputs.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    pub counts: BTreeMap<(OpVersion, DataType, String), usize>,
    /// Cases that must be refused.
    pub refusals: usize,
}

impl Coverage {
    /// Reads every case.json under `root`; finding none is an error naming the root.
    pub fn read(root: &Path) -> Result<Coverage, String> {
        let mut coverage = Coverage::default();
        for entry in WalkDir::new(root).sort_by_file_name() {
            let entry = entry.map_err(|e| e.to_string())?;
            if entry.file_name() != "case.json" {
                continue;
            }
            let path = entry.path();
            let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            let info: CaseInfo = serde_json::from_str(&text).map_err(|e| format!("reading {}: {e}", path.display()))?;
            if info.expect == "error" {
                coverage.refusals += 1;
                continue;
            }
            let op = match (info.op.as_str(), info.domain.as_str()) {
                ("Pad", "" | "ai.onnx") => PadOpKey::Pad,
                ("CenterCropPad", "" | "ai.onnx") => PadOpKey::CenterCropPad,
                ("Pad", "com.microsoft") => PadOpKey::MicrosoftPad,
                (op, domain) => return Err(format!("{}: unknown operator {domain:?} {op:?}", path.display())),
            };
            let data_type = DataType::from_name(&info.dtype)
                .ok_or_else(|| format!("{}: unknown dtype {:?}", path.display(), info.dtype))?;
            let mode = info.mode.unwrap_or_else(|| "-".to_owned());
            let key = (
                OpVersion {
                    op,
                    version: info.version,
                },
                data_type,
                mode,
            );
            *coverage.counts.entry(key).or_default() += 1;
        }
        if coverage.counts.is_empty() && coverage.refusals == 0 {
            return Err(format!(
                "no test cases found under {}: no case.json files (coverage reads the generated corpus, onnx-testdata/extended)",
                root.display()
            ));
        }
        Ok(coverage)
    }

    /// The legal (operator version, dtype, mode) triples no case covers.
    pub fn missing(&self) -> Vec<(OpVersion, DataType, &'static str)> {
        let mut missing = Vec::new();
        for op in OpVersion::all() {
            for data_type in DataType::ALL.into_iter().filter(|&t| op.accepts(t)) {
                for &mode in op.modes() {
                    if !self.counts.contains_key(&(op, data_type, mode.to_owned())) {
                        missing.push((op, data_type, mode));
                    }
                }
            }
        }
        missing
    }

    /// Markdown: one row per dtype, one column per operator version; a cell lists the modes
    /// covered by their initials (c, r, e, w; ✓ for CenterCropPad) with the case count, `·`
    /// where the version does not accept the dtype, and MISSING for an uncovered legal triple.
    pub fn write_markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        let ops = OpVersion::all();
        let labels: Vec<String> = ops.iter().map(OpVersion::label).collect();
        writeln!(out, "| dtype | {} |", labels.join(" | "))?;
        writeln!(out, "|---|{}", "---|".repeat(ops.len()))?;
        for data_type in DataType::ALL {
            let cells: Vec<String> = ops
                .iter()
                .map(|op| {
                    if !op.accepts(data_type) {
                        return "·".to_owned();
                    }
                    let mut letters = String::new();
                    let mut cases = 0;
                    for &mode in op.modes() {
                        match self.counts.get(&(*op, data_type, mode.to_owned())) {
                            Some(&n) => {
                                cases += n;
                                letters.push_str(if mode == "-" { "✓" } else { &mode[..1] });
                            }
                            None => return "MISSING".to_owned(),
                        }
                    }
                    format!("{letters} {cases}")
                })
                .collect();
            writeln!(out, "| {} | {} |", data_type, cells.join(" | "))?;
        }
        let total: usize = self.counts.values().sum();
        writeln!(
            out,
            "\n{total} cases with expected outputs, {} that must be refused.",
            self.refusals
        )
    }
}
