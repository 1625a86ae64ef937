//! How far apart the floating outputs are, as the verdict carries it and reports serialise it
//! ([`Deviation`]): the largest errors and ULP distance with where they are, and the special
//! differences named rather than measured ([`Special`]), each with its first element.

use std::fmt::{self, Write as _};

use serde::{Deserialize, Serialize};

/// A difference between special values, or involving one, named rather than measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Special {
    /// Both NaN, with other bits: fails only under [`Tolerance::Bitwise`](super::tolerance::Tolerance::Bitwise).
    NanPayload,
    /// A NaN expected, a number returned.
    MissingNan,
    /// A number expected, NaN returned.
    UnexpectedNan,
    /// An infinity on one side that the other does not match: never within a tolerance,
    /// though −inf and the most negative finite value are one ordinal apart.
    Infinity,
    /// Zeros of opposite signs: no distance at all, and still a different value.
    SignOfZero,
    /// A subnormal of the format expected, zero returned (flush-to-zero): not counted in ULPs.
    FlushedToZero,
}

impl Special {
    pub(super) const ALL: [Special; 6] = [
        Special::NanPayload,
        Special::MissingNan,
        Special::UnexpectedNan,
        Special::Infinity,
        Special::SignOfZero,
        Special::FlushedToZero,
    ];

    /// How reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            Special::NanPayload => "NaN payload differs",
            Special::MissingNan => "NaN expected",
            Special::UnexpectedNan => "NaN returned",
            Special::Infinity => "infinity not matched",
            Special::SignOfZero => "sign of zero differs",
            Special::FlushedToZero => "subnormal flushed to 0",
        }
    }
}

/// One element, as an example of a difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Witness {
    /// The output's position among the node's outputs.
    pub output: usize,
    /// The element's multi-index, outermost axis first.
    pub index: Vec<usize>,
    /// The expected value, as a report shows it.
    pub expected: String,
    /// The actual value.
    pub actual: String,
}

impl fmt::Display for Witness {
    /// `output 0 [1, 2]: expected -inf, got -3.4028235e38`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "output {} {:?}: expected {}, got {}",
            self.output, self.index, self.expected, self.actual
        )
    }
}

/// The largest distance in units in the last place, and where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UlpDistance {
    /// How many values of the format lie between the two.
    pub ulps: u64,
    /// The element.
    #[serde(flatten)]
    pub at: Witness,
}

/// How many elements differ in one [`Special`] way, and the first of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpecialDifference {
    /// How they differ.
    pub kind: Special,
    /// In how many elements.
    pub count: usize,
    /// The first, in row-major order of the first output holding one.
    #[serde(flatten)]
    pub first: Witness,
}

/// How far apart the floating values of an output, or of all outputs of a data set, are: the
/// typed summary the verdict carries and every report prints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Deviation {
    /// The largest `|actual − expected|` over finite pairs (0 when none differs); infinite
    /// when the difference of two doubles overflows, which JSON writes as null.
    #[serde(deserialize_with = "infinite_if_null")]
    pub max_abs_error: f64,
    /// The largest `|actual − expected| / max(|actual|, |expected|)` over finite pairs: the
    /// measure `rtol` bounds.
    #[serde(deserialize_with = "infinite_if_null")]
    pub max_rel_error: f64,
    /// The largest distance in ULPs over finite pairs whose bits differ, and where; none when
    /// every difference is a special one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ulps: Option<UlpDistance>,
    /// The special differences, by kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub special: Vec<SpecialDifference>,
}

/// An error read back: JSON has no infinity and writes null for it, the only non-finite
/// value an error can take.
fn infinite_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

impl Deviation {
    /// Adds another output's deviation.
    pub(crate) fn merge(&mut self, other: Deviation) {
        self.max_abs_error = self.max_abs_error.max(other.max_abs_error);
        self.max_rel_error = self.max_rel_error.max(other.max_rel_error);
        if let Some(ulps) = other.max_ulps
            && self.max_ulps.as_ref().is_none_or(|max| ulps.ulps > max.ulps)
        {
            self.max_ulps = Some(ulps);
        }
        for difference in other.special {
            match self.special.iter_mut().find(|d| d.kind == difference.kind) {
                Some(known) => known.count += difference.count,
                None => self.special.push(difference),
            }
        }
        self.special.sort_by_key(|d| d.kind);
    }

    /// The same, with its witnesses in output `output`.
    pub(crate) fn in_output(mut self, output: usize) -> Deviation {
        if let Some(max) = &mut self.max_ulps {
            max.at.output = output;
        }
        for difference in &mut self.special {
            difference.first.output = output;
        }
        self
    }

