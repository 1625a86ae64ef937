//! The valid twin of a must-refuse configuration (docs/semantics.md#twins): the same operator
//! with the property the reference refuses it for repaired — the element type, the mode, the
//! axes, the pads, the constant — and nothing else changed, so that both hold the same data
//! where the repair keeps its type and shape. The reference decides: each repair answers a
//! rule its refusal names, of a rule's repairs the first it accepts is taken, and the twin is
//! done when the reference answers it. A configuration that breaks two rules gets two repairs.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use ndarray::{ArrayD, IxDyn};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::case::FuzzCase;
use super::values::{random_constant, random_tensor};
use crate::backend::RefBackend;
use crate::data::basis::BasisNote;
use crate::judge::check::{Answer, run};
use crate::model::Model;
use crate::operators::{PadMode, PadOp, Rule};
use crate::tensor::{DataType, DecodeOptions, Element, Tensor, Visitor};

/// The most repairs a twin takes: one per rule the configuration breaks, and the fuzzer breaks
/// one (a repair may uncover another, as a valid constant uncovers a pad that copies nothing).
const MAX_REPAIRS: usize = 4;

/// A must-refuse configuration's valid twin.
#[derive(Clone, Debug)]
pub(crate) struct Twin {
    /// The configuration repaired.
    pub(crate) case: FuzzCase,
    /// The reference's outputs for it.
    pub(crate) outputs: Vec<Tensor>,
    /// Their basis.
    pub(crate) basis: BasisNote,
    /// What was repaired, in order.
    pub(crate) repairs: Vec<Repair>,
}

/// One property repaired, and what it became.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Repair {
    /// The data (and constant) in an element type the version accepts.
    DataType(DataType),
    /// A mode the version has.
    Mode(PadMode),
    /// Axes in range, each named once.
    Axes(Vec<i64>),
    /// No axes input, the same padding given as pads of every axis.
    NoAxes(Vec<i64>),
    /// Pads of the right length, or that leave data to copy.
    Pads(Vec<i64>),
    /// 1-D pads.
    OneDimPads,
    /// CenterCropPad's target shape, one value per axis, none negative.
    CropShape(Vec<i64>),
    /// The constant in the data's element type.
    ConstantType(DataType),
    /// A constant of one element.
    ScalarConstant,
    /// No constant.
    NoConstant,
}

impl fmt::Display for Repair {
    /// What the twin has instead: `mode "edge"`, `float data`, `axes [-3]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Repair::DataType(dtype) => write!(f, "{dtype} data"),
            Repair::Mode(mode) => write!(f, "mode {:?}", mode.name()),
            Repair::Axes(axes) => write!(f, "axes {axes:?}"),
            Repair::NoAxes(pads) => write!(f, "no axes input, the same padding as pads {pads:?}"),
            Repair::Pads(pads) => write!(f, "pads {pads:?}"),
            Repair::OneDimPads => f.write_str("1-D pads"),
            Repair::CropShape(shape) => write!(f, "shape {shape:?}"),
            Repair::ConstantType(dtype) => write!(f, "a constant of type {dtype}"),
            Repair::ScalarConstant => f.write_str("a constant of one element"),
            Repair::NoConstant => f.write_str("no constant"),
        }
    }
}

/// Why a configuration has no twin.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TwinError {
    /// The reference answers it: it is valid, and needs none.
    #[error("the reference answers it: a valid case has no twin")]
    NotRefused,
    /// The reference refuses it by rules no repair of a configuration covers.
    #[error("the reference refuses it by {}, which no repair covers", rule_list(rules))]
    NoRepair {
        /// The rules its refusal names.
        rules: Vec<Rule>,
    },
    /// Still refused after the most repairs a twin takes.
    #[error(
        "the reference still refuses it after {}: {}",
        repair_list(repairs),
        rule_list(rules)
    )]
    StillRefused {
        /// The repairs made.
        repairs: Vec<Repair>,
        /// The rules its refusal names after them.
        rules: Vec<Rule>,
    },
    /// The reference panicked: a bug of this crate.
    #[error("the reference panicked on {case}: {message}")]
    Panicked {
        /// The configuration.
        case: String,
        /// The panic's message.
        message: String,
    },
    /// The configuration builds a model the reference cannot load: a bug of this crate.
    #[error("{case} builds a model that does not load: {source}")]
    Load {
        /// The configuration.
        case: String,
        /// Why.
        #[source]
        source: Box<crate::model::ReadError>,
    },
}

