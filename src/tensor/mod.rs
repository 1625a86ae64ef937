//! Tensors: an element type, a shape and typed storage.
//!
//! [`Tensor`] is one enum over typed `ndarray` storage, one variant per ONNX element type.
//! Kernels are generic over [`Element`] and reached through [`Tensor::visit`], the one
//! `match` over the variants.

mod data_type;
mod decode;
mod encode;
mod minifloat;
mod sub_byte;

use std::fmt;

use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use num_complex::Complex;

pub use data_type::DataType;
pub(crate) use decode::read_limited;
pub use decode::{DEFAULT_MAX_BYTES, DecodeOptions, TensorError, decode_tensor, read_tensor_file};
pub use encode::{encode_tensor, write_tensor_file};
pub use minifloat::{Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0};
pub use sub_byte::{Int2, Int4, SubByte, Uint2, Uint4};

/// A tensor of any ONNX element type, stored in standard (row-major) layout.
#[derive(Clone, PartialEq, Debug)]
pub enum Tensor {
    Float(ArrayD<f32>),
    Uint8(ArrayD<u8>),
    Int8(ArrayD<i8>),
    Uint16(ArrayD<u16>),
    Int16(ArrayD<i16>),
    Int32(ArrayD<i32>),
    Int64(ArrayD<i64>),
    /// ONNX strings are byte strings: UTF-8 by convention, not by guarantee.
    String(ArrayD<Vec<u8>>),
    Bool(ArrayD<bool>),
    Float16(ArrayD<f16>),
    Double(ArrayD<f64>),
    Uint32(ArrayD<u32>),
    Uint64(ArrayD<u64>),
    Complex64(ArrayD<Complex<f32>>),
    Complex128(ArrayD<Complex<f64>>),
    Bfloat16(ArrayD<bf16>),
    Float8E4M3FN(ArrayD<Float8E4M3FN>),
    Float8E4M3FNUZ(ArrayD<Float8E4M3FNUZ>),
    Float8E5M2(ArrayD<Float8E5M2>),
    Float8E5M2FNUZ(ArrayD<Float8E5M2FNUZ>),
    Uint4(ArrayD<Uint4>),
    Int4(ArrayD<Int4>),
    Float4E2M1(ArrayD<Float4E2M1>),
    Float8E8M0(ArrayD<Float8E8M0>),
    Uint2(ArrayD<Uint2>),
    Int2(ArrayD<Int2>),
}

/// An element type: what generic kernels may ask of every variant's element.
///
/// `Default` is the type's zero: 0, false, the empty string, and bit pattern 0 for the
/// minifloats (for float8e8m0, which has no zero, that is 2^-127).
pub trait Element:
    Clone + Default + PartialEq + fmt::Debug + Send + Sync + 'static + crate::compare::Comparable
{
    /// The ONNX type of this element.
    const DATA_TYPE: DataType;
    /// Wraps an array in its `Tensor` variant.
    fn into_tensor(array: ArrayD<Self>) -> Tensor;
    /// The array, if `tensor` holds this element type.
    fn array_of(tensor: &Tensor) -> Option<&ArrayD<Self>>;
}

/// A computation generic over the element type, applied by [`Tensor::visit`].
/// The lifetime lets a visitor return borrows of the storage.
pub trait Visitor<'a> {
    type Output;
    fn visit<T: Element>(self, array: &'a ArrayD<T>) -> Self::Output;
}

/// Ties each element type to its variant, so the list is written once.
macro_rules! elements {
    ($($variant:ident: $ty:ty),* $(,)?) => {
        $(impl Element for $ty {
            const DATA_TYPE: DataType = DataType::$variant;
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

        impl Tensor {
            /// Applies a generic computation to the typed storage.
            pub fn visit<'a, V: Visitor<'a>>(&'a self, visitor: V) -> V::Output {
                match self {
                    $(Tensor::$variant(a) => visitor.visit(a),)*
                }
            }
        }
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
    /// A tensor from a shape and row-major values.
    ///
    /// ```
    /// use pad_conformance::Tensor;
    /// let t = Tensor::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    /// assert_eq!(t.shape(), &[2, 2]);
    /// ```
    pub fn from_vec<T: Element>(shape: &[usize], values: Vec<T>) -> Result<Tensor, ndarray::ShapeError> {
        Ok(T::into_tensor(ArrayD::from_shape_vec(IxDyn(shape), values)?))
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

    /// The element type.
    pub fn data_type(&self) -> DataType {
        struct Get;
        impl Visitor<'_> for Get {
            type Output = DataType;
            fn visit<T: Element>(self, _: &ArrayD<T>) -> DataType {
                T::DATA_TYPE
            }
        }
        self.visit(Get)
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> &[usize] {
        struct Get;
        impl<'a> Visitor<'a> for Get {
            type Output = &'a [usize];
            fn visit<T: Element>(self, a: &'a ArrayD<T>) -> &'a [usize] {
                a.shape()
            }
        }
        self.visit(Get)
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
    /// (a padded copy of a string tensor clones them).
    pub fn max_element_bytes(&self) -> usize {
        struct Size;
        impl Visitor<'_> for Size {
            type Output = usize;
            fn visit<T: Element>(self, _: &ArrayD<T>) -> usize {
                size_of::<T>()
            }
        }
        let longest = match self {
            Tensor::String(a) => a.iter().map(Vec::len).max().unwrap_or(0),
            _ => 0,
        };
        self.visit(Size) + longest
    }

    /// `tensor(float)[2, 3]`-style description for listings and messages.
    pub fn describe(&self) -> String {
        format!("{}{:?}", self.data_type(), self.shape())
    }
}
