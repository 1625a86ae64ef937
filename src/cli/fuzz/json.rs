//! The JSON report of `fuzz --format json` as typed data: written by `fuzz`, read back by
//! `fuzz-merge`. A report states the run's options (`run`), so that shards of different runs
//! are told apart.

use crate::data::basis::{Basis, BasisNote};
use crate::fuzz::{Finding, FuzzOptions, FuzzReport};
use crate::judge::cause_key::Pattern;
use crate::judge::verdict::Cause;
use serde::{Deserialize, Serialize};

/// One fuzz report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct FuzzJson {
    pub seed: u64,
    pub shard: ShardJson,
    pub cases: u64,
    pub seconds: f64,
    pub cases_per_second: f64,
    pub unsupported: u64,
    pub dropped: u64,
    /// What the run checked and how; absent from reports written before it was stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunJson>,
    /// A signal stopped the run before it drew every case (absent: it did not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    pub findings: Vec<FindingJson>,
    pub not_gating: Vec<FindingJson>,
    /// The cases handed over again in another form.
    #[serde(default)]
    pub reencoded: u64,
    /// Causes shown only in another form than onnx's: protobuf conformance, never gating.
    #[serde(default)]
    pub encodings: Vec<FindingJson>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ShardJson {
    pub index: u32,
    pub count: u32,
}

/// The options a shard must share with the others of its run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct RunJson {
    /// The backend's name, and its runtime as it states it.
    pub backend: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// The most cases the whole run draws (`--cases`, or its default without `--time`), when
    /// a number bounds it.
    pub case_limit: Option<u64>,
    /// `--time`, when a time budget bounds it: then each shard draws what it has time for.
    pub time: Option<f64>,
    pub max_elements: usize,
    pub refusals: f64,
    /// `--encodings`; absent from reports written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encodings: Option<f64>,
    /// The comparison (`exact`, `2 ulps`, `rtol 0.001, atol 0`).
    pub tolerance: String,
    /// The bases that gate, `spec,reference`.
    pub gating: String,
    /// `--profile` as given.
    pub profile: Option<String>,
    pub inputs_as_constants: bool,
    pub strict_rules: bool,
}

/// One root cause.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct FindingJson {
    pub cause: Cause,
    /// What tells defects of that cause apart, typed: what `fuzz-merge` joins causes by.
    /// Absent from older reports, whose causes are joined by `key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<Pattern>,
    /// The cause and pattern as the human report words them.
    pub key: String,
    pub slug: String,
    pub hits: u64,
    pub seen_in: Vec<SiteJson>,
    pub basis: BasisNote,
    /// The basis of the drawn case the smallest was shrunk from; absent from older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawn_basis: Option<Basis>,
    pub case: String,
    pub original: String,
    pub case_index: u64,
    pub message: String,
    /// In `encodings` only: the form that shows the cause (`packed-lists`, …), and what a
    /// reader of the model meets in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding_description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SiteJson {
    pub site: String,
    pub cases: u64,
}

impl FuzzJson {
    /// The report of `report`, a run with `options` and `run`.
    pub(super) fn of(report: &FuzzReport, options: &FuzzOptions, run: RunJson) -> FuzzJson {
        let finding = |f: &Finding| FindingJson {
            cause: f.key.cause,
            pattern: Some(f.key.pattern.clone()),
            key: f.key.to_string(),
            slug: f.key.slug(),
            hits: f.hits,
            seen_in: f
                .seen_in
                .iter()
                .map(|(site, n)| SiteJson {
                    site: site.to_string(),
                    cases: *n,
                })
                .collect(),
            basis: f.basis.clone(),
            drawn_basis: Some(f.drawn_basis),
            case: f.case.to_string(),
            original: f.original.to_string(),
            case_index: f.case_index,
            message: f.message.clone(),
            encoding: None,
            encoding_description: None,
        };
        let encoding_finding = |f: &Finding| FindingJson {
            encoding: Some(f.encoding.name().to_owned()),
            encoding_description: Some(f.encoding.describe().to_owned()),
            ..finding(f)
        };
        FuzzJson {
            seed: options.seed,
            shard: ShardJson {
                index: options.shard.index(),
                count: options.shard.count(),
            },
            cases: report.cases,
            seconds: report.duration.as_secs_f64(),
            cases_per_second: report.cases_per_second(),
            unsupported: report.unsupported,
            dropped: report.dropped,
            run: Some(run),
            interrupted: false,
            findings: report.findings.iter().map(finding).collect(),
            not_gating: report.not_gating.iter().map(finding).collect(),
            reencoded: report.reencoded,
            encodings: report.encodings.iter().map(encoding_finding).collect(),
        }
    }
}
