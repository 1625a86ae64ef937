//! Comparing an actual output with the expected one (docs/semantics.md#comparison), and the
//! mismatch report a person can act on.
//!
//! dtype, then shape, then values. Integers, bool, strings and sub-byte integers must be
//! equal. Floating values must be equal bit for bit by default, since these operators only
//! move values, every NaN matching every NaN; a [`Tolerance`] tightens that to NaN payloads or
//! loosens it for finite values. Whatever the rule, every floating difference is measured
//! (absolute and relative error, distance in units in the last place, per format) and the
//! special values among them are named ([`Special`]).

use std::fmt::{self, Write as _};

use approx::RelativeEq;
use half::{bf16, f16};
use ndarray::ArrayD;
use num_complex::Complex;
use serde::{Deserialize, Serialize};

use crate::judge::ulps::{FloatFormat, ulp_distance};
use crate::operators::regions::PadRegions;
use crate::tensor::{
    Element, Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Int2, Int4, Tensor,
    Uint2, Uint4, dispatch,
};

/// How many differing elements a report lists.
#[doc(hidden)]
pub(crate) const MAX_LISTED: usize = 10;

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

/// A difference between special values, or involving one, named rather than measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Special {
    /// Both NaN, with other bits: fails only under [`Tolerance::Bitwise`].
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
    const ALL: [Special; 6] = [
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
    fn measures(&self, here: bool) -> Option<String> {
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
    fn describe(&self, here: bool) -> String {
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

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

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

/// The verdict on one pair of elements.
#[doc(hidden)]
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
#[doc(hidden)]
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
mod tests {
    use half::{bf16, f16};
    use ndarray::Array2;
    use num_complex::Complex;

    use super::*;

    fn compare(expected: &Tensor, actual: &Tensor, tolerance: &Tolerance) -> Comparison {
        compare_in(expected, actual, tolerance, None)
    }

    #[test]
    fn ulps_pass_what_exact_fails() {
        let expected = t(&[2], vec![1.0f32, 2.0]);
        let actual = t(&[2], vec![1.0000001f32, 2.0]);
        assert!(!compare(&expected, &actual, &Tolerance::Exact).passed);
        let c = compare(&expected, &actual, &Tolerance::Ulps(1));
        assert!(c.passed && !c.bit_exact);
        assert_eq!(c.deviation.unwrap().max_ulps.unwrap().ulps, 1);
    }

    fn t<T: Element>(shape: &[usize], values: Vec<T>) -> Tensor {
        Tensor::from_vec(shape, values).unwrap()
    }

    /// Compares two vectors as 1-D tensors under `tolerance`.
    fn under<T: Element>(tolerance: Tolerance, expected: Vec<T>, actual: Vec<T>) -> Comparison {
        let n = expected.len();
        compare(&t(&[n], expected), &t(&[n], actual), &tolerance)
    }

    /// Under the default rule.
    fn check<T: Element>(expected: Vec<T>, actual: Vec<T>) -> Comparison {
        under(Tolerance::default(), expected, actual)
    }

    fn approx(rtol: f64, atol: f64) -> Tolerance {
        Tolerance::Approx { rtol, atol }
    }

    /// The listed (expected, actual) strings.
    fn shown(c: &Comparison) -> Vec<(&str, &str)> {
        c.first_mismatches
            .iter()
            .map(|m| (m.expected.as_str(), m.actual.as_str()))
            .collect()
    }

    fn deviation(c: &Comparison) -> &Deviation {
        c.deviation.as_ref().expect("a floating comparison")
    }

    /// (abs, rel) maxima.
    fn errors(c: &Comparison) -> (f64, f64) {
        let d = deviation(c);
        (d.max_abs_error, d.max_rel_error)
    }

    /// The largest distance, its index and the two values shown.
    fn farthest(c: &Comparison) -> Option<(u64, Vec<usize>, &str, &str)> {
        let max = deviation(c).max_ulps.as_ref()?;
        Some((
            max.ulps,
            max.at.index.clone(),
            max.at.expected.as_str(),
            max.at.actual.as_str(),
        ))
    }

    /// The special differences: kind, count, and the first's index, expected and actual.
    fn specials(c: &Comparison) -> Vec<(Special, usize, Vec<usize>, &str, &str)> {
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
    fn the_default_is_exact() {
        assert_eq!(Tolerance::default(), Tolerance::Exact);
        assert_eq!(Tolerance::default().to_string(), "exact");
        assert_eq!(Tolerance::Ulps(1).to_string(), "1 ulp");
        assert_eq!(approx(1e-3, 0.0).to_string(), "rtol 0.001, atol 0");
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
