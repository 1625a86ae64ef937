//! Typed conversions between a [`Tensor`] and the `Vec<T>` + shape a runtime takes, and casts
//! between the element types a Rust runtime has (integers, floats, bool), under a stated
//! overflow policy.
//!
//! A narrowing cast never refuses: a value the target cannot hold becomes the wrong value a
//! runtime would compute, so the judge sees a mismatch. Only a conversion that does not exist
//! (float8 to anything, a string to a number) is an error, and that error tells the judge the
//! backend does not support the data set — never that it refused it.

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};

use super::{DataType, Element, Tensor};

/// How [`Tensor::cast_with`] treats an integer the target type cannot hold. Floats follow
/// IEEE whatever the policy: rounded to nearest, too large becomes infinity.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[non_exhaustive]
pub enum Overflow {
    /// Integers keep their low bits (two's complement), as Rust's `as` and C++'s
    /// `static_cast` do: int64 3_000_000_000 as int32 is -1_294_967_296. A float becomes an
    /// integer as Rust's `as` makes it: truncated toward zero, clamped to the target's range,
    /// NaN as 0.
    #[default]
    Wrap,
    /// Integers are clamped to the target's range: int64 3_000_000_000 as int32 is
    /// 2_147_483_647. Floats become integers as under [`Overflow::Wrap`].
    Saturate,
}

/// Why a tensor did not convert. A gate returns it as is (`?`), and the judge reads its kind:
/// a conversion that does not exist ([`ConversionError::NoCast`], [`ConversionError::NotUtf8`])
/// makes the data set unsupported; a shape the values do not fill, or a vector asked of the
/// wrong element type, is the backend's own failure. Neither is ever a refusal.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConversionError {
    /// The number of values is not the product of the shape.
    #[error("{len} values do not fill shape {shape:?}, which holds {}", shape.iter().product::<usize>())]
    Shape {
        /// The shape asked for.
        shape: Vec<usize>,
        /// How many values were given.
        len: usize,
    },
    /// A typed vector was asked of a tensor holding another element type.
    #[error("the tensor holds {held}, not {asked}: cast it first (Tensor::cast)")]
    WrongType {
        /// The element type the tensor holds.
        held: DataType,
        /// The element type asked for.
        asked: DataType,
    },
    /// No cast exists between the two element types (only integers, float, double, float16,
    /// bfloat16 and bool cast into each other).
    #[error("no conversion from {from} to {to}")]
    NoCast {
        /// The tensor's element type.
        from: DataType,
        /// The element type asked for.
        to: DataType,
    },
    /// A string element is not UTF-8, so it has no Rust `String`.
    #[error("string element {index} is not UTF-8: {bytes:?}")]
    NotUtf8 {
        /// Its row-major index.
        index: usize,
        /// Its bytes (at most the first 32).
        bytes: Vec<u8>,
    },
}

impl ConversionError {
    /// True when the conversion does not exist, so a backend that needs it cannot run the data
    /// set at all (the judge's `unsupported`); false for the backend's own failure.
    pub(crate) fn is_unsupported(&self) -> bool {
        matches!(self, ConversionError::NoCast { .. } | ConversionError::NotUtf8 { .. })
    }
}

