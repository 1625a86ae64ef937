//! The basis of a generated output (docs/semantics.md#basis), as scripts/gen-extended
//! classifies the extended corpus: the weakest rule it rests on. A refusal's basis is its
//! rule's ([`crate::operators::Rule::basis`]).

use super::case::FuzzCase;
use crate::data::basis::{Basis, BasisNote};
use crate::operators::PadOp;

fn note(kind: Basis, section: &str) -> BasisNote {
    BasisNote {
        kind,
        section: format!("docs/semantics.md#{section}"),
    }
}

/// The basis of the output ref computed for `case`: the weakest rule it rests on.
pub(super) fn of_output(case: &FuzzCase) -> BasisNote {
    let dims = case.data.shape();
    let empty = case.data.is_empty();
    let dtype = case.data.data_type().name();
    if case.operator.op == PadOp::CenterCropPad {
        return match () {
            _ if dtype == "string" || dtype == "bool" => note(Basis::Rule, "centercroppad"),
            _ if empty => note(Basis::Reference, "empty-axes"),
            _ => note(Basis::Spec, "centercroppad"),
        };
    }
    let mode = case.mode.as_deref().unwrap_or("constant");
    let mut found = vec![note(Basis::Spec, &format!("{mode}-mode"))];
    let rank = dims.len();
    let listed: Vec<usize> = match &case.axes {
        Some(axes) if rank > 0 => axes.iter().map(|&a| a.rem_euclid(rank as i64) as usize).collect(),
        _ => (0..rank).collect(),
    };
    let mut widths = vec![(0i64, 0i64); rank];
    if case.pads.len() == 2 * listed.len() {
        for (i, &axis) in listed.iter().enumerate() {
            widths[axis] = (case.pads[i], case.pads[i + listed.len()]);
        }
    }
    for (&extent, &(begin, end)) in dims.iter().zip(&widths) {
        let left = extent as i64 - (-begin).max(0) - (-end).max(0);
        let positive = begin.max(end);
        // Removing first, then padding, gives another answer than padding first only where
        // wrap copies from the removed side, or reflect reaches past what remains; and the
        // removals may exceed the data (constant mode).
        let order_matters = mode == "wrap" || (mode == "reflect" && positive > left - 1);
        if positive > 0 && ((begin.min(end) < 0 && order_matters) || left < 0) {
            found.push(note(Basis::Rule, "negative-pads"));
        }
        if mode == "reflect" && positive > (left - 1).max(0) {
            found.push(note(Basis::Reference, "reflect-mode"));
        }
        if mode == "wrap" && positive > left {
            found.push(note(Basis::Reference, "wrap-mode"));
        }
    }
    if empty {
        found.push(note(Basis::Reference, "empty-axes"));
    }
    if mode == "constant" && case.constant.is_none() && dtype == "float8e8m0" {
        found.push(note(Basis::Reference, "constant-mode"));
    }
    if mode != "constant" && case.constant.as_ref().is_some_and(|c| c.len() != 1) {
        found.push(note(Basis::Rule, "constant-mode"));
    }
    if case.operator.op == PadOp::Pad && case.operator.version == 1 && widths.iter().any(|(b, e)| b != e) {
        found.push(note(Basis::Rule, "versions"));
    }
    found.into_iter().max_by_key(|n| n.kind).expect("the mode's own rule")
}
