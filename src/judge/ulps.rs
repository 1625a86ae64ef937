//! Each floating format's order of values, for distances in units in the last place
//! (docs/semantics.md#comparison).
//!
//! approx answers whether two values are close; a maintainer porting a kernel asks how far
//! apart they are, counted in representable values of the format. One implementation per
//! format, read off its own encoding: the IEEE-like formats are sign-magnitude, so a value's
//! position is its magnitude bits, negated for a negative value (both zeros sit at 0, the
//! infinities one past the largest finite value); the float8 and float4 formats differ in
//! which patterns are NaN, whether −0 and the infinities exist, and e8m0 has no sign at all.

use half::{bf16, f16};

use crate::tensor::{Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0};

/// A floating format's facts that the comparison needs beyond the value itself.
pub(crate) trait FloatFormat: Copy {
    /// The value, widened exactly (every value of these formats is an `f64`).
    fn value(self) -> f64;
    /// The value's position among the format's values in increasing order: consecutive values
    /// are one apart, −0 and +0 share 0, an infinity is one past the largest finite value.
    /// `None` for NaN, which has no place in the order.
    fn ordinal(self) -> Option<i64>;
    /// A subnormal of this format (not of f64): nonzero, below the smallest normal value.
    fn is_subnormal(self) -> bool;
}

/// How many values of the format lie between `a` and `b` (one for neighbours, zero for equal
/// values and for −0 against +0); `None` when either is NaN.
pub(crate) fn ulp_distance<F: FloatFormat>(a: F, b: F) -> Option<u64> {
    Some(a.ordinal()?.abs_diff(b.ordinal()?))
}

/// A sign-magnitude encoding: the top bit of `width` is the sign, the `mantissa` lowest bits
/// the mantissa, the bits between the exponent.
#[derive(Clone, Copy)]
struct SignMagnitude {
    width: u32,
    mantissa: u32,
}

impl SignMagnitude {
    const F64: SignMagnitude = SignMagnitude {
        width: 64,
        mantissa: 52,
    };
    const F32: SignMagnitude = SignMagnitude {
        width: 32,
        mantissa: 23,
    };
    const F16: SignMagnitude = SignMagnitude {
        width: 16,
        mantissa: 10,
    };
    const BF16: SignMagnitude = SignMagnitude { width: 16, mantissa: 7 };
    const E4M3: SignMagnitude = SignMagnitude { width: 8, mantissa: 3 };
    const E5M2: SignMagnitude = SignMagnitude { width: 8, mantissa: 2 };
    const E2M1: SignMagnitude = SignMagnitude { width: 4, mantissa: 1 };

    fn magnitude(self, bits: u64) -> u64 {
        bits & ((1 << (self.width - 1)) - 1)
    }

    fn negative(self, bits: u64) -> bool {
        bits >> (self.width - 1) & 1 == 1
    }

    /// The magnitude, negated for a negative value. The magnitude has one bit less than the
    /// width, so it fits an `i64` for every width up to 64.
    fn ordinal(self, bits: u64) -> i64 {
        let magnitude = self.magnitude(bits) as i64;
        if self.negative(bits) { -magnitude } else { magnitude }
    }

    /// Exponent field zero, mantissa nonzero.
    fn is_subnormal(self, bits: u64) -> bool {
        let magnitude = self.magnitude(bits);
        magnitude != 0 && magnitude < 1 << self.mantissa
    }
}