/// A value on its way between two castable element types.
#[derive(Clone, Copy)]
enum Value {
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// An element type that casts: every integer, float, double, float16, bfloat16 and bool.
trait Castable: Element + Copy {
    fn value(self) -> Value;
    fn from_value(value: Value, overflow: Overflow) -> Self;
}

macro_rules! castable_ints {
    ($($ty:ty),*) => {$(
        impl Castable for $ty {
            fn value(self) -> Value {
                Value::Int(i128::from(self))
            }
            fn from_value(value: Value, overflow: Overflow) -> Self {
                match value {
                    Value::Int(i) => match overflow {
                        Overflow::Wrap => i as $ty,
                        Overflow::Saturate => i.clamp(i128::from(<$ty>::MIN), i128::from(<$ty>::MAX)) as $ty,
                    },
                    // `as` truncates toward zero, saturates and maps NaN to 0.
                    Value::Float(f) => f as $ty,
                    Value::Bool(b) => <$ty>::from(b),
                }
            }
        }
    )*};
}
castable_ints!(u8, i8, u16, i16, u32, i32, u64, i64);

macro_rules! castable_floats {
    ($($ty:ty: $from_f64:expr, $from_int:expr, $to_f64:expr);* $(;)?) => {$(
        impl Castable for $ty {
            fn value(self) -> Value {
                Value::Float($to_f64(self))
            }
            fn from_value(value: Value, _: Overflow) -> Self {
                match value {
                    Value::Int(i) => $from_int(i),
                    Value::Float(f) => $from_f64(f),
                    Value::Bool(b) => $from_f64(f64::from(u8::from(b))),
                }
            }
        }
    )*};
}
castable_floats! {
    f32: |f: f64| f as f32, |i: i128| i as f32, f64::from;
    f64: |f: f64| f, |i: i128| i as f64, |x: f64| x;
    // Through f32, which holds every integer float16 and bfloat16 can tell apart, rounded once.
    f16: f16::from_f64, |i: i128| f16::from_f32(i as f32), f16::to_f64;
    bf16: bf16::from_f64, |i: i128| bf16::from_f32(i as f32), bf16::to_f64;
}

impl Castable for bool {
    fn value(self) -> Value {
        Value::Bool(self)
    }
    /// Anything but zero is true (NaN too), as numpy and onnxruntime cast.
    fn from_value(value: Value, _: Overflow) -> Self {
        match value {
            Value::Int(i) => i != 0,
            Value::Float(f) => f != 0.0,
            Value::Bool(b) => b,
        }
    }
}

fn cast_array<S: Castable, T: Castable>(array: &ArrayD<S>, overflow: Overflow) -> Tensor {
    T::into_tensor(array.mapv(|x| T::from_value(x.value(), overflow)))
}

/// Writes the castable types once: `cast_to` (one source type into any target) and
/// `cast_tensor` (any source), each `None` for a type that does not cast.
macro_rules! castables {
    ($($variant:ident: $ty:ty),* $(,)?) => {
        fn cast_to<S: Castable>(array: &ArrayD<S>, to: DataType, overflow: Overflow) -> Option<Tensor> {
            match to {
                $(DataType::$variant => Some(cast_array::<S, $ty>(array, overflow)),)*
                _ => None,
            }
        }

        fn cast_tensor(tensor: &Tensor, to: DataType, overflow: Overflow) -> Option<Tensor> {
            match tensor {
                $(Tensor::$variant(array) => cast_to(array, to, overflow),)*
                _ => None,
            }
        }
    };
}
castables! {
    Uint8: u8, Int8: i8, Uint16: u16, Int16: i16, Uint32: u32, Int32: i32, Uint64: u64, Int64: i64,
    Float: f32, Double: f64, Float16: f16, Bfloat16: bf16, Bool: bool,
}

impl Tensor {
    /// A tensor from a shape and row-major values.
    ///
    /// ```
    /// use pad_conformance::{ConversionError, Tensor};
    /// let t = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.shape(), &[2, 2]);
    /// let short = Tensor::from_vec(&[2, 2], vec![1i32, 2, 3]).unwrap_err();
    /// assert_eq!(short, ConversionError::Shape { shape: vec![2, 2], len: 3 });
    /// assert_eq!(short.to_string(), "3 values do not fill shape [2, 2], which holds 4");
    /// # Ok::<(), ConversionError>(())
    /// ```
    pub fn from_vec<T: Element>(shape: &[usize], values: Vec<T>) -> Result<Tensor, ConversionError> {
        let len = values.len();
        ArrayD::from_shape_vec(IxDyn(shape), values)
            .map(T::into_tensor)
            .map_err(|_| ConversionError::Shape {
                shape: shape.to_vec(),
                len,
            })
    }

    /// A `tensor(string)` from a shape and row-major strings.
    ///
    /// ```
    /// use pad_conformance::{DataType, Tensor};
    /// let t = Tensor::from_strings(&[2], vec!["a".to_string(), "é".to_string()])?;
    /// assert_eq!(t.data_type(), DataType::String);
    /// assert_eq!(t.to_strings()?, ["a", "é"]);
    /// # Ok::<(), pad_conformance::ConversionError>(())
    /// ```
    pub fn from_strings(shape: &[usize], values: Vec<String>) -> Result<Tensor, ConversionError> {
        Tensor::from_vec(shape, values.into_iter().map(String::into_bytes).collect())
    }