fn rule_list(rules: &[Rule]) -> String {
    match rules {
        [] => "no rule".to_owned(),
        _ => rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(", "),
    }
}

/// `mode "edge" and pads [0, 0]`.
pub(crate) fn repair_list(repairs: &[Repair]) -> String {
    repairs.iter().map(Repair::to_string).collect::<Vec<_>>().join(" and ")
}

/// The valid twin of `refused`, a configuration the reference refuses.
pub(crate) fn twin_of(refused: &FuzzCase) -> Result<Twin, TwinError> {
    let mut case = refused.clone();
    let mut repairs = Vec::new();
    loop {
        let rules = match reference(&case)? {
            Ok(_) if repairs.is_empty() => return Err(TwinError::NotRefused),
            Ok(outputs) => {
                let basis = super::basis::of_output(&case);
                return Ok(Twin {
                    case,
                    outputs,
                    basis,
                    repairs,
                });
            }
            Err(rules) => rules,
        };
        if repairs.len() == MAX_REPAIRS {
            return Err(TwinError::StillRefused { repairs, rules });
        }
        // The rule its message states first, unless no repair covers it.
        let Some(candidates) = rules
            .iter()
            .map(|&rule| candidates(&case, rule))
            .find(|c| !c.is_empty())
        else {
            return Err(TwinError::NoRepair { rules });
        };
        let mut chosen = None;
        for (repair, repaired) in &candidates {
            if reference(repaired)?.is_ok() {
                chosen = Some((repair.clone(), repaired.clone()));
                break;
            }
        }
        // None passes alone: the first, and the next round repairs what it uncovered.
        let (repair, repaired) = chosen.unwrap_or_else(|| candidates[0].clone());
        repairs.push(repair);
        case = repaired;
    }
}

/// The reference's outputs for `case`, or the rules it refuses it by.
fn reference(case: &FuzzCase) -> Result<Result<Vec<Tensor>, Vec<Rule>>, TwinError> {
    let (proto, inputs) = case.build("twin");
    let model =
        Model::from_proto(Path::new("model.onnx"), proto, &DecodeOptions::default()).map_err(|e| TwinError::Load {
            case: case.to_string(),
            source: Box::new(e),
        })?;
    match run(&RefBackend, &model, &inputs) {
        Answer::Outputs(outputs) => Ok(Ok(outputs)),
        Answer::Refused(error) => Ok(Err(error.rules().to_vec())),
        Answer::Panicked(message) => Err(TwinError::Panicked {
            case: case.to_string(),
            message,
        }),
    }
}