impl FloatFormat for f64 {
    fn value(self) -> f64 {
        self
    }
    fn ordinal(self) -> Option<i64> {
        (!self.is_nan()).then(|| SignMagnitude::F64.ordinal(self.to_bits()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::F64.is_subnormal(self.to_bits())
    }
}

impl FloatFormat for f32 {
    fn value(self) -> f64 {
        self.into()
    }
    fn ordinal(self) -> Option<i64> {
        (!self.is_nan()).then(|| SignMagnitude::F32.ordinal(self.to_bits().into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::F32.is_subnormal(self.to_bits().into())
    }
}

impl FloatFormat for f16 {
    fn value(self) -> f64 {
        self.to_f64()
    }
    fn ordinal(self) -> Option<i64> {
        (!self.is_nan()).then(|| SignMagnitude::F16.ordinal(self.to_bits().into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::F16.is_subnormal(self.to_bits().into())
    }
}

impl FloatFormat for bf16 {
    fn value(self) -> f64 {
        self.to_f64()
    }
    fn ordinal(self) -> Option<i64> {
        (!self.is_nan()).then(|| SignMagnitude::BF16.ordinal(self.to_bits().into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::BF16.is_subnormal(self.to_bits().into())
    }
}

/// e4m3fn: NaN at S.1111.111 (0x7F, 0xFF), no infinities, −0 at 0x80; the largest finite
/// magnitude 0x7E (448) is the last ordinal.
impl FloatFormat for Float8E4M3FN {
    fn value(self) -> f64 {
        self.to_f32().into()
    }
    fn ordinal(self) -> Option<i64> {
        let bits = self.to_bits();
        (bits & 0x7F != 0x7F).then(|| SignMagnitude::E4M3.ordinal(bits.into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::E4M3.is_subnormal(self.to_bits().into())
    }
}

/// e4m3fnuz: the would-be −0 (0x80) is the only NaN, so zero has one encoding; no infinities.
impl FloatFormat for Float8E4M3FNUZ {
    fn value(self) -> f64 {
        self.to_f32().into()
    }
    fn ordinal(self) -> Option<i64> {
        let bits = self.to_bits();
        (bits != 0x80).then(|| SignMagnitude::E4M3.ordinal(bits.into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::E4M3.is_subnormal(self.to_bits().into())
    }
}

/// e5m2: IEEE-like, ±inf at 0x7C/0xFC (one past 57344), NaN above them.
impl FloatFormat for Float8E5M2 {
    fn value(self) -> f64 {
        self.to_f32().into()
    }
    fn ordinal(self) -> Option<i64> {
        let bits = self.to_bits();
        (bits & 0x7F <= 0x7C).then(|| SignMagnitude::E5M2.ordinal(bits.into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::E5M2.is_subnormal(self.to_bits().into())
    }
}

/// e5m2fnuz: NaN only at 0x80, no −0, no infinities.
impl FloatFormat for Float8E5M2FNUZ {
    fn value(self) -> f64 {
        self.to_f32().into()
    }
    fn ordinal(self) -> Option<i64> {
        let bits = self.to_bits();
        (bits != 0x80).then(|| SignMagnitude::E5M2.ordinal(bits.into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::E5M2.is_subnormal(self.to_bits().into())
    }
}

/// e8m0: an unsigned exponent, 2^(bits − 127): the pattern is the ordinal. No sign, no zero,
/// no subnormals; 0xFF is NaN.
impl FloatFormat for Float8E8M0 {
    fn value(self) -> f64 {
        self.to_f32().into()
    }
    fn ordinal(self) -> Option<i64> {
        let bits = self.to_bits();
        (bits != 0xFF).then_some(bits.into())
    }
    fn is_subnormal(self) -> bool {
        false
    }
}

/// float4e2m1: every pattern is finite (no NaN, no infinities); ±0, one subnormal (±0.5).
impl FloatFormat for Float4E2M1 {
    fn value(self) -> f64 {
        self.to_f32().into()
    }
    fn ordinal(self) -> Option<i64> {
        Some(SignMagnitude::E2M1.ordinal(self.to_bits().into()))
    }
    fn is_subnormal(self) -> bool {
        SignMagnitude::E2M1.is_subnormal(self.to_bits().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of neighbours in increasing value is one ordinal apart, over all patterns of
    /// a format: the order the ordinals give is the order of the values.
    fn ordinals_follow_values<F: FloatFormat>(patterns: impl Iterator<Item = F>) {
        let mut values: Vec<(f64, i64)> = patterns.filter_map(|f| Some((f.value(), f.ordinal()?))).collect();
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        values.dedup_by(|a, b| a.0 == b.0); // −0 and +0
        for pair in values.windows(2) {
            assert_eq!(pair[1].1 - pair[0].1, 1, "{:?} then {:?}", pair[0], pair[1]);
        }
    }

    #[test]
    fn every_narrow_format_orders_its_values_consecutively() {
        ordinals_follow_values((0..=255).map(Float8E4M3FN::from_bits));
        ordinals_follow_values((0..=255).map(Float8E4M3FNUZ::from_bits));
        ordinals_follow_values((0..=255).map(Float8E5M2::from_bits));
        ordinals_follow_values((0..=255).map(Float8E5M2FNUZ::from_bits));
        ordinals_follow_values((0..=255).map(Float8E8M0::from_bits));
        ordinals_follow_values((0..16).map(Float4E2M1::from_bits));
        ordinals_follow_values((0..=u16::MAX).map(f16::from_bits));
        ordinals_follow_values((0..=u16::MAX).map(bf16::from_bits));
    }

    #[test]
    fn f32_and_f64_edges() {
        // Neighbours across zero: the smallest subnormals are one from ±0, two from each other.
        let tiny = f32::from_bits(1);
        assert_eq!(ulp_distance(tiny, 0.0), Some(1));
        assert_eq!(ulp_distance(-tiny, tiny), Some(2));
        assert_eq!(ulp_distance(0.0f32, -0.0), Some(0));
        assert!(tiny.is_subnormal() && !f32::MIN_POSITIVE.is_subnormal() && !0.0f32.is_subnormal());
        // The largest finite value is one below infinity.
        assert_eq!(ulp_distance(f32::MAX, f32::INFINITY), Some(1));
        assert_eq!(ulp_distance(f32::MIN, f32::NEG_INFINITY), Some(1));
        assert_eq!(ulp_distance(1.0f32, 1.0 + f32::EPSILON), Some(1));
        assert_eq!(ulp_distance(f32::NAN, 1.0), None);
        assert_eq!(ulp_distance(1.0, f32::NAN), None);
        // The widest distance in f64, −inf to +inf, fits the u64.
        let widest = ulp_distance(f64::NEG_INFINITY, f64::INFINITY).unwrap();
        assert_eq!(widest, 2 * 0x7FF0_0000_0000_0000);
        assert_eq!(ulp_distance(f64::from_bits(1), -f64::from_bits(1)), Some(2));
        assert_eq!(ulp_distance(1.0f64, 1.0 + f64::EPSILON), Some(1));
        assert!(f64::from_bits(0x000F_FFFF_FFFF_FFFF).is_subnormal());
        assert!(!f64::MIN_POSITIVE.is_subnormal());
        // f64 1.0 and its f32 rounding neighbour: 2^29 f64 ULPs, since f32 keeps 29 fewer bits.
        let next = f64::from(1.0f32 + f32::EPSILON);
        assert_eq!(ulp_distance(1.0, next), Some(1 << 29));
    }

    #[test]
    fn half_and_bfloat_edges() {
        assert_eq!(ulp_distance(f16::MAX, f16::INFINITY), Some(1));
        assert_eq!(ulp_distance(f16::from_bits(1), f16::ZERO), Some(1));
        assert!(f16::from_bits(0x03FF).is_subnormal() && !f16::from_bits(0x0400).is_subnormal());
        assert_eq!(ulp_distance(f16::NEG_ZERO, f16::ZERO), Some(0));
        assert_eq!(ulp_distance(f16::NAN, f16::NAN), None);
        assert_eq!(ulp_distance(bf16::MAX, bf16::INFINITY), Some(1));
        assert_eq!(ulp_distance(bf16::ONE, bf16::from_bits(0x3F81)), Some(1));
        assert!(bf16::from_bits(0x007F).is_subnormal() && !bf16::from_bits(0x0080).is_subnormal());
    }

    #[test]
    fn float8_edges_follow_each_encoding() {
        // e4m3fn: 448 (0x7E) is the largest; 0x7F is NaN, not a 449th step; −0 at 0x80.
        let e4m3fn = Float8E4M3FN::from_bits;
        assert_eq!(e4m3fn(0x7E).ordinal(), Some(0x7E));
        assert_eq!(e4m3fn(0x7F).ordinal(), None);
        assert_eq!(e4m3fn(0xFF).ordinal(), None);
        assert_eq!(ulp_distance(e4m3fn(0x80), e4m3fn(0x00)), Some(0));
        assert_eq!(ulp_distance(e4m3fn(0xFE), e4m3fn(0x7E)), Some(2 * 0x7E));
        assert!(e4m3fn(0x07).is_subnormal() && !e4m3fn(0x08).is_subnormal());
        // e4m3fnuz: 0x80 is NaN; 0x81 is the smallest negative subnormal, one below zero.
        let fnuz = Float8E4M3FNUZ::from_bits;
        assert_eq!(fnuz(0x80).ordinal(), None);
        assert_eq!(ulp_distance(fnuz(0x81), fnuz(0x00)), Some(1));
        assert_eq!(fnuz(0x7F).ordinal(), Some(0x7F));
        // e5m2: +inf (0x7C) one past 57344 (0x7B); 0x7D..0x7F NaN.
        let e5m2 = Float8E5M2::from_bits;
        assert_eq!(ulp_distance(e5m2(0x7B), e5m2(0x7C)), Some(1));
        assert_eq!(ulp_distance(e5m2(0xFB), e5m2(0xFC)), Some(1));
        assert_eq!(e5m2(0x7D).ordinal(), None);
        assert_eq!(e5m2(0xFF).ordinal(), None);
        assert!(e5m2(0x03).is_subnormal() && !e5m2(0x04).is_subnormal());
        // e5m2fnuz: 57344 at 0x7F is an ordinary last value; 0x80 NaN.
        let e5m2fnuz = Float8E5M2FNUZ::from_bits;
        assert_eq!(e5m2fnuz(0x7F).ordinal(), Some(0x7F));
        assert_eq!(e5m2fnuz(0x80).ordinal(), None);
        assert_eq!(ulp_distance(e5m2fnuz(0xFF), e5m2fnuz(0x7F)), Some(2 * 0x7F));
        // e8m0: no sign, no zero; 2^-127 (0x00) to 2^127 (0xFE), 0xFF NaN.
        let e8m0 = Float8E8M0::from_bits;
        assert_eq!(ulp_distance(e8m0(0x00), e8m0(0xFE)), Some(0xFE));
        assert_eq!(e8m0(0xFF).ordinal(), None);
        assert!(!e8m0(0x00).is_subnormal());
    }

    #[test]
    fn float4_has_no_nan_and_one_subnormal() {
        let e2m1 = Float4E2M1::from_bits;
        assert!((0..16).all(|b| e2m1(b).ordinal().is_some()));
        assert_eq!(ulp_distance(e2m1(0x7), e2m1(0xF)), Some(14)); // 6 and −6
        assert_eq!(ulp_distance(e2m1(0x8), e2m1(0x0)), Some(0));
        assert!(e2m1(0x1).is_subnormal() && e2m1(0x9).is_subnormal() && !e2m1(0x2).is_subnormal());
    }
}
