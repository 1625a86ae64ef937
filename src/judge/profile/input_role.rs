//! The inputs after the data, by what they are to their operator: the keys of a profile's
//! `inputs` table.

use std::fmt;

use crate::operators::PadOp;

/// What an input after the data is to its operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum InputRole {
    /// Pad's and com.microsoft Pad's input 1.
    Pads,
    /// Pad's input 2 (`constant_value`), com.microsoft Pad's (`value`).
    ConstantValue,
    /// Pad's input 3, from Pad-18 on.
    Axes,
    /// CenterCropPad's input 1.
    Shape,
}

impl InputRole {
    /// Every role, in the order profiles list them.
    pub const ALL: [InputRole; 4] = [
        InputRole::Pads,
        InputRole::ConstantValue,
        InputRole::Axes,
        InputRole::Shape,
    ];

    /// The role of the node input at `position` (after the data) of operator `op`.
    pub(crate) fn at(op: PadOp, position: usize) -> Option<InputRole> {
        match (op, position) {
            (PadOp::CenterCropPad, 1) => Some(InputRole::Shape),
            (PadOp::CenterCropPad, _) => None,
            (_, 1) => Some(InputRole::Pads),
            (_, 2) => Some(InputRole::ConstantValue),
            (PadOp::Pad, 3) => Some(InputRole::Axes),
            _ => None,
        }
    }

    /// `pads`, `constant_value`, `axes`, `shape`: the profile's key.
    pub fn name(self) -> &'static str {
        match self {
            InputRole::Pads => "pads",
            InputRole::ConstantValue => "constant_value",
            InputRole::Axes => "axes",
            InputRole::Shape => "shape",
        }
    }
}

impl fmt::Display for InputRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
