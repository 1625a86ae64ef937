//! Operator versions: which version of an operator a model's opset import selects.
//!
//! A node's version is the highest version of its operator that is not above the model's
//! `opset_import` for the node's domain (`""` and `"ai.onnx"` are the same domain).

use crate::family::{ONNX_DOMAIN, PadOp, normalize_domain};

/// `Pad-19` for a standard operator, `com.microsoft.Pad-1` for another domain's.
pub(crate) fn operator_label(domain: &str, op_type: &str, version: i64) -> String {
    match normalize_domain(domain) {
        ONNX_DOMAIN => format!("{op_type}-{version}"),
        other => format!("{other}.{op_type}-{version}"),
    }
}

/// `Pad-18, graph of 13 nodes`: an operator's label, saying when the model is a graph of
/// several nodes (helper ops around the Pad-family node, as the upstream `*_expanded` cases).
pub(crate) fn graph_label(label: String, graph_nodes: Option<usize>) -> String {
    match graph_nodes {
        Some(nodes) => format!("{label}, graph of {nodes} nodes"),
        None => label,
    }
}

/// The versions in which an operator changed, oldest first; `None` for operators this
/// project does not know.
pub(crate) fn operator_versions(domain: &str, op_type: &str) -> Option<&'static [i64]> {
    if let Some(op) = PadOp::of(domain, op_type) {
        return Some(op.versions());
    }
    Some(match (normalize_domain(domain), op_type) {
        // The ops the CenterCropPad function body uses.
        (ONNX_DOMAIN, "Constant") => &[1, 9, 11, 12, 13, 19, 21, 23, 24, 25],
        (ONNX_DOMAIN, "Shape") => &[1, 13, 15, 19, 21, 23, 24, 25],
        (ONNX_DOMAIN, "Gather") => &[1, 11, 13],
        (ONNX_DOMAIN, "Slice") => &[1, 10, 11, 13],
        (ONNX_DOMAIN, "Concat") => &[1, 4, 11, 13],
        (ONNX_DOMAIN, "Add" | "Sub" | "Div") => &[1, 6, 7, 13, 14],
        (ONNX_DOMAIN, "Max") => &[1, 6, 8, 12, 13],
        _ => return None,
    })
}

/// The version of `op_type` that opset `opset` selects: `Ok(None)` for an unknown operator,
/// `Err(first)` when the opset predates the operator's first version `first`.
pub(crate) fn operator_version(domain: &str, op_type: &str, opset: i64) -> Result<Option<i64>, i64> {
    let Some(versions) = operator_versions(domain, op_type) else {
        return Ok(None);
    };
    match versions.iter().rev().find(|&&v| v <= opset) {
        Some(&v) => Ok(Some(v)),
        None => Err(versions[0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_versions_follow_the_opset() {
        let pad = |opset| operator_version("", "Pad", opset).unwrap().unwrap();
        assert_eq!(pad(1), 1);
        assert_eq!(pad(7), 2);
        assert_eq!(pad(10), 2);
        assert_eq!(pad(11), 11);
        assert_eq!(pad(17), 13);
        assert_eq!(pad(18), 18);
        assert_eq!(pad(20), 19);
        assert_eq!(pad(22), 21);
        assert_eq!(pad(25), 25);
        assert_eq!(pad(30), 25);
        assert_eq!(operator_version("ai.onnx", "Pad", 13), Ok(Some(13)));
    }

    #[test]
    fn operators_before_their_first_version_are_refused() {
        assert_eq!(operator_version("", "CenterCropPad", 17), Err(18));
        assert_eq!(operator_version("", "CenterCropPad", 19), Ok(Some(18)));
        assert_eq!(operator_version("com.microsoft", "Pad", 1), Ok(Some(1)));
        assert_eq!(operator_version("", "Conv", 11), Ok(None));
    }
}
