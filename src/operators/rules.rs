//! The rules the reference refuses by, each with an id and the basis it rests on
//! (docs/semantics.md#refusal-rules). A refusal carries its rule as a value, so that no code
//! recovers it, or its basis, from a message.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::data::basis::{Basis, BasisNote};

/// Why the reference refuses a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Rule {
    /// An element type outside the operator version's schema.
    DataType,
    /// A required input missing.
    MissingInput,
    /// More inputs than the operator version takes.
    ExtraInput,
    /// An attribute the operator version does not have.
    UnknownAttribute,
    /// An attribute of the wrong type.
    AttributeType,
    /// A mode the operator version does not have (wrap before Pad-19).
    ModeNotInVersion,
    /// A mode no version has.
    UnknownMode,
    /// pads of another type than int64.
    PadsType,
    /// pads of another shape than 1-D.
    PadsShape,
    /// com.microsoft Pad's pads of another shape than `[2r]` or `[1, 2r]`.
    MsPadsShape,
    /// pads of another length than twice the axes.
    PadsLength,
    /// constant_value of another type than the data.
    ConstantType,
    /// constant_value of more than one element.
    ConstantShape,
    /// axes of another type than int32 or int64.
    AxesType,
    /// axes of another shape than 1-D.
    AxesShape,
    /// An axis outside [-rank, rank - 1].
    AxisOutOfRange,
    /// An axis named twice.
    AxisRepeated,
    /// Pads that crop an axis below extent 0.
    NegativeExtent,
    /// reflect, edge or wrap padding of an axis with no data left.
    NothingToCopy,
    /// CenterCropPad's shape of another type than int32 or int64.
    CropShapeType,
    /// CenterCropPad's shape without one value per axis.
    CropShapeLength,
    /// CenterCropPad's shape holding a negative extent.
    CropNegativeExtent,
    /// A value over the reference's size limits.
    Limit,
    /// A helper op of a function body (Slice, Gather, …) refusing its inputs.
    HelperOp,
    /// An op the reference does not evaluate.
    UnsupportedOp,
}

impl Rule {
    /// Every rule, in the order docs/semantics.md lists them.
    pub const ALL: [Rule; 25] = [
        Rule::DataType,
        Rule::MissingInput,
        Rule::ExtraInput,
        Rule::UnknownAttribute,
        Rule::AttributeType,
        Rule::ModeNotInVersion,
        Rule::UnknownMode,
        Rule::PadsType,
        Rule::PadsShape,
        Rule::MsPadsShape,
        Rule::PadsLength,
        Rule::ConstantType,
        Rule::ConstantShape,
        Rule::AxesType,
        Rule::AxesShape,
        Rule::AxisOutOfRange,
        Rule::AxisRepeated,
        Rule::NegativeExtent,
        Rule::NothingToCopy,
        Rule::CropShapeType,
        Rule::CropShapeLength,
        Rule::CropNegativeExtent,
        Rule::Limit,
        Rule::HelperOp,
        Rule::UnsupportedOp,
    ];

