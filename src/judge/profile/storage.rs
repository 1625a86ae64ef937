//! Declared storage narrowing (`[storage] int64 = "int32"`): a runtime that keeps an element
//! type in a narrower one. A data set whose known values (inputs, constants, expected
//! outputs) all fit the narrower type runs unchanged; the first value that does not makes it
//! `unsupported (value range)`, decided before the backend runs, so a narrowing runtime's
//! baseline keeps defects, not the narrowing it chose (docs/semantics.md#storage-narrowing).

use std::collections::BTreeMap;
use std::fmt;

use half::{bf16, f16};
use ndarray::ArrayD;

use crate::tensor::{DataType, Tensor};

/// The narrowings a profile declares: each element type to the one the runtime keeps it in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Storage(pub(crate) BTreeMap<DataType, DataType>);

/// The element types a narrowing may start from, each with those it may end in: integers to
/// the half as wide of their signedness, floats to a narrower float. Only these can be judged
/// value by value; a type stored as another kind (int64 as float) loses more than range.
const NARROWINGS: [(DataType, &[DataType]); 4] = [
    (DataType::Int64, &[DataType::Int32]),
    (DataType::Uint64, &[DataType::Uint32]),
    (
        DataType::Double,
        &[DataType::Float, DataType::Float16, DataType::Bfloat16],
    ),
    (DataType::Float, &[DataType::Float16, DataType::Bfloat16]),
];

/// Why `wide` cannot be declared kept as `narrow`, if it cannot: worded for a profile's error.
pub(crate) fn refusal(wide: DataType, narrow: DataType) -> Option<String> {
    let Some((_, allowed)) = NARROWINGS.iter().find(|(from, _)| *from == wide) else {
        let from: Vec<DataType> = NARROWINGS.iter().map(|(from, _)| *from).collect();
        return Some(format!("no narrowing of {wide}: only {} narrow", series(&from, "and")));
    };
    (!allowed.contains(&narrow)).then(|| format!("{wide} narrows to {} only", series(allowed, "or")))
}

/// `a, b and c`.
fn series(types: &[DataType], last: &str) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    match names.split_last() {
        Some((tail, init)) if !init.is_empty() => format!("{} {last} {tail}", init.join(", ")),
        _ => names.concat(),
    }
}

/// Where a tensor a data set hands over, or expects back, is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place<'a> {
    /// A graph input the data set feeds.
    Input(&'a str),
    /// A constant of the model: an initializer, or a node's tensor attribute (named by the
    /// node's first output).
    Constant(&'a str),
    /// An expected output.
    Output(&'a str),
}

/// `input "x"`, `constant "pads"`, `expected output "y"`.
impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Input(name) => write!(f, "input {name:?}"),
            Place::Constant(name) => write!(f, "constant {name:?}"),
            Place::Output(name) => write!(f, "expected output {name:?}"),
        }
    }
}

/// The first value of a data set that its declared storage cannot hold.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ValueOutside {
    /// The tensor, as `input "x"`, `constant "pads"` or `expected output "y"`.
    pub(crate) tensor: String,
    /// The element's row-major index.
    pub(crate) index: usize,
    /// The value.
    pub(crate) value: Value,
    /// The type the runtime keeps it in.
    pub(crate) narrow: DataType,
}

impl Eq for ValueOutside {}

/// A value of a narrowed element type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    Int64(i64),
    Uint64(u64),
    Double(f64),
    Float(f32),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int64(v) => write!(f, "{v}"),
            Value::Uint64(v) => write!(f, "{v}"),
            // Debug: the shortest digits that read back, in exponent form when long (1e300).
            Value::Double(v) => write!(f, "{v:?}"),
            Value::Float(v) => write!(f, "{v:?}"),
        }
    }
}

impl fmt::Display for ValueOutside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "value range: {} holds {} at index {}, which {} storage cannot hold exactly",
            self.tensor, self.value, self.index, self.narrow
        )
    }
}

