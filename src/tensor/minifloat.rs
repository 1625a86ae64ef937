//! ONNX's 8-bit and 4-bit float formats as bit-pattern newtypes, shaped like
//! `half::f16`: storage types that only move bits and widen to `f32`.
//!
//! `PartialEq` is bitwise on purpose (so `-0 != +0` and a NaN equals itself);
//! compare numerically through `to_f32`.

use std::fmt;

/// `2^k` exactly; every power of two these formats reach is a normal `f64`,
/// while some (down to 2^-127) would be subnormal `f32`s.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// Decodes a finite sign/exponent/mantissa pattern whose zero exponent field
/// means subnormal. Bits above the layout are ignored. NaN and infinity rules
/// differ per format, so callers handle those patterns first.
fn decode<const SIGNED: bool, const E: u32, const M: u32, const BIAS: i32>(bits: u8) -> f32 {
    let bits = u32::from(bits);
    let man = bits & ((1 << M) - 1);
    let exp = (bits >> M) & ((1 << E) - 1);
    let magnitude = if exp == 0 {
        f64::from(man) * pow2(1 - BIAS - M as i32)
    } else {
        f64::from(man | 1 << M) * pow2(exp as i32 - BIAS - M as i32)
    };
    let negative = SIGNED && (bits >> (E + M)) & 1 == 1;
    // Every value of these formats is representable in f32, so the cast is exact.
    (if negative { -magnitude } else { magnitude }) as f32
}

