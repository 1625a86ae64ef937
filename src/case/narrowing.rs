//! The narrowing or representation shortcut a generated case exposes (case.json's
//! `narrowing`): a closed list, the one scripts/gen-extended writes and docs/corpus.md
//! tabulates. An unknown name is an error naming the field and the value, never a case
//! silently counted under no narrowing.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A shortcut a runtime may take with values, pads or axes that a case's values expose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Narrowing {
    /// Doubles float32 cannot hold (1e300, -1.797e308, 5e-324).
    DoubleBeyondF32Range,
    /// Doubles with more precision than float32 holds (1 + 2^-40, 0.1).
    DoubleBeyondF32Precision,
    /// float16 and bfloat16 subnormals.
    Subnormal,
    /// The largest finite float16 and bfloat16 values.
    LargestFinite,
    /// Both infinities.
    Infinity,
    /// NaNs with payloads, judged bit for bit only under `--exact`.
    NanPayload,
    /// Integers that need more than 32 bits.
    Beyond32Bits,
    /// uint64 values of 2^63 and above.
    Beyond63Bits,
    /// uint32 values of 2^31 and above.
    AboveInt32Range,
    /// The smallest and largest values of an integer type.
    TypeExtremes,
    /// Negative zero beside positive zero.
    NegativeZero,
    /// Pads beyond int32 that cancel out.
    PadsBeyondInt32,
    /// Pads of ±(2^63 − 1) that cancel out.
    PadsNearInt64Limit,
    /// An axis of 2^32 (out of range: must be refused).
    AxesBeyondInt32,
    /// An axis of −2^63 (out of range: must be refused).
    AxesNearInt64Limit,
}

impl Narrowing {
    /// Every narrowing, in the order docs/corpus.md lists them.
    pub(crate) const ALL: [Narrowing; 15] = [
        Narrowing::DoubleBeyondF32Range,
        Narrowing::DoubleBeyondF32Precision,
        Narrowing::Subnormal,
        Narrowing::LargestFinite,
        Narrowing::Infinity,
        Narrowing::NanPayload,
        Narrowing::Beyond32Bits,
        Narrowing::Beyond63Bits,
        Narrowing::AboveInt32Range,
        Narrowing::TypeExtremes,
        Narrowing::NegativeZero,
        Narrowing::PadsBeyondInt32,
        Narrowing::PadsNearInt64Limit,
        Narrowing::AxesBeyondInt32,
        Narrowing::AxesNearInt64Limit,
    ];

    /// The name case.json spells it with.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Narrowing::DoubleBeyondF32Range => "double-beyond-f32-range",
            Narrowing::DoubleBeyondF32Precision => "double-beyond-f32-precision",
            Narrowing::Subnormal => "subnormal",
            Narrowing::LargestFinite => "largest-finite",
            Narrowing::Infinity => "infinity",
            Narrowing::NanPayload => "nan-payload",
            Narrowing::Beyond32Bits => "beyond-32-bits",
            Narrowing::Beyond63Bits => "beyond-63-bits",
            Narrowing::AboveInt32Range => "above-int32-range",
            Narrowing::TypeExtremes => "type-extremes",
            Narrowing::NegativeZero => "negative-zero",
            Narrowing::PadsBeyondInt32 => "pads-beyond-int32",
            Narrowing::PadsNearInt64Limit => "pads-near-int64-limit",
            Narrowing::AxesBeyondInt32 => "axes-beyond-int32",
            Narrowing::AxesNearInt64Limit => "axes-near-int64-limit",
        }
    }

    /// The narrowing case.json's `name` spells, if any.
    pub(crate) fn from_name(name: &str) -> Option<Narrowing> {
        Narrowing::ALL.into_iter().find(|n| n.name() == name)
    }
}

impl fmt::Display for Narrowing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `narrowing` value outside the closed list.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("narrowing {0:?} is not one of {known}", known = Narrowing::ALL.map(Narrowing::name).join(", "))]
pub struct UnknownNarrowing(pub String);

impl TryFrom<String> for Narrowing {
    type Error = UnknownNarrowing;

    fn try_from(name: String) -> Result<Narrowing, UnknownNarrowing> {
        Narrowing::from_name(&name).ok_or(UnknownNarrowing(name))
    }
}

impl From<Narrowing> for String {
    fn from(narrowing: Narrowing) -> String {
        narrowing.name().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_narrowing() {
        for narrowing in Narrowing::ALL {
            let json = serde_json::to_string(&narrowing).unwrap();
            assert_eq!(json, format!("\"{}\"", narrowing.name()));
            assert_eq!(serde_json::from_str::<Narrowing>(&json).unwrap(), narrowing);
        }
        assert_eq!(
            Narrowing::from_name("double-beyond-f32-range"),
            Some(Narrowing::DoubleBeyondF32Range)
        );
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_the_field_and_value() {
        let error = serde_json::from_str::<Narrowing>("\"double-as-f16\"")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("narrowing \"double-as-f16\" is not one of double-beyond-f32-range, "),
            "{error}"
        );
    }
}
