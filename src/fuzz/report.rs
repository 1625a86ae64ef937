//! What a run found, and where a run stands.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::data::basis::Gating;
use crate::judge::cause_key::CauseKey;
use crate::judge::survival::{self, Survival};

use super::encoding::Encoding;
use super::finding::Finding;

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct FuzzReport {
    /// The cases drawn (this shard's).
    pub cases: u64,
    /// How long it took.
    pub duration: Duration,
    /// Root causes on a basis the run gates on, in order of cause.
    pub findings: Vec<Finding>,
    /// Root causes on other bases (a project rule, an undefined corner).
    pub not_gating: Vec<Finding>,
    /// Root causes shown only when the model is written in another legal wire form
    /// ([`FuzzOptions::encodings`](super::FuzzOptions::encodings)): protobuf conformance defects, never gating, counted
    /// apart from the Pad findings whatever their basis.
    pub encodings: Vec<Finding>,
    /// Cases outside the backend's profile, or that the backend reports unsupported.
    pub unsupported: u64,
    /// Cases also handed to the backend in another wire form ([`FuzzOptions::encodings`](super::FuzzOptions::encodings); a
    /// form that changes no byte of the model is not handed over).
    pub reencoded: u64,
    /// Distinct disagreements found but not kept: the findings kept had filled
    /// [`FuzzOptions::stored_elements`](super::FuzzOptions::stored_elements), so that memory stays bounded however long the run.
    pub dropped: u64,
}

impl FuzzReport {
    /// Cases per second.
    pub fn cases_per_second(&self) -> f64 {
        self.cases as f64 / self.duration.as_secs_f64().max(1e-9)
    }

    /// The shards of one run (same seed, options and backend) as one report: each cause
    /// with the smallest case of the shard that drew it first, counts summed, the slowest
    /// shard's duration.
    pub fn merge(shards: Vec<FuzzReport>, gating: &Gating) -> FuzzReport {
        let mut merged = FuzzReport::default();
        let mut causes: BTreeMap<(Encoding, CauseKey), Finding> = BTreeMap::new();
        for shard in shards {
            merged.cases += shard.cases;
            merged.unsupported += shard.unsupported;
            merged.reencoded += shard.reencoded;
            merged.duration = merged.duration.max(shard.duration);
            for finding in shard
                .findings
                .into_iter()
                .chain(shard.not_gating)
                .chain(shard.encodings)
            {
                match causes.get_mut(&(finding.encoding, finding.key.clone())) {
                    Some(known) => known.absorb(finding),
                    None => {
                        causes.insert((finding.encoding, finding.key.clone()), finding);
                    }
                }
            }
        }
        merged.split(causes.into_values(), gating);
        merged
    }

    /// Files each finding as an encoding finding, or as gating or not: by its basis, or
    /// always when the backend did not survive it (docs/semantics.md#basis).
    pub(super) fn split(&mut self, findings: impl Iterator<Item = Finding>, gating: &Gating) {
        for finding in findings {
            if finding.encoding != Encoding::Onnx {
                self.encodings.push(finding);
            } else if survival::gates(gating, finding.basis.kind, Survival::of_pattern(&finding.key.pattern)) {
                self.findings.push(finding);
            } else {
                self.not_gating.push(finding);
            }
        }
    }
}

/// Where a run stands, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Cases so far.
    pub cases: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Root causes so far (gating or not).
    pub findings: usize,
}
