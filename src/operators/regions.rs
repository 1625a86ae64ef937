//! Where an output index of a Pad-family node falls (interior, or the padding of which axis),
//! so a mismatch report can say which rule a backend got wrong. Computed from the node's
//! parameters alone, so the report needs no evaluator.

use super::OpVersion;
use super::params::{PadParams, center_crop_pads};
use crate::model::Model;
use crate::operators::PadOp;
use crate::tensor::Tensor;

/// Regions of a Pad output: per axis the (begin, end) pads applied (negative: cropped) and
/// the output extent, to say where an output index falls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PadRegions {
    /// (begin, end) per axis.
    pub pads: Vec<(i64, i64)>,
    /// The output extents.
    pub out_shape: Vec<usize>,
}

impl PadRegions {
    /// Whether the `flat`-th element (row-major) of the output lies in the padding of some
    /// axis. No allocation: it is asked for every differing element.
    pub(crate) fn is_padding(&self, mut flat: usize) -> bool {
        let mut padding = false;
        for (&(begin, end), &extent) in self.pads.iter().zip(&self.out_shape).rev() {
            let i = (flat % extent.max(1)) as u128;
            flat /= extent.max(1);
            let (begin, end) = (begin.max(0) as u128, end.max(0) as u128);
            padding |= i < begin || i + end >= extent as u128;
        }
        padding
    }

    /// "interior", or the padding the index lies in: "begin padding of axis 0, end padding of
    /// axis 3".
    pub(crate) fn region(&self, index: &[usize]) -> String {
        let mut parts = Vec::new();
        for (axis, (&i, (&(begin, end), &extent))) in
            index.iter().zip(self.pads.iter().zip(&self.out_shape)).enumerate()
        {
            let (begin, end) = (begin.max(0) as u128, end.max(0) as u128);
            if (i as u128) < begin {
                parts.push(format!("begin padding of axis {axis}"));
            } else if (i as u128) + end >= extent as u128 {
                parts.push(format!("end padding of axis {axis}"));
            }
        }
        if parts.is_empty() {
            "interior".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// The regions of the output of a single-node Pad-family model whose inputs are the graph's
/// inputs; `None` for other graphs (such as the `_expanded` function bodies) or invalid nodes.
pub(crate) fn pad_regions(model: &Model, inputs: &[Tensor]) -> Option<PadRegions> {
    let [node] = model.graph.nodes.as_slice() else {
        return None;
    };
    let op = OpVersion::of(node)?.op;
    let value = |name: &String| -> Option<Option<&Tensor>> {
        if name.is_empty() {
            return Some(None);
        }
        let position = model.graph.inputs.iter().position(|n| n == name);
        match position {
            Some(i) => inputs.get(i).map(Some),
            None => model
                .graph
                .initializers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| Some(t)),
        }
    };
    let node_inputs = node.inputs.iter().map(value).collect::<Option<Vec<_>>>()?;
    let pads = match op {
        PadOp::CenterCropPad => center_crop_pads(node, &node_inputs).ok()?,
        _ => PadParams::read(node, op, &node_inputs).ok()?.per_axis,
    };
    let data = node_inputs.first().copied().flatten()?;
    let out_shape = data
        .shape()
        .iter()
        .zip(&pads)
        .map(|(&extent, &(begin, end))| usize::try_from(extent as i128 + begin as i128 + end as i128).ok())
        .collect::<Option<Vec<_>>>()?;
    Some(PadRegions { pads, out_shape })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_name_the_padding_an_index_falls_in() {
        let regions = PadRegions {
            pads: vec![(1, 0), (0, 2)],
            out_shape: vec![3, 4],
        };
        assert_eq!(regions.region(&[0, 0]), "begin padding of axis 0");
        assert_eq!(regions.region(&[1, 3]), "end padding of axis 1");
        assert_eq!(regions.region(&[2, 2]), "end padding of axis 1");
        assert_eq!(regions.region(&[1, 1]), "interior");
        assert_eq!(
            regions.region(&[0, 3]),
            "begin padding of axis 0, end padding of axis 1"
        );
        // A cropped side has no padding.
        let cropped = PadRegions {
            pads: vec![(-1, 1)],
            out_shape: vec![3],
        };
        assert_eq!(cropped.region(&[0]), "interior");
        assert_eq!(cropped.region(&[1]), "interior");
        assert_eq!(cropped.region(&[2]), "end padding of axis 0");
    }
}