    /// The id reports, sidecars and the worker protocol use: `axis-repeated`.
    pub fn id(self) -> &'static str {
        match self {
            Rule::DataType => "data-type",
            Rule::MissingInput => "missing-input",
            Rule::ExtraInput => "extra-input",
            Rule::UnknownAttribute => "unknown-attribute",
            Rule::AttributeType => "attribute-type",
            Rule::ModeNotInVersion => "mode-not-in-version",
            Rule::UnknownMode => "unknown-mode",
            Rule::PadsType => "pads-type",
            Rule::PadsShape => "pads-shape",
            Rule::MsPadsShape => "ms-pads-shape",
            Rule::PadsLength => "pads-length",
            Rule::ConstantType => "constant-type",
            Rule::ConstantShape => "constant-shape",
            Rule::AxesType => "axes-type",
            Rule::AxesShape => "axes-shape",
            Rule::AxisOutOfRange => "axis-out-of-range",
            Rule::AxisRepeated => "axis-repeated",
            Rule::NegativeExtent => "negative-extent",
            Rule::NothingToCopy => "nothing-to-copy",
            Rule::CropShapeType => "crop-shape-type",
            Rule::CropShapeLength => "crop-shape-length",
            Rule::CropNegativeExtent => "crop-negative-extent",
            Rule::Limit => "limit",
            Rule::HelperOp => "helper-op",
            Rule::UnsupportedOp => "unsupported-op",
        }
    }

    /// The rule with id `id`.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    /// What the rule rests on, and the section of docs/semantics.md that states it.
    pub fn basis(self) -> (Basis, &'static str) {
        use Basis::{Rule as ProjectRule, Spec, Undefined};
        match self {
            Rule::DataType
            | Rule::MissingInput
            | Rule::ExtraInput
            | Rule::UnknownAttribute
            | Rule::AttributeType
            | Rule::ModeNotInVersion
            | Rule::UnknownMode
            | Rule::AxesType
            | Rule::CropShapeType => (Spec, "versions"),
            Rule::PadsType | Rule::PadsShape | Rule::PadsLength | Rule::AxesShape => (Spec, "pads"),
            Rule::MsPadsShape => (Spec, "commicrosoft-pad"),
            Rule::ConstantType => (Spec, "constant-mode"),
            Rule::ConstantShape => (ProjectRule, "constant-mode"),
            Rule::AxisOutOfRange => (Spec, "axes"),
            Rule::AxisRepeated => (Undefined, "axes"),
            Rule::NegativeExtent => (ProjectRule, "output-extent"),
            Rule::NothingToCopy => (ProjectRule, "empty-axes"),
            Rule::CropShapeLength => (Spec, "centercroppad"),
            Rule::CropNegativeExtent => (ProjectRule, "centercroppad"),
            Rule::Limit => (ProjectRule, "limits"),
            Rule::HelperOp => (ProjectRule, "helper-ops"),
            Rule::UnsupportedOp => (ProjectRule, "what-counts-as-a-refusal"),
        }
    }

    /// The basis as a data set records it.
    pub(crate) fn basis_note(self) -> BasisNote {
        let (kind, section) = self.basis();
        BasisNote {
            kind,
            section: format!("docs/semantics.md#{section}"),
        }
    }

    /// One line saying what the rule refuses.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::DataType => "an element type outside the operator version's schema",
            Rule::MissingInput => "a required input or attribute is missing",
            Rule::ExtraInput => "more inputs than the operator version takes",
            Rule::UnknownAttribute => "an attribute the operator version does not have",
            Rule::AttributeType => "an attribute of the wrong type",
            Rule::ModeNotInVersion => "a mode the operator version does not have (wrap before Pad-19)",
            Rule::UnknownMode => "a mode no version has",
            Rule::PadsType => "pads not int64",
            Rule::PadsShape => "pads not 1-D",
            Rule::MsPadsShape => "com.microsoft Pad's pads neither [2r] nor [1, 2r]",
            Rule::PadsLength => "pads not twice as long as the axes",
            Rule::ConstantType => "constant_value of another type than the data",
            Rule::ConstantShape => "constant_value of more than one element",
            Rule::AxesType => "axes not int32 or int64",
            Rule::AxesShape => "axes not 1-D",
            Rule::AxisOutOfRange => "an axis outside [-rank, rank - 1]",
            Rule::AxisRepeated => "an axis named twice",
            Rule::NegativeExtent => "pads that crop an axis below extent 0",
            Rule::NothingToCopy => "reflect, edge or wrap padding of an axis with no data left",
            Rule::CropShapeType => "CenterCropPad's shape not int32 or int64",
            Rule::CropShapeLength => "CenterCropPad's shape without one value per axis",
            Rule::CropNegativeExtent => "CenterCropPad's shape holding a negative extent",
            Rule::Limit => "a value over the reference's size limits",
            Rule::HelperOp => "a helper op of CenterCropPad's function body refusing its inputs",
            Rule::UnsupportedOp => "an op the reference does not evaluate",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_read_back() {
        let mut ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Rule::ALL.len());
        for rule in Rule::ALL {
            assert_eq!(Rule::from_id(rule.id()), Some(rule));
            assert_eq!(serde_json::to_string(&rule).unwrap(), format!("\"{}\"", rule.id()));
        }
        assert_eq!(Rule::from_id("wrap"), None);
        assert_eq!(Rule::AxisRepeated.basis(), (Basis::Undefined, "axes"));
        assert_eq!(Rule::ModeNotInVersion.basis().0, Basis::Spec);
    }
}
