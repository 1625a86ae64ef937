//! Comparing an actual output with the expected one (SEMANTICS.md, Comparison), and the
//! mismatch report a person can act on.
//!
//! dtype, then shape, then values. Integers, bool, strings and sub-byte integers must be
//! equal; floating values pass when `|actual − expected| ≤ atol + rtol × |expected|`, NaN
//! matching NaN and infinities matching exactly. Bit-identity is recorded either way, and
//! `exact` makes it the rule.

use std::fmt::Write as _;

use half::{bf16, f16};
use ndarray::ArrayD;
use num_complex::Complex;
use serde::Serialize;

use crate::tensor::{
    Element, Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Int2, Int4, Tensor,
    Uint2, Uint4, Visitor,
};

/// How many differing elements a report lists.
pub const MAX_LISTED: usize = 10;

/// How outputs are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
    /// Require bit-identical values.
    pub exact: bool,
}

impl Default for Tolerance {
    /// rtol 1e-3, atol 1e-7: the rule and defaults of ONNX's Python backend test runner.
    fn default() -> Self {
        Tolerance {
            rtol: 1e-3,
            atol: 1e-7,
            exact: false,
        }
    }
}

/// One differing element.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ElementMismatch {
    pub index: Vec<usize>,
    pub expected: String,
    pub actual: String,
    /// Where the index falls in a Pad output (interior, or which axis's padding).
    pub region: Option<String>,
}

/// The result of comparing one output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub passed: bool,
    pub bit_exact: bool,
    /// Set when the dtype or shape differs; no values were compared then.
    pub problem: Option<String>,
    pub expected_type: String,
    pub actual_type: String,
    /// Elements failing the rule.
    pub differing: usize,
    pub total: usize,
    /// Floating types only: the largest errors over elements compared numerically.
    pub max_abs_error: Option<f64>,
    pub max_rel_error: Option<f64>,
    /// The first differing elements, in row-major order, at most [`MAX_LISTED`].
    pub first_mismatches: Vec<ElementMismatch>,
}

/// Compares `actual` with `expected`.
pub fn compare(expected: &Tensor, actual: &Tensor, tolerance: &Tolerance) -> Comparison {
    let mut comparison = Comparison {
        passed: false,
        bit_exact: false,
        problem: None,
        expected_type: expected.describe(),
        actual_type: actual.describe(),
        differing: 0,
        total: expected.len(),
        max_abs_error: None,
        max_rel_error: None,
        first_mismatches: Vec::new(),
    };
    if expected.data_type() != actual.data_type() {
        comparison.problem = Some(format!(
            "dtype differs: expected {}, actual {}",
            expected.data_type(),
            actual.data_type()
        ));
        return comparison;
    }
    if expected.shape() != actual.shape() {
        comparison.problem = Some(format!(
            "shape differs: expected {:?}, actual {:?}",
            expected.shape(),
            actual.shape()
        ));
        return comparison;
    }
    expected.visit(Compare {
        actual,
        tolerance,
        comparison: &mut comparison,
    });
    comparison.passed = if tolerance.exact {
        comparison.bit_exact
    } else {
        comparison.differing == 0
    };
    comparison
}

struct Compare<'a> {
    actual: &'a Tensor,
    tolerance: &'a Tolerance,
    comparison: &'a mut Comparison,
}

impl Visitor<'_> for Compare<'_> {
    type Output = ();
    fn visit<T: Element>(self, expected: &ArrayD<T>) {
        let actual = self.actual.as_array::<T>().expect("dtypes were checked equal");
        let c = self.comparison;
        let mut bit_exact = true;
        let mut floating = false;
        for ((index, e), a) in expected.indexed_iter().zip(actual.iter()) {
            let check = T::check(e, a, self.tolerance);
            bit_exact &= check.bit_equal;
            if let Some((abs, rel)) = check.errors {
                floating = true;
                c.max_abs_error = Some(c.max_abs_error.map_or(abs, |m: f64| m.max(abs)));
                c.max_rel_error = Some(c.max_rel_error.map_or(rel, |m: f64| m.max(rel)));
            }
            let fails = if self.tolerance.exact {
                !check.bit_equal
            } else {
                !check.within
            };
            if fails {
                c.differing += 1;
                if c.first_mismatches.len() < MAX_LISTED {
                    c.first_mismatches.push(ElementMismatch {
                        index: ndarray::Dimension::slice(&index).to_vec(),
                        expected: e.show(),
                        actual: a.show(),
                        region: None,
                    });
                }
            }
        }
        c.bit_exact = bit_exact;
        if !floating && T::FLOATING {
            // No finite pair was compared (empty, or only NaN/inf): the errors are zero.
            c.max_abs_error = Some(0.0);
            c.max_rel_error = Some(0.0);
        }
    }
}

