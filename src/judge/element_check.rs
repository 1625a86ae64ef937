//! The rule on one pair of elements ([`ElementCheck`]), and how each element type is compared
//! and shown ([`Comparable`]): integers, bool, strings and sub-byte integers must be equal;
//! floating values are judged by the run's [`Tolerance`], their special values named first.

use approx::RelativeEq;
use half::{bf16, f16};
use num_complex::Complex;

use super::deviation::{Special, show_float};
use super::tolerance::Tolerance;
use super::ulps::{FloatFormat, ulp_distance};
use crate::tensor::{
    Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Int2, Int4, Uint2, Uint4,
};

/// The verdict on one pair of elements.
pub(crate) struct ElementCheck {
    /// Passes the run's rule.
    pub within: bool,
    /// The two values have identical bits.
    pub bit_equal: bool,
    /// (absolute, relative) error of a finite floating pair whose bits differ; `None` where
    /// there is nothing to add to a maximum (bit-equal pairs, NaN, infinities, non-floats).
    pub errors: Option<(f64, f64)>,
    /// The distance in ULPs of a finite floating pair whose bits differ, but for a flushed
    /// subnormal (which is named instead).
    pub ulps: Option<u64>,
    /// The special difference, if it is one.
    pub special: Option<Special>,
}

impl ElementCheck {
    /// Identical bits: the verdict for any type, with no arithmetic.
    const SAME: ElementCheck = ElementCheck {
        within: true,
        bit_equal: true,
        errors: None,
        ulps: None,
        special: None,
    };

    /// The verdict of an exact comparison.
    fn exact(equal: bool) -> ElementCheck {
        ElementCheck {
            within: equal,
            bit_equal: equal,
            ..ElementCheck::SAME
        }
    }

    /// A special difference, passing or not.
    fn special(kind: Special, within: bool) -> ElementCheck {
        ElementCheck {
            within,
            bit_equal: false,
            errors: None,
            ulps: None,
            special: Some(kind),
        }
    }
}

/// How one element type is compared and shown; implemented for every element type.
pub(crate) trait Comparable: Clone {
    /// Compared as floating values (complex by parts).
    const FLOATING: bool;
    /// The verdict on one pair.
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck;
    /// The value as a report's listing shows it.
    fn show(&self) -> String;
    /// The value alone, as the example of a special difference shows it (a NaN without its
    /// payload, a narrow float without its bits).
    fn brief(&self) -> String {
        self.show()
    }
    /// The elements' bytes, for types whose bytes are their value bit for bit (no padding,
    /// no bits outside the format): equal bytes are bit-identical elements.
    fn bytes(elements: &[Self]) -> Option<&[u8]>
    where
        Self: Sized,
    {
        let _ = elements;
        None
    }
}

/// The rule on one floating pair whose bits differ. Special values first, never excused by a
/// tolerance (a NaN payload aside); then the finite pair, measured and judged by `tolerance`.
fn float_check<F: FloatFormat>(expected: F, actual: F, tolerance: &Tolerance) -> ElementCheck {
    let (e, a) = (expected.value(), actual.value());
    match (e.is_nan(), a.is_nan()) {
        (true, true) => return ElementCheck::special(Special::NanPayload, *tolerance != Tolerance::Bitwise),
        (true, false) => return ElementCheck::special(Special::MissingNan, false),
        (false, true) => return ElementCheck::special(Special::UnexpectedNan, false),
        (false, false) => {}
    }
    if e.is_infinite() || a.is_infinite() {
        return ElementCheck::special(Special::Infinity, false);
    }
    if e == 0.0 && a == 0.0 {
        return ElementCheck::special(Special::SignOfZero, false);
    }
    let abs = (a - e).abs();
    // Relative to the larger magnitude, as approx's RelativeEq scales rtol; never over zero.
    let rel = abs / e.abs().max(a.abs());
    let flushed = a == 0.0 && expected.is_subnormal();
    let ulps = if flushed { None } else { ulp_distance(expected, actual) };
    let within = match *tolerance {
        Tolerance::Exact | Tolerance::Bitwise => false,
        Tolerance::Approx { rtol, atol } => e.relative_eq(&a, atol, rtol),
        Tolerance::Ulps(n) => ulps.is_some_and(|u| u <= n),
    };
    ElementCheck {
        within,
        bit_equal: false,
        errors: Some((abs, rel)),
        ulps,
        special: flushed.then_some(Special::FlushedToZero),
    }
}

