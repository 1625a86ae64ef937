//! Comparing an actual output with the expected one (docs/semantics.md#comparison), and the
//! mismatch report a person can act on.
//!
//! dtype, then shape, then values. Integers, bool, strings and sub-byte integers must be
//! equal. Floating values must be equal bit for bit by default, since these operators only
//! move values, every NaN matching every NaN; a [`Tolerance`] tightens that to NaN payloads or
//! loosens it for finite values. Whatever the rule, every floating difference is measured
//! (absolute and relative error, distance in units in the last place, per format) and the
//! special values among them are named ([`Special`]).

use std::fmt::Write as _;

use ndarray::ArrayD;
use serde::Serialize;

use super::deviation::{Deviation, Special, SpecialDifference, UlpDistance, Witness};
use super::element_check::Comparable;
pub use super::tolerance::Tolerance;
use crate::operators::regions::PadRegions;
use crate::tensor::{Element, Tensor, dispatch};

/// How many differing elements a report lists.
pub(crate) const MAX_LISTED: usize = 10;

/// One differing element.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct ElementMismatch {
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
pub(crate) struct Comparison {
    /// The output matches: same dtype and shape, and no element failing the rule.
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
    /// Floating types only, when the values were compared: how far apart they are, over all
    /// elements (passing ones included). Its witnesses say output 0.
    pub deviation: Option<Deviation>,
    /// The first differing elements, in row-major order, at most [`MAX_LISTED`].
    pub first_mismatches: Vec<ElementMismatch>,
    /// Where all the differing elements fall, when the output's padding regions are known:
    /// how many are in padding, how many in the interior.
    pub placement: Option<Placement>,
}

/// How the differing elements of an output split between its padding and its interior,
/// counted over all of them (not just the listed ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Placement {
    /// Differing elements in the padding of some axis.
    pub in_padding: usize,
    /// Differing elements in the interior (copied from the input).
    pub in_interior: usize,
}

impl Placement {
    /// The whole picture in a sentence: "all 24 differing elements are in padding; the
    /// interior matches".
    pub(crate) fn describe(&self) -> String {
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

/// Compares `actual` with `expected`: dtype, then shape, then every value. For the output of a
/// Pad-family node whose `regions` are known, each listed mismatch names its region, and
/// [`Comparison::placement`] counts, in the same pass, where every differing element falls.
pub(crate) fn compare_in(
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
        deviation: None,
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
    comparison.deviation = values.deviation;
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
    /// Elements failing the rule.
    differing: usize,
    /// For floating types.
    deviation: Option<Deviation>,
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
            deviation: T::FLOATING.then(Deviation::default),
            listed: Vec::new(),
            placement: regions.map(|_| Placement::default()),
        },
        (Some(e), Some(a)) => compare_values(e.iter().zip(a), shape, tolerance, regions),
        _ => compare_values(expected.iter().zip(actual.iter()), shape, tolerance, regions),
    }
}

/// The first pair of one kind of difference, and how many there are.
struct FirstOf<T> {
    count: usize,
    flat: usize,
    pair: (T, T),
}

/// The pair farthest apart so far.
struct Farthest<T> {
    ulps: u64,
    flat: usize,
    pair: (T, T),
}

/// One pass over the pairs in row-major order. Nothing is allocated per element: the index
/// and strings of an element are built only when it is listed, and those of the largest ULP
/// distance and of the special differences once, at the end.
fn compare_values<'t, T: Comparable + 't>(
    pairs: impl Iterator<Item = (&'t T, &'t T)>,
    shape: &[usize],
    tolerance: &Tolerance,
    regions: Option<&PadRegions>,
) -> Values {
    let mut values = Values {
        bit_exact: true,
        differing: 0,
        deviation: None,
        listed: Vec::new(),
        placement: regions.map(|_| Placement::default()),
    };
    // Locals rather than fields, so the hot loop keeps them in registers. Errors are
    // never negative (so 0 is the maximum over no pairs) and never NaN (so `>` suffices).
    let (mut max_abs, mut max_rel) = (0.0f64, 0.0f64);
    let mut bit_exact = true;
    let mut max_ulps: Option<Farthest<T>> = None;
    let mut special: [Option<FirstOf<T>>; Special::ALL.len()] = Default::default();
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
        if let Some(ulps) = check.ulps
            && max_ulps.as_ref().is_none_or(|max| ulps > max.ulps)
        {
            max_ulps = Some(Farthest {
                ulps,
                flat,
                pair: (e.clone(), a.clone()),
            });
        }
        if let Some(kind) = check.special {
            count_special(&mut special[kind as usize], flat, e, a);
        }
        if !check.within {
            record(&mut values, flat, shape, regions, e, a);
        }
    }
    values.bit_exact = bit_exact;
    if T::FLOATING {
        let witness = |flat: usize, (e, a): &(T, T), brief: bool| {
            let show = |x: &T| if brief { x.brief() } else { x.show() };
            Witness {
                output: 0,
                index: unravel(flat, shape),
                expected: show(e),
                actual: show(a),
            }
        };
        values.deviation = Some(Deviation {
            max_abs_error: max_abs,
            max_rel_error: max_rel,
            max_ulps: max_ulps.map(|max| UlpDistance {
                ulps: max.ulps,
                at: witness(max.flat, &max.pair, false),
            }),
            special: Special::ALL
                .into_iter()
                .zip(&special)
                .filter_map(|(kind, first)| {
                    let first = first.as_ref()?;
                    // A payload is the point of a NaN-payload example; elsewhere the value
                    // alone reads better ("expected NaN, got 0"), with a zero's sign spelled out.
                    let mut at = witness(first.flat, &first.pair, kind != Special::NanPayload);
                    if kind == Special::SignOfZero {
                        for text in [&mut at.expected, &mut at.actual] {
                            if text == "0" {
                                *text = "+0".to_owned();
                            }
                        }
                    }
                    Some(SpecialDifference {
                        kind,
                        count: first.count,
                        first: at,
                    })
                })
                .collect(),
        });
    }
    values
}