    /// The elements in row-major order, if this tensor holds elements of type `T`; another
    /// element type is [`ConversionError::WrongType`] (convert with [`Tensor::cast`] first).
    ///
    /// ```
    /// use pad_conformance::{ConversionError, DataType, Tensor};
    /// let t = Tensor::from_vec(&[3], vec![1i64, 2, 3])?;
    /// assert_eq!(t.to_vec::<i64>()?, [1, 2, 3]);
    /// assert_eq!(
    ///     t.to_vec::<i32>(),
    ///     Err(ConversionError::WrongType { held: DataType::Int64, asked: DataType::Int32 })
    /// );
    /// assert_eq!(t.cast(DataType::Int32)?.to_vec::<i32>()?, [1, 2, 3]);
    /// # Ok::<(), ConversionError>(())
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, ConversionError> {
        let array = T::array_of(self).ok_or(ConversionError::WrongType {
            held: self.data_type(),
            asked: T::DATA_TYPE,
        })?;
        Ok(array.iter().cloned().collect())
    }

    /// The strings of a `tensor(string)`, in row-major order. ONNX strings are bytes; one that
    /// is not UTF-8 is [`ConversionError::NotUtf8`], which makes the data set unsupported by a
    /// backend whose strings are Rust's.
    ///
    /// ```
    /// use pad_conformance::{ConversionError, Tensor};
    /// let t = Tensor::from_vec(&[2], vec![b"ok".to_vec(), vec![0xff]])?;
    /// assert_eq!(t.to_strings(), Err(ConversionError::NotUtf8 { index: 1, bytes: vec![0xff] }));
    /// # Ok::<(), ConversionError>(())
    /// ```
    pub fn to_strings(&self) -> Result<Vec<String>, ConversionError> {
        let Tensor::String(array) = self else {
            return Err(ConversionError::WrongType {
                held: self.data_type(),
                asked: DataType::String,
            });
        };
        array
            .iter()
            .enumerate()
            .map(|(index, bytes)| {
                String::from_utf8(bytes.clone()).map_err(|_| ConversionError::NotUtf8 {
                    index,
                    bytes: bytes.iter().take(32).copied().collect(),
                })
            })
            .collect()
    }

    /// The tensor in element type `to`, integers narrowed by [`Overflow::Wrap`] (what Rust's
    /// `as` does): see [`Tensor::cast_with`].
    ///
    /// ```
    /// use pad_conformance::{DataType, Tensor};
    /// // A runtime that keeps int64 as int32 gets the wrapped value, and so a wrong answer.
    /// let t = Tensor::from_vec(&[2], vec![7i64, 3_000_000_000])?;
    /// assert_eq!(t.cast(DataType::Int32)?.to_vec::<i32>()?, [7, -1_294_967_296]);
    /// // Widening back is exact.
    /// let back = Tensor::from_vec(&[2], vec![7i32, -5])?.cast(DataType::Int64)?;
    /// assert_eq!(back.to_vec::<i64>()?, [7, -5]);
    /// # Ok::<(), pad_conformance::ConversionError>(())
    /// ```
    pub fn cast(&self, to: DataType) -> Result<Tensor, ConversionError> {
        self.cast_with(to, Overflow::Wrap)
    }