/// The verdict on one pair of elements.
pub struct ElementCheck {
    /// Passes the tolerant rule.
    pub within: bool,
    pub bit_equal: bool,
    /// (absolute, relative) error, for floating pairs compared numerically.
    pub errors: Option<(f64, f64)>,
}

/// How one element type is compared and shown; every [`Element`] is `Comparable`.
pub trait Comparable {
    /// Compared with the tolerance rule (floating types, complex by parts).
    const FLOATING: bool;
    /// The verdict on one pair.
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck;
    /// The value as a report shows it.
    fn show(&self) -> String;
}

fn exact_check(equal: bool) -> ElementCheck {
    ElementCheck {
        within: equal,
        bit_equal: equal,
        errors: None,
    }
}

/// The tolerant rule on one floating pair (already widened to f64), with bit equality given.
fn float_check(expected: f64, actual: f64, bit_equal: bool, tolerance: &Tolerance) -> ElementCheck {
    if expected.is_nan() || actual.is_nan() {
        return ElementCheck {
            within: expected.is_nan() && actual.is_nan(),
            bit_equal,
            errors: None,
        };
    }
    if expected.is_infinite() || actual.is_infinite() {
        return ElementCheck {
            within: expected == actual,
            bit_equal,
            errors: None,
        };
    }
    let abs = (actual - expected).abs();
    let rel = if expected == 0.0 {
        if abs == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        abs / expected.abs()
    };
    let within = abs <= tolerance.atol + tolerance.rtol * expected.abs();
    ElementCheck {
        within,
        bit_equal,
        errors: Some((abs, rel)),
    }
}

/// Combines the checks of a complex number's two parts.
fn both(re: ElementCheck, im: ElementCheck) -> ElementCheck {
    let errors = match (re.errors, im.errors) {
        (Some((a1, r1)), Some((a2, r2))) => Some((a1.max(a2), r1.max(r2))),
        (e1, e2) => e1.or(e2),
    };
    ElementCheck {
        within: re.within && im.within,
        bit_equal: re.bit_equal && im.bit_equal,
        errors,
    }
}

