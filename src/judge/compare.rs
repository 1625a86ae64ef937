//! Comparing an actual output with the expected one (docs/semantics.md#comparison), and the
//! mismatch report a person can act on.
//!
//! dtype, then shape, then values. Integers, bool, strings and sub-byte integers must be
//! equal; floating values pass when `|actual − expected| ≤ atol + rtol × |expected|`, NaN
//! matching NaN and infinities matching exactly. Bit-identity is recorded either way, and
//! `exact` makes it the rule.

use std::fmt::{self, Write as _};

use half::{bf16, f16};
use ndarray::ArrayD;
use num_complex::Complex;
use serde::Serialize;

use crate::operators::regions::PadRegions;
use crate::tensor::{
    Element, Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Int2, Int4, Tensor,
    Uint2, Uint4, dispatch,
};

/// How many differing elements a report lists.
#[doc(hidden)]
pub const MAX_LISTED: usize = 10;

/// How outputs are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance, scaled by `|expected|`.
    pub rtol: f64,
    /// Absolute tolerance.
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
    /// The element's multi-index, outermost axis first.
    pub index: Vec<usize>,
    /// The expected value, as a report shows it.
    pub expected: String,
    /// The actual value, as a report shows it.
    pub actual: String,
    /// Where the index falls in a Pad output (interior, or which axis's padding).
    pub region: Option<String>,
}

/// The result of comparing one output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The output matches: same dtype and shape, and no differing element.
    pub passed: bool,
    /// Every value is bit-identical (false when the dtype or shape differs).
    pub bit_exact: bool,
    /// Set when the dtype or shape differs; no values were compared then.
    pub problem: Option<String>,
    /// The expected tensor's type and shape, e.g. `float[2, 3]`.
    pub expected_type: String,
    /// The actual tensor's type and shape.
    pub actual_type: String,
    /// Elements failing the rule.
    pub differing: usize,
    /// Elements in the expected tensor.
    pub total: usize,
    /// Floating types only: the largest errors over elements compared numerically.
    pub max_abs_error: Option<f64>,
    /// Floating types only: the largest `|actual − expected| / |expected|`, as above.
    pub max_rel_error: Option<f64>,
    /// The first differing elements, in row-major order, at most [`MAX_LISTED`].
    pub first_mismatches: Vec<ElementMismatch>,
    /// Where all the differing elements fall, when the output's padding regions are known:
    /// how many are in padding, how many in the interior.
    pub placement: Option<Placement>,
}

/// How the differing elements of an output split between its padding and its interior,
/// counted over all of them (not just the listed ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// Differing elements in the padding of some axis.
    pub in_padding: usize,
    /// Differing elements in the interior (copied from the input).
    pub in_interior: usize,
}

impl Placement {
    /// The whole picture in a sentence: "all 24 differing elements are in padding; the
    /// interior matches".
    pub fn describe(&self) -> String {
        match (self.in_padding, self.in_interior) {
            (0, 0) => "no element differs".to_owned(),
            (1, 0) => "the differing element is in padding; the interior matches".to_owned(),
            (0, 1) => "the differing element is in the interior; the padding matches".to_owned(),
            (n, 0) => format!("all {n} differing elements are in padding; the interior matches"),
            (0, n) => format!("all {n} differing elements are in the interior; the padding matches"),
            (p, i) => format!("{p} differing elements are in padding, {i} in the interior"),
        }
    }
}

/// Compares `actual` with `expected`: dtype, then shape, then every value.
///
/// ```
/// use pad_conformance::Tensor;
/// use pad_conformance::judge::compare::{Tolerance, compare};
/// let expected = Tensor::from_vec(&[2], vec![1.0f32, 2.0]).unwrap();
/// let actual = Tensor::from_vec(&[2], vec![1.0005f32, 2.0]).unwrap();
/// let c = compare(&expected, &actual, &Tolerance::default());
/// assert!(c.passed && !c.bit_exact);
/// ```
pub fn compare(expected: &Tensor, actual: &Tensor, tolerance: &Tolerance) -> Comparison {
    compare_in(expected, actual, tolerance, None)
}