/// Counts one special difference, keeping the first.
#[cold]
fn count_special<T: Clone>(slot: &mut Option<FirstOf<T>>, flat: usize, expected: &T, actual: &T) {
    match slot {
        Some(first) => first.count += 1,
        None => {
            *slot = Some(FirstOf {
                count: 1,
                flat,
                pair: (expected.clone(), actual.clone()),
            })
        }
    }
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

impl Comparison {
    /// Fills the region of each listed mismatch.
    pub(crate) fn with_regions(mut self, regions: &PadRegions) -> Comparison {
        for m in &mut self.first_mismatches {
            m.region = Some(regions.region(&m.index));
        }
        self
    }

    /// A multi-line report: a headline with the counts and the largest errors and distance
    /// (or the dtype or shape problem), the two types, the special differences, then the first
    /// differing elements with their regions.
    ///
    /// ```text
    /// output 0 "y": 3 of 120 elements differ (max abs error 0.5, max rel error 0.25, max 2 ulps at [0, 1, 2, 0])
    ///   expected float[1, 3, 4, 5], actual float[1, 3, 4, 5]
    ///   infinity not matched in 1 element, first [0, 0, 0, 1]: expected -inf, got -3.4028235e38
    ///   [0, 0, 0, 1] expected -inf actual -3.4028235e38 (begin padding of axis 3)
    /// ```
    pub(crate) fn report(&self, output_index: usize, output_name: &str) -> String {
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
            write!(text, "all {} elements pass, not bit-identical", self.total).unwrap();
        } else {
            write!(text, "{} of {} elements differ", self.differing, self.total).unwrap();
            if let Some(placement) = &self.placement {
                write!(text, "; {}", placement.describe()).unwrap();
            }
        }
        let deviation = self
            .deviation
            .as_ref()
            .filter(|_| self.problem.is_none() && !self.bit_exact);
        if let Some(measures) = deviation.and_then(|d| d.measures(true)) {
            write!(text, " ({measures})").unwrap();
        }
        write!(text, "\n  expected {}, actual {}", self.expected_type, self.actual_type).unwrap();
        for difference in deviation.iter().flat_map(|d| &d.special) {
            write!(text, "\n  {}", difference.describe(true)).unwrap();
        }
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
pub(crate) mod tests {
    use half::f16;
    use ndarray::Array2;

    use super::*;
    use crate::judge::deviation::show_float;
    use crate::tensor::Float8E4M3FN;

    pub(crate) fn compare(expected: &Tensor, actual: &Tensor, tolerance: &Tolerance) -> Comparison {
        compare_in(expected, actual, tolerance, None)
    }

    pub(crate) fn t<T: Element>(shape: &[usize], values: Vec<T>) -> Tensor {
        Tensor::from_vec(shape, values).unwrap()
    }

    /// Compares two vectors as 1-D tensors under `tolerance`.
    pub(crate) fn under<T: Element>(tolerance: Tolerance, expected: Vec<T>, actual: Vec<T>) -> Comparison {
        let n = expected.len();
        compare(&t(&[n], expected), &t(&[n], actual), &tolerance)
    }

    /// Under the default rule.
    pub(crate) fn check<T: Element>(expected: Vec<T>, actual: Vec<T>) -> Comparison {
        under(Tolerance::default(), expected, actual)
    }

    pub(crate) fn approx(rtol: f64, atol: f64) -> Tolerance {
        Tolerance::Approx { rtol, atol }
    }

    /// The listed (expected, actual) strings.
    pub(crate) fn shown(c: &Comparison) -> Vec<(&str, &str)> {
        c.first_mismatches
            .iter()
            .map(|m| (m.expected.as_str(), m.actual.as_str()))
            .collect()
    }

    pub(crate) fn deviation(c: &Comparison) -> &Deviation {
        c.deviation.as_ref().expect("a floating comparison")
    }

    /// (abs, rel) maxima.
    pub(crate) fn errors(c: &Comparison) -> (f64, f64) {
        let d = deviation(c);
        (d.max_abs_error, d.max_rel_error)
    }

    /// The largest distance, its index and the two values shown.
    pub(crate) fn farthest(c: &Comparison) -> Option<(u64, Vec<usize>, &str, &str)> {
        let max = deviation(c).max_ulps.as_ref()?;
        Some((
            max.ulps,
            max.at.index.clone(),
            max.at.expected.as_str(),
            max.at.actual.as_str(),
        ))
    }

    /// The special differences: kind, count, and the first's index, expected and actual.
    pub(crate) fn specials(c: &Comparison) -> Vec<(Special, usize, Vec<usize>, &str, &str)> {
        deviation(c)
            .special
            .iter()
            .map(|d| {
                let w = &d.first;
                (d.kind, d.count, w.index.clone(), w.expected.as_str(), w.actual.as_str())
            })
            .collect()
    }

    #[test]
    fn the_listing_is_capped_and_in_row_major_order() {
        let c = compare(
            &t(&[3, 5], vec![0i64; 15]),
            &t(&[3, 5], vec![1i64; 15]),
            &Tolerance::Exact,
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
        let c = compare(&Tensor::Int32(expected.into_dyn()), &actual, &Tolerance::Exact);
        assert_eq!(c.first_mismatches[0].index, [0, 2]);
        assert_eq!(shown(&c), [("2", "9")]);

        // Six dimensions: flat element 13 of [2, 1, 2, 1, 2, 2] is [1, 0, 1, 0, 0, 1].
        let mut values = vec![0u8; 16];
        values[13] = 1;
        let c = compare(
            &t(&[2, 1, 2, 1, 2, 2], vec![0u8; 16]),
            &t(&[2, 1, 2, 1, 2, 2], values),
            &Tolerance::Exact,
        );
        assert_eq!(c.first_mismatches[0].index, [1, 0, 1, 0, 0, 1]);
    }

    #[test]
    fn empty_tensors_pass() {
        let c = compare(
            &t(&[0, 3], Vec::<f32>::new()),
            &t(&[0, 3], Vec::<f32>::new()),
            &Tolerance::Exact,
        );
        assert!(c.passed && c.bit_exact);
        assert_eq!((c.total, c.deviation), (0, Some(Deviation::default())));
    }

    #[test]
    fn the_report_says_what_differs_and_where() {
        let expected = t(&[2, 3], vec![1.5f32, 0.0, 0.0, 2.0, 4.0, 0.0]);
        let actual = t(&[2, 3], vec![1.5f32, 0.0, 9.0, 2.0, 5.0, 0.0]);
        let regions = PadRegions {
            pads: vec![(0, 0), (0, 1)],
            out_shape: vec![2, 3],
        };
        let report = compare(&expected, &actual, &Tolerance::Exact)
            .with_regions(&regions)
            .report(0, "y");
        assert_eq!(
            report,
            "output 0 \"y\": 2 of 6 elements differ (max abs error 9, max rel error 1, \
             max 1091567616 ulps at [0, 2])\n  \
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
        let c = compare_in(&expected, &actual, &Tolerance::Exact, Some(&regions));
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
        let c = compare_in(&expected, &t(&[4, 4], values), &Tolerance::Exact, Some(&regions));
        assert_eq!(
            c.placement.unwrap().describe(),
            "4 differing elements are in padding, 1 in the interior"
        );
        // Regions of another shape say nothing.
        let other = compare_in(
            &t(&[16], vec![0i32; 16]),
            &t(&[16], vec![1i32; 16]),
            &Tolerance::Exact,
            Some(&regions),
        );
        assert_eq!(other.placement, None);
    }

    #[test]
    fn the_report_of_a_passing_comparison_says_how_it_passed() {
        let a = 1.0 + 2f64.powi(-11);
        let c = under(approx(1e-3, 0.0), vec![1.0f64], vec![a]);
        assert_eq!(
            c.report(2, ""),
            format!(
                "output 2: all 1 elements pass, not bit-identical \
                 (max abs error 0.00048828125, max rel error {}, max 2199023255552 ulps at [0])\n  \
                 expected double[1], actual double[1]",
                show_float(2f64.powi(-11) / a)
            )
        );
        let c = check(vec![f64::NAN], vec![-f64::NAN]);
        assert_eq!(
            c.report(0, ""),
            "output 0: all 1 elements pass, not bit-identical\n  \
             expected double[1], actual double[1]\n  \
             NaN payload differs in 1 element, first [0]: expected NaN (0x7ff8000000000000), \
             got NaN (0xfff8000000000000)"
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
            let c = compare(tensor, tensor, &Tolerance::Bitwise);
            assert!(c.passed && c.bit_exact && c.differing == 0, "{c:?}");
            let floating = tensor.data_type().is_floating();
            assert_eq!(c.deviation, floating.then(Deviation::default), "{c:?}");
        }
        // One differing bit leaves the fast path: the element rule finds and lists it.
        let other = Tensor::from_vec(&[3], vec![1.5f32, nan, 0.0]).unwrap();
        let c = compare(&cases[0], &other, &Tolerance::Exact);
        assert!(!c.passed && c.differing == 1, "{c:?}");
        assert_eq!(c.first_mismatches[0].index, [2]);
    }
}