macro_rules! minifloat {
    ($(#[$doc:meta])* $name:ident, width_mask = $mask:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            /// Wraps a raw bit pattern; bits beyond the format's width are
            /// dropped so that equality stays bitwise on the value's own bits.
            pub const fn from_bits(bits: u8) -> Self {
                Self(bits & $mask)
            }

            /// The raw bit pattern.
            pub const fn to_bits(self) -> u8 {
                self.0
            }
        }

        impl fmt::Display for $name {
            /// Prints the `f32` value, honouring the formatter's flags.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }
    };
}

minifloat! {
    /// ONNX FLOAT8E4M3FN: sign, 4 exponent bits (bias 7), 3 mantissa bits;
    /// no infinities, NaN only at S.1111.111, max 448, has -0.
    Float8E4M3FN, width_mask = 0xFF
}
minifloat! {
    /// ONNX FLOAT8E4M3FNUZ: like E4M3FN with bias 8; no infinities, no -0,
    /// the single NaN is 0x80, max 240.
    Float8E4M3FNUZ, width_mask = 0xFF
}
minifloat! {
    /// ONNX FLOAT8E5M2: IEEE-like, bias 15 (the top byte of an `f16`);
    /// infinities at 0x7C/0xFC, NaN when the exponent is all ones and the
    /// mantissa non-zero, max 57344, has -0.
    Float8E5M2, width_mask = 0xFF
}
minifloat! {
    /// ONNX FLOAT8E5M2FNUZ: 5 exponent bits (bias 16), 2 mantissa bits;
    /// no infinities, no -0, the single NaN is 0x80, max 57344.
    Float8E5M2FNUZ, width_mask = 0xFF
}
minifloat! {
    /// ONNX FLOAT8E8M0: an unsigned exponent only, value 2^(bits - 127);
    /// 0xFF is NaN; no zero, no infinity.
    Float8E8M0, width_mask = 0xFF
}
minifloat! {
    /// ONNX FLOAT4E2M1, one element in the low nibble: sign, 2 exponent bits
    /// (bias 1), 1 mantissa bit; values ±{0, 0.5, 1, 1.5, 2, 3, 4, 6};
    /// no NaN, no infinity, has -0.
    Float4E2M1, width_mask = 0x0F
}

impl Float8E4M3FN {
    /// The exact value; S.1111.111 is NaN (no infinities).
    pub fn to_f32(self) -> f32 {
        if self.0 & 0x7F == 0x7F {
            f32::NAN
        } else {
            decode::<true, 4, 3, 7>(self.0)
        }
    }
}

impl Float8E4M3FNUZ {
    /// The exact value; 0x80 (the would-be -0) is NaN.
    pub fn to_f32(self) -> f32 {
        if self.0 == 0x80 {
            f32::NAN
        } else {
            decode::<true, 4, 3, 8>(self.0)
        }
    }
}

impl Float8E5M2 {
    /// The exact value; exponent 11111 is infinity (mantissa 0) or NaN, as in IEEE 754.
    pub fn to_f32(self) -> f32 {
        match self.0 & 0x7F {
            0x7C if self.0 & 0x80 != 0 => f32::NEG_INFINITY,
            0x7C => f32::INFINITY,
            0x7D..=0x7F => f32::NAN,
            _ => decode::<true, 5, 2, 15>(self.0),
        }
    }
}

impl Float8E5M2FNUZ {
    /// The exact value; 0x80 (the would-be -0) is NaN.
    pub fn to_f32(self) -> f32 {
        if self.0 == 0x80 {
            f32::NAN
        } else {
            decode::<true, 5, 2, 16>(self.0)
        }
    }
}

impl Float8E8M0 {
    /// The exact value; 0xFF is NaN. Exponent 0 is 2^-127, not a subnormal
    /// zero, so this bypasses `decode`.
    pub fn to_f32(self) -> f32 {
        if self.0 == 0xFF {
            f32::NAN
        } else {
            pow2(i32::from(self.0) - 127) as f32
        }
    }
}

impl Float4E2M1 {
    /// The exact value; every pattern is finite.
    pub fn to_f32(self) -> f32 {
        decode::<true, 2, 1, 1>(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's definition, computed with `powi` over f64 and sign applied
    /// separately, independent of `decode`/`pow2`.
    fn spec_value(bits: u32, exp_bits: u32, man_bits: u32, bias: i32) -> f32 {
        let s = (bits >> (exp_bits + man_bits)) & 1;
        let e = ((bits >> man_bits) & ((1 << exp_bits) - 1)) as i32;
        let m = f64::from(bits & ((1 << man_bits) - 1));
        let scale = f64::from(1u32 << man_bits);
        let sign = if s == 1 { -1.0 } else { 1.0 };
        let v = if e == 0 {
            sign * 2f64.powi(1 - bias) * (m / scale)
        } else {
            sign * 2f64.powi(e - bias) * (1.0 + m / scale)
        };
        v as f32
    }

    fn check(name: &str, bits: u8, got: f32, want: f32) {
        if want.is_nan() {
            assert!(got.is_nan(), "{name} {bits:#04x}: got {got}, want NaN");
        } else {
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{name} {bits:#04x}: got {got:?}, want {want:?}"
            );
        }
    }

    #[test]
    fn e4m3fn_all_patterns() {
        for b in 0..=255u8 {
            let want = match b & 0x7F {
                0x7F => f32::NAN,
                _ => spec_value(b.into(), 4, 3, 7),
            };
            check("E4M3FN", b, Float8E4M3FN::from_bits(b).to_f32(), want);
        }
    }

    #[test]
    fn e4m3fnuz_all_patterns() {
        for b in 0..=255u8 {
            let want = match b {
                0x80 => f32::NAN,
                _ => spec_value(b.into(), 4, 3, 8),
            };
            check("E4M3FNUZ", b, Float8E4M3FNUZ::from_bits(b).to_f32(), want);
        }
    }

    #[test]
    fn e5m2_all_patterns() {
        for b in 0..=255u8 {
            let negative = b & 0x80 != 0;
            let want = match b & 0x7F {
                0x7C if negative => f32::NEG_INFINITY,
                0x7C => f32::INFINITY,
                0x7D..=0x7F => f32::NAN,
                _ => spec_value(b.into(), 5, 2, 15),
            };
            check("E5M2", b, Float8E5M2::from_bits(b).to_f32(), want);
        }
    }

    #[test]
    fn e5m2fnuz_all_patterns() {
        for b in 0..=255u8 {
            let want = match b {
                0x80 => f32::NAN,
                _ => spec_value(b.into(), 5, 2, 16),
            };
            check("E5M2FNUZ", b, Float8E5M2FNUZ::from_bits(b).to_f32(), want);
        }
    }

    #[test]
    fn e8m0_all_patterns() {
        for b in 0..=255u8 {
            let want = match b {
                0xFF => f32::NAN,
                _ => 2f64.powi(i32::from(b) - 127) as f32,
            };
            check("E8M0", b, Float8E8M0::from_bits(b).to_f32(), want);
        }
    }

    #[test]
    fn e2m1_all_patterns() {
        for b in 0..=15u8 {
            let want = spec_value(b.into(), 2, 1, 1);
            check("E2M1", b, Float4E2M1::from_bits(b).to_f32(), want);
        }
    }

    #[test]
    fn nan_is_canonical() {
        for b in 0..=255u8 {
            for x in [
                Float8E4M3FN::from_bits(b).to_f32(),
                Float8E4M3FNUZ::from_bits(b).to_f32(),
                Float8E5M2::from_bits(b).to_f32(),
                Float8E5M2FNUZ::from_bits(b).to_f32(),
                Float8E8M0::from_bits(b).to_f32(),
            ] {
                if x.is_nan() {
                    assert_eq!(x.to_bits(), f32::NAN.to_bits(), "{b:#04x}");
                }
            }
        }
    }

    #[test]
    fn spec_table_values() {
        let e4m3fn = |b| Float8E4M3FN::from_bits(b).to_f32();
        assert_eq!(e4m3fn(0x7E), 448.0);
        assert!(e4m3fn(0x7F).is_nan());
        assert_eq!(e4m3fn(0x01), 2f32.powi(-9));
        assert_eq!(e4m3fn(0x80).to_bits(), (-0.0f32).to_bits());

        let e4m3fnuz = |b| Float8E4M3FNUZ::from_bits(b).to_f32();
        assert_eq!(e4m3fnuz(0x7F), 240.0);
        assert!(e4m3fnuz(0x80).is_nan());
        assert_eq!(e4m3fnuz(0x00).to_bits(), 0.0f32.to_bits());

        let e5m2 = |b| Float8E5M2::from_bits(b).to_f32();
        assert_eq!(e5m2(0x7B), 57344.0);
        assert_eq!(e5m2(0x7C), f32::INFINITY);
        assert_eq!(e5m2(0xFC), f32::NEG_INFINITY);
        assert!(e5m2(0x7D).is_nan());
        assert_eq!(e5m2(0x01), 2f32.powi(-16));

        let e5m2fnuz = |b| Float8E5M2FNUZ::from_bits(b).to_f32();
        assert_eq!(e5m2fnuz(0x7F), 57344.0);
        assert!(e5m2fnuz(0x80).is_nan());
        assert_eq!(e5m2fnuz(0x01), 2f32.powi(-17));

        let e8m0 = |b| Float8E8M0::from_bits(b).to_f32();
        assert_eq!(e8m0(0x7F), 1.0);
        assert_eq!(e8m0(0x00), f32::from_bits(0x0040_0000)); // 2^-127, an f32 subnormal
        assert_eq!(e8m0(0xFE), f32::from_bits(0x7F00_0000)); // 2^127
        assert!(e8m0(0xFF).is_nan());

        let e2m1 = |b| Float4E2M1::from_bits(b).to_f32();
        assert_eq!(e2m1(0x7), 6.0);
        assert_eq!(e2m1(0x1), 0.5);
        assert_eq!(e2m1(0xF), -6.0);
        assert_eq!(e2m1(0x8).to_bits(), (-0.0f32).to_bits());
        assert_eq!(e2m1(0xF7), 6.0);
    }

    #[test]
    fn bits_round_trip_and_display() {
        assert_eq!(Float8E5M2::from_bits(0xAB).to_bits(), 0xAB);
        assert_eq!(Float4E2M1::from_bits(0xF7).to_bits(), 0x07);
        assert_eq!(Float4E2M1::from_bits(0xF7), Float4E2M1::from_bits(0x07));
        assert_ne!(Float8E4M3FN::from_bits(0x00), Float8E4M3FN::from_bits(0x80));
        assert_eq!(Float8E4M3FN::from_bits(0x7E).to_string(), "448");
        assert_eq!(Float4E2M1::from_bits(0x3).to_string(), "1.5");
        assert_eq!(format!("{:.2}", Float8E8M0::from_bits(0x7F)), "1.00");
        assert_eq!(Float8E4M3FNUZ::from_bits(0x80).to_string(), "NaN");
    }
}