/// Elements compared for equality and shown with Display.
macro_rules! exact_elements {
    ($($ty:ty),*) => {$(
        impl Comparable for $ty {
            const FLOATING: bool = false;
            fn check(expected: &Self, actual: &Self, _: &Tolerance) -> ElementCheck {
                exact_check(expected == actual)
            }
            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

exact_elements!(i8, i16, i32, i64, u8, u16, u32, u64, bool);

impl Comparable for Vec<u8> {
    const FLOATING: bool = false;
    fn check(expected: &Self, actual: &Self, _: &Tolerance) -> ElementCheck {
        exact_check(expected == actual)
    }
    fn show(&self) -> String {
        format!("{:?}", String::from_utf8_lossy(self))
    }
}

/// Sub-byte integers compared and shown by value.
macro_rules! sub_byte_elements {
    ($($ty:ty),*) => {$(
        impl Comparable for $ty {
            const FLOATING: bool = false;
            fn check(expected: &Self, actual: &Self, _: &Tolerance) -> ElementCheck {
                exact_check(expected.0 == actual.0)
            }
            fn show(&self) -> String {
                self.0.to_string()
            }
        }
    )*};
}

sub_byte_elements!(Int4, Uint4, Int2, Uint2);

impl Comparable for f32 {
    const FLOATING: bool = true;
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
        float_check(
            *expected as f64,
            *actual as f64,
            expected.to_bits() == actual.to_bits(),
            tolerance,
        )
    }
    fn show(&self) -> String {
        // Through f64 would print 1.2f32 as 1.2000000476837158; f32's own Display is shortest.
        let x = *self;
        if x != 0.0 && x.is_finite() && !(1e-4..1e7).contains(&x.abs()) {
            format!("{x:e}")
        } else {
            x.to_string()
        }
    }
}

impl Comparable for f64 {
    const FLOATING: bool = true;
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
        float_check(*expected, *actual, expected.to_bits() == actual.to_bits(), tolerance)
    }
    fn show(&self) -> String {
        show_float(*self)
    }
}

/// A float as a person reads it: plain decimals in the usual range, exponent form outside.
fn show_float(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e7).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// Narrow floats, compared through f32 and shown with their bit pattern too, since several
/// patterns can mean the same value (NaN, ±0) and the 8- and 4-bit formats are unfamiliar.
macro_rules! narrow_floats {
    ($($ty:ty),*) => {$(
        impl Comparable for $ty {
            const FLOATING: bool = true;
            fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
                let bit_equal = expected.to_bits() == actual.to_bits();
                float_check(expected.to_f32() as f64, actual.to_f32() as f64, bit_equal, tolerance)
            }
            fn show(&self) -> String {
                format!("{} (0x{:02x})", show_float(self.to_f32() as f64), self.to_bits())
            }
        }
    )*};
}

narrow_floats!(
    f16,
    bf16,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E5M2,
    Float8E5M2FNUZ,
    Float8E8M0,
    Float4E2M1
);

impl<F: Comparable + Copy + std::fmt::Display> Comparable for Complex<F> {
    const FLOATING: bool = true;
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck {
        both(
            F::check(&expected.re, &actual.re, tolerance),
            F::check(&expected.im, &actual.im, tolerance),
        )
    }
    fn show(&self) -> String {
        format!("{}{:+}i", self.re, self.im)
    }
}

/// Regions of a Pad output: per axis the (begin, end) pads applied (negative: cropped) and
/// the output extent, to say where an output index falls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadRegions {
    pub pads: Vec<(i64, i64)>,
    pub out_shape: Vec<usize>,
}