/// The repairs of `case` that answer `rule`, the nearest first; none when no configuration
/// can (a rule the fuzzer never breaks).
fn candidates(case: &FuzzCase, rule: Rule) -> Vec<(Repair, FuzzCase)> {
    let op = case.operator;
    let dims = case.data.shape();
    let rank = dims.len();
    let with = |change: &dyn Fn(&mut FuzzCase)| {
        let mut repaired = case.clone();
        change(&mut repaired);
        repaired
    };
    let pads = |pads: Vec<i64>| (Repair::Pads(pads.clone()), with(&|c| c.pads = pads.clone()));
    let mut found: Vec<(Repair, FuzzCase)> = match rule {
        Rule::DataType => {
            let preferred = [DataType::Float, DataType::Double, DataType::Float16];
            let Some(to) = preferred.into_iter().chain(op.data_types()).find(|&t| op.accepts(t)) else {
                return Vec::new();
            };
            let repaired = with(&|c| {
                c.data = retyped(&c.data, to, random_tensor);
                c.constant = c.constant.as_ref().map(|k| retyped(k, to, random_constant));
            });
            vec![(Repair::DataType(to), repaired)]
        }
        Rule::ModeNotInVersion | Rule::UnknownMode => {
            let said = case.mode.as_deref().unwrap_or_default().to_ascii_lowercase();
            // wrap copies as edge does; reflect is what numpy's symmetric comes closest to.
            let nearest = match said.as_str() {
                "wrap" => PadMode::Edge,
                "reflect" | "symmetric" => PadMode::Reflect,
                _ => PadMode::Constant,
            };
            let mut modes = vec![nearest];
            modes.extend(op.modes().iter().filter(|&&m| m != nearest));
            modes
                .into_iter()
                .filter(|m| op.modes().contains(m))
                .map(|m| (Repair::Mode(m), with(&|c| c.mode = Some(m.name().to_owned()))))
                .collect()
        }
        Rule::AxisOutOfRange | Rule::AxisRepeated => {
            let Some(axes) = &case.axes else {
                return Vec::new();
            };
            if rank == 0 {
                // No axis to name: the pads (or targets) of no axis either.
                vec![(
                    Repair::NoAxes(Vec::new()),
                    with(&|c| {
                        c.axes = None;
                        c.pads.clear();
                    }),
                )]
            } else if axes.len() > rank {
                Vec::new()
            } else {
                let repaired = distinct_axes(axes, rank);
                vec![(
                    Repair::Axes(repaired.clone()),
                    with(&|c| c.axes = Some(repaired.clone())),
                )]
            }
        }
        Rule::PadsLength => {
            let n = 2 * case.axes.as_ref().map_or(rank, Vec::len);
            let mut resized = case.pads.clone();
            resized.resize(n, 0);
            vec![pads(resized), pads(vec![0; n])]
        }
        Rule::CropShapeLength => {
            let Some(listed) = listed(case) else {
                return Vec::new();
            };
            let extents: Vec<i64> = listed.iter().map(|&a| dims[a] as i64).collect();
            let mut resized = case.pads.clone();
            resized.truncate(extents.len());
            resized.extend_from_slice(&extents[resized.len()..]);
            [resized, extents]
                .into_iter()
                .map(|shape| (Repair::CropShape(shape.clone()), with(&|c| c.pads = shape.clone())))
                .collect()
        }
        Rule::CropNegativeExtent => {
            let shape: Vec<i64> = case.pads.iter().map(|t| t.abs()).collect();
            vec![(Repair::CropShape(shape.clone()), with(&|c| c.pads = shape.clone()))]
        }
        Rule::PadsShape | Rule::MsPadsShape if case.pads_2d => {
            vec![(Repair::OneDimPads, with(&|c| c.pads_2d = false))]
        }
        Rule::ConstantType | Rule::ConstantShape => {
            let Some(constant) = &case.constant else {
                return Vec::new();
            };
            let to = case.data.data_type();
            let first = match rule {
                Rule::ConstantType => (
                    Repair::ConstantType(to),
                    with(&|c| c.constant = Some(retyped(constant, to, random_constant))),
                ),
                _ => (
                    Repair::ScalarConstant,
                    with(&|c| c.constant = Some(first_element(constant))),
                ),
            };
            vec![first, (Repair::NoConstant, with(&|c| c.constant = None))]
        }
        Rule::NegativeExtent | Rule::NothingToCopy => {
            let Some(listed) = listed(case).filter(|l| case.pads.len() == 2 * l.len()) else {
                return Vec::new();
            };
            let k = listed.len();
            let mut repaired = case.pads.clone();
            for (i, &axis) in listed.iter().enumerate() {
                let extent = dims[axis] as i64;
                let (mut begin, mut end) = (repaired[i], repaired[i + k]);
                // Raises the more negative pad by one: removes one element less.
                let remove_less = |begin: &mut i64, end: &mut i64| {
                    if *begin <= *end {
                        *begin += 1;
                    } else {
                        *end += 1;
                    }
                };
                if rule == Rule::NegativeExtent {
                    // Until the output keeps one element (none of an empty axis).
                    while extent + begin + end < extent.min(1) {
                        remove_less(&mut begin, &mut end);
                    }
                } else if begin > 0 || end > 0 {
                    if extent == 0 {
                        // Nothing to copy from, ever: pad nothing.
                        (begin, end) = (begin.min(0), end.min(0));
                    } else {
                        // Until one element remains to copy.
                        while extent - (-begin).max(0) - (-end).max(0) < 1 {
                            remove_less(&mut begin, &mut end);
                        }
                    }
                }
                (repaired[i], repaired[i + k]) = (begin, end);
            }
            let mut found = vec![pads(repaired)];
            if rule == Rule::NothingToCopy {
                let constant = PadMode::Constant;
                found.push((
                    Repair::Mode(constant),
                    with(&|c| c.mode = Some(constant.name().to_owned())),
                ));
            } else {
                found.push(pads(vec![0; 2 * k]));
            }
            found
        }
        Rule::ExtraInput if case.axes.is_some() && op.op != PadOp::CenterCropPad => {
            let full = match listed(case).filter(|l| case.pads.len() == 2 * l.len()) {
                Some(listed) => {
                    let k = listed.len();
                    let mut full = vec![0; 2 * rank];
                    for (i, &axis) in listed.iter().enumerate() {
                        full[axis] = case.pads[i];
                        full[axis + rank] = case.pads[i + k];
                    }
                    full
                }
                None => vec![0; 2 * rank],
            };
            vec![(
                Repair::NoAxes(full.clone()),
                with(&|c| {
                    c.axes = None;
                    c.pads = full.clone();
                }),
            )]
        }
        _ => Vec::new(),
    };
    // A repair that changes nothing repairs nothing.
    found.retain(|(_, repaired)| repaired != case);
    let mut seen = Vec::new();
    found.retain(|(_, repaired)| {
        let new = !seen.contains(repaired);
        seen.push(repaired.clone());
        new
    });
    found
}

