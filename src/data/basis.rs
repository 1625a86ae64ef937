//! What a data set's expected result rests on (docs/semantics.md#basis), and which bases a
//! run gates on. A runtime author who disagrees with a project rule must be able to tell it
//! from a disagreement with the ONNX spec, and to gate on the spec alone.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The kind of ground an expected result stands on, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Basis {
    /// The operator's page or its schema says so.
    Spec,
    /// The page is silent; ONNX's reference evaluator (`numpy.pad`) behaves so.
    Reference,
    /// A decision of this project, stated in docs/semantics.md.
    Rule,
    /// The page calls the case undefined; the expected result is this project's choice.
    Undefined,
}

impl Basis {
    /// Every basis, strongest first.
    pub const ALL: [Basis; 4] = [Basis::Spec, Basis::Reference, Basis::Rule, Basis::Undefined];

    /// The lowercase name reports and files use.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Spec => "spec",
            Basis::Reference => "reference",
            Basis::Rule => "rule",
            Basis::Undefined => "undefined",
        }
    }

    /// The basis named `name`.
    pub fn from_name(name: &str) -> Option<Basis> {
        Basis::ALL.into_iter().find(|b| b.name() == name)
    }
}

impl fmt::Display for Basis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A data set's basis and where it is stated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BasisNote {
    /// The kind of ground.
    pub kind: Basis,
    /// Where it is stated: a section of docs/semantics.md, or where the case comes from.
    pub section: String,
}

impl BasisNote {
    /// The basis of upstream ONNX node tests: the spec, by the ONNX project's own cases.
    pub fn upstream() -> BasisNote {
        BasisNote {
            kind: Basis::Spec,
            section: "the ONNX project's own node test".to_owned(),
        }
    }
}

/// The bases whose wrong answers fail a run. The others are reported and counted apart; a
/// crash fails a run on every basis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gating(BTreeSet<Basis>);

/// A `--basis` selection that cannot gate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GatingError {
    /// Not a basis name.
    #[error("unknown basis {0:?}; use spec, reference or rule")]
    Unknown(String),
    /// `undefined` never gates: the spec leaves the behaviour open.
    #[error("undefined cannot gate: the spec leaves those cases open; use spec, reference or rule")]
    Undefined,
    /// Nothing selected.
    #[error("--basis selects nothing")]
    Empty,
}

impl Gating {
    /// Gates on the bases named, e.g. `["spec", "reference", "rule"]`.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Gating, GatingError> {
        let mut bases = BTreeSet::new();
        for name in names {
            let name = name.as_ref().trim();
            match Basis::from_name(name) {
                Some(Basis::Undefined) => return Err(GatingError::Undefined),
                Some(basis) => bases.insert(basis),
                None => return Err(GatingError::Unknown(name.to_owned())),
            };
        }
        if bases.is_empty() {
            return Err(GatingError::Empty);
        }
        Ok(Gating(bases))
    }

    /// Whether a wrong answer on a data set of `basis` fails the run. A backend that did not
    /// survive a data set (a panic, a crash, a protocol break, a confirmed timeout) fails it on
    /// every basis, whatever this selects (docs/semantics.md#basis).
    pub fn gates(&self, basis: Basis) -> bool {
        self.0.contains(&basis)
    }

    /// `spec,reference`.
    pub fn names(&self) -> String {
        self.0.iter().map(|b| b.name()).collect::<Vec<_>>().join(",")
    }
}

impl Default for Gating {
    /// The spec and ONNX's reference behaviour: what a runtime is expected to match.
    fn default() -> Self {
        Gating([Basis::Spec, Basis::Reference].into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_gates_on_spec_and_reference_only() {
        let gating = Gating::default();
        assert!(gating.gates(Basis::Spec) && gating.gates(Basis::Reference));
        assert!(!gating.gates(Basis::Rule) && !gating.gates(Basis::Undefined));
        assert_eq!(gating.names(), "spec,reference");
    }

    #[test]
    fn names_select_bases_and_undefined_never_gates() {
        let all = Gating::from_names(&["spec", " reference", "rule"]).unwrap();
        assert!(all.gates(Basis::Rule) && !all.gates(Basis::Undefined));
        let spec = Gating::from_names(&["spec"]).unwrap();
        assert!(!spec.gates(Basis::Reference));
        assert!(matches!(
            Gating::from_names(&["undefined"]),
            Err(GatingError::Undefined)
        ));
        assert!(matches!(Gating::from_names(&["specs"]), Err(GatingError::Unknown(n)) if n == "specs"));
        assert!(matches!(Gating::from_names::<&str>(&[]), Err(GatingError::Empty)));
    }
}
