//! The Pad family's vocabulary: which operators (in which domains) and which modes. Facts that
//! need no model to state, below the model that names them and the operator tables that
//! judge them.

mod domain;
mod mode;

pub(crate) use domain::{MICROSOFT_DOMAIN, ONNX_DOMAIN, domain_name, normalize_domain};
pub use mode::{ModeAttribute, PadMode};

/// An operator of the Pad family.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[non_exhaustive]
pub enum PadOp {
    /// ai.onnx Pad, versions 1 to 25.
    Pad,
    /// ai.onnx CenterCropPad-18.
    CenterCropPad,
    /// com.microsoft Pad-1.
    MicrosoftPad,
}

impl PadOp {
    /// The operator a node's (normalized) domain and op type name, if it is one of ours.
    pub fn of(domain: &str, op_type: &str) -> Option<PadOp> {
        match (normalize_domain(domain), op_type) {
            (ONNX_DOMAIN, "Pad") => Some(PadOp::Pad),
            (ONNX_DOMAIN, "CenterCropPad") => Some(PadOp::CenterCropPad),
            (MICROSOFT_DOMAIN, "Pad") => Some(PadOp::MicrosoftPad),
            _ => None,
        }
    }

    /// The versions in which the operator changed, oldest first.
    pub fn versions(self) -> &'static [i64] {
        match self {
            PadOp::Pad => &[1, 2, 11, 13, 18, 19, 21, 23, 24, 25],
            PadOp::CenterCropPad => &[18],
            PadOp::MicrosoftPad => &[1],
        }
    }

    /// The op type as a model spells it.
    pub fn op_type(self) -> &'static str {
        match self {
            PadOp::Pad | PadOp::MicrosoftPad => "Pad",
            PadOp::CenterCropPad => "CenterCropPad",
        }
    }

    /// The domain, `""` standing for ai.onnx.
    pub fn domain(self) -> &'static str {
        match self {
            PadOp::Pad | PadOp::CenterCropPad => ONNX_DOMAIN,
            PadOp::MicrosoftPad => MICROSOFT_DOMAIN,
        }
    }
}

/// A report's `op` and `domain` fields (`"Pad"`, `"com.microsoft"`): an operator is written as
/// the two, and read back from them (`#[serde(flatten, with = "op_fields")]`); the binary's
/// fuzz reports use it too.
pub(crate) mod op_fields {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::PadOp;
    use super::domain::domain_name;

    #[derive(Serialize, Deserialize)]
    struct Fields {
        #[serde(default)]
        op: Option<String>,
        #[serde(default)]
        domain: Option<String>,
    }

    /// Writes `op` and `domain` (both `null` for no operator).
    pub(crate) fn serialize<S: Serializer>(op: &Option<PadOp>, s: S) -> Result<S::Ok, S::Error> {
        Fields {
            op: op.map(|op| op.op_type().to_owned()),
            domain: op.map(|op| domain_name(op.domain()).to_owned()),
        }
        .serialize(s)
    }

    /// Reads `op` and `domain`; a pair that names no operator of the family is an error
    /// that quotes it.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PadOp>, D::Error> {
        let fields = Fields::deserialize(d)?;
        let Some(op) = fields.op else { return Ok(None) };
        let domain = fields.domain.unwrap_or_default();
        PadOp::of(&domain, &op)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown operator {op:?} in domain {domain:?}")))
    }
}
