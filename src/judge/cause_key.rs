//! The root cause a failure groups under: its verdict's [`Cause`], then the pattern that tells
//! one defect of that cause from another — which region of the output is wrong and how (the
//! interior, or the padding of which mode; other values, the sign of a zero, a NaN's payload),
//! the rule a forbidden case breaks, how a backend failed. Operator, version and element type
//! come only after it: a backend that refuses every valid case has one cause, whatever it
//! refuses. The fuzzer de-duplicates findings by it and its reports group by it.

use std::fmt;

use ndarray::ArrayD;
use serde::{Deserialize, Serialize, Serializer};

use super::element_check::Comparable;
use super::tolerance::Tolerance;
use super::verdict::{Cause, Failure, Verdict};
use crate::data::basis::Basis;
use crate::model::Model;
use crate::operators::regions::pad_regions;
use crate::operators::{PadMode, Rule};
use crate::tensor::{Element, Tensor, dispatch};

/// A root cause: what makes two failures the same defect.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CauseKey {
    /// The verdict's cause.
    pub cause: Cause,
    /// What tells defects of that cause apart.
    pub pattern: Pattern,
}

/// What tells one defect of a cause from another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Nothing more: a valid case refused, a runner problem, a case that does not load.
    Any,
    /// Outputs of the right shape whose elements differ: where, and how.
    Values {
        /// Where the differing elements lie.
        region: Region,
        /// How the worst of them differ.
        flavour: Flavour,
    },
    /// Outputs of another number, element type or shape.
    Output(OutputDifference),
    /// A forbidden case answered: the rule it breaks (the strongest, when several).
    Breaks(Rule),
    /// A forbidden case refused naming another rule: the one named, the one broken.
    Names {
        /// The rule the backend named.
        named: Rule,
        /// The spec rule the case breaks.
        broken: Rule,
    },
    /// A crash or time-out: how the backend failed.
    Failed(Failure),
}

/// Where in a Pad-family output the differing elements lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Region {
    /// Only elements copied from the input.
    Interior,
    /// Only padding: of this mode (`None`: CenterCropPad's zero padding).
    Padding(Option<PadMode>),
    /// Both.
    InteriorAndPadding(Option<PadMode>),
    /// The graph is not one Pad-family node whose regions are known.
    Unknown,
}

/// How differing elements differ, worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flavour {
    /// Other values.
    Values,
    /// NaN where NaN is expected, with another payload or sign.
    NanPayload,
    /// Zero where zero is expected, with the other sign.
    SignOfZero,
}

/// How outputs of another number, type or shape differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputDifference {
    /// Another number of outputs.
    Count,
    /// Another element type.
    ElementType,
    /// Another shape.
    Shape,
}

impl CauseKey {
    /// The cause of `verdict`; `None` when it shows no failure. `values` is the pattern of a
    /// value mismatch (where its failing elements lie, how they differ), which the caller measures;
    /// other verdicts carry their pattern typed.
    pub fn of(verdict: &Verdict, values: Option<Pattern>) -> Option<CauseKey> {
        let cause = verdict.cause()?;
        let pattern = match verdict {
            Verdict::Mismatch { .. } => values.unwrap_or(Pattern::Any),
            Verdict::AcceptedMustRefuse { rules, .. } => strongest(rules).map_or(Pattern::Any, Pattern::Breaks),
            Verdict::RefusedForAnotherReason { rule, expected, .. } => {
                let spec = expected.iter().copied().filter(|r| r.basis().0 == Basis::Spec);
                match strongest(&spec.collect::<Vec<_>>()) {
                    Some(broken) => Pattern::Names { named: *rule, broken },
                    None => Pattern::Any,
                }
            }
            Verdict::Failed { failure, .. } if matches!(cause, Cause::Crash | Cause::Timeout) => {
                Pattern::Failed(*failure)
            }
            _ => Pattern::Any,
        };
        Some(CauseKey { cause, pattern })
    }

    /// `wrong-values_constant-padding_sign-of-zero`: safe as a directory name.
    pub fn slug(&self) -> String {
        // Crashes of two signals or exit codes are two causes that read alike: their
        // reproducers need two directories.
        let how = match &self.pattern {
            Pattern::Failed(Failure::Crash { signal: Some(n), .. }) => format!("killed by signal {n}"),
            Pattern::Failed(Failure::Crash { code: Some(n), .. }) => format!("exited with code {n}"),
            pattern => pattern.to_string(),
        };
        let text = format!("{}_{how}", self.cause.key());
        let mut slug = String::with_capacity(text.len());
        for c in text.chars() {
            match c {
                c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => slug.push(c),
                _ if slug.ends_with('-') || slug.ends_with('_') => {}
                _ => slug.push('-'),
            }
        }
        slug.trim_end_matches(['-', '_']).to_owned()
    }
}