/// The axes `case` pads (or crops), each in `0..rank`: its axes when all are in range, else
/// every axis; `None` when one is out of range.
fn listed(case: &FuzzCase) -> Option<Vec<usize>> {
    let rank = case.data.shape().len() as i64;
    match &case.axes {
        None => Some((0..rank as usize).collect()),
        Some(axes) => axes
            .iter()
            .map(|&a| (-rank..rank).contains(&a).then(|| a.rem_euclid(rank) as usize))
            .collect(),
    }
}

/// `axes` with each one out of range or named again replaced: by the nearest end of the range
/// when that is free, else by the first axis not yet named. `axes` has at most `rank` entries.
fn distinct_axes(axes: &[i64], rank: usize) -> Vec<i64> {
    let r = rank as i64;
    let mut named = BTreeSet::new();
    axes.iter()
        .map(|&a| {
            let clamped = a.clamp(-r, r - 1);
            if named.insert(clamped.rem_euclid(r)) {
                clamped
            } else {
                let free = (0..r).find(|x| !named.contains(x)).expect("fewer axes than the rank");
                named.insert(free);
                free
            }
        })
        .collect()
}

/// `tensor` in element type `to`: cast where a cast exists, else values drawn afresh (the same
/// for the same shape, so that the twin is made the same way every time).
fn retyped(tensor: &Tensor, to: DataType, draw: fn(DataType, &[usize], &mut ChaCha8Rng) -> Tensor) -> Tensor {
    tensor
        .cast(to)
        .unwrap_or_else(|_| draw(to, tensor.shape(), &mut ChaCha8Rng::seed_from_u64(0)))
}

