//! Tensors: an element type, a shape and typed storage.
//!
//! [`Tensor`] is one enum over typed `ndarray` storage, one variant per ONNX element type.
//! A backend reads it by element type ([`Tensor::as_array`], [`Tensor::as_slice`] for any
//! [`Element`]) or as raw bytes. Inside the crate, kernels generic over the element type are
//! reached through `Tensor::visit` or `dispatch!`, which instantiates its body per variant so
//! the body may ask more of the element (comparison, `Pod`). This module knows nothing of what
//! is built on it.

mod convert;
mod data_type;
mod decode;
mod encode;
mod file;
mod file_error;
mod group;
// For the tool's benchmarks.
pub(crate) mod huge_pages;
mod impossible_value;
mod minifloat;
mod raw_file;
mod raw_read;
mod sub_byte;

use std::fmt;

use half::{bf16, f16};
use ndarray::ArrayD;
use num_complex::Complex;

pub use convert::{ConversionError, Overflow};
pub use data_type::DataType;
pub(crate) use decode::MAX_RANK;
pub use decode::{DEFAULT_MAX_BYTES, DecodeOptions, TensorError, decode_tensor};
pub use encode::encode_tensor;
pub(crate) use encode::encode_tensor_fields;
// Bounded reads of whole files and groups of tensor files: for the case loader and the tool.
pub(crate) use file::{read_limited, read_small_file};
pub use file::{read_tensor_file, write_tensor_file};
pub use file_error::{FileError, FileProblem};
pub(crate) use group::{GroupError, TensorFile, group_limit, read_file_group, read_tensor_group};
pub use impossible_value::{ImpossibleValue, Stored};
pub use minifloat::{Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0};
// The worker protocol's raw tensor files.
pub(crate) use raw_file::{dtype_from_name, dtype_name, read_raw, write_raw};
pub use sub_byte::{Int2, Int4, Uint2, Uint4};

/// A tensor of any ONNX element type, stored in standard (row-major) layout.
///
/// ```
/// use pad_conformance::{DataType, Tensor};
/// let t = Tensor::from_vec(&[2, 2], vec![1i64, 2, 3, 4])?;
/// assert_eq!((t.data_type(), t.shape()), (DataType::Int64, &[2, 2][..]));
/// assert_eq!(t.as_slice::<i64>(), Some(&[1, 2, 3, 4][..]));
/// assert_eq!(t.as_slice::<i32>(), None); // typed access asks for the element type it holds
/// assert_eq!(t.raw_bytes()?.len(), 4 * 8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub enum Tensor {
    /// Elements of `tensor(float)`.
    Float(ArrayD<f32>),
    /// Elements of `tensor(uint8)`.
    Uint8(ArrayD<u8>),
    /// Elements of `tensor(int8)`.
    Int8(ArrayD<i8>),
    /// Elements of `tensor(uint16)`.
    Uint16(ArrayD<u16>),
    /// Elements of `tensor(int16)`.
    Int16(ArrayD<i16>),
    /// Elements of `tensor(int32)`.
    Int32(ArrayD<i32>),
    /// Elements of `tensor(int64)`.
    Int64(ArrayD<i64>),
    /// ONNX strings are byte strings: UTF-8 by convention, not by guarantee.
    String(ArrayD<Vec<u8>>),
    /// Elements of `tensor(bool)`.
    Bool(ArrayD<bool>),
    /// Elements of `tensor(float16)`.
    Float16(ArrayD<f16>),
    /// Elements of `tensor(double)`.
    Double(ArrayD<f64>),
    /// Elements of `tensor(uint32)`.
    Uint32(ArrayD<u32>),
    /// Elements of `tensor(uint64)`.
    Uint64(ArrayD<u64>),
    /// Elements of `tensor(complex64)`.
    Complex64(ArrayD<Complex<f32>>),
    /// Elements of `tensor(complex128)`.
    Complex128(ArrayD<Complex<f64>>),
    /// Elements of `tensor(bfloat16)`.
    Bfloat16(ArrayD<bf16>),
    /// Elements of `tensor(float8e4m3fn)`.
    Float8E4M3FN(ArrayD<Float8E4M3FN>),
    /// Elements of `tensor(float8e4m3fnuz)`.
    Float8E4M3FNUZ(ArrayD<Float8E4M3FNUZ>),
    /// Elements of `tensor(float8e5m2)`.
    Float8E5M2(ArrayD<Float8E5M2>),
    /// Elements of `tensor(float8e5m2fnuz)`.
    Float8E5M2FNUZ(ArrayD<Float8E5M2FNUZ>),
    /// Elements of `tensor(uint4)`, one per byte.
    Uint4(ArrayD<Uint4>),
    /// Elements of `tensor(int4)`, one per byte.
    Int4(ArrayD<Int4>),
    /// Elements of `tensor(float4e2m1)`, one per byte.
    Float4E2M1(ArrayD<Float4E2M1>),
    /// Elements of `tensor(float8e8m0)`.
    Float8E8M0(ArrayD<Float8E8M0>),
    /// Elements of `tensor(uint2)`, one per byte.
    Uint2(ArrayD<Uint2>),
    /// Elements of `tensor(int2)`, one per byte.
    Int2(ArrayD<Int2>),
}