/// [`compare`], for the output of a Pad-family node whose `regions` are known: each listed
/// mismatch names its region, and [`Comparison::placement`] counts, in the same pass, where
/// every differing element falls.
#[doc(hidden)]
pub fn compare_in(
    expected: &Tensor,
    actual: &Tensor,
    tolerance: &Tolerance,
    regions: Option<&PadRegions>,
) -> Comparison {
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
        placement: None,
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
    // Regions computed for another shape (a graph whose output is not the Pad node's) say
    // nothing about this one.
    let regions = regions.filter(|r| r.out_shape == expected.shape());
    let values = dispatch!(expected, e => compare_arrays(e, actual, tolerance, regions));
    comparison.passed = values.differing == 0;
    comparison.bit_exact = values.bit_exact;
    comparison.differing = values.differing;
    comparison.max_abs_error = values.max_errors.map(|(abs, _)| abs);
    comparison.max_rel_error = values.max_errors.map(|(_, rel)| rel);
    comparison.first_mismatches = values.listed;
    comparison.placement = values.placement;
    match regions {
        Some(regions) => comparison.with_regions(regions),
        None => comparison,
    }
}

/// What one pass over the values of two tensors of the same type and shape found.
struct Values {
    bit_exact: bool,
    /// Elements failing the rule: the tolerant one, or bit-identity under `exact`.
    differing: usize,
    /// The largest (absolute, relative) errors, for floating types.
    max_errors: Option<(f64, f64)>,
    listed: Vec<ElementMismatch>,
    /// Where the differing elements fall, when regions were given.
    placement: Option<Placement>,
}

/// Compares the values of `expected` with those of `actual`, a tensor of the same type.
fn compare_arrays<T: Element + Comparable>(
    expected: &ArrayD<T>,
    actual: &Tensor,
    tolerance: &Tolerance,
    regions: Option<&PadRegions>,
) -> Values {
    let actual = actual.as_array::<T>().expect("dtypes were checked equal");
    let shape = expected.shape();
    // Tensors are normally in standard layout, so this is a zip over two slices; the
    // fallback walks any other layout in the same logical (row-major) order.
    match (expected.as_slice(), actual.as_slice()) {
        // Bit-identical plain data (the usual verdict on a data-movement operator) is settled
        // by one comparison of the bytes, at memory speed; only a difference takes the
        // element-wise rule.
        (Some(e), Some(a)) if T::bytes(e).is_some_and(|bytes| Some(bytes) == T::bytes(a)) => Values {
            bit_exact: true,
            differing: 0,
            max_errors: T::FLOATING.then_some((0.0, 0.0)),
            listed: Vec::new(),
            placement: regions.map(|_| Placement::default()),
        },
        (Some(e), Some(a)) => compare_values(e.iter().zip(a), shape, tolerance, regions),
        _ => compare_values(expected.iter().zip(actual.iter()), shape, tolerance, regions),
    }
}

/// One pass over the pairs in row-major order. Nothing is allocated per element: the index
/// and strings of an element are built only when it is listed.
fn compare_values<'t, T: Comparable + 't>(
    pairs: impl Iterator<Item = (&'t T, &'t T)>,
    shape: &[usize],
    tolerance: &Tolerance,
    regions: Option<&PadRegions>,
) -> Values {
    let mut values = Values {
        bit_exact: true,
        differing: 0,
        max_errors: None,
        listed: Vec::new(),
        placement: regions.map(|_| Placement::default()),
    };
    // Locals rather than fields, so the hot loop keeps them in registers. Errors are
    // never negative (so 0 is the maximum over no pairs) and never NaN (so `>` suffices).
    let (mut max_abs, mut max_rel) = (0.0f64, 0.0f64);
    let mut bit_exact = true;
    for (flat, (e, a)) in pairs.enumerate() {
        let check = T::check(e, a, tolerance);
        bit_exact &= check.bit_equal;
        if let Some((abs, rel)) = check.errors {
            if abs > max_abs {
                max_abs = abs;
            }
            if rel > max_rel {
                max_rel = rel;
            }
        }
        let fails = if tolerance.exact {
            !check.bit_equal
        } else {
            !check.within
        };
        if fails {
            record(&mut values, flat, shape, regions, e, a);
        }
    }
    values.bit_exact = bit_exact;
    if T::FLOATING {
        values.max_errors = Some((max_abs, max_rel));
    }
    values
}