/// The strongest-based of `rules`, the first among equals.
fn strongest(rules: &[Rule]) -> Option<Rule> {
    rules.iter().copied().min_by_key(|r| r.basis().0)
}

impl fmt::Display for CauseKey {
    /// `wrong-values: constant padding, sign of zero`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pattern {
            Pattern::Any => write!(f, "{}", self.cause),
            _ => write!(f, "{}: {}", self.cause, self.pattern),
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Any => f.write_str("any"),
            Pattern::Values { region, flavour } => write!(f, "{region}, {flavour}"),
            Pattern::Output(OutputDifference::Count) => f.write_str("number of outputs"),
            Pattern::Output(OutputDifference::ElementType) => f.write_str("element type"),
            Pattern::Output(OutputDifference::Shape) => f.write_str("output shape"),
            Pattern::Breaks(rule) => write!(f, "breaks {rule}"),
            Pattern::Names { named, broken } => write!(f, "names {named} for {broken}"),
            Pattern::Failed(failure) => f.write_str(match failure {
                Failure::Panic => "panic",
                Failure::Crash { signal: Some(_), .. } => "killed by a signal",
                Failure::Crash { .. } => "exited",
                Failure::Timeout => "no answer in time",
                Failure::Protocol => "broke the protocol",
                Failure::Reported => "reported a failure",
                Failure::Runner => "runner",
                Failure::InvalidRewrite => "invalid rewritten model",
            }),
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let padding = |mode: &Option<PadMode>| match mode {
            Some(mode) => format!("{} padding", mode.name()),
            None => "zero padding".to_owned(),
        };
        match self {
            Region::Interior => f.write_str("interior"),
            Region::Padding(mode) => f.write_str(&padding(mode)),
            Region::InteriorAndPadding(mode) => write!(f, "interior and {}", padding(mode)),
            Region::Unknown => f.write_str("somewhere"),
        }
    }
}

impl fmt::Display for Flavour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Flavour::Values => "other values",
            Flavour::NanPayload => "NaN payload",
            Flavour::SignOfZero => "sign of zero",
        })
    }
}

impl Serialize for CauseKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The pattern of outputs that differ from `expected` under `tolerance`: another number,
/// type or shape, or where the failing elements of the first output that has any lie and how
/// the worst of them differ. `None` when no element fails.
pub(crate) fn values_pattern(
    model: &Model,
    inputs: &[Tensor],
    expected: &[Tensor],
    actual: &[Tensor],
    tolerance: &Tolerance,
) -> Option<Pattern> {
    if expected.len() != actual.len() {
        return Some(Pattern::Output(OutputDifference::Count));
    }
    let pairs = expected.iter().zip(actual);
    for (e, a) in pairs.clone() {
        if e.data_type() != a.data_type() {
            return Some(Pattern::Output(OutputDifference::ElementType));
        }
        if e.shape() != a.shape() {
            return Some(Pattern::Output(OutputDifference::Shape));
        }
    }
    let regions = pad_regions(model, inputs);
    let mode = match model.graph.nodes.as_slice() {
        [node] => node.pad_mode().and_then(|m| m.mode()),
        _ => None,
    };
    for (e, a) in pairs {
        let failing = dispatch!(e, array => failing_elements(array, a, tolerance));
        let Some((flavour, flats)) = failing else {
            continue;
        };
        // Regions computed for another shape (a graph whose output is not the Pad node's)
        // say nothing about this one, as the comparison's report takes them.
        let region = match regions.as_ref().filter(|r| r.out_shape == e.shape()) {
            None => Region::Unknown,
            Some(regions) => {
                let padding = flats.iter().filter(|&&flat| regions.is_padding(flat)).count();
                match (padding, flats.len() - padding) {
                    (0, _) => Region::Interior,
                    (_, 0) => Region::Padding(mode),
                    _ => Region::InteriorAndPadding(mode),
                }
            }
        };
        return Some(Pattern::Values { region, flavour });
    }
    None
}

/// The worst flavour among the elements of `actual` that fail against `expected`, and the
/// flat indices of the elements of that flavour; `None` when none fails.
fn failing_elements<T: Element + Comparable + Flavoured>(
    expected: &ArrayD<T>,
    actual: &Tensor,
    tolerance: &Tolerance,
) -> Option<(Flavour, Vec<usize>)> {
    let actual = T::array_of(actual)?;
    // Most outputs agree: identical bytes settle it without a look at each element.
    if let (Some(e), Some(a)) = (expected.as_slice(), actual.as_slice()) {
        if let (Some(e), Some(a)) = (T::bytes(e), T::bytes(a))
            && e == a
        {
            return None;
        }
        return worst(e.iter().zip(a), tolerance);
    }
    worst(expected.iter().zip(actual.iter()), tolerance)
}