/// A rank-0 tensor of `tensor`'s first element (one drawn afresh when it has none).
fn first_element(tensor: &Tensor) -> Tensor {
    struct First;
    impl Visitor<'_> for First {
        type Output = Option<Tensor>;
        fn visit<T: Element>(self, a: &ArrayD<T>) -> Option<Tensor> {
            let first = a.iter().next()?.clone();
            Some(Tensor::from_array(ArrayD::from_elem(IxDyn(&[]), first)))
        }
    }
    tensor
        .visit(First)
        .unwrap_or_else(|| random_constant(tensor.data_type(), &[], &mut ChaCha8Rng::seed_from_u64(0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::generate::{Shape, generate};
    use crate::operators::OpVersion;

    fn pad(version: i64, data: Tensor, pads: Vec<i64>) -> FuzzCase {
        FuzzCase {
            operator: OpVersion::all()
                .find(|o| o.op == PadOp::Pad && o.version == version)
                .unwrap(),
            mode: None,
            data,
            pads,
            pads_2d: false,
            constant: None,
            axes: None,
            int32_indices: false,
        }
    }

    fn floats(shape: &[usize]) -> Tensor {
        let n = shape.iter().product();
        Tensor::from_vec(shape, (0..n).map(|v| v as f32).collect::<Vec<f32>>()).unwrap()
    }

    /// Each repair changes the one property the rule is about, keeps the data where its type
    /// stays, and the reference answers the twin.
    #[test]
    fn each_rule_the_fuzzer_breaks_is_repaired_as_the_extended_twins_are() {
        let twin = |case: FuzzCase| twin_of(&case).unwrap_or_else(|e| panic!("{case}: {e}"));
        let wrap = FuzzCase {
            mode: Some("wrap".into()),
            ..pad(13, floats(&[3]), vec![1, 1])
        };
        let repaired = twin(wrap.clone());
        assert_eq!(repaired.repairs, [Repair::Mode(PadMode::Edge)]);
        assert_eq!(repaired.case.data, wrap.data);
        assert_eq!(repaired.outputs[0].to_vec::<f32>().unwrap(), [0., 0., 1., 2., 2.]);
        let symmetric = FuzzCase {
            mode: Some("symmetric".into()),
            ..wrap.clone()
        };
        assert_eq!(twin(symmetric).repairs, [Repair::Mode(PadMode::Reflect)]);
        // An axis out of range: the nearest end of the range.
        let axes = FuzzCase {
            axes: Some(vec![-4]),
            ..pad(25, floats(&[2, 2, 2]), vec![1, 1])
        };
        assert_eq!(twin(axes).repairs, [Repair::Axes(vec![-3])]);
        let repeated = FuzzCase {
            axes: Some(vec![1, 1]),
            ..pad(18, floats(&[2, 3]), vec![1, 1, 1, 1])
        };
        assert_eq!(twin(repeated).repairs, [Repair::Axes(vec![1, 0])]);
        // Pads of the wrong length: the missing ones 0.
        let short = pad(11, floats(&[2, 3]), vec![1, 1, 1]);
        assert_eq!(twin(short).repairs, [Repair::Pads(vec![1, 1, 1, 0])]);
        // axes before Pad-18: the same padding of every axis.
        let extra = FuzzCase {
            axes: Some(vec![0]),
            ..pad(13, floats(&[2, 2]), vec![1, 1])
        };
        assert_eq!(twin(extra).repairs, [Repair::NoAxes(vec![1, 0, 1, 0])]);
        // An element type the version does not take: float, the values kept.
        let int = pad(2, Tensor::from_vec(&[2], vec![3u8, 4]).unwrap(), vec![1, 0]);
        let repaired = twin(int);
        assert_eq!(repaired.repairs, [Repair::DataType(DataType::Float)]);
        assert_eq!(repaired.case.data.to_vec::<f32>().unwrap(), [3., 4.]);
        // A constant of another type, cast; one of two elements, its first.
        let constant = FuzzCase {
            constant: Some(Tensor::from_vec(&[], vec![7i64]).unwrap()),
            ..pad(19, Tensor::from_vec(&[2], vec![1u32, 2]).unwrap(), vec![1, 0])
        };
        let repaired = twin(constant);
        assert_eq!(repaired.repairs, [Repair::ConstantType(DataType::Uint32)]);
        assert_eq!(repaired.outputs[0].to_vec::<u32>().unwrap(), [7, 1, 2]);
        let two = FuzzCase {
            constant: Some(Tensor::from_vec(&[2], vec![5f32, 6.]).unwrap()),
            ..pad(19, floats(&[2]), vec![1, 0])
        };
        assert_eq!(twin(two).outputs[0].to_vec::<f32>().unwrap(), [5., 0., 1.]);
        // Pads that remove more than there is: less removed, one element kept.
        let negative = pad(11, floats(&[3]), vec![-2, -2]);
        assert_eq!(twin(negative).repairs, [Repair::Pads(vec![-1, -1])]);
        // edge after removing everything: one element left to copy.
        let nothing = FuzzCase {
            mode: Some("edge".into()),
            ..pad(19, floats(&[3]), vec![-3, 1])
        };
        assert_eq!(twin(nothing).repairs, [Repair::Pads(vec![-2, 1])]);
        // 2-D pads where only com.microsoft Pad takes them.
        let two_dim = FuzzCase {
            pads_2d: true,
            ..pad(13, floats(&[2]), vec![1, 1])
        };
        assert_eq!(twin(two_dim).repairs, [Repair::OneDimPads]);
    }

    /// A repair that uncovers another rule broken is followed by a second: a uint32 wrap of an
    /// empty axis with an int64 constant.
    #[test]
    fn a_configuration_breaking_two_rules_gets_two_repairs() {
        let case = FuzzCase {
            mode: Some("wrap".into()),
            constant: Some(Tensor::from_vec(&[], vec![7i64]).unwrap()),
            ..pad(19, Tensor::from_vec(&[0], Vec::<u32>::new()).unwrap(), vec![1, 0])
        };
        let twin = twin_of(&case).unwrap();
        assert_eq!(
            twin.repairs,
            [Repair::ConstantType(DataType::Uint32), Repair::Pads(vec![0, 0])]
        );
        assert_eq!(repair_list(&twin.repairs), "a constant of type uint32 and pads [0, 0]");
    }

    #[test]
    fn a_valid_configuration_has_no_twin() {
        let valid = pad(19, floats(&[2]), vec![1, 0]);
        assert!(matches!(twin_of(&valid), Err(TwinError::NotRefused)));
    }

    /// Every must-refuse configuration the generator draws has a twin the reference answers,
    /// of the same operator version, mostly by one repair.
    #[test]
    fn every_drawn_configuration_that_must_be_refused_has_a_valid_twin() {
        let shape = Shape {
            max_elements: 256,
            refusals: 1.0,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut refused, mut one_repair) = (0, 0);
        for _ in 0..600 {
            let case = generate(&mut rng, &shape);
            if reference(&case).unwrap().is_ok() {
                continue;
            }
            refused += 1;
            let twin = twin_of(&case).unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(twin.case.operator, case.operator);
            assert!(reference(&twin.case).unwrap().is_ok(), "{case}");
            one_repair += usize::from(twin.repairs.len() == 1);
        }
        assert!(refused > 500, "{refused}");
        // The valid configurations drawn may break a rule already (pads that remove more than
        // there is): those take two repairs.
        assert!(one_repair * 10 >= refused * 8, "{one_repair} of {refused}");
    }
}
