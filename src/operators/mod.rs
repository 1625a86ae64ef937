//! The operators this project checks, as facts: for each (operator, version), the element
//! types, modes, inputs and attributes it accepts ([`OpVersion`]), and how a node's
//! parameters are read and validated against them ([`params`]). The reference evaluator, the
//! mismatch report's regions and the coverage table all read this one table
//! (docs/semantics.md#versions).

// Node parameters, read and validated: for the tool's benchmarks.
pub(crate) mod params;
pub(crate) mod regions;
pub(crate) mod rules;

// The family's vocabulary, named here too: the rules and parameters below speak it.
pub(crate) use crate::family::{ModeAttribute, PadMode, PadOp};
pub use rules::Rule;

use crate::model::Node;
use crate::tensor::DataType;

/// Where a Pad version reads its pads and constant from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PadsFrom {
    /// Pad-1's `paddings` or Pad-2's `pads` attribute, with a float `value` attribute.
    Attribute(&'static str),
    /// Input 1, with the constant as input 2.
    Input,
}

/// One operator at one version: the row of the table.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct OpVersion {
    /// The operator.
    pub op: PadOp,
    /// The version (one of `op.versions()`).
    pub version: i64,
}

impl OpVersion {
    /// Every operator version this project checks: Pad by version, then CenterCropPad, then
    /// com.microsoft Pad.
    pub fn all() -> impl Iterator<Item = OpVersion> {
        [PadOp::Pad, PadOp::CenterCropPad, PadOp::MicrosoftPad]
            .into_iter()
            .flat_map(|op| op.versions().iter().map(move |&version| OpVersion { op, version }))
    }

    /// The row for a node, if it calls a Pad-family operator.
    pub fn of(node: &Node) -> Option<OpVersion> {
        PadOp::of(&node.domain, &node.op_type).map(|op| OpVersion {
            op,
            version: node.version,
        })
    }

    /// `Pad-19`, `CCP-18`, `ms.Pad-1`: the short labels of the coverage table's columns.
    pub(crate) fn short_label(self) -> String {
        match self.op {
            PadOp::Pad => format!("Pad-{}", self.version),
            PadOp::CenterCropPad => format!("CCP-{}", self.version),
            PadOp::MicrosoftPad => format!("ms.Pad-{}", self.version),
        }
    }

    /// The modes this version accepts; none for CenterCropPad, which has no `mode`.
    pub fn modes(self) -> &'static [PadMode] {
        match self.op {
            PadOp::CenterCropPad => &[],
            PadOp::Pad if self.version >= 19 => &PadMode::ALL,
            _ => &[PadMode::Constant, PadMode::Reflect, PadMode::Edge],
        }
    }

    /// Whether this version accepts `data_type` for its data input.
    pub fn accepts(self, data_type: DataType) -> bool {
        use DataType::*;
        let since = match data_type {
            Float | Double | Float16 => 1,
            Int8 | Int16 | Int32 | Int64 | Uint8 | Uint16 | Uint32 | Uint64 => 11,
            Bool | String | Bfloat16 | Complex64 | Complex128 => 13,
            Float8E4M3FN | Float8E4M3FNUZ | Float8E5M2 | Float8E5M2FNUZ | Int4 | Uint4 => 21,
            Float4E2M1 => 23,
            Float8E8M0 => 24,
            Int2 | Uint2 => 25,
        };
        match self.op {
            PadOp::Pad => self.version >= since,
            PadOp::MicrosoftPad => since == 1,
            // all_tensor_types_ir4: the types of Pad-13 (docs/semantics.md#centercroppad).
            PadOp::CenterCropPad => since <= 13,
        }
    }

    /// The element types this version accepts, in code order.
    pub fn data_types(self) -> impl Iterator<Item = DataType> {
        DataType::ALL.into_iter().filter(move |&t| self.accepts(t))
    }

    /// The inputs, in order, by the names the operator's page gives them.
    pub fn inputs(self) -> &'static [&'static str] {
        match (self.op, self.version) {
            (PadOp::CenterCropPad, _) => &["input_data", "shape"],
            (PadOp::MicrosoftPad, _) => &["data", "pads", "value"],
            (PadOp::Pad, 1 | 2) => &["data"],
            (PadOp::Pad, 11 | 13) => &["data", "pads", "constant_value"],
            (PadOp::Pad, _) => &["data", "pads", "constant_value", "axes"],
        }
    }

    /// The attributes it accepts.
    pub fn attributes(self) -> &'static [&'static str] {
        match (self.op, self.version) {
            (PadOp::CenterCropPad, _) => &["axes"],
            (PadOp::Pad, 1) => &["paddings", "value", "mode"],
            (PadOp::Pad, 2) => &["pads", "value", "mode"],
            _ => &["mode"],
        }
    }

    /// Where a Pad version reads its pads from (CenterCropPad reads a target shape instead).
    pub(crate) fn pads_from(self) -> PadsFrom {
        match (self.op, self.version) {
            (PadOp::Pad, 1) => PadsFrom::Attribute("paddings"),
            (PadOp::Pad, 2) => PadsFrom::Attribute("pads"),
            _ => PadsFrom::Input,
        }
    }

    /// com.microsoft Pad also takes pads of shape [1, 2r].
    pub fn two_dim_pads(self) -> bool {
        self.op == PadOp::MicrosoftPad
    }
}

/// A node refused its inputs or attributes: names the node, the input and the value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{node}: {message}")]
pub struct OpError {
    /// The node as messages name it: `Pad-19 "pad_node"`.
    pub node: String,
    /// The rule it breaks, which the message states.
    pub rule: Rule,
    /// Other rules the node breaks as well, found independently of the first.
    pub also: Vec<Rule>,
    /// What is wrong, naming the input or attribute and the value.
    pub message: String,
}

impl OpError {
    /// A refusal by `node`, by `rule`.
    pub fn new(node: &Node, rule: Rule, message: String) -> OpError {
        OpError {
            node: node.to_string(),
            rule,
            also: Vec::new(),
            message,
        }
    }

    /// Every rule the node breaks: [`rule`](OpError::rule) first, then [`also`](OpError::also).
    pub fn rules(&self) -> Vec<Rule> {
        std::iter::once(self.rule).chain(self.also.iter().copied()).collect()
    }
}
