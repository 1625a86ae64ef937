//! A profile's exceptions (`[[except]]`): combinations of operator version, element type and
//! mode a backend does not support, as the file states them ([`Exception`]) and as bit masks
//! matched in one step per data set, the first exception each subject of the tables meets
//! worked out once when the profile is read ([`Matchers`]).

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Deserialize;

use super::subject::Subject;
use crate::operators::{OpVersion, PadMode};
use crate::tensor::DataType;

/// A combination a backend does not support: every field that is set must match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Exception {
    /// Operator versions (`Pad-19`, `Pad` for every version, `CenterCropPad-18`,
    /// `com.microsoft.Pad-1`).
    #[serde(default)]
    pub operators: Vec<String>,
    /// Element types by name.
    #[serde(default)]
    pub dtypes: Vec<String>,
    /// Modes by name.
    #[serde(default)]
    pub modes: Vec<String>,
    /// Why: shown in the report of each data set it excludes.
    pub reason: String,
}

/// An exception as three bit masks, one bit per operator version, element type and mode
/// (their positions in [`OpVersion::all`], [`DataType::ALL`], [`PadMode::ALL`]). An empty
/// list in the file is every bit, [`OTHER`] included: it matches a subject whose version or
/// mode is none of those (CenterCropPad has no mode), which a list never does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Masks {
    operators: u64,
    dtypes: u64,
    modes: u64,
}

/// The bit of a version or mode outside the tables.
const OTHER: u64 = 1 << 63;

impl Masks {
    pub(super) fn new(
        operators: &BTreeSet<OpVersion>,
        dtypes: &BTreeSet<DataType>,
        modes: &BTreeSet<PadMode>,
    ) -> Masks {
        fn mask<T: Ord>(set: &BTreeSet<T>, table: impl Iterator<Item = T>) -> u64 {
            if set.is_empty() {
                return u64::MAX;
            }
            table
                .enumerate()
                .filter(|(_, t)| set.contains(t))
                .fold(0, |m, (i, _)| m | 1 << i)
        }
        Masks {
            operators: mask(operators, OpVersion::all()),
            dtypes: mask(dtypes, DataType::ALL.into_iter()),
            modes: mask(modes, PadMode::ALL.into_iter()),
        }
    }

    /// `subject`'s own bits.
    fn of(subject: &Key) -> Masks {
        fn bit<T: PartialEq>(value: Option<T>, mut table: impl Iterator<Item = T>) -> u64 {
            value.and_then(|v| table.position(|t| t == v)).map_or(OTHER, |i| 1 << i)
        }
        Masks {
            operators: bit(Some(subject.operator), OpVersion::all()),
            dtypes: bit(Some(subject.dtype), DataType::ALL.into_iter()),
            modes: bit(subject.mode, PadMode::ALL.into_iter()),
        }
    }

    fn matches(&self, subject: &Masks) -> bool {
        self.operators & subject.operators != 0 && self.dtypes & subject.dtypes != 0 && self.modes & subject.modes != 0
    }
}

/// The part of a subject exceptions match: its operator version, element type and mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    operator: OpVersion,
    dtype: DataType,
    mode: Option<PadMode>,
}

impl Key {
    pub(super) fn of(subject: &Subject) -> Key {
        Key {
            operator: subject.operator,
            dtype: subject.dtype,
            // A mode no version defines is none of the table's: only an exception that lists
            // no modes matches it.
            mode: subject.known_mode(),
        }
    }
}

/// The exceptions' masks, and for each subject of the tables the first exception it
/// matches, worked out once when the profile is read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Matchers {
    masks: Vec<Masks>,
    first: HashMap<Key, usize>,
}

impl Matchers {
    /// Each exception is tried only on the subjects no earlier one matched, and one equal
    /// to an earlier one is skipped: at most (exceptions × subjects) mask tests, where the
    /// subjects (about 1,500) are a constant of the operator table, not of the input.
    pub(super) fn new(masks: Vec<Masks>) -> Matchers {
        let mut left: Vec<(Key, Masks)> = every_subject().map(|s| (s, Masks::of(&s))).collect();
        let mut first = HashMap::new();
        let mut tried = HashSet::new();
        for (i, exception) in masks.iter().enumerate() {
            if left.is_empty() {
                break;
            }
            if !tried.insert(*exception) {
                continue;
            }
            left.retain(|(subject, bits)| {
                let matched = exception.matches(bits);
                if matched {
                    first.insert(*subject, i);
                }
                !matched
            });
        }
        Matchers { masks, first }
    }