/// [`failing_elements`] over (expected, actual) pairs in row-major order.
fn worst<'a, T: Comparable + Flavoured + 'a>(
    pairs: impl Iterator<Item = (&'a T, &'a T)>,
    tolerance: &Tolerance,
) -> Option<(Flavour, Vec<usize>)> {
    let mut worst: Option<(Flavour, Vec<usize>)> = None;
    for (flat, (e, a)) in pairs.enumerate() {
        // `within` is the run's rule, whichever it is (exact, bitwise, approx, ULPs).
        if T::check(e, a, tolerance).within {
            continue;
        }
        let flavour = T::flavour(e, a);
        match &mut worst {
            Some((w, flats)) if *w == flavour => flats.push(flat),
            Some((w, _)) if *w < flavour => {}
            _ => worst = Some((flavour, vec![flat])),
        }
    }
    worst
}

/// How two elements whose bits differ differ.
trait Flavoured {
    fn flavour(expected: &Self, actual: &Self) -> Flavour;
}

/// Of two floating values (widened exactly): both NaN, both zero, or other values.
fn float_flavour(expected: f64, actual: f64) -> Flavour {
    if expected.is_nan() && actual.is_nan() {
        Flavour::NanPayload
    } else if expected == 0.0 && actual == 0.0 {
        Flavour::SignOfZero
    } else {
        Flavour::Values
    }
}

macro_rules! flavoured_exactly {
    ($($ty:ty),*) => {$(
        impl Flavoured for $ty {
            fn flavour(_: &Self, _: &Self) -> Flavour {
                Flavour::Values
            }
        }
    )*};
}
flavoured_exactly!(
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    bool,
    Vec<u8>,
    crate::tensor::Int4,
    crate::tensor::Uint4,
    crate::tensor::Int2,
    crate::tensor::Uint2
);

macro_rules! flavoured_float {
    ($($ty:ty => $wide:expr),*) => {$(
        impl Flavoured for $ty {
            fn flavour(expected: &Self, actual: &Self) -> Flavour {
                let wide: fn(&$ty) -> f64 = $wide;
                float_flavour(wide(expected), wide(actual))
            }
        }
    )*};
}
flavoured_float!(
    f32 => |v| f64::from(*v),
    f64 => |v| *v,
    half::f16 => |v| v.to_f64(),
    half::bf16 => |v| v.to_f64(),
    crate::tensor::Float8E4M3FN => |v| f64::from(v.to_f32()),
    crate::tensor::Float8E4M3FNUZ => |v| f64::from(v.to_f32()),
    crate::tensor::Float8E5M2 => |v| f64::from(v.to_f32()),
    crate::tensor::Float8E5M2FNUZ => |v| f64::from(v.to_f32()),
    crate::tensor::Float8E8M0 => |v| f64::from(v.to_f32()),
    crate::tensor::Float4E2M1 => |v| f64::from(v.to_f32())
);