impl PadRegions {
    /// "interior", or the padding the index lies in: "begin padding of axis 0, end padding of
    /// axis 3".
    pub fn region(&self, index: &[usize]) -> String {
        let mut parts = Vec::new();
        for (axis, (&i, (&(begin, end), &extent))) in
            index.iter().zip(self.pads.iter().zip(&self.out_shape)).enumerate()
        {
            let (begin, end) = (begin.max(0) as u128, end.max(0) as u128);
            if (i as u128) < begin {
                parts.push(format!("begin padding of axis {axis}"));
            } else if (i as u128) + end >= extent as u128 {
                parts.push(format!("end padding of axis {axis}"));
            }
        }
        if parts.is_empty() {
            "interior".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

impl Comparison {
    /// Fills the region of each listed mismatch.
    pub fn with_regions(mut self, regions: &PadRegions) -> Comparison {
        for m in &mut self.first_mismatches {
            m.region = Some(regions.region(&m.index));
        }
        self
    }

    /// A multi-line report: counts and errors, types, then the first differing elements.
    pub fn report(&self, output_index: usize, output_name: &str) -> String {
        let mut text = format!("output {output_index} {output_name:?}: ");
        if let Some(problem) = &self.problem {
            text.push_str(problem);
        } else if self.differing == 0 {
            text.push_str("not bit-identical (--exact)");
        } else {
            write!(text, "{} of {} elements differ", self.differing, self.total).unwrap();
            if let (Some(abs), Some(rel)) = (self.max_abs_error, self.max_rel_error) {
                write!(text, " (max abs error {abs}, max rel error {rel})").unwrap();
            }
        }
        write!(text, "\n  expected {}, actual {}", self.expected_type, self.actual_type).unwrap();
        for m in &self.first_mismatches {
            write!(text, "\n  {:?} expected {} actual {}", m.index, m.expected, m.actual).unwrap();
            if let Some(region) = &m.region {
                write!(text, " ({region})").unwrap();
            }
        }
        if self.differing > self.first_mismatches.len() && !self.first_mismatches.is_empty() {
            write!(text, "\n  … and {} more", self.differing - self.first_mismatches.len()).unwrap();
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use half::{bf16, f16};
    use num_complex::Complex;

    use super::*;
    use crate::tensor::{Element, Float4E2M1, Float8E4M3FN, Int4};

    fn t<T: Element>(shape: &[usize], values: Vec<T>) -> Tensor {
        Tensor::from_vec(shape, values).unwrap()
    }

    fn check<T: Element>(expected: Vec<T>, actual: Vec<T>) -> Comparison {
        let n = expected.len();
        compare(&t(&[n], expected), &t(&[n], actual), &Tolerance::default())
    }

    #[test]
    fn integers_must_be_equal() {
        let c = check(vec![5i32, 1000], vec![5, 1001]);
        assert!(!c.passed && !c.bit_exact);
        assert_eq!((c.differing, c.total), (1, 2));
        assert_eq!(c.first_mismatches[0].index, [1]);
        assert_eq!(
            (
                c.first_mismatches[0].expected.as_str(),
                c.first_mismatches[0].actual.as_str()
            ),
            ("1000", "1001")
        );
        assert_eq!(c.max_abs_error, None);
        assert!(check(vec![1u64, u64::MAX], vec![1, u64::MAX]).passed);
        assert!(!check(vec![true], vec![false]).passed);
        assert!(!check(vec![Int4(-8)], vec![Int4(7)]).passed);
    }

    #[test]
    fn strings_compare_bytes_and_show_text() {
        let c = check(vec![b"\xc3\xa9".to_vec()], vec![b"e".to_vec()]);
        assert!(!c.passed);
        assert_eq!(c.first_mismatches[0].expected, "\"é\"");
        assert!(check(vec!["日本".as_bytes().to_vec()], vec!["日本".as_bytes().to_vec()]).bit_exact);
    }

    #[test]
    fn floats_pass_within_atol_plus_rtol_times_expected() {
        // |1.0005 - 1| = 5e-4 ≤ 1e-7 + 1e-3 × 1: passes, not bit-exact.
        let c = check(vec![1.0f64, 2.0], vec![1.0005, 2.0]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(c.differing, 0);
        assert!((c.max_abs_error.unwrap() - 5e-4).abs() < 1e-12);
        assert!((c.max_rel_error.unwrap() - 5e-4).abs() < 1e-12);
        // 1.002 is outside: 2e-3 > 1e-3 + 1e-7.
        let c = check(vec![1.0f64], vec![1.002]);
        assert!(!c.passed);
        assert!((c.max_abs_error.unwrap() - 2e-3).abs() < 1e-12);
        // Custom tolerance.
        let loose = Tolerance {
            rtol: 0.01,
            ..Tolerance::default()
        };
        assert!(compare(&t(&[1], vec![1.0f64]), &t(&[1], vec![1.002]), &loose).passed);
    }

    #[test]
    fn nan_matches_nan_and_infinities_match_exactly() {
        let c = check(vec![f32::NAN], vec![f32::NAN]);
        assert!(c.passed && c.bit_exact);
        assert!(!check(vec![f32::NAN], vec![0.0]).passed);
        assert!(!check(vec![f32::INFINITY], vec![3.4e38]).passed);
        assert!(check(vec![f32::INFINITY], vec![f32::INFINITY]).passed);
        assert!(!check(vec![f32::NEG_INFINITY], vec![f32::INFINITY]).passed);
    }

    #[test]
    fn negative_zero_passes_but_is_not_bit_exact() {
        let c = check(vec![0.0f32], vec![-0.0]);
        assert!(c.passed && !c.bit_exact);
        let exact = Tolerance {
            exact: true,
            ..Tolerance::default()
        };
        let c = compare(&t(&[1], vec![0.0f32]), &t(&[1], vec![-0.0f32]), &exact);
        assert!(!c.passed);
        assert_eq!(c.differing, 1);
    }

    #[test]
    fn narrow_floats_compare_through_f32() {
        assert!(check(vec![f16::from_f32(1.0)], vec![f16::from_f32(1.0)]).bit_exact);
        assert!(!check(vec![f16::from_f32(1.0)], vec![f16::from_f32(1.01)]).passed);
        assert!(!check(vec![bf16::from_f32(2.0)], vec![bf16::from_f32(2.5)]).passed);
        // float8e4m3fn: 0x7F and 0xFF are both NaN: they match, but not bit for bit.
        let c = check(vec![Float8E4M3FN::from_bits(0x7F)], vec![Float8E4M3FN::from_bits(0xFF)]);
        assert!(c.passed && !c.bit_exact);
        let c = check(vec![Float4E2M1::from_bits(0x7)], vec![Float4E2M1::from_bits(0x6)]);
        assert!(!c.passed);
        assert_eq!(c.first_mismatches[0].expected, "6 (0x07)");
        assert_eq!(c.first_mismatches[0].actual, "4 (0x06)");
    }

    #[test]
    fn complex_numbers_compare_by_parts() {
        let c = check(vec![Complex::new(1.0f32, 2.0)], vec![Complex::new(1.0, 2.5)]);
        assert!(!c.passed);
        assert_eq!(c.first_mismatches[0].expected, "1+2i");
        assert!(check(vec![Complex::new(1.0f64, -2.0)], vec![Complex::new(1.0, -2.0)]).bit_exact);
    }

    #[test]
    fn dtype_and_shape_are_checked_first() {
        let c = compare(&t(&[1], vec![1.0f32]), &t(&[1], vec![1.0f64]), &Tolerance::default());
        assert_eq!(
            c.problem.as_deref(),
            Some("dtype differs: expected float, actual double")
        );
        assert!(!c.passed);
        let c = compare(
            &t(&[2, 3], vec![0i8; 6]),
            &t(&[3, 2], vec![0i8; 6]),
            &Tolerance::default(),
        );
        assert_eq!(
            c.problem.as_deref(),
            Some("shape differs: expected [2, 3], actual [3, 2]")
        );
        assert!(c.report(0, "y").contains("expected int8[2, 3], actual int8[3, 2]"));
    }

    #[test]
    fn the_listing_is_capped_and_in_row_major_order() {
        let c = compare(
            &t(&[3, 5], vec![0i64; 15]),
            &t(&[3, 5], vec![1i64; 15]),
            &Tolerance::default(),
        );
        assert_eq!(c.differing, 15);
        assert_eq!(c.first_mismatches.len(), MAX_LISTED);
        assert_eq!(c.first_mismatches[6].index, [1, 1]);
        assert!(c.report(0, "y").ends_with("… and 5 more"));
    }

    #[test]
    fn regions_name_the_padding_an_index_falls_in() {
        let regions = PadRegions {
            pads: vec![(1, 0), (0, 2)],
            out_shape: vec![3, 4],
        };
        assert_eq!(regions.region(&[0, 0]), "begin padding of axis 0");
        assert_eq!(regions.region(&[1, 3]), "end padding of axis 1");
        assert_eq!(regions.region(&[1, 1]), "interior");
        assert_eq!(
            regions.region(&[0, 3]),
            "begin padding of axis 0, end padding of axis 1"
        );
        // A cropped side has no padding.
        let cropped = PadRegions {
            pads: vec![(-1, 1)],
            out_shape: vec![3],
        };
        assert_eq!(cropped.region(&[0]), "interior");
        assert_eq!(cropped.region(&[2]), "end padding of axis 0");
    }

    #[test]
    fn the_report_says_what_differs_and_where() {
        let expected = t(&[2, 2], vec![1.5f32, 0.0, 0.0, 2.0]);
        let actual = t(&[2, 2], vec![1.5f32, 0.0, 9.0, 2.0]);
        let regions = PadRegions {
            pads: vec![(1, 0), (0, 0)],
            out_shape: vec![2, 2],
        };
        let report = compare(&expected, &actual, &Tolerance::default())
            .with_regions(&regions)
            .report(0, "y");
        assert_eq!(
            report,
            "output 0 \"y\": 1 of 4 elements differ (max abs error 9, max rel error inf)\n  \
             expected float[2, 2], actual float[2, 2]\n  [1, 0] expected 0 actual 9 (interior)"
        );
    }
}