/// Elements compared for equality and shown with Display.
macro_rules! exact_elements {
    ($($ty:ty),*) => {$(
        impl Comparable for $ty {
            const FLOATING: bool = false;
            fn check(expected: &Self, actual: &Self, _: &Tolerance) -> ElementCheck {
                ElementCheck::exact(expected == actual)
            }
            fn show(&self) -> String {
                self.to_string()
            }
            fn bytes(elements: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(elements))
            }
        }
    )*};
}

exact_elements!(i8, i16, i32, i64, u8, u16, u32, u64, bool);

/// Sub-byte integers compared and shown by value.
macro_rules! sub_byte_elements {
    ($($ty:ty),*) => {$(
        impl Comparable for $ty {
            const FLOATING: bool = false;
            fn check(expected: &Self, actual: &Self, _: &Tolerance) -> ElementCheck {
                ElementCheck::exact(expected.0 == actual.0)
            }
            fn show(&self) -> String {
                self.0.to_string()
            }
        }
    )*};
}

sub_byte_elements!(Int4, Uint4, Int2, Uint2);

impl Comparable for Vec<u8> {
    const FLOATING: bool = false;
    fn check(expected: &Self, actual: &Self, _: &Tolerance) -> ElementCheck {
        ElementCheck::exact(expected == actual)
    }
    /// Lossy UTF-8 in quotes, escaped, so "é" and "e\u{301}" or a stray byte are visible.
    fn show(&self) -> String {
        format!("{:?}", String::from_utf8_lossy(self))
    }
}

impl Comparable for f32 {
    const FLOATING: bool = true;
    fn bytes(elements: &[Self]) -> Option<&[u8]> {
        Some(bytemuck::cast_slice(elements))
    }
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
        if expected.to_bits() == actual.to_bits() {
            return ElementCheck::SAME;
        }
        float_check(*expected, *actual, tolerance)
    }
    /// f32's own Display: through f64, 1.2f32 would print as 1.2000000476837158.
    fn show(&self) -> String {
        if self.is_nan() {
            // NaNs that differ only in payload fail `--exact`; the bits show how.
            format!("NaN (0x{:08x})", self.to_bits())
        } else {
            show_float(*self)
        }
    }
    fn brief(&self) -> String {
        show_float(*self)
    }
}

impl Comparable for f64 {
    const FLOATING: bool = true;
    fn bytes(elements: &[Self]) -> Option<&[u8]> {
        Some(bytemuck::cast_slice(elements))
    }
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
        if expected.to_bits() == actual.to_bits() {
            return ElementCheck::SAME;
        }
        float_check(*expected, *actual, tolerance)
    }
    fn show(&self) -> String {
        if self.is_nan() {
            format!("NaN (0x{:016x})", self.to_bits())
        } else {
            show_float(*self)
        }
    }
    fn brief(&self) -> String {
        show_float(*self)
    }
}

/// Narrow floats, measured through their exact f32 value and shown with their bit pattern
/// too, since several patterns can mean the same value (NaN, ±0) and the 8- and 4-bit formats
/// are unfamiliar.
macro_rules! narrow_floats {
    ($($ty:ty: $bytes:expr),*) => {$(
        impl Comparable for $ty {
            const FLOATING: bool = true;
            #[inline(always)]
            fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
                // Bits first: widening f16 is a call per element, needless for equal bits.
                if expected.to_bits() == actual.to_bits() {
                    return ElementCheck::SAME;
                }
                float_check(*expected, *actual, tolerance)
            }
            fn bytes(elements: &[Self]) -> Option<&[u8]> {
                $bytes(elements)
            }
            fn show(&self) -> String {
                format!("{} (0x{:02x})", show_float(self.to_f32()), self.to_bits())
            }
            fn brief(&self) -> String {
                show_float(self.to_f32())
            }
        }
    )*};
}