/// A complex pair by its worst part, a part with identical bits not counting.
impl<F: Flavoured + Comparable + Copy> Flavoured for num_complex::Complex<F> {
    fn flavour(expected: &Self, actual: &Self) -> Flavour {
        let same_bits = |e: &F, a: &F| F::check(e, a, &Tolerance::default()).bit_equal;
        let part = |e: F, a: F| (!same_bits(&e, &a)).then(|| F::flavour(&e, &a));
        match (part(expected.re, actual.re), part(expected.im, actual.im)) {
            (Some(re), Some(im)) => re.min(im),
            (Some(one), None) | (None, Some(one)) => one,
            // Not asked: the pair's bits differ.
            (None, None) => Flavour::Values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operators::Rule;

    #[test]
    fn a_refusal_of_anything_valid_is_one_cause_whatever_its_words() {
        let refused = |words: &str| CauseKey::of(&Verdict::RefusedValid { refusal: words.into() }, None);
        assert_eq!(refused("no int4"), refused("no reflect mode"));
        assert_eq!(refused("x").unwrap().to_string(), "refuses-valid");
    }

    #[test]
    fn an_accepted_forbidden_case_is_keyed_by_its_strongest_rule() {
        let accepted = Verdict::AcceptedMustRefuse {
            reason: "wrap before Pad-19".into(),
            rules: vec![Rule::AxisRepeated, Rule::ModeNotInVersion],
        };
        let key = CauseKey::of(&accepted, None).unwrap();
        assert_eq!(key.pattern, Pattern::Breaks(Rule::ModeNotInVersion));
        assert_eq!(key.to_string(), "accepts-forbidden: breaks mode-not-in-version");
        assert_eq!(key.slug(), "accepts-forbidden_breaks-mode-not-in-version");
    }

    /// Two crashes that read alike (`crash: killed by a signal`) are two causes: `fuzz --out`
    /// writes each to a directory of its own, named by the signal or exit code.
    #[test]
    fn crashes_of_two_signals_are_two_causes_with_two_slugs() {
        let crash = |code, signal| Pattern::Failed(Failure::Crash { code, signal });
        let key = |pattern| CauseKey {
            cause: Cause::Crash,
            pattern,
        };
        let (abort, segv) = (key(crash(None, Some(6))), key(crash(None, Some(11))));
        assert_ne!(abort, segv);
        assert_eq!(abort.to_string(), segv.to_string());
        assert_eq!(abort.slug(), "crash_killed-by-signal-6");
        assert_eq!(segv.slug(), "crash_killed-by-signal-11");
        assert_eq!(key(crash(Some(101), None)).slug(), "crash_exited-with-code-101");
    }

    #[test]
    fn the_worst_flavour_decides_and_a_nan_is_not_a_zero() {
        assert_eq!(float_flavour(0.0, -0.0), Flavour::SignOfZero);
        assert_eq!(float_flavour(f64::NAN, -f64::NAN), Flavour::NanPayload);
        assert_eq!(float_flavour(0.0, 1.0), Flavour::Values);
        assert_eq!(float_flavour(f64::NAN, 0.0), Flavour::Values);
        let e = num_complex::Complex::new(1.0f32, 0.0);
        assert_eq!(
            Flavoured::flavour(&e, &num_complex::Complex::new(1.0, -0.0)),
            Flavour::SignOfZero
        );
        assert_eq!(
            Flavoured::flavour(&e, &num_complex::Complex::new(2.0, -0.0)),
            Flavour::Values
        );
    }

    // The fuzzer builds the model (feature `cli`).
    #[cfg(feature = "cli")]
    #[test]
    fn a_mismatch_names_the_region_and_flavour_of_its_failing_elements() {
        use crate::fuzz::FuzzCase;
        use crate::operators::{OpVersion, PadOp};
        // Pad-18 constant, data [1, 2], pads [1, 1]: output [c, 1, 2, c].
        let case = FuzzCase {
            operator: OpVersion {
                op: PadOp::Pad,
                version: 18,
            },
            mode: None,
            data: Tensor::from_vec(&[2], vec![1.0f32, 2.0]).unwrap(),
            pads: vec![1, 1],
            pads_2d: false,
            constant: Some(Tensor::from_vec(&[], vec![-0.0f32]).unwrap()),
            axes: None,
            int32_indices: false,
        };
        let (proto, inputs) = case.build("t");
        let model = Model::from_proto(std::path::Path::new("m.onnx"), proto, &Default::default()).unwrap();
        let expected = [Tensor::from_vec(&[4], vec![-0.0f32, 1.0, 2.0, -0.0]).unwrap()];
        let exact = Tolerance::Exact;
        let pattern = |actual: Vec<f32>, tolerance: &Tolerance| {
            let actual = [Tensor::from_vec(&[4], actual).unwrap()];
            values_pattern(&model, &inputs, &expected, &actual, tolerance)
        };
        let values = |region, flavour| Some(Pattern::Values { region, flavour });
        let constant = Some(PadMode::Constant);
        assert_eq!(
            pattern(vec![0.0, 1.0, 2.0, -0.0], &exact),
            values(Region::Padding(constant), Flavour::SignOfZero)
        );
        // A tolerance never excuses a zero's sign either (docs/semantics.md#comparison).
        let approx = Tolerance::Approx { rtol: 1e-3, atol: 1e-7 };
        assert_eq!(
            pattern(vec![0.0, 1.0, 2.0, -0.0], &approx),
            values(Region::Padding(constant), Flavour::SignOfZero)
        );
        // A wrong interior value outranks a zero's sign.
        assert_eq!(
            pattern(vec![0.0, 1.0, 3.0, -0.0], &exact),
            values(Region::Interior, Flavour::Values)
        );
        assert_eq!(
            pattern(vec![5.0, 1.0, 3.0, -0.0], &exact),
            values(Region::InteriorAndPadding(constant), Flavour::Values)
        );
        let short = [Tensor::from_vec(&[3], vec![0.0f32; 3]).unwrap()];
        assert_eq!(
            values_pattern(&model, &inputs, &expected, &short, &exact),
            Some(Pattern::Output(OutputDifference::Shape))
        );
    }
}