/// Counts a differing element, and where it falls, and lists it while the list is short.
#[cold]
fn record<T: Comparable>(
    values: &mut Values,
    flat: usize,
    shape: &[usize],
    regions: Option<&PadRegions>,
    expected: &T,
    actual: &T,
) {
    values.differing += 1;
    if let (Some(placement), Some(regions)) = (&mut values.placement, regions) {
        if regions.is_padding(flat) {
            placement.in_padding += 1;
        } else {
            placement.in_interior += 1;
        }
    }
    if values.listed.len() < MAX_LISTED {
        values.listed.push(ElementMismatch {
            index: unravel(flat, shape),
            expected: expected.show(),
            actual: actual.show(),
            region: None,
        });
    }
}

/// The row-major multi-index of the `flat`-th element of `shape`.
fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (i, &extent) in index.iter_mut().zip(shape).rev() {
        *i = flat % extent;
        flat /= extent;
    }
    index
}

/// The verdict on one pair of elements.
#[doc(hidden)]
pub struct ElementCheck {
    /// Passes the tolerant rule.
    pub within: bool,
    /// The two values have identical bits.
    pub bit_equal: bool,
    /// (absolute, relative) error of a finite floating pair whose bits differ; `None` where
    /// there is nothing to add to a maximum (bit-equal pairs, NaN, infinities, non-floats).
    pub errors: Option<(f64, f64)>,
}

impl ElementCheck {
    /// Identical bits: the verdict for any type, with no arithmetic.
    const SAME: ElementCheck = ElementCheck {
        within: true,
        bit_equal: true,
        errors: None,
    };

    /// The verdict of an exact comparison.
    fn exact(equal: bool) -> ElementCheck {
        ElementCheck {
            within: equal,
            bit_equal: equal,
            errors: None,
        }
    }
}