// half's types are plain data; the minifloat newtypes take the element-wise path.
narrow_floats!(
    f16: |e| Some(bytemuck::cast_slice(e)),
    bf16: |e| Some(bytemuck::cast_slice(e)),
    Float8E4M3FN: |_| None,
    Float8E4M3FNUZ: |_| None,
    Float8E5M2: |_| None,
    Float8E5M2FNUZ: |_| None,
    Float8E8M0: |_| None,
    Float4E2M1: |_| None
);

/// Complex numbers pass when both parts pass; their errors and distance are the larger of
/// the parts', their special difference the real part's, else the imaginary part's.
impl<F: Comparable> Comparable for Complex<F> {
    const FLOATING: bool = true;
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
        let re = F::check(&expected.re, &actual.re, tolerance);
        let im = F::check(&expected.im, &actual.im, tolerance);
        let errors = match (re.errors, im.errors) {
            (Some((a1, r1)), Some((a2, r2))) => Some((a1.max(a2), r1.max(r2))),
            (one, other) => one.or(other),
        };
        ElementCheck {
            within: re.within && im.within,
            bit_equal: re.bit_equal && im.bit_equal,
            errors,
            ulps: re.ulps.max(im.ulps),
            special: re.special.or(im.special),
        }
    }
    /// "a+bi", each part shown as its float type shows it.
    fn show(&self) -> String {
        complex_text(self.re.show(), self.im.show())
    }
    fn brief(&self) -> String {
        complex_text(self.re.brief(), self.im.brief())
    }
}