impl Storage {
    /// Keeps `wide` as `narrow`.
    pub(crate) fn insert(&mut self, wide: DataType, narrow: DataType) {
        self.0.insert(wide, narrow);
    }

    /// A narrowing [`refusal`] refuses, if one is declared.
    pub(crate) fn first_refused(&self) -> Option<(DataType, DataType, String)> {
        self.0
            .iter()
            .find_map(|(&wide, &narrow)| refusal(wide, narrow).map(|why| (wide, narrow, why)))
    }

    /// The first value of `tensors`, in their order, that the declared storage cannot hold.
    pub(crate) fn first_outside<'t>(
        &self,
        tensors: impl IntoIterator<Item = (Place<'t>, &'t Tensor)>,
    ) -> Option<ValueOutside> {
        if self.0.is_empty() {
            return None;
        }
        tensors.into_iter().find_map(|(place, tensor)| {
            let narrow = *self.0.get(&tensor.data_type())?;
            let (index, value) = first_unfit(tensor, narrow)?;
            Some(ValueOutside {
                tensor: place.to_string(),
                index,
                value,
                narrow,
            })
        })
    }
}

/// The first element of `tensor` that `narrow` cannot hold, with its index.
fn first_unfit(tensor: &Tensor, narrow: DataType) -> Option<(usize, Value)> {
    match (tensor, narrow) {
        (Tensor::Int64(a), DataType::Int32) => first(a, |v| i32::try_from(v).is_ok(), Value::Int64),
        (Tensor::Uint64(a), DataType::Uint32) => first(a, |v| u32::try_from(v).is_ok(), Value::Uint64),
        (Tensor::Double(a), DataType::Float) => first(a, |v| same(v, f64::from(v as f32)), Value::Double),
        (Tensor::Double(a), DataType::Float16) => first(a, |v| same(v, f16::from_f64(v).to_f64()), Value::Double),
        (Tensor::Double(a), DataType::Bfloat16) => first(a, |v| same(v, bf16::from_f64(v).to_f64()), Value::Double),
        (Tensor::Float(a), DataType::Float16) => first(a, |v| same(v.into(), f16::from_f32(v).to_f64()), Value::Float),
        (Tensor::Float(a), DataType::Bfloat16) => {
            first(a, |v| same(v.into(), bf16::from_f32(v).to_f64()), Value::Float)
        }
        // A narrowing a profile refuses to declare.
        _ => None,
    }
}

fn first<T: Copy>(array: &ArrayD<T>, fits: impl Fn(T) -> bool, value: fn(T) -> Value) -> Option<(usize, Value)> {
    array
        .iter()
        .enumerate()
        .find(|(_, v)| !fits(**v))
        .map(|(index, v)| (index, value(*v)))
}