/// How one element type is compared and shown; implemented for every element type.
#[doc(hidden)]
pub trait Comparable {
    /// Compared with the tolerance rule (floating types, complex by parts).
    const FLOATING: bool;
    /// The verdict on one pair.
    fn check(expected: &Self, actual: &Self, tolerance: &Tolerance) -> ElementCheck;
    /// The value as a report shows it.
    fn show(&self) -> String;
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

/// The tolerant rule on one floating pair whose bits differ, widened to f64 (exactly: every
/// value of these formats is an f64).
fn float_check(expected: f64, actual: f64, tolerance: &Tolerance) -> ElementCheck {
    let without_errors = |within| ElementCheck {
        within,
        bit_equal: false,
        errors: None,
    };
    if expected.is_nan() || actual.is_nan() {
        return without_errors(expected.is_nan() && actual.is_nan());
    }
    if expected.is_infinite() || actual.is_infinite() {
        return without_errors(expected == actual);
    }
    let abs = (actual - expected).abs();
    // No error is no relative error, even over a zero expected (-0 vs 0); any other error
    // over zero is infinitely large, as numpy reports it.
    let rel = if abs == 0.0 { 0.0 } else { abs / expected.abs() };
    ElementCheck {
        within: abs <= tolerance.atol + tolerance.rtol * expected.abs(),
        bit_equal: false,
        errors: Some((abs, rel)),
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
        float_check(f64::from(*expected), f64::from(*actual), tolerance)
    }
    /// f32's own Display: through f64, 1.2f32 would print as 1.2000000476837158.
    fn show(&self) -> String {
        if self.is_nan() {
            // NaNs that differ only in payload fail `exact`; the bits show how.
            format!("NaN (0x{:08x})", self.to_bits())
        } else {
            show_float(*self)
        }
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
}

/// A float as a person reads it: its Display in the usual range, exponent form outside
/// (3.4e38 rather than 39 digits, 1e-30 rather than 31 zeros).
fn show_float<F: Copy + Into<f64> + fmt::Display + fmt::LowerExp>(x: F) -> String {
    let magnitude = x.into().abs();
    if magnitude != 0.0 && magnitude.is_finite() && !(1e-4..1e7).contains(&magnitude) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// Narrow floats, compared through f32 and shown with their bit pattern too, since several
/// patterns can mean the same value (NaN, ±0) and the 8- and 4-bit formats are unfamiliar.
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
                float_check(expected.to_f32().into(), actual.to_f32().into(), tolerance)
            }
            fn bytes(elements: &[Self]) -> Option<&[u8]> {
                $bytes(elements)
            }
            fn show(&self) -> String {
                format!("{} (0x{:02x})", show_float(self.to_f32()), self.to_bits())
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

/// Complex numbers pass when both parts pass; their errors are the larger of the parts'.
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
        }
    }
    /// "a+bi", each part shown as its float type shows it.
    fn show(&self) -> String {
        let im = self.im.show();
        let sign = if im.starts_with('-') { "" } else { "+" };
        format!("{}{sign}{im}i", self.re.show())
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

    /// A multi-line report: a headline with the counts and largest errors (or the dtype or
    /// shape problem), the two types, then the first differing elements with their regions.
    ///
    /// ```text
    /// output 0 "y": 3 of 120 elements differ (max abs error 0.5, max rel error 0.25)
    ///   expected float[1, 3, 4, 5], actual float[1, 3, 4, 5]
    ///   [0, 1, 2, 0] expected 1.2 actual 0 (begin padding of axis 2)
    /// ```
    pub fn report(&self, output_index: usize, output_name: &str) -> String {
        let mut text = format!("output {output_index}");
        if !output_name.is_empty() {
            write!(text, " {output_name:?}").unwrap();
        }
        text.push_str(": ");
        if let Some(problem) = &self.problem {
            text.push_str(problem);
        } else if self.bit_exact {
            write!(text, "all {} elements are bit-identical", self.total).unwrap();
        } else if self.passed {
            write!(text, "all {} elements within tolerance, not bit-identical", self.total).unwrap();
        } else {
            write!(text, "{} of {} elements differ", self.differing, self.total).unwrap();
            if let Some(placement) = &self.placement {
                write!(text, "; {}", placement.describe()).unwrap();
            }
        }
        if self.problem.is_none()
            && !self.bit_exact
            && let (Some(abs), Some(rel)) = (self.max_abs_error, self.max_rel_error)
        {
            write!(
                text,
                " (max abs error {}, max rel error {})",
                show_float(abs),
                show_float(rel)
            )
            .unwrap();
        }
        write!(text, "\n  expected {}, actual {}", self.expected_type, self.actual_type).unwrap();
        for m in &self.first_mismatches {
            write!(text, "\n  {:?} expected {} actual {}", m.index, m.expected, m.actual).unwrap();
            if let Some(region) = &m.region {
                write!(text, " ({region})").unwrap();
            }
        }
        let unlisted = self.differing.saturating_sub(self.first_mismatches.len());
        if unlisted > 0 {
            write!(text, "\n  … and {unlisted} more").unwrap();
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use half::{bf16, f16};
    use ndarray::Array2;
    use num_complex::Complex;

    use super::*;

    fn t<T: Element>(shape: &[usize], values: Vec<T>) -> Tensor {
        Tensor::from_vec(shape, values).unwrap()
    }

    /// Compares two vectors as 1-D tensors under the default tolerance.
    fn check<T: Element>(expected: Vec<T>, actual: Vec<T>) -> Comparison {
        let n = expected.len();
        compare(&t(&[n], expected), &t(&[n], actual), &Tolerance::default())
    }

    fn exact<T: Element>(expected: Vec<T>, actual: Vec<T>) -> Comparison {
        let n = expected.len();
        let tolerance = Tolerance {
            exact: true,
            ..Tolerance::default()
        };
        compare(&t(&[n], expected), &t(&[n], actual), &tolerance)
    }

    /// The listed (expected, actual) strings.
    fn shown(c: &Comparison) -> Vec<(&str, &str)> {
        c.first_mismatches
            .iter()
            .map(|m| (m.expected.as_str(), m.actual.as_str()))
            .collect()
    }

    #[test]
    fn defaults_are_onnx_backend_runner_ones() {
        assert_eq!(
            Tolerance::default(),
            Tolerance {
                rtol: 1e-3,
                atol: 1e-7,
                exact: false
            }
        );
    }

    #[test]
    fn integers_must_be_equal() {
        let c = check(vec![5i32, 1000, 7], vec![5, 1001, 7]);
        assert!(!c.passed && !c.bit_exact);
        assert_eq!((c.differing, c.total), (1, 3));
        assert_eq!(c.first_mismatches[0].index, [1]);
        assert_eq!(shown(&c), [("1000", "1001")]);
        assert_eq!((c.max_abs_error, c.max_rel_error), (None, None));
        assert_eq!(c.problem, None);

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
    fn floats_pass_within_atol_plus_rtol_times_expected() {
        // Values whose differences are exact in binary, so the errors can be asserted exactly.
        // |1 + 2^-11 − 1| = 2^-11 ≈ 4.9e-4 ≤ 1e-7 + 1e-3 × 1.
        let c = check(vec![1.0f32, 2.0], vec![1.0 + 2f32.powi(-11), 2.0]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(c.differing, 0);
        assert_eq!(c.max_abs_error, Some(2f64.powi(-11)));
        assert_eq!(c.max_rel_error, Some(2f64.powi(-11)));
        assert!(c.first_mismatches.is_empty());

        // 4 + 2^-6: error 0.015625 > 1e-7 + 1e-3 × 4. The errors are maxima over all
        // elements, passing ones included; the NaN differs but has no error to take part.
        let c = check(vec![1.0f32, 4.0, f32::NAN], vec![1.0 + 2f32.powi(-11), 4.015625, 0.0]);
        assert!(!c.passed);
        assert_eq!(c.differing, 2);
        assert_eq!(c.max_abs_error, Some(0.015625));
        assert_eq!(c.max_rel_error, Some(0.00390625));
        assert_eq!(
            c.first_mismatches.iter().map(|m| m.index[0]).collect::<Vec<_>>(),
            [1, 2]
        );

        // The scale is |expected|: 1000.5 is close to 1000, 1.5 is far from 1.
        assert!(check(vec![1000.0f64], vec![1000.5]).passed);
        assert!(!check(vec![1.0f64], vec![1.5]).passed);
        // Around zero only atol counts, and a relative error over zero is infinite.
        assert!(check(vec![0.0f64], vec![1e-7]).passed);
        let c = check(vec![0.0f64], vec![2e-7]);
        assert!(!c.passed);
        assert_eq!(c.max_rel_error, Some(f64::INFINITY));

        let loose = Tolerance {
            rtol: 0.01,
            ..Tolerance::default()
        };
        assert!(compare(&t(&[1], vec![1.0f64]), &t(&[1], vec![1.002]), &loose).passed);
    }

    #[test]
    fn nan_matches_nan() {
        let c = check(vec![f32::NAN, 1.0], vec![f32::NAN, 1.0]);
        assert!(c.passed && c.bit_exact);
        assert_eq!(c.max_abs_error, Some(0.0));

        // Another payload: a NaN all the same, but not the same bits.
        let other = f32::from_bits(0x7fc0_0001);
        let c = check(vec![f32::NAN], vec![other]);
        assert!(c.passed && !c.bit_exact);
        let c = exact(vec![f32::NAN], vec![other]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("NaN (0x7fc00000)", "NaN (0x7fc00001)")]);

        assert!(!check(vec![f32::NAN], vec![0.0]).passed);
        assert!(!check(vec![0.0], vec![f64::NAN]).passed);
    }

    #[test]
    fn infinities_must_match_exactly() {
        let c = check(vec![f32::INFINITY], vec![3.4e38]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("inf", "3.4e38")]);
        // Excluded from the maxima, but counted.
        assert_eq!((c.differing, c.max_abs_error), (1, Some(0.0)));

        let c = check(
            vec![f32::INFINITY, f32::NEG_INFINITY],
            vec![f32::INFINITY, f32::NEG_INFINITY],
        );
        assert!(c.passed && c.bit_exact);
        assert!(!check(vec![f32::NEG_INFINITY], vec![f32::INFINITY]).passed);
        assert!(!check(vec![1e300f64], vec![f64::INFINITY]).passed);
    }

    #[test]
    fn negative_zero_passes_but_is_not_bit_exact() {
        let c = check(vec![0.0f32], vec![-0.0]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(c.differing, 0);

        let c = exact(vec![0.0f32, 1.0], vec![-0.0, 1.0]);
        assert!(!c.passed && !c.bit_exact);
        assert_eq!(c.differing, 1);
        assert_eq!(shown(&c), [("0", "-0")]);
        assert!(exact(vec![1.5f64], vec![1.5]).passed);
    }

    #[test]
    fn half_floats_compare_through_f32() {
        // The f16 after 1 is 1 + 2^-10: within 1e-3 + 1e-7; the one after that is not.
        let one = f16::from_f32(1.0);
        let c = check(vec![one], vec![f16::from_bits(0x3c01)]);
        assert!(c.passed && !c.bit_exact);
        assert_eq!(c.max_abs_error, Some(2f64.powi(-10)));
        let c = check(vec![one], vec![f16::from_bits(0x3c02)]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("1 (0x3c00)", "1.0019531 (0x3c02)")]);
        assert!(check(vec![one], vec![one]).bit_exact);

        let c = check(vec![bf16::from_f32(2.0)], vec![bf16::from_f32(2.5)]);
        assert!(!c.passed);
        assert_eq!((c.max_abs_error, c.max_rel_error), (Some(0.5), Some(0.25)));
        assert!(check(vec![bf16::NAN], vec![bf16::NAN]).passed);
    }

    #[test]
    fn float8_and_float4_compare_through_f32() {
        // float8e4m3fn: 0x7F and 0xFF are both NaN: they match, but not bit for bit.
        let c = check(vec![Float8E4M3FN::from_bits(0x7F)], vec![Float8E4M3FN::from_bits(0xFF)]);
        assert!(c.passed && !c.bit_exact);
        // float8e5m2: 0x3C is 1, 0x3D is 1.25.
        let c = check(vec![Float8E5M2::from_bits(0x3C)], vec![Float8E5M2::from_bits(0x3D)]);
        assert!(!c.passed);
        assert_eq!(c.max_abs_error, Some(0.25));
        assert_eq!(shown(&c), [("1 (0x3c)", "1.25 (0x3d)")]);
        // float8e5m2 has infinities: 0x7C is +inf, 0x7B the largest finite value.
        assert!(!check(vec![Float8E5M2::from_bits(0x7C)], vec![Float8E5M2::from_bits(0x7B)]).passed);

        let c = check(vec![Float4E2M1::from_bits(0x7)], vec![Float4E2M1::from_bits(0x6)]);
        assert!(!c.passed);
        assert_eq!(shown(&c), [("6 (0x07)", "4 (0x06)")]);
        // float4e2m1 0x8 is -0.
        let c = check(vec![Float4E2M1::from_bits(0x0)], vec![Float4E2M1::from_bits(0x8)]);
        assert!(c.passed && !c.bit_exact);
    }

    #[test]
    fn complex_numbers_compare_by_parts() {
        let c = check(vec![Complex::new(1.0f32, 2.0)], vec![Complex::new(1.0, 2.5)]);
        assert!(!c.passed);
        assert_eq!((c.max_abs_error, c.max_rel_error), (Some(0.5), Some(0.25)));
        assert_eq!(shown(&c), [("1+2i", "1+2.5i")]);
        // Each part against its own scale: 2.001 is close to 2, but 0.001 is not close to 0.
        assert!(check(vec![Complex::new(5.0f32, 2.0)], vec![Complex::new(5.0, 2.001)]).passed);
        assert!(!check(vec![Complex::new(2.0f32, 0.0)], vec![Complex::new(2.0, 0.001)]).passed);

        let c = check(vec![Complex::new(1.0f64, -2.0)], vec![Complex::new(-1.0, -2.0)]);
        assert_eq!(shown(&c), [("1-2i", "-1-2i")]);
        assert!(check(vec![Complex::new(1.0f64, -2.0)], vec![Complex::new(1.0, -2.0)]).bit_exact);
    }

    #[test]
    fn dtype_and_shape_are_checked_first() {
        let c = compare(&t(&[1], vec![1.0f32]), &t(&[1], vec![1.0f64]), &Tolerance::default());
        assert_eq!(
            c.problem.as_deref(),
            Some("dtype differs: expected float, actual double")
        );
        assert!(!c.passed && !c.bit_exact);
        assert_eq!((c.differing, c.max_abs_error), (0, None));

        let c = compare(
            &t(&[2, 3], vec![0i8; 6]),
            &t(&[3, 2], vec![0i8; 6]),
            &Tolerance::default(),
        );
        assert_eq!(
            c.problem.as_deref(),
            Some("shape differs: expected [2, 3], actual [3, 2]")
        );
        assert!(!c.passed);
        assert_eq!(
            c.report(1, "y"),
            "output 1 \"y\": shape differs: expected [2, 3], actual [3, 2]\n  \
             expected int8[2, 3], actual int8[3, 2]"
        );
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
        let indices: Vec<_> = c.first_mismatches.iter().map(|m| m.index.clone()).collect();
        let want: Vec<Vec<usize>> = (0..10).map(|i| vec![i / 5, i % 5]).collect();
        assert_eq!(indices, want);
        assert!(c.report(0, "y").ends_with("\n  … and 5 more"));
    }

    #[test]
    fn indices_are_logical_whatever_the_layout_or_rank() {
        // A transposed view is not in standard layout; indices still follow the logical order.
        let expected = Array2::from_shape_vec((2, 3), vec![0i32, 1, 2, 3, 4, 5]).unwrap();
        let mut actual = expected.clone().reversed_axes().as_standard_layout().into_owned();
        actual[[2, 0]] = 9; // logical [0, 2] of the transpose back
        let actual = Tensor::Int32(actual.reversed_axes().into_dyn());
        let c = compare(&Tensor::Int32(expected.into_dyn()), &actual, &Tolerance::default());
        assert_eq!(c.first_mismatches[0].index, [0, 2]);
        assert_eq!(shown(&c), [("2", "9")]);

        // Six dimensions: flat element 13 of [2, 1, 2, 1, 2, 2] is [1, 0, 1, 0, 0, 1].
        let mut values = vec![0u8; 16];
        values[13] = 1;
        let c = compare(
            &t(&[2, 1, 2, 1, 2, 2], vec![0u8; 16]),
            &t(&[2, 1, 2, 1, 2, 2], values),
            &Tolerance::default(),
        );
        assert_eq!(c.first_mismatches[0].index, [1, 0, 1, 0, 0, 1]);
    }

    #[test]
    fn empty_tensors_pass() {
        let c = compare(
            &t(&[0, 3], Vec::<f32>::new()),
            &t(&[0, 3], Vec::<f32>::new()),
            &Tolerance::default(),
        );
        assert!(c.passed && c.bit_exact);
        assert_eq!((c.total, c.max_abs_error), (0, Some(0.0)));
    }

    #[test]
    fn regions_name_the_padding_an_index_falls_in() {
        let regions = PadRegions {
            pads: vec![(1, 0), (0, 2)],
            out_shape: vec![3, 4],
        };
        assert_eq!(regions.region(&[0, 0]), "begin padding of axis 0");
        assert_eq!(regions.region(&[1, 3]), "end padding of axis 1");
        assert_eq!(regions.region(&[2, 2]), "end padding of axis 1");
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
        assert_eq!(cropped.region(&[1]), "interior");
        assert_eq!(cropped.region(&[2]), "end padding of axis 0");
    }

    #[test]
    fn the_report_says_what_differs_and_where() {
        let expected = t(&[2, 3], vec![1.5f32, 0.0, 0.0, 2.0, 4.0, 0.0]);
        let actual = t(&[2, 3], vec![1.5f32, 0.0, 9.0, 2.0, 5.0, 0.0]);
        let regions = PadRegions {
            pads: vec![(0, 0), (0, 1)],
            out_shape: vec![2, 3],
        };
        let report = compare(&expected, &actual, &Tolerance::default())
            .with_regions(&regions)
            .report(0, "y");
        assert_eq!(
            report,
            "output 0 \"y\": 2 of 6 elements differ (max abs error 9, max rel error inf)\n  \
             expected float[2, 3], actual float[2, 3]\n  \
             [0, 2] expected 0 actual 9 (end padding of axis 1)\n  \
             [1, 1] expected 4 actual 5 (interior)"
        );
    }

    #[test]
    fn the_report_says_where_all_the_differences_are_before_listing_some() {
        // 4x4 with one column of end padding on axis 1: the four elements of that column
        // differ, all in padding; then one in the interior too.
        let regions = PadRegions {
            pads: vec![(0, 0), (0, 1)],
            out_shape: vec![4, 4],
        };
        let expected = t(&[4, 4], vec![0i32; 16]);
        let mut values = vec![0i32; 16];
        for (i, v) in values.iter_mut().enumerate() {
            if i % 4 == 3 || i < 8 {
                *v = 1;
            }
        }
        values[0] = 0;
        values[1] = 0;
        values[2] = 0;
        values[4] = 0;
        values[5] = 0;
        values[6] = 0;
        let actual = t(&[4, 4], values.clone());
        let c = compare_in(&expected, &actual, &Tolerance::default(), Some(&regions));
        assert_eq!(
            c.placement,
            Some(Placement {
                in_padding: 4,
                in_interior: 0
            })
        );
        assert!(
            c.report(0, "y")
                .starts_with("output 0 \"y\": 4 of 16 elements differ; all 4 differing elements are in padding; the interior matches\n"),
            "{}",
            c.report(0, "y")
        );
        assert_eq!(c.first_mismatches[0].region.as_deref(), Some("end padding of axis 1"));
        values[5] = 7;
        let c = compare_in(&expected, &t(&[4, 4], values), &Tolerance::default(), Some(&regions));
        assert_eq!(
            c.placement.unwrap().describe(),
            "4 differing elements are in padding, 1 in the interior"
        );
        // Regions of another shape say nothing.
        let other = compare_in(
            &t(&[16], vec![0i32; 16]),
            &t(&[16], vec![1i32; 16]),
            &Tolerance::default(),
            Some(&regions),
        );
        assert_eq!(other.placement, None);
    }

    #[test]
    fn the_report_of_a_passing_comparison_says_how_it_passed() {
        let c = check(vec![1.0f64], vec![1.0 + 2f64.powi(-11)]);
        assert_eq!(
            c.report(2, ""),
            "output 2: all 1 elements within tolerance, not bit-identical \
             (max abs error 0.00048828125, max rel error 0.00048828125)\n  \
             expected double[1], actual double[1]"
        );
        let c = check(vec![7i8], vec![7]);
        assert!(
            c.report(0, "z")
                .starts_with("output 0 \"z\": all 1 elements are bit-identical\n")
        );
    }

    #[test]
    fn identical_bytes_settle_the_comparison_as_the_element_rule_would() {
        // Plain data takes the byte comparison; strings and the minifloats the element rule:
        // both must say the same of identical tensors.
        let nan = f32::from_bits(0x7fc0_1234);
        let cases = [
            Tensor::from_vec(&[3], vec![1.5f32, nan, -0.0]).unwrap(),
            Tensor::from_vec(&[2], vec![i64::MIN, 7]).unwrap(),
            Tensor::from_vec(&[2], vec![f16::from_f32(0.5), f16::NAN]).unwrap(),
            Tensor::from_vec(&[2], vec![Float8E4M3FN::from_bits(0x7f), Float8E4M3FN::from_bits(1)]).unwrap(),
            Tensor::from_vec(&[1], vec![b"x".to_vec()]).unwrap(),
        ];
        for tensor in &cases {
            let c = compare(tensor, tensor, &Tolerance::default());
            assert!(c.passed && c.bit_exact && c.differing == 0, "{c:?}");
            let floating = tensor.data_type().is_floating();
            assert_eq!(c.max_abs_error, floating.then_some(0.0), "{c:?}");
            assert_eq!(c.max_rel_error, floating.then_some(0.0), "{c:?}");
        }
        // One differing bit leaves the fast path: the element rule finds and lists it.
        let other = Tensor::from_vec(&[3], vec![1.5f32, nan, 0.0]).unwrap();
        let c = compare(
            &cases[0],
            &other,
            &Tolerance {
                exact: true,
                ..Tolerance::default()
            },
        );
        assert!(!c.passed && c.differing == 1, "{c:?}");
        assert_eq!(c.first_mismatches[0].index, [2]);
    }
}
