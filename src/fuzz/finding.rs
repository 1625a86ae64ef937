//! A root cause a run found, with its smallest case, and where it was seen.

use std::collections::BTreeMap;
use std::fmt;

use crate::data::basis::{Basis, BasisNote};
use crate::judge::cause_key::CauseKey;
use crate::operators::{OpVersion, Rule};
use crate::tensor::{DataType, Tensor};

use super::case::FuzzCase;
use super::encoding::Encoding;

/// Where a cause was seen: the operator version and the class of element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site {
    /// The operator and version.
    pub operator: OpVersion,
    /// `float`, `float8`, `float4`, `int`, `subbyte_int`, `string`, `bool`, `complex`.
    pub dtype_class: &'static str,
}

impl Site {
    /// Where `case` lies.
    pub fn of(case: &FuzzCase) -> Site {
        Site {
            operator: case.operator,
            dtype_class: dtype_class(case.data.data_type()),
        }
    }
}

impl fmt::Display for Site {
    /// `Pad-18 float`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = self.operator;
        write!(
            f,
            "{} {}",
            crate::model::opset::operator_label(op.op.domain(), op.op.op_type(), op.version),
            self.dtype_class
        )
    }
}

/// One root cause, with its smallest case.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The root cause: every drawn case that shows it counts here.
    pub key: CauseKey,
    /// [`Encoding::Onnx`] for a Pad finding; for an encoding finding, the form whose model
    /// shows `key` when the plain form is answered correctly — a protobuf conformance defect
    /// that never gates (docs/semantics.md#encodings).
    pub encoding: Encoding,
    /// For an encoding finding, the model file the backend read (with the inputs it
    /// folds, when it folds them): the reproducer's model.onnx.
    pub encoded_model: Option<Vec<u8>>,
    /// The smallest case found that shows it, on the same or a stronger basis.
    pub case: FuzzCase,
    /// The drawn case it was shrunk from: the first that showed the cause on the strongest
    /// basis any did.
    pub original: FuzzCase,
    /// That case's index: [`generate_case`](super::generate_case) with the run's seed draws it again.
    pub case_index: u64,
    /// That case's basis (the shrunk case's is the same or stronger).
    pub drawn_basis: Basis,
    /// What the reference expects of the shrunk case: its outputs, or its refusal.
    pub expected: Result<Vec<Tensor>, String>,
    /// The basis of that expectation.
    pub basis: BasisNote,
    /// The rules the reference refuses the shrunk case by, when it refuses it (the one its
    /// message states first).
    pub rules: Vec<Rule>,
    /// What the subject did, in the runner's words.
    pub message: String,
    /// How many drawn cases showed this cause.
    pub hits: u64,
    /// Those cases by operator version and class of element type.
    pub seen_in: BTreeMap<Site, u64>,
}

impl Finding {
    /// Counts one more drawn case showing this cause.
    pub(super) fn hit(&mut self, site: Site) {
        self.hits += 1;
        *self.seen_in.entry(site).or_default() += 1;
    }

    /// Whether a drawn case on `basis` would show this cause on a stronger basis.
    pub(super) fn weaker_than(&self, basis: Basis) -> bool {
        basis < self.drawn_basis
    }

    /// Adds `other`'s counts (the same cause, from another shard or a case on a stronger
    /// basis), keeping the finding whose case shows it on the strongest basis, drawn first:
    /// what an unsharded run keeps.
    pub(super) fn absorb(&mut self, other: Finding) {
        let (hits, seen_in) = (other.hits, other.seen_in.clone());
        if (other.drawn_basis, other.case_index) < (self.drawn_basis, self.case_index) {
            let (mine, mine_seen) = (self.hits, std::mem::take(&mut self.seen_in));
            *self = Finding {
                hits: mine,
                seen_in: mine_seen,
                ..other
            };
        }
        self.hits += hits;
        for (site, n) in seen_in {
            *self.seen_in.entry(site).or_default() += n;
        }
    }
}

/// The classes a missing element type usually comes in.
pub(super) fn dtype_class(dtype: DataType) -> &'static str {
    use DataType::*;
    match dtype {
        Float | Double | Float16 | Bfloat16 => "float",
        Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Float8E8M0 => "float8",
        Float4E2M1 => "float4",
        Int8 | Int16 | Int32 | Int64 | Uint8 | Uint16 | Uint32 | Uint64 => "int",
        Int4 | Uint4 | Int2 | Uint2 => "subbyte_int",
        String => "string",
        Bool => "bool",
        Complex64 | Complex128 => "complex",
    }
}
