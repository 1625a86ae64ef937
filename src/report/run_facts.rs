//! What a run records so that its report can be merged with other parts of one run: whether
//! it ran to its end, the options that change verdicts, the corpus versions, and a digest of
//! the whole selection (before `--shard`), which the union of the parts must reproduce.
//! Reports written before these facts have none (`"run"` absent): docs/report-format.md says
//! what merging them can and cannot check.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The facts of a run that merging its parts checks, as the JSON report's `"run"` records them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFacts {
    /// Whether every selected data set ran: false after a signal stopped the run.
    pub complete: bool,
    /// The bases that gate (`--basis`), as their names.
    pub gating: String,
    /// The comparison rule (`--exact`, `--ulps`, `--rtol`/`--atol`).
    pub tolerance: String,
    /// The sha256 of the `--profile` file, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// `--inputs-as-constants`.
    pub inputs_as_constants: bool,
    /// `--strict-rules`.
    pub strict_rules: bool,
    /// The version of each corpus the run read, by name.
    #[serde(default)]
    pub corpora: BTreeMap<String, u32>,
    /// The sha256 of the names of the data sets the whole run selected (before `--shard`),
    /// sorted, each followed by a newline.
    pub selection: String,
    /// The configuration the run declared (`--config`, `Harness::config`); absent for the
    /// unnamed one, and in reports written before configurations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// `--retries`: how often a crashed or timed-out data set was run again (a retry can turn a
    /// crash into a pass); absent for none, and in reports written before retries.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl RunFacts {
    /// The first fact (by its JSON name) in which `self` and `other` differ as parts of one
    /// run, with both values; whether each ran to its end is not compared.
    pub(crate) fn differs(&self, other: &RunFacts) -> Option<(&'static str, String, String)> {
        let show = |v: &dyn std::fmt::Debug| format!("{v:?}");
        // An optional fact as its value, or `none`: never Rust's `Some("…")`.
        let optional = |v: &Option<String>| v.as_ref().map_or_else(|| "none".to_owned(), |v| format!("{v:?}"));
        [
            ("gating", show(&self.gating), show(&other.gating)),
            ("tolerance", show(&self.tolerance), show(&other.tolerance)),
            ("profile", optional(&self.profile), optional(&other.profile)),
            (
                "inputs_as_constants",
                show(&self.inputs_as_constants),
                show(&other.inputs_as_constants),
            ),
            ("strict_rules", show(&self.strict_rules), show(&other.strict_rules)),
            ("corpora", show(&self.corpora), show(&other.corpora)),
            ("selection", show(&self.selection), show(&other.selection)),
            ("config", optional(&self.config), optional(&other.config)),
            ("retries", show(&self.retries), show(&other.retries)),
        ]
        .into_iter()
        .find(|(_, ours, theirs)| ours != theirs)
    }
}