fn complex_text(re: String, im: String) -> String {
    let sign = if im.starts_with('-') { "" } else { "+" };
    format!("{re}{sign}{im}i")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::compare::tests::{
        approx, check, compare, deviation, errors, farthest, shown, specials, t, under,
    };
    use crate::judge::deviation::Deviation;

    #[test]
    fn ulps_pass_what_exact_fails() {
        let expected = t(&[2], vec![1.0f32, 2.0]);
        let actual = t(&[2], vec![1.0000001f32, 2.0]);
        assert!(!compare(&expected, &actual, &Tolerance::Exact).passed);
        let c = compare(&expected, &actual, &Tolerance::Ulps(1));
        assert!(c.passed && !c.bit_exact);
        assert_eq!(c.deviation.unwrap().max_ulps.unwrap().ulps, 1);
    }

    #[test]
    fn integers_must_be_equal() {
        let c = check(vec![5i32, 1000, 7], vec![5, 1001, 7]);
        assert!(!c.passed && !c.bit_exact);
        assert_eq!((c.differing, c.total), (1, 3));
        assert_eq!(c.first_mismatches[0].index, [1]);
        assert_eq!(shown(&c), [("1000", "1001")]);
        assert_eq!(c.deviation, None);
        assert_eq!(c.problem, None);
        // No tolerance applies to integers.
        assert!(!under(approx(1.0, 10.0), vec![5i32], vec![6]).passed);
        assert!(!under(Tolerance::Ulps(5), vec![5i32], vec![6]).passed);

        let c = check(vec![1u64, u64::MAX], vec![1, u64::MAX]);
        assert!(c.passed && c.bit_exact);
        assert_eq!(c.differing, 0);
        assert!(!check(vec![i64::MIN], vec![i64::MIN + 1]).passed);
    }

    #[test]
    fn bool_and_sub_byte_integers_must_be_equal() {
        let c = check(vec![true, false], vec![false, false]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("true", "false")]);

        let c = check(vec![Int4(-8), Int4(3)], vec![Int4(7), Int4(3)]);
        assert!(!c.passed);
        assert_eq!(c.differing, 1);
        assert_eq!(shown(&c), [("-8", "7")]);
        assert!(check(vec![Uint4(15), Uint4(0)], vec![Uint4(15), Uint4(0)]).bit_exact);
        assert!(!check(vec![Int2(-2)], vec![Int2(1)]).passed);
        assert!(!check(vec![Uint2(3)], vec![Uint2(2)]).passed);
    }

    #[test]
    fn strings_compare_bytes_and_show_text() {
        let c = check(vec!["é".as_bytes().to_vec()], vec![b"e".to_vec()]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("\"é\"", "\"e\"")]);
        // Not UTF-8: shown lossily, compared by bytes.
        let c = check(vec![b"a\xff".to_vec()], vec![b"a\xfe".to_vec()]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("\"a\u{fffd}\"", "\"a\u{fffd}\"")]);
        assert!(check(vec!["日本".as_bytes().to_vec()], vec!["日本".as_bytes().to_vec()]).bit_exact);
    }

    #[test]
    fn by_default_one_ulp_fails_and_is_measured() {
        let next = 1.0 + f32::EPSILON;
        let c = check(vec![1.0f32, 2.0], vec![next, 2.0]);
        assert!(!c.passed && !c.bit_exact);
        assert_eq!(c.differing, 1);
        assert_eq!(
            errors(&c),
            (f64::from(f32::EPSILON), f64::from(f32::EPSILON) / f64::from(next))
        );
        assert_eq!(farthest(&c), Some((1, vec![0], "1", "1.0000001")));
        assert!(deviation(&c).special.is_empty());
        // A double routed through float: some 10^8 double ULPs away.
        let through_float = f64::from(0.1f32);
        let c = check(vec![0.1f64], vec![through_float]);
        assert!(!c.passed);
        assert_eq!(farthest(&c).unwrap().0, ulp_distance(0.1f64, through_float).unwrap());
        assert!(farthest(&c).unwrap().0 > 1 << 26);
    }

    #[test]
    fn approx_passes_within_atol_or_rtol_of_the_larger_magnitude() {
        // |1 + 2^-11 − 1| = 2^-11 ≤ 1e-3 × (1 + 2^-11).
        let a = 1.0 + 2f32.powi(-11);
        let c = under(approx(1e-3, 0.0), vec![1.0f32, 2.0], vec![a, 2.0]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(c.differing, 0);
        assert_eq!(errors(&c), (2f64.powi(-11), 2f64.powi(-11) / f64::from(a)));
        assert_eq!(farthest(&c), Some((1 << 12, vec![0], "1", "1.0004883")));
        assert!(c.first_mismatches.is_empty());

        // The maxima cover every element, passing ones included; the NaN is named, not measured.
        let c = under(approx(1e-3, 0.0), vec![1.0f32, 4.0, f32::NAN], vec![a, 4.015625, 0.0]);
        assert!(!c.passed);
        assert_eq!(c.differing, 2);
        assert_eq!(errors(&c), (0.015625, 0.015625 / 4.015625));
        assert_eq!(
            c.first_mismatches.iter().map(|m| m.index[0]).collect::<Vec<_>>(),
            [1, 2]
        );
        assert_eq!(specials(&c), [(Special::MissingNan, 1, vec![2], "NaN", "0")]);

        // Scaled by the larger magnitude, so symmetric: 1 against 2 is within rtol 0.5.
        assert!(under(approx(0.5, 0.0), vec![1.0f64], vec![2.0]).passed);
        assert!(under(approx(0.5, 0.0), vec![2.0f64], vec![1.0]).passed);
        assert!(!under(approx(0.49, 0.0), vec![2.0f64], vec![1.0]).passed);
        assert!(under(approx(1e-3, 0.0), vec![1000.0f64], vec![1000.5]).passed);
        assert!(!under(approx(1e-3, 0.0), vec![1.0f64], vec![1.5]).passed);
        // Around zero only atol counts; the relative error over zero is 1, not infinite.
        assert!(under(approx(0.0, 1e-7), vec![0.0f64], vec![1e-7]).passed);
        let c = under(approx(0.5, 1e-7), vec![0.0f64], vec![2e-7]);
        assert!(!c.passed);
        assert_eq!(errors(&c), (2e-7, 1.0));
    }

    #[test]
    fn ulps_count_values_of_the_format() {
        let one = 1.0f32;
        let next = f32::from_bits(one.to_bits() + 1);
        let after = f32::from_bits(one.to_bits() + 2);
        assert!(under(Tolerance::Ulps(1), vec![one], vec![next]).passed);
        let c = under(Tolerance::Ulps(1), vec![one, one], vec![next, after]);
        assert!(!c.passed);
        assert_eq!(c.differing, 1);
        assert_eq!(farthest(&c), Some((2, vec![1], "1", "1.0000002")));
        assert!(under(Tolerance::Ulps(2), vec![one], vec![after]).passed);
        // Across zero: the smallest subnormals of either sign are two apart.
        let tiny = f64::from_bits(1);
        let c = under(Tolerance::Ulps(2), vec![tiny], vec![-tiny]);
        assert!(c.passed);
        assert_eq!(farthest(&c).unwrap().0, 2);
        // At the top of the range: the largest finite value and its neighbour.
        let below_max = f32::from_bits(f32::MAX.to_bits() - 1);
        assert!(under(Tolerance::Ulps(1), vec![f32::MAX], vec![below_max]).passed);
        assert!(!under(Tolerance::Ulps(0), vec![f32::MAX], vec![below_max]).passed);
    }

    #[test]
    fn every_nan_matches_every_nan_unless_bitwise() {
        let c = check(vec![f32::NAN, 1.0], vec![f32::NAN, 1.0]);
        assert!(c.passed && c.bit_exact);
        assert_eq!(deviation(&c), &Deviation::default());

        // Another payload: a NaN all the same, but not the same bits.
        let other = f32::from_bits(0x7fc0_0001);
        let c = check(vec![f32::NAN], vec![other]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(
            specials(&c),
            [(Special::NanPayload, 1, vec![0], "NaN (0x7fc00000)", "NaN (0x7fc00001)")]
        );
        assert_eq!(farthest(&c), None);
        assert_eq!(errors(&c), (0.0, 0.0));
        let c = under(Tolerance::Bitwise, vec![f32::NAN], vec![other]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("NaN (0x7fc00000)", "NaN (0x7fc00001)")]);
        // A negative NaN is a NaN too.
        assert!(check(vec![f64::NAN], vec![-f64::NAN]).passed);

        // A number for a NaN, or a NaN for a number, is never within any tolerance.
        for tolerance in [Tolerance::Exact, approx(1e9, 1e9), Tolerance::Ulps(u64::MAX)] {
            let c = under(tolerance, vec![f32::NAN, 2.0], vec![0.0, f32::NAN]);
            assert_eq!(c.differing, 2, "{tolerance}");
            assert_eq!(
                specials(&c),
                [
                    (Special::MissingNan, 1, vec![0], "NaN", "0"),
                    (Special::UnexpectedNan, 1, vec![1], "2", "NaN")
                ]
            );
            assert_eq!(farthest(&c), None);
        }
    }

    #[test]
    fn infinities_are_never_excused() {
        // −inf and the most negative float are neighbours in the order, and still differ.
        for tolerance in [Tolerance::Exact, approx(1e9, 1e300), Tolerance::Ulps(1_000)] {
            let c = under(tolerance, vec![f32::NEG_INFINITY], vec![f32::MIN]);
            assert!(!c.passed, "{tolerance}");
            assert_eq!(specials(&c), [(Special::Infinity, 1, vec![0], "-inf", "-3.4028235e38")]);
            assert_eq!(farthest(&c), None);
            assert_eq!(errors(&c), (0.0, 0.0));
        }
        // Never "max abs error 0": the report names what differs.
        let c = check(vec![f32::NEG_INFINITY], vec![f32::MIN]);
        assert_eq!(
            c.report(0, ""),
            "output 0: 1 of 1 elements differ\n  \
             expected float[1], actual float[1]\n  \
             infinity not matched in 1 element, first [0]: expected -inf, got -3.4028235e38\n  \
             [0] expected -inf actual -3.4028235e38"
        );

        let c = check(
            vec![f32::INFINITY, f32::NEG_INFINITY],
            vec![f32::INFINITY, f32::NEG_INFINITY],
        );
        assert!(c.passed && c.bit_exact);
        assert!(!check(vec![f32::NEG_INFINITY], vec![f32::INFINITY]).passed);
        assert!(!under(approx(1.0, 0.0), vec![1e300f64], vec![f64::INFINITY]).passed);
    }

    #[test]
    fn the_sign_of_zero_is_compared_and_named() {
        for tolerance in [Tolerance::Exact, approx(1.0, 1.0), Tolerance::Ulps(10)] {
            let c = under(tolerance, vec![-0.0f32, 1.0], vec![0.0, 1.0]);
            assert!(!c.passed && !c.bit_exact, "{tolerance}");
            assert_eq!(c.differing, 1);
            assert_eq!(specials(&c), [(Special::SignOfZero, 1, vec![0], "-0", "+0")]);
            assert_eq!((farthest(&c), errors(&c)), (None, (0.0, 0.0)));
        }
        let c = check(vec![0.0f64, 0.0], vec![-0.0, -0.0]);
        assert_eq!(specials(&c), [(Special::SignOfZero, 2, vec![0], "+0", "-0")]);
        assert_eq!(shown(&c), [("0", "-0"), ("0", "-0")]);
        assert_eq!(
            c.report(0, "y"),
            "output 0 \"y\": 2 of 2 elements differ\n  \
             expected double[2], actual double[2]\n  \
             sign of zero differs in 2 elements, first [0]: expected +0, got -0\n  \
             [0] expected 0 actual -0\n  \
             [1] expected 0 actual -0"
        );
        assert!(check(vec![1.5f64], vec![1.5]).passed);
    }

    #[test]
    fn a_flushed_subnormal_is_named_not_counted_in_ulps() {
        let tiny = f32::from_bits(1);
        let c = under(Tolerance::Ulps(10), vec![tiny, 1.0], vec![0.0, 1.0]);
        assert!(!c.passed);
        assert_eq!(specials(&c), [(Special::FlushedToZero, 1, vec![0], "1e-45", "0")]);
        assert_eq!(farthest(&c), None);
        assert_eq!(errors(&c), (f64::from(tiny), 1.0));
        assert!(
            c.report(0, "")
                .contains("\n  subnormal flushed to 0 in 1 element, first [0]: expected 1e-45, got 0"),
            "{}",
            c.report(0, "")
        );
        // An absolute tolerance is a floor on magnitudes: a flush within it passes, named.
        let c = under(approx(0.0, 1e-30), vec![-tiny], vec![-0.0]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(specials(&c), [(Special::FlushedToZero, 1, vec![0], "-1e-45", "-0")]);
        // The smallest normal is not subnormal: its distance to zero counts.
        let c = under(Tolerance::Ulps(1 << 23), vec![f32::MIN_POSITIVE], vec![0.0]);
        assert!(c.passed);
        assert_eq!(farthest(&c).unwrap().0, 1 << 23);
        // A subnormal where zero was expected is an ordinary difference.
        let c = under(Tolerance::Ulps(1), vec![0.0f64], vec![f64::from_bits(1)]);
        assert!(c.passed);
        assert!(deviation(&c).special.is_empty());
    }

    #[test]
    fn half_floats_at_their_edges() {
        let one = f16::from_f32(1.0);
        let c = check(vec![one], vec![f16::from_bits(0x3c01)]);
        assert!(!c.passed);
        assert_eq!(farthest(&c), Some((1, vec![0], "1 (0x3c00)", "1.0009766 (0x3c01)")));
        assert!(under(Tolerance::Ulps(1), vec![one], vec![f16::from_bits(0x3c01)]).passed);
        let c = under(Tolerance::Ulps(1), vec![one], vec![f16::from_bits(0x3c02)]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("1 (0x3c00)", "1.0019531 (0x3c02)")]);
        assert_eq!(errors(&c).0, 2f64.powi(-9));
        // The largest finite value is one below infinity, and infinity is not excused.
        let c = under(Tolerance::Ulps(5), vec![f16::MAX], vec![f16::INFINITY]);
        assert_eq!(specials(&c), [(Special::Infinity, 1, vec![0], "65504", "inf")]);
        // The smallest subnormal, flushed.
        let c = under(Tolerance::Ulps(5), vec![f16::from_bits(1)], vec![f16::ZERO]);
        assert_eq!(specials(&c)[0].0, Special::FlushedToZero);
        assert_eq!(specials(&c)[0].3, "5.9604645e-8");
        assert!(!check(vec![f16::NEG_ZERO], vec![f16::ZERO]).passed);

        let c = check(vec![bf16::from_f32(2.0)], vec![bf16::from_f32(2.5)]);
        assert!(!c.passed);
        assert_eq!(errors(&c), (0.5, 0.2));
        assert_eq!(farthest(&c).unwrap().0, 32);
        assert!(check(vec![bf16::NAN], vec![bf16::NAN]).passed);
        assert!(under(Tolerance::Ulps(1), vec![bf16::MAX], vec![bf16::from_bits(0x7f7e)]).passed);
    }

    #[test]
    fn float8_formats_at_their_edges() {
        // e4m3fn: 448 (0x7E) the largest; 0x7F and 0xFF both NaN: they match, not bit for bit.
        let e4m3fn = Float8E4M3FN::from_bits;
        let c = check(vec![e4m3fn(0x7F)], vec![e4m3fn(0xFF)]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(specials(&c)[0].0, Special::NanPayload);
        assert!(!under(Tolerance::Bitwise, vec![e4m3fn(0x7F)], vec![e4m3fn(0xFF)]).passed);
        let c = under(Tolerance::Ulps(1), vec![e4m3fn(0x7E)], vec![e4m3fn(0x7D)]);
        assert!(c.passed);
        assert_eq!(farthest(&c), Some((1, vec![0], "448 (0x7e)", "416 (0x7d)")));
        // 0x7F is not the step after 448: it is NaN. No infinities to saturate to.
        let c = under(Tolerance::Ulps(1), vec![e4m3fn(0x7E)], vec![e4m3fn(0x7F)]);
        assert_eq!(specials(&c), [(Special::UnexpectedNan, 1, vec![0], "448", "NaN")]);
        let c = under(Tolerance::Ulps(1), vec![e4m3fn(0x80)], vec![e4m3fn(0x00)]);
        assert_eq!(specials(&c), [(Special::SignOfZero, 1, vec![0], "-0", "+0")]);
        let c = under(Tolerance::Ulps(1), vec![e4m3fn(0x01)], vec![e4m3fn(0x00)]);
        assert_eq!(specials(&c)[0].0, Special::FlushedToZero);

        // e4m3fnuz: 0x80 is the NaN, 240 (0x7F) the largest, no −0.
        let fnuz = Float8E4M3FNUZ::from_bits;
        let c = check(vec![fnuz(0x80)], vec![fnuz(0x00)]);
        assert_eq!(specials(&c), [(Special::MissingNan, 1, vec![0], "NaN", "0")]);
        let c = under(Tolerance::Ulps(2), vec![fnuz(0x01)], vec![fnuz(0x81)]);
        assert!(c.passed);
        assert_eq!(farthest(&c).unwrap().0, 2);
        assert!(under(Tolerance::Ulps(1), vec![fnuz(0x7F)], vec![fnuz(0x7E)]).passed);

        // e5m2: infinities at 0x7C; 57344 (0x7B) is one below and still not excused.
        let e5m2 = Float8E5M2::from_bits;
        let c = under(Tolerance::Ulps(3), vec![e5m2(0xFC)], vec![e5m2(0xFB)]);
        assert_eq!(specials(&c), [(Special::Infinity, 1, vec![0], "-inf", "-57344")]);
        assert!(check(vec![e5m2(0x7D)], vec![e5m2(0xFF)]).passed);
        let c = check(vec![e5m2(0x3C)], vec![e5m2(0x3D)]);
        assert_eq!(shown(&c), [("1 (0x3c)", "1.25 (0x3d)")]);
        assert_eq!(errors(&c), (0.25, 0.2));

        // e5m2fnuz: no infinities; ±57344 are 254 values apart.
        let e5m2fnuz = Float8E5M2FNUZ::from_bits;
        let c = check(vec![e5m2fnuz(0x7F)], vec![e5m2fnuz(0xFF)]);
        assert_eq!(farthest(&c).unwrap().0, 254);
        assert!(deviation(&c).special.is_empty());

        // e8m0: no sign, no zero; neighbours are a factor of two apart, 0xFF is NaN.
        let e8m0 = Float8E8M0::from_bits;
        let c = under(Tolerance::Ulps(1), vec![e8m0(0x7F)], vec![e8m0(0x80)]);
        assert!(c.passed);
        assert_eq!(errors(&c), (1.0, 0.5));
        let c = under(Tolerance::Ulps(1), vec![e8m0(0x00)], vec![e8m0(0x01)]);
        assert!(c.passed, "2^-127 is the smallest value, not a subnormal");
        let c = check(vec![e8m0(0xFF)], vec![e8m0(0xFE)]);
        assert_eq!(specials(&c), [(Special::MissingNan, 1, vec![0], "NaN", "1.7014118e38")]);
    }

    #[test]
    fn float4_has_no_nan_or_infinity() {
        let e2m1 = Float4E2M1::from_bits;
        // 6 (0x7) is the largest; 4 (0x6) the value below.
        let c = check(vec![e2m1(0x7)], vec![e2m1(0x6)]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("6 (0x07)", "4 (0x06)")]);
        assert_eq!(farthest(&c).unwrap().0, 1);
        assert!(under(Tolerance::Ulps(1), vec![e2m1(0x7)], vec![e2m1(0x6)]).passed);
        assert_eq!(farthest(&check(vec![e2m1(0x7)], vec![e2m1(0xF)])).unwrap().0, 14);
        // 0x8 is −0; 0x1 (0.5) the one subnormal.
        let c = check(vec![e2m1(0x0)], vec![e2m1(0x8)]);
        assert_eq!(specials(&c), [(Special::SignOfZero, 1, vec![0], "+0", "-0")]);
        let c = under(Tolerance::Ulps(1), vec![e2m1(0x9)], vec![e2m1(0x8)]);
        assert_eq!(specials(&c), [(Special::FlushedToZero, 1, vec![0], "-0.5", "-0")]);
    }

    #[test]
    fn complex_numbers_compare_by_parts() {
        let c = check(vec![Complex::new(1.0f32, 2.0)], vec![Complex::new(1.0, 2.5)]);
        assert!(!c.passed);
        assert_eq!(errors(&c), (0.5, 0.2));
        assert_eq!(shown(&c), [("1+2i", "1+2.5i")]);
        // Each part measured in its own format; the larger distance counts.
        let two_next = f32::from_bits(2.0f32.to_bits() + 1);
        let one_next = f32::from_bits(1.0f32.to_bits() + 3);
        let c = under(
            Tolerance::Ulps(3),
            vec![Complex::new(1.0f32, 2.0)],
            vec![Complex::new(one_next, two_next)],
        );
        assert!(c.passed && !c.bit_exact);
        assert_eq!(farthest(&c).unwrap().0, 3);
        assert!(
            !under(
                Tolerance::Ulps(2),
                vec![Complex::new(1.0f32, 2.0)],
                vec![Complex::new(one_next, 2.0)]
            )
            .passed
        );
        // approx on each part against its own scale: 2.001 is close to 2, 0.001 is not close to 0.
        let loose = approx(1e-3, 0.0);
        assert!(under(loose, vec![Complex::new(5.0f32, 2.0)], vec![Complex::new(5.0, 2.001)]).passed);
        assert!(!under(loose, vec![Complex::new(2.0f32, 0.0)], vec![Complex::new(2.0, 0.001)]).passed);
        // Special values in either part.
        let c = check(vec![Complex::new(1.0f64, 0.0)], vec![Complex::new(1.0, -0.0)]);
        assert_eq!(specials(&c), [(Special::SignOfZero, 1, vec![0], "1+0i", "1-0i")]);
        assert!(check(vec![Complex::new(f64::NAN, 1.0)], vec![Complex::new(-f64::NAN, 1.0)]).passed);
        let c = under(
            Tolerance::Ulps(9),
            vec![Complex::new(1.0f64, f64::INFINITY)],
            vec![Complex::new(1.0, f64::MAX)],
        );
        assert_eq!(specials(&c)[0].0, Special::Infinity);

        let c = check(vec![Complex::new(1.0f64, -2.0)], vec![Complex::new(-1.0, -2.0)]);
        assert_eq!(shown(&c), [("1-2i", "-1-2i")]);
        assert!(check(vec![Complex::new(1.0f64, -2.0)], vec![Complex::new(1.0, -2.0)]).bit_exact);
    }
}
