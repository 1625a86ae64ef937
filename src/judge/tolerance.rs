//! How floating outputs are compared: the one rule of a run ([`Tolerance`]), from bit for bit
//! (the default) to a relative, absolute or ULP bound for finite values.

use std::fmt;

use super::deviation::plural;

/// How floating outputs are compared: one model per run. No model excuses a NaN for a number,
/// an unmatched infinity or a zero of the other sign.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum Tolerance {
    /// Values bit for bit, the sign of zero included; every NaN matches every NaN, whatever
    /// its payload. The default: a correct Pad reproduces every value it moves.
    #[default]
    Exact,
    /// Every bit, NaN payloads too (`--exact`).
    Bitwise,
    /// approx's `RelativeEq` on the values widened to f64 (each part of a complex number on
    /// its own): a finite pair passes when `|a − e| ≤ atol` or `|a − e| ≤ rtol × max(|a|, |e|)`
    /// (`--rtol`, `--atol`).
    Approx {
        /// Relative tolerance, scaled by the larger magnitude.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
    /// A finite pair passes when at most this many values of its format apart
    /// (docs/semantics.md#comparison); a subnormal flushed to zero never does (`--ulps`).
    Ulps(u64),
}

impl fmt::Display for Tolerance {
    /// `exact`, `exact with NaN payloads`, `rtol 0.001, atol 1e-7`, `2 ulps`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tolerance::Exact => f.write_str("exact"),
            Tolerance::Bitwise => f.write_str("exact with NaN payloads"),
            Tolerance::Approx { rtol, atol } => write!(f, "rtol {rtol}, atol {atol}"),
            Tolerance::Ulps(n) => write!(f, "{n} {}", plural(*n, "ulp", "ulps")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::compare::tests::approx;

    #[test]
    fn the_default_is_exact() {
        assert_eq!(Tolerance::default(), Tolerance::Exact);
        assert_eq!(Tolerance::default().to_string(), "exact");
        assert_eq!(Tolerance::Ulps(1).to_string(), "1 ulp");
        assert_eq!(approx(1e-3, 0.0).to_string(), "rtol 0.001, atol 0");
    }
}