/// An element type: the tie between a Rust type and its [`Tensor`] variant. Kernels add the
/// bounds they need (`Copy`, `Default`, `Pod`) where they need them.
///
/// `Default`, where an element type has it, is the type's zero: 0, false, the empty string,
/// and bit pattern 0 for the minifloats (for float8e8m0, which has no zero, that is 2^-127).
///
/// Sealed: the element types are the 26 of ONNX, each tied to its [`Tensor`] variant; a
/// gate's own type converts at its edge ([`Tensor::from_vec`], [`Tensor::to_vec`]).
pub trait Element: sealed::Storage + Clone + fmt::Debug + Send + Sync + 'static {
    /// The ONNX type of this element.
    const DATA_TYPE: DataType;
}

/// The private supertrait that seals [`Element`]: a gate can neither name it nor implement
/// it, and its methods, the tie to a variant, are the crate's own.
mod sealed {
    use ndarray::ArrayD;

    use super::Tensor;

    pub trait Storage: Sized {
        /// Wraps an array in its `Tensor` variant.
        fn into_tensor(array: ArrayD<Self>) -> Tensor;
        /// The array, if `tensor` holds this element type.
        fn array_of(tensor: &Tensor) -> Option<&ArrayD<Self>>;
    }
}

/// A computation generic over the element type, applied by [`Tensor::visit`].
/// The lifetime lets a visitor return borrows of the storage.
pub(crate) trait Visitor<'a> {
    /// What the computation returns.
    type Output;
    /// The computation on the typed array of one variant.
    fn visit<T: Element>(self, array: &'a ArrayD<T>) -> Self::Output;
}

/// `dispatch!(tensor, array => body)`: one `match` over the variants, with `array` bound to
/// the typed array and `body` instantiated for each element type, so a generic function called
/// in `body` may require any trait every element type implements.
macro_rules! dispatch {
    ($tensor:expr, $array:ident => $body:expr) => {
        match $tensor {
            $crate::Tensor::Float($array) => $body,
            $crate::Tensor::Uint8($array) => $body,
            $crate::Tensor::Int8($array) => $body,
            $crate::Tensor::Uint16($array) => $body,
            $crate::Tensor::Int16($array) => $body,
            $crate::Tensor::Int32($array) => $body,
            $crate::Tensor::Int64($array) => $body,
            $crate::Tensor::String($array) => $body,
            $crate::Tensor::Bool($array) => $body,
            $crate::Tensor::Float16($array) => $body,
            $crate::Tensor::Double($array) => $body,
            $crate::Tensor::Uint32($array) => $body,
            $crate::Tensor::Uint64($array) => $body,
            $crate::Tensor::Complex64($array) => $body,
            $crate::Tensor::Complex128($array) => $body,
            $crate::Tensor::Bfloat16($array) => $body,
            $crate::Tensor::Float8E4M3FN($array) => $body,
            $crate::Tensor::Float8E4M3FNUZ($array) => $body,
            $crate::Tensor::Float8E5M2($array) => $body,
            $crate::Tensor::Float8E5M2FNUZ($array) => $body,
            $crate::Tensor::Uint4($array) => $body,
            $crate::Tensor::Int4($array) => $body,
            $crate::Tensor::Float4E2M1($array) => $body,
            $crate::Tensor::Float8E8M0($array) => $body,
            $crate::Tensor::Uint2($array) => $body,
            $crate::Tensor::Int2($array) => $body,
        }
    };
}
pub(crate) use dispatch;