    /// Whether some finite value differs (not only special ones).
    fn measured(&self) -> bool {
        self.max_ulps.is_some() || self.max_abs_error > 0.0
    }

    /// `max abs error 0.5, max rel error 0.25, max 3 ulps at output 0 [1, 2]`: the finite
    /// part, when some finite value differs. `here` leaves the output's number out.
    pub(super) fn measures(&self, here: bool) -> Option<String> {
        if !self.measured() {
            return None;
        }
        let mut text = format!(
            "max abs error {}, max rel error {}",
            show_float(self.max_abs_error),
            show_float(self.max_rel_error)
        );
        if let Some(max) = &self.max_ulps {
            write!(text, ", max {} {} at ", max.ulps, plural(max.ulps, "ulp", "ulps")).unwrap();
            if !here {
                write!(text, "output {} ", max.at.output).unwrap();
            }
            write!(text, "{:?}", max.at.index).unwrap();
        }
        Some(text)
    }

    /// Everything in one line, for a pass that is not bit-identical:
    /// `max abs error 0.5, max rel error 0.25, max 3 ulps at output 0 [1, 2]; NaN payload
    /// differs in 1 element, first output 0 [3]: expected NaN (0x7fc00000), got NaN (0x7fc00001)`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.measures(false).into_iter().collect();
        parts.extend(self.special.iter().map(|d| d.describe(false)));
        parts.join("; ")
    }
}

impl SpecialDifference {
    /// `infinity not matched in 1 element, first [0, 3]: expected -inf, got -3.4028235e38`.
    pub(super) fn describe(&self, here: bool) -> String {
        let where_ = if here {
            format!("{:?}", self.first.index)
        } else {
            format!("output {} {:?}", self.first.output, self.first.index)
        };
        format!(
            "{} in {} {}, first {where_}: expected {}, got {}",
            self.kind.describe(),
            self.count,
            plural(self.count as u64, "element", "elements"),
            self.first.expected,
            self.first.actual
        )
    }
}

pub(super) fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// A float as a person reads it: its Display in the usual range, exponent form outside
/// (3.4e38 rather than 39 digits, 1e-30 rather than 31 zeros).
pub(super) fn show_float<F: Copy + Into<f64> + fmt::Display + fmt::LowerExp>(x: F) -> String {
    let magnitude = x.into().abs();
    if magnitude != 0.0 && magnitude.is_finite() && !(1e-4..1e7).contains(&magnitude) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::compare::tests::check;

    #[test]
    fn deviations_of_outputs_merge_and_read_back() {
        let first = check(vec![1.0f32, f32::NAN], vec![1.5, 0.0])
            .deviation
            .unwrap()
            .in_output(0);
        let second = check(vec![f32::NAN, 1.0, 0.0], vec![1.0, 1.0 + f32::EPSILON * 4.0, -0.0])
            .deviation
            .unwrap()
            .in_output(1);
        let mut merged = first.clone();
        merged.merge(second);
        // 1 against 1.5 is 2^22 ULPs: the larger, with its output.
        let max = merged.max_ulps.as_ref().unwrap();
        assert_eq!((max.ulps, max.at.output, &max.at.index), (1 << 22, 0, &vec![0]));
        let kinds: Vec<_> = merged
            .special
            .iter()
            .map(|d| (d.kind, d.count, d.first.output))
            .collect();
        assert_eq!(kinds, [(Special::MissingNan, 2, 0), (Special::SignOfZero, 1, 1)]);
        assert_eq!(
            merged.describe(),
            "max abs error 0.5, max rel error 0.3333333333333333, max 4194304 ulps at output 0 [0]; \
             NaN expected in 2 elements, first output 0 [1]: expected NaN, got 0; \
             sign of zero differs in 1 element, first output 1 [2]: expected +0, got -0"
        );
        // Two doubles far apart overflow the error, which JSON writes as null and reads back.
        let huge = check(vec![f64::MAX], vec![-f64::MAX]).deviation.unwrap();
        assert_eq!(huge.max_abs_error, f64::INFINITY);
        let json = serde_json::to_string(&huge).unwrap();
        assert!(
            json.starts_with(r#"{"max_abs_error":null,"max_rel_error":null,"#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Deviation>(&json).unwrap(), huge);
        let json = serde_json::to_string(&merged).unwrap();
        assert_eq!(serde_json::from_str::<Deviation>(&json).unwrap(), merged);
        assert!(
            json.contains(r#""max_ulps":{"ulps":4194304,"output":0,"index":[0],"#),
            "{json}"
        );
        assert!(
            json.contains(r#"{"kind":"sign-of-zero","count":1,"output":1,"index":[2],"#),
            "{json}"
        );
    }
}