    /// The tensor in element type `to`. Integers, float, double, float16, bfloat16 and bool
    /// cast into each other: an integer the target cannot hold follows `overflow`; a float
    /// becomes an integer truncated toward zero and clamped (NaN as 0), as Rust's `as` does;
    /// a float target rounds to nearest, too large becoming infinity; bool is 0 or 1, and
    /// anything but 0 is true. Every type casts to itself. Any other pair (a float8, a
    /// complex, a string to a number) is [`ConversionError::NoCast`].
    ///
    /// ```
    /// use pad_conformance::{ConversionError, DataType, Overflow, Tensor};
    /// let t = Tensor::from_vec(&[3], vec![300i32, -1, 1e9 as i32])?;
    /// assert_eq!(t.cast_with(DataType::Uint8, Overflow::Saturate)?.to_vec::<u8>()?, [255, 0, 255]);
    /// assert_eq!(t.cast_with(DataType::Uint8, Overflow::Wrap)?.to_vec::<u8>()?, [44, 255, 0]);
    /// let f = Tensor::from_vec(&[3], vec![1e10f64, -2.7, f64::NAN])?;
    /// assert_eq!(f.cast(DataType::Int32)?.to_vec::<i32>()?, [i32::MAX, -2, 0]);
    /// assert_eq!(f.cast(DataType::Float)?.to_vec::<f32>()?[0], 1e10);
    /// assert_eq!(
    ///     t.cast(DataType::Float8E4M3FN),
    ///     Err(ConversionError::NoCast { from: DataType::Int32, to: DataType::Float8E4M3FN })
    /// );
    /// # Ok::<(), ConversionError>(())
    /// ```
    pub fn cast_with(&self, to: DataType, overflow: Overflow) -> Result<Tensor, ConversionError> {
        if self.data_type() == to {
            return Ok(self.clone());
        }
        cast_tensor(self, to, overflow).ok_or(ConversionError::NoCast {
            from: self.data_type(),
            to,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The castable types, as data_type.rs names them: every integer, the IEEE floats, bool.
    fn castable() -> Vec<DataType> {
        DataType::ALL
            .into_iter()
            .filter(|t| {
                matches!(
                    t,
                    DataType::Bool | DataType::Float16 | DataType::Bfloat16 | DataType::Float | DataType::Double
                ) || (!t.is_floating() && t.bit_width().is_some_and(|bits| bits >= 8))
            })
            .collect()
    }

    #[test]
    fn every_castable_pair_casts_and_small_values_survive_the_round_trip() {
        let types = castable();
        assert_eq!(types.len(), 13);
        let ones = Tensor::from_vec(&[2], vec![0u8, 1]).unwrap();
        for from in &types {
            let source = ones.cast(*from).unwrap();
            for to in &types {
                let there = source.cast(*to).unwrap();
                assert_eq!((there.data_type(), there.shape()), (*to, &[2][..]));
                assert_eq!(there.cast(DataType::Uint8).unwrap(), ones, "{from} -> {to}");
            }
        }
    }

    #[test]
    fn narrowing_gives_the_wrong_value_the_policy_states() {
        let t = Tensor::from_vec(&[4], vec![i64::MIN, -129, 128, u32::MAX as i64 + 2]).unwrap();
        assert_eq!(
            t.cast(DataType::Int8).unwrap().to_vec::<i8>().unwrap(),
            [0, 127, -128, 1]
        );
        assert_eq!(
            t.cast_with(DataType::Int8, Overflow::Saturate)
                .unwrap()
                .to_vec::<i8>()
                .unwrap(),
            [-128, -128, 127, 127]
        );
        assert_eq!(
            t.cast(DataType::Uint32).unwrap().to_vec::<u32>().unwrap(),
            [0, 4294967167, 128, 1]
        );
        let big = Tensor::from_vec(&[1], vec![u64::MAX]).unwrap();
        assert_eq!(big.cast(DataType::Int64).unwrap().to_vec::<i64>().unwrap(), [-1]);
        assert_eq!(
            big.cast_with(DataType::Int64, Overflow::Saturate)
                .unwrap()
                .to_vec::<i64>()
                .unwrap(),
            [i64::MAX]
        );
        let floats = Tensor::from_vec(&[3], vec![1e6f32, -0.5, f32::INFINITY]).unwrap();
        assert_eq!(
            floats.cast(DataType::Float16).unwrap().to_vec::<f16>().unwrap(),
            [f16::INFINITY, f16::from_f32(-0.5), f16::INFINITY]
        );
        assert_eq!(
            floats.cast(DataType::Bool).unwrap().to_vec::<bool>().unwrap(),
            [true, true, true]
        );
        assert_eq!(
            floats.cast(DataType::Uint16).unwrap().to_vec::<u16>().unwrap(),
            [u16::MAX, 0, u16::MAX]
        );
    }

    #[test]
    fn conversions_that_do_not_exist_say_so_and_count_as_unsupported() {
        let strings = Tensor::from_strings(&[1], vec!["1".into()]).unwrap();
        let error = strings.cast(DataType::Int32).unwrap_err();
        assert_eq!(error.to_string(), "no conversion from string to int32");
        assert!(error.is_unsupported());
        assert_eq!(strings.cast(DataType::String).unwrap(), strings);
        let complex = Tensor::from_vec(&[1], vec![num_complex::Complex::new(1.0f32, 0.0)]).unwrap();
        assert!(complex.cast(DataType::Float).unwrap_err().is_unsupported());
        let wrong = strings.to_vec::<f32>().unwrap_err();
        assert!(
            !wrong.is_unsupported(),
            "asking for the wrong type is the gate's own failure"
        );
        assert!(!Tensor::from_vec(&[2], vec![1u8]).unwrap_err().is_unsupported());
    }
}