/// Ties each element type to its variant, so the list is written once.
macro_rules! elements {
    ($($variant:ident: $ty:ty),* $(,)?) => {
        $(impl Element for $ty {
            const DATA_TYPE: DataType = DataType::$variant;
        }
        impl sealed::Storage for $ty {
            fn into_tensor(array: ArrayD<Self>) -> Tensor {
                Tensor::$variant(array)
            }
            fn array_of(tensor: &Tensor) -> Option<&ArrayD<Self>> {
                match tensor {
                    Tensor::$variant(a) => Some(a),
                    _ => None,
                }
            }
        })*
    };
}

elements! {
    Float: f32, Uint8: u8, Int8: i8, Uint16: u16, Int16: i16, Int32: i32, Int64: i64,
    String: Vec<u8>, Bool: bool, Float16: f16, Double: f64, Uint32: u32, Uint64: u64,
    Complex64: Complex<f32>, Complex128: Complex<f64>, Bfloat16: bf16,
    Float8E4M3FN: Float8E4M3FN, Float8E4M3FNUZ: Float8E4M3FNUZ, Float8E5M2: Float8E5M2,
    Float8E5M2FNUZ: Float8E5M2FNUZ, Uint4: Uint4, Int4: Int4, Float4E2M1: Float4E2M1,
    Float8E8M0: Float8E8M0, Uint2: Uint2, Int2: Int2,
}

impl Tensor {
    /// Applies a generic computation to the typed storage.
    pub(crate) fn visit<'a, V: Visitor<'a>>(&'a self, visitor: V) -> V::Output {
        dispatch!(self, a => visitor.visit(a))
    }

    /// Wraps an array; it is re-laid in standard layout if it is not already.
    pub fn from_array<T: Element>(array: ArrayD<T>) -> Tensor {
        let array = if array.is_standard_layout() {
            array
        } else {
            array.as_standard_layout().into_owned()
        };
        T::into_tensor(array)
    }

    /// The typed array, if this tensor holds elements of type `T`.
    pub fn as_array<T: Element>(&self) -> Option<&ArrayD<T>> {
        T::array_of(self)
    }

    /// The elements in row-major order, if this tensor holds elements of type `T` (and is in
    /// standard layout, as every tensor this crate makes is).
    ///
    /// ```
    /// use pad_conformance::Tensor;
    /// let t = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(t.as_slice::<f32>(), Some(&[1.0, 2.0, 3.0, 4.0][..]));
    /// assert_eq!(t.as_slice::<f64>(), None);
    /// ```
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::array_of(self)?.as_slice()
    }

    /// The element type.
    pub fn data_type(&self) -> DataType {
        fn of<T: Element>(_: &ArrayD<T>) -> DataType {
            T::DATA_TYPE
        }
        dispatch!(self, a => of(a))
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        dispatch!(self, a => a.shape())
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    /// True when the tensor has no elements (some extent is 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The memory one element can take: its size, plus for strings the longest one's bytes
    /// (a padded copy of a string tensor clones them): what the reference's budget counts.
    pub(crate) fn max_element_bytes(&self) -> usize {
        fn size<T>(_: &ArrayD<T>) -> usize {
            size_of::<T>()
        }
        let longest = match self {
            Tensor::String(a) => a.iter().map(Vec::len).max().unwrap_or(0),
            _ => 0,
        };
        dispatch!(self, a => size(a)) + longest
    }

    /// `tensor(float)[2, 3]`-style description for listings and messages.
    pub fn describe(&self) -> String {
        format!("{}{:?}", self.data_type(), self.shape())
    }
}