    /// The index of the first exception `subject` matches, if any.
    pub(super) fn first_match(&self, subject: &Key) -> Option<usize> {
        match self.first.get(subject) {
            Some(&i) => Some(i),
            None if self.masks.is_empty() || OpVersion::all().any(|op| op == subject.operator) => None,
            // A version the table lacks (none the reader makes): tried against each exception.
            None => {
                let bits = Masks::of(subject);
                self.masks.iter().position(|m| m.matches(&bits))
            }
        }
    }
}

/// Every subject the tables can name: each operator version, element type and mode (and no
/// mode).
fn every_subject() -> impl Iterator<Item = Key> {
    OpVersion::all().flat_map(|operator| {
        DataType::ALL.into_iter().flat_map(move |dtype| {
            PadMode::ALL
                .into_iter()
                .map(Some)
                .chain([None])
                .map(move |mode| Key { operator, dtype, mode })
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::judge::profile::Profile;
    use crate::judge::profile::tests::subject;
    use crate::judge::profile::unsupported::Unsupported;
    use crate::operators::{PadMode, PadOp};
    use crate::tensor::DataType;

    /// A profile of 10,000 exceptions met by 40,000 lookups: with a scan of the exceptions per
    /// data set (as once), they would take seconds; each must still find the first exception
    /// that matches, in the file's order. The full size is the ignored test below.
    #[test]
    fn many_exceptions_are_matched_in_order_without_a_scan_per_lookup() {
        exceptions_are_matched_in_order(10_000);
    }

    /// The check above at 100,000 exceptions and 400,000 lookups, which a scan per lookup
    /// would take hours over (a second of `cargo test` time: .ci/run runs it).
    #[test]
    #[ignore = "slow: run by .ci/run"]
    fn a_hundred_thousand_exceptions_are_matched_without_a_scan_per_lookup() {
        exceptions_are_matched_in_order(100_000);
    }

    /// `n` exceptions, mostly repeats, and `n` rounds of four lookups.
    fn exceptions_are_matched_in_order(n: usize) {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("p.toml");
        let mut text = String::new();
        for i in 0..n {
            // Mostly repeats and combinations of one version and element type; the first
            // for Pad-19 int8 edge is number 7, and one for every element type comes late.
            let (op, dtype) = match i % 5 {
                0 => ("Pad-13", "float"),
                1 => ("Pad-18", "int32"),
                2 => ("CenterCropPad-18", "int8"),
                _ => ("Pad-19", "int8"),
            };
            let modes = if i % 5 == 3 { "[\"constant\"]" } else { "[]" };
            text.push_str(&format!(
                "[[except]]\noperators = [\"{op}\"]\ndtypes = [\"{dtype}\"]\nmodes = {modes}\nreason = \"r{i}\"\n"
            ));
            if i == n - 10 {
                let every: Vec<String> = DataType::ALL.iter().map(|d| format!("{:?}", d.name())).collect();
                text.push_str(&format!(
                    "[[except]]\ndtypes = [{}]\nreason = \"everything else\"\n",
                    every.join(", ")
                ));
            }
        }
        std::fs::write(&path, text).unwrap();
        let profile = Profile::read(&path).unwrap();
        assert_eq!(profile.exceptions.len(), n + 1);
        let reason = |op, version, dtype, mode| {
            profile.excludes(&subject(op, version, dtype, mode)).map(|u| match u {
                Unsupported::Excluded(key, reason) => {
                    assert_eq!(key, crate::judge::profile::ProfileKey::Except);
                    reason
                }
                other => panic!("{other}"),
            })
        };
        for _ in 0..n {
            assert_eq!(
                reason(PadOp::Pad, 19, DataType::Int8, Some(PadMode::Edge)),
                Some("r4".into())
            );
            assert_eq!(
                reason(PadOp::Pad, 19, DataType::Int8, Some(PadMode::Constant)),
                Some("r3".into())
            );
            assert_eq!(
                reason(PadOp::CenterCropPad, 18, DataType::Int8, None),
                Some("r2".into())
            );
            assert_eq!(
                reason(PadOp::Pad, 19, DataType::Float, None),
                Some("everything else".into())
            );
        }
        // A version outside the table still meets the exception without an operator list.
        assert_eq!(
            reason(PadOp::Pad, 22, DataType::Int8, None),
            Some("everything else".into())
        );
    }
}