/// A float round trip is exact: the same bits, the sign of zero included; any NaN fits, its
/// payload aside (no comparison tells NaNs apart).
fn same(value: f64, back: f64) -> bool {
    (value.is_nan() && back.is_nan()) || value.to_bits() == back.to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outside(narrow: DataType, tensor: Tensor) -> Option<(usize, String)> {
        let storage = Storage(BTreeMap::from([(tensor.data_type(), narrow)]));
        storage
            .first_outside([(Place::Input("x"), &tensor)])
            .map(|v| (v.index, v.value.to_string()))
    }

    fn vec<T: crate::tensor::Element>(values: Vec<T>) -> Tensor {
        Tensor::from_vec(&[values.len()], values).unwrap()
    }

    #[test]
    fn an_integer_at_the_edge_of_the_narrow_type_fits_and_one_past_does_not() {
        let int32 = DataType::Int32;
        assert_eq!(
            outside(int32, vec(vec![i64::from(i32::MIN), 0, i64::from(i32::MAX)])),
            None
        );
        assert_eq!(
            outside(int32, vec(vec![0, i64::from(i32::MAX) + 1])),
            Some((1, "2147483648".into()))
        );
        assert_eq!(
            outside(int32, vec(vec![i64::from(i32::MIN) - 1])),
            Some((0, "-2147483649".into()))
        );
        let uint32 = DataType::Uint32;
        assert_eq!(outside(uint32, vec(vec![0u64, u64::from(u32::MAX)])), None);
        assert_eq!(
            outside(uint32, vec(vec![1u64, 2, u64::from(u32::MAX) + 1])),
            Some((2, "4294967296".into()))
        );
    }

    #[test]
    fn a_double_fits_float_when_it_round_trips_bit_for_bit() {
        let float = DataType::Float;
        // 0.5, -0.0, infinities, a float's smallest subnormal and any NaN are floats exactly.
        let exact = vec![
            0.5,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::from(f32::from_bits(1)),
            f64::NAN,
        ];
        assert_eq!(outside(float, vec(exact)), None);
        assert_eq!(outside(float, vec(vec![1.0, 0.1])), Some((1, "0.1".into())));
        // Beyond float's range, below its smallest subnormal, between two floats.
        assert_eq!(outside(float, vec(vec![1e300])), Some((0, "1e300".into())));
        assert_eq!(outside(float, vec(vec![5e-324])), Some((0, "5e-324".into())));
        assert_eq!(
            outside(float, vec(vec![1.0 + f64::EPSILON])),
            Some((0, "1.0000000000000002".into()))
        );
    }

    #[test]
    fn a_float_fits_float16_or_bfloat16_when_it_round_trips() {
        let (float16, bfloat16) = (DataType::Float16, DataType::Bfloat16);
        assert_eq!(outside(float16, vec(vec![65504.0f32, -0.0, 2f32.powi(-24)])), None);
        assert_eq!(outside(float16, vec(vec![65520.0f32])), Some((0, "65520.0".into())));
        assert_eq!(outside(float16, vec(vec![1.0f32, 0.1])), Some((1, "0.1".into())));
        // bfloat16 has float's range and 8 significant bits: 2^100 and 0xff00 fit, 257 not.
        assert_eq!(outside(bfloat16, vec(vec![2f32.powi(100), 65280.0])), None);
        assert_eq!(outside(bfloat16, vec(vec![257.0f32])), Some((0, "257.0".into())));
        assert_eq!(outside(float16, vec(vec![0.5f64, 1e-8])), Some((1, "1e-8".into())));
    }

    #[test]
    fn only_the_declared_types_are_checked_and_the_first_value_outside_is_named() {
        let storage = Storage(BTreeMap::from([(DataType::Int64, DataType::Int32)]));
        let (x, pads, y) = (vec(vec![0.1f64]), vec(vec![0i64, 1]), vec(vec![5_000_000_000i64]));
        let tensors = [
            (Place::Input("x"), &x),
            (Place::Constant("pads"), &pads),
            (Place::Output("y"), &y),
        ];
        let found = storage.first_outside(tensors).unwrap();
        assert_eq!(
            found.to_string(),
            "value range: expected output \"y\" holds 5000000000 at index 0, which int32 storage cannot hold exactly"
        );
        assert_eq!(Storage::default().first_outside(tensors), None);
    }

    #[test]
    fn only_narrowings_the_runner_can_judge_are_allowed() {
        assert_eq!(refusal(DataType::Int64, DataType::Int32), None);
        assert_eq!(refusal(DataType::Double, DataType::Bfloat16), None);
        assert_eq!(
            refusal(DataType::Int64, DataType::Float).as_deref(),
            Some("int64 narrows to int32 only")
        );
        assert_eq!(
            refusal(DataType::Float, DataType::Double).as_deref(),
            Some("float narrows to float16 or bfloat16 only")
        );
        assert_eq!(
            refusal(DataType::Int32, DataType::Int16).as_deref(),
            Some("no narrowing of int32: only int64, uint64, double and float narrow")
        );
    }
}
