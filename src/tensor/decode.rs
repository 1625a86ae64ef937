//! `TensorProto` → [`Tensor`], from raw_data, the typed fields or external data.
//!
//! Sizes are checked against the declared dims, and against a limit, before anything is
//! allocated, so a hostile file cannot make the decoder allocate more than it holds.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

use bytemuck::Pod;
use half::{bf16, f16};
use num_complex::Complex;

use super::sub_byte::{self, SubByte};
use super::*;
use crate::proto::{DATA_LOCATION_EXTERNAL, TensorProto};

/// Limits and context for decoding.
#[derive(Clone, Debug)]
pub struct DecodeOptions {
    /// The directory `external_data` locations are resolved against (the case directory).
    /// Without one, external data is refused.
    pub base_dir: Option<PathBuf>,
    /// The largest tensor, in bytes of element data, that may be decoded.
    pub max_bytes: u64,
}

/// The highest rank a tensor may declare. ONNX sets none; numpy's is 64 and the corpus needs 6,
/// so 1024 refuses only hostile files, before their dims are copied or printed.
pub(crate) const MAX_RANK: usize = 1024;

/// The default for [`DecodeOptions::max_bytes`]: 2 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            base_dir: None,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// Why a `TensorProto` could not be decoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum TensorError {
    /// `data_type` is 0 (UNDEFINED) or a code no ONNX element type has.
    #[error("data_type {0} is not a known ONNX element type")]
    UnknownDataType(i32),
    /// `dims` has more entries than 1024.
    #[error("dims has {rank} entries, over the limit of {limit} axes")]
    TooManyDims {
        /// The declared rank.
        rank: usize,
        /// 1024.
        limit: usize,
    },
    /// An entry of `dims` is negative.
    #[error("dims[{index}] is {value}, a negative extent")]
    NegativeDim {
        /// The axis.
        index: usize,
        /// The extent it declares.
        value: i64,
    },
    /// The element count of `dims`, or its size in bytes, overflows.
    #[error("dims {dims:?} overflow the element count")]
    ElementCountOverflow {
        /// The declared dims.
        dims: Vec<i64>,
    },
    /// The element data would exceed [`DecodeOptions::max_bytes`].
    #[error("dims {dims:?} of {data_type} need {bytes} bytes, over the limit of {limit}")]
    TooLarge {
        /// The declared dims.
        dims: Vec<i64>,
        /// The declared element type.
        data_type: DataType,
        /// Bytes of element data the dims call for.
        bytes: u64,
        /// The limit in force.
        limit: u64,
    },
    /// `raw_data` (or the external data range) is not exactly as long as the dims require.
    #[error("raw_data holds {actual} bytes but dims {dims:?} of {data_type} need {expected}")]
    RawDataLength {
        /// The declared dims.
        dims: Vec<i64>,
        /// The declared element type.
        data_type: DataType,
        /// Bytes the dims and type call for.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// A typed value field does not hold exactly the number of values the dims require.
    #[error("{field} holds {actual} values but dims {dims:?} of {data_type} need {expected}")]
    FieldLength {
        /// The field's name in `TensorProto`, e.g. `int32_data`.
        field: &'static str,
        /// The declared dims.
        dims: Vec<i64>,
        /// The declared element type.
        data_type: DataType,
        /// Values the dims and type call for.
        expected: usize,
        /// Values present.
        actual: usize,
    },
    /// A stored value does not fit the element type (e.g. 300 in int32_data for uint8, 2 for bool).
    #[error("{field}[{index}] is {value}, out of range for {data_type}")]
    ValueOutOfRange {
        /// The field's name in `TensorProto`, or `raw_data`.
        field: &'static str,
        /// The value's position in that field.
        index: usize,
        /// Wide enough for every int32, int64 and uint64 value a field can hold.
        value: i128,
        /// The declared element type.
        data_type: DataType,
    },
    /// Both `raw_data` and a typed field hold values, so which one is meant is ambiguous.
    #[error("both raw_data and {field} hold data; a tensor keeps its values in one of them")]
    RawAndTyped {
        /// The typed field that is also filled.
        field: &'static str,
    },
    /// A `tensor(string)` has its data in `raw_data` or an external file.
    #[error("raw_data and external data are not allowed for tensor(string); strings go in string_data")]
    StringInRawData,
    /// The proto holds a segment of a tensor, which the runner does not reassemble.
    #[error("segment is set (begin {begin}, end {end}); segmented tensors are not supported")]
    Segment {
        /// `Segment.begin`.
        begin: i64,
        /// `Segment.end`.
        end: i64,
    },
    /// The external data `location` is empty, absolute, or leads outside the case directory.
    #[error("external data location {location:?} is refused: {reason}")]
    ExternalLocation {
        /// The `location` entry as written.
        location: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// An external data `offset` or `length` entry is not a non-negative integer.
    #[error("external data key {key:?} has value {value:?}, not a byte count")]
    ExternalNumber {
        /// The entry's key.
        key: String,
        /// The entry's value as written.
        value: String,
    },
    /// The external data file could not be resolved, opened or read.
    #[error("external data file {path}: {message}")]
    ExternalFile {
        /// The file's path, joined to the case directory.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The external data range reaches past the end of its file.
    #[error("external data {path} holds {file_len} bytes; offset {offset} and length {length} reach past its end")]
    ExternalOutOfBounds {
        /// The file's path, joined to the case directory.
        path: PathBuf,
        /// The `offset` entry (0 when absent).
        offset: u64,
        /// The `length` entry (the rest of the file when absent).
        length: u64,
        /// The file's size in bytes.
        file_len: u64,
    },
}

/// Decodes a `TensorProto` held in memory.
pub fn decode_tensor(proto: &TensorProto, options: &DecodeOptions) -> Result<Tensor, TensorError> {
    let decoder = Decoder::new(proto, options)?;
    if proto.data_location == DATA_LOCATION_EXTERNAL {
        if decoder.data_type == DataType::String {
            return Err(TensorError::StringInRawData);
        }
        return read_external(&decoder, options);
    }
    let raw_data = proto.raw_data.as_ref().filter(|raw| !raw.is_empty());
    if let (Some(_), Some(field)) = (raw_data, filled_typed_field(proto)) {
        return Err(TensorError::RawAndTyped { field });
    }
    match &proto.raw_data {
        Some(raw) if decoder.data_type == DataType::String && !raw.is_empty() => Err(TensorError::StringInRawData),
        Some(raw) if decoder.data_type != DataType::String => decoder.decode_raw(raw),
        _ => decoder.decode_fields(),
    }
}

impl Tensor {
    /// A tensor from elements in ONNX raw_data layout (see [`Tensor::raw_bytes`]): checked
    /// by the same decoder as a file's raw_data, so a length that does not match the shape is
    /// an error naming both. `tensor(string)` has no raw layout and is refused.
    ///
    /// ```
    /// use pad_conformance::{DataType, Int4, Tensor};
    /// // Two int4 values packed in one byte, low bits first: 3 and -1.
    /// let t = Tensor::from_raw(DataType::Int4, &[2], &[0xf3]).unwrap();
    /// assert_eq!(t.as_slice::<Int4>().unwrap(), &[Int4(3), Int4(-1)]);
    /// assert!(Tensor::from_raw(DataType::Float, &[2], &[0; 7]).is_err());
    /// ```
    pub fn from_raw(data_type: DataType, shape: &[usize], bytes: &[u8]) -> Result<Tensor, TensorError> {
        let dims = shape
            .iter()
            .map(|&d| i64::try_from(d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| TensorError::ElementCountOverflow {
                dims: shape.iter().map(|&d| d as i64).collect(),
            })?;
        if data_type == DataType::String {
            return Err(TensorError::StringInRawData);
        }
        let proto = TensorProto {
            dims,
            data_type: data_type.code(),
            raw_data: Some(bytes::Bytes::copy_from_slice(bytes)),
            ..Default::default()
        };
        // The bytes are already in memory: no limit beyond what they hold.
        let options = DecodeOptions {
            base_dir: None,
            max_bytes: u64::MAX,
        };
        decode_tensor(&proto, &options)
    }
}

/// The first typed value field that holds anything.
pub(super) fn filled_typed_field(proto: &TensorProto) -> Option<&'static str> {
    [
        ("float_data", proto.float_data.is_empty()),
        ("int32_data", proto.int32_data.is_empty()),
        ("string_data", proto.string_data.is_empty()),
        ("int64_data", proto.int64_data.is_empty()),
        ("double_data", proto.double_data.is_empty()),
        ("uint64_data", proto.uint64_data.is_empty()),
    ]
    .into_iter()
    .find_map(|(field, empty)| (!empty).then_some(field))
}

fn checked_shape(dims: &[i64]) -> Result<Vec<usize>, TensorError> {
    if dims.len() > MAX_RANK {
        return Err(TensorError::TooManyDims {
            rank: dims.len(),
            limit: MAX_RANK,
        });
    }
    dims.iter()
        .enumerate()
        .map(|(index, &value)| usize::try_from(value).map_err(|_| TensorError::NegativeDim { index, value }))
        .collect()
}

/// Bytes of element data `count` elements occupy in raw_data (strings: one byte each, as a
/// floor for the limit check). `None` on overflow.
fn data_bytes(data_type: DataType, count: usize) -> Option<u64> {
    let bits = data_type.bit_width().unwrap_or(8) as u64;
    (count as u64).checked_mul(bits).map(|b| b.div_ceil(8))
}

/// A `TensorProto` whose type, dims and size passed the checks that come before its data is
/// looked at: every way of reading the data (raw_data in memory, a tensor file's raw_data read
/// straight from disk, external data) starts from one, so the checks are made alike.
pub(super) struct Decoder<'a> {
    proto: &'a TensorProto,
    pub(super) data_type: DataType,
    shape: Vec<usize>,
    count: usize,
    /// Bytes of raw data the dims and type call for.
    bytes: u64,
}

impl<'a> Decoder<'a> {
    /// Checks the element type, segment, dims and size against `options.max_bytes`.
    pub(super) fn new(proto: &'a TensorProto, options: &DecodeOptions) -> Result<Decoder<'a>, TensorError> {
        let data_type = DataType::from_code(proto.data_type).ok_or(TensorError::UnknownDataType(proto.data_type))?;
        if let Some(segment) = &proto.segment {
            return Err(TensorError::Segment {
                begin: segment.begin,
                end: segment.end,
            });
        }
        let shape = checked_shape(&proto.dims)?;
        // ndarray requires the product of the non-zero extents to fit in isize even when another
        // extent is 0, so [0, 2^62, 2^62] is refused here rather than panicking in `Tensor::from_vec`.
        let nonzero = shape
            .iter()
            .filter(|&&d| d != 0)
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .filter(|&n| isize::try_from(n).is_ok())
            .ok_or_else(|| TensorError::ElementCountOverflow {
                dims: proto.dims.clone(),
            })?;
        let count = if shape.contains(&0) { 0 } else { nonzero };
        let bytes = data_bytes(data_type, count).ok_or_else(|| TensorError::ElementCountOverflow {
            dims: proto.dims.clone(),
        })?;
        if bytes > options.max_bytes {
            return Err(TensorError::TooLarge {
                dims: proto.dims.clone(),
                data_type,
                bytes,
                limit: options.max_bytes,
            });
        }
        Ok(Decoder {
            proto,
            data_type,
            shape,
            count,
            bytes,
        })
    }
}

impl Decoder<'_> {
    fn tensor<T: Element>(&self, values: Vec<T>) -> Tensor {
        Tensor::from_vec(&self.shape, values).expect("element count was checked against the shape")
    }

    /// Refuses raw data of `actual` bytes unless it is exactly what the dims and type call for.
    pub(super) fn check_raw_len(&self, actual: u64) -> Result<(), TensorError> {
        if actual != self.bytes {
            return Err(TensorError::RawDataLength {
                dims: self.proto.dims.clone(),
                data_type: self.data_type,
                expected: self.bytes,
                actual,
            });
        }
        Ok(())
    }

    /// For the plain types, whose raw data is their memory as is (little-endian numbers), reads
    /// the raw data from `source` straight into the buffer the tensor keeps: one allocation,
    /// written once. `None`, before reading, for the types whose raw data needs converting.
    pub(super) fn read_plain(&self, source: &mut impl Read) -> Option<std::io::Result<Tensor>> {
        Some(match self.data_type {
            DataType::Float => self.read_values::<f32>(source),
            DataType::Double => self.read_values::<f64>(source),
            DataType::Float16 => self.read_values::<f16>(source),
            DataType::Bfloat16 => self.read_values::<bf16>(source),
            DataType::Int8 => self.read_values::<i8>(source),
            DataType::Int16 => self.read_values::<i16>(source),
            DataType::Int32 => self.read_values::<i32>(source),
            DataType::Int64 => self.read_values::<i64>(source),
            DataType::Uint8 => self.read_values::<u8>(source),
            DataType::Uint16 => self.read_values::<u16>(source),
            DataType::Uint32 => self.read_values::<u32>(source),
            DataType::Uint64 => self.read_values::<u64>(source),
            DataType::Complex64 => self.read_values::<Complex<f32>>(source),
            DataType::Complex128 => self.read_values::<Complex<f64>>(source),
            _ => return None,
        })
    }

    fn read_values<T: Element + Pod>(&self, source: &mut impl Read) -> std::io::Result<Tensor> {
        // Zeroed lazily by the allocator: the read is the first write to most pages.
        let mut values = bytemuck::zeroed_vec::<T>(self.count);
        crate::tensor::huge_pages::advise_capacity(&values);
        source.read_exact(bytemuck::cast_slice_mut::<T, u8>(&mut values))?;
        Ok(self.tensor(values))
    }

    fn decode_raw(&self, raw: &[u8]) -> Result<Tensor, TensorError> {
        self.check_raw_len(raw.len() as u64)?;
        if let Some(tensor) = self.read_plain(&mut &raw[..]) {
            return Ok(tensor.expect("the length was checked"));
        }
        Ok(match self.data_type {
            DataType::Bool => self.tensor(self.bools(raw.iter().map(|&b| b as i64), "raw_data")?),
            DataType::Float8E4M3FN => self.tensor(raw.iter().map(|&b| Float8E4M3FN::from_bits(b)).collect()),
            DataType::Float8E4M3FNUZ => self.tensor(raw.iter().map(|&b| Float8E4M3FNUZ::from_bits(b)).collect()),
            DataType::Float8E5M2 => self.tensor(raw.iter().map(|&b| Float8E5M2::from_bits(b)).collect()),
            DataType::Float8E5M2FNUZ => self.tensor(raw.iter().map(|&b| Float8E5M2FNUZ::from_bits(b)).collect()),
            DataType::Float8E8M0 => self.tensor(raw.iter().map(|&b| Float8E8M0::from_bits(b)).collect()),
            DataType::Int4 => self.tensor(sub_byte::unpack::<Int4>(raw, self.count)),
            DataType::Uint4 => self.tensor(sub_byte::unpack::<Uint4>(raw, self.count)),
            DataType::Float4E2M1 => self.tensor(sub_byte::unpack::<Float4E2M1>(raw, self.count)),
            DataType::Int2 => self.tensor(sub_byte::unpack::<Int2>(raw, self.count)),
            DataType::Uint2 => self.tensor(sub_byte::unpack::<Uint2>(raw, self.count)),
            DataType::String => unreachable!("strings never come from raw_data"),
            plain => unreachable!("{plain} was read by read_plain"),
        })
    }

    fn decode_fields(&self) -> Result<Tensor, TensorError> {
        let p = self.proto;
        Ok(match self.data_type {
            DataType::Float => self.tensor(self.exact("float_data", &p.float_data, 1)?.to_vec()),
            DataType::Complex64 => {
                let parts = self.exact("float_data", &p.float_data, 2)?;
                self.tensor(parts.chunks_exact(2).map(|c| Complex::new(c[0], c[1])).collect())
            }
            DataType::Double => self.tensor(self.exact("double_data", &p.double_data, 1)?.to_vec()),
            DataType::Complex128 => {
                let parts = self.exact("double_data", &p.double_data, 2)?;
                self.tensor(parts.chunks_exact(2).map(|c| Complex::new(c[0], c[1])).collect())
            }
            DataType::Int64 => self.tensor(self.exact("int64_data", &p.int64_data, 1)?.to_vec()),
            DataType::Uint64 => self.tensor(self.exact("uint64_data", &p.uint64_data, 1)?.to_vec()),
            DataType::Uint32 => {
                let values = self.exact("uint64_data", &p.uint64_data, 1)?;
                self.tensor(self.narrow::<u32>("uint64_data", values.iter().map(|&v| v as i128))?)
            }
            DataType::String => self.tensor(
                self.exact("string_data", &p.string_data, 1)?
                    .iter()
                    .map(|s| s.to_vec())
                    .collect(),
            ),
            DataType::Int32 => self.tensor(self.int32_data()?.to_vec()),
            DataType::Int8 => self.tensor(self.narrow_int32::<i8>()?),
            DataType::Int16 => self.tensor(self.narrow_int32::<i16>()?),
            DataType::Uint8 => self.tensor(self.narrow_int32::<u8>()?),
            DataType::Uint16 => self.tensor(self.narrow_int32::<u16>()?),
            DataType::Bool => {
                let values = self.int32_data()?;
                self.tensor(self.bools(values.iter().map(|&v| v as i64), "int32_data")?)
            }
            DataType::Float16 => self.tensor(self.bit_patterns(f16::from_bits)?),
            DataType::Bfloat16 => self.tensor(self.bit_patterns(bf16::from_bits)?),
            DataType::Float8E4M3FN => self.tensor(self.bit_patterns(Float8E4M3FN::from_bits)?),
            DataType::Float8E4M3FNUZ => self.tensor(self.bit_patterns(Float8E4M3FNUZ::from_bits)?),
            DataType::Float8E5M2 => self.tensor(self.bit_patterns(Float8E5M2::from_bits)?),
            DataType::Float8E5M2FNUZ => self.tensor(self.bit_patterns(Float8E5M2FNUZ::from_bits)?),
            DataType::Float8E8M0 => self.tensor(self.bit_patterns(Float8E8M0::from_bits)?),
            DataType::Int4 => self.tensor(self.packed_int32::<Int4>()?),
            DataType::Uint4 => self.tensor(self.packed_int32::<Uint4>()?),
            DataType::Float4E2M1 => self.tensor(self.packed_int32::<Float4E2M1>()?),
            DataType::Int2 => self.tensor(self.packed_int32::<Int2>()?),
            DataType::Uint2 => self.tensor(self.packed_int32::<Uint2>()?),
        })
    }

    /// `values`, checked to hold `per_element` entries for each element.
    fn exact<'v, V>(&self, field: &'static str, values: &'v [V], per_element: usize) -> Result<&'v [V], TensorError> {
        self.exact_len(field, values, self.count.saturating_mul(per_element))
    }

    fn int32_data(&self) -> Result<&[i32], TensorError> {
        self.exact("int32_data", &self.proto.int32_data, 1)
    }

    /// Converts each value to `T`, refusing one out of `T`'s range with its index and value.
    fn narrow<T: TryFrom<i128>>(
        &self,
        field: &'static str,
        values: impl Iterator<Item = i128>,
    ) -> Result<Vec<T>, TensorError> {
        values
            .enumerate()
            .map(|(index, v)| {
                T::try_from(v).map_err(|_| TensorError::ValueOutOfRange {
                    field,
                    index,
                    value: v,
                    data_type: self.data_type,
                })
            })
            .collect()
    }

    fn narrow_int32<T: TryFrom<i128>>(&self) -> Result<Vec<T>, TensorError> {
        self.narrow("int32_data", self.int32_data()?.iter().map(|&v| v as i128))
    }

    fn bools(&self, values: impl Iterator<Item = i64>, field: &'static str) -> Result<Vec<bool>, TensorError> {
        values
            .enumerate()
            .map(|(index, v)| match v {
                0 => Ok(false),
                1 => Ok(true),
                value => Err(TensorError::ValueOutOfRange {
                    field,
                    index,
                    value: value.into(),
                    data_type: DataType::Bool,
                }),
            })
            .collect()
    }

    /// Float16, bfloat16 and float8 values travel in int32_data as their unsigned bit patterns.
    fn bit_patterns<B: TryFrom<i128>, T>(&self, from_bits: impl Fn(B) -> T) -> Result<Vec<T>, TensorError> {
        Ok(self.narrow_int32::<B>()?.into_iter().map(from_bits).collect())
    }

    /// Sub-byte values travel in int32_data packed as in raw_data: one byte of packed
    /// elements per int32 value.
    fn packed_int32<T: SubByte>(&self) -> Result<Vec<T>, TensorError> {
        let expected = sub_byte::packed_len(self.count, T::BITS);
        let values = self.exact_len("int32_data", &self.proto.int32_data, expected)?;
        let packed: Vec<u8> = self.narrow("int32_data", values.iter().map(|&v| v as i128))?;
        Ok(sub_byte::unpack(&packed, self.count))
    }

    fn exact_len<'v, V>(&self, field: &'static str, values: &'v [V], expected: usize) -> Result<&'v [V], TensorError> {
        if values.len() != expected {
            return Err(TensorError::FieldLength {
                field,
                dims: self.proto.dims.clone(),
                data_type: self.data_type,
                expected,
                actual: values.len(),
            });
        }
        Ok(values)
    }
}

#[cfg(target_endian = "big")]
compile_error!("raw_data is little-endian and is copied as is: a little-endian host is required");

/// Reads the data `external_data` points at, after checking the location stays inside
/// `base_dir` and the range inside the file; the plain types straight into the tensor's buffer.
fn read_external(decoder: &Decoder, options: &DecodeOptions) -> Result<Tensor, TensorError> {
    let proto = decoder.proto;
    let entry = |key: &str| {
        proto
            .external_data
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.value.as_str())
    };
    let number = |key: &str| -> Result<Option<u64>, TensorError> {
        entry(key)
            .map(|v| {
                v.trim().parse::<u64>().map_err(|_| TensorError::ExternalNumber {
                    key: key.to_owned(),
                    value: v.to_owned(),
                })
            })
            .transpose()
    };
    let location = entry("location").unwrap_or_default();
    let refuse = |reason| TensorError::ExternalLocation {
        location: location.to_owned(),
        reason,
    };
    if location.is_empty() {
        return Err(refuse("it is empty"));
    }
    let base = options
        .base_dir
        .as_deref()
        .ok_or_else(|| refuse("no case directory to resolve it against"))?;
    let relative = Path::new(location);
    let mut depth = 0i32;
    for component in relative.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(refuse("it leaves the case directory"));
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(refuse("it is absolute")),
        }
    }
    let path = base.join(relative);
    let file_err = |message: String| TensorError::ExternalFile {
        path: path.clone(),
        message,
    };
    // A symbolic link could still lead outside: compare the resolved paths.
    let resolved = path.canonicalize().map_err(|e| file_err(e.to_string()))?;
    let base_resolved = base.canonicalize().map_err(|e| file_err(e.to_string()))?;
    if !resolved.starts_with(&base_resolved) {
        return Err(refuse("it resolves outside the case directory"));
    }
    if !resolved.is_file() {
        return Err(file_err("not a regular file".to_owned()));
    }
    let mut file = crate::platform::open_for_reading(&resolved).map_err(|e| file_err(e.to_string()))?;
    let metadata = file.metadata().map_err(|e| file_err(e.to_string()))?;
    if !metadata.is_file() {
        return Err(file_err("not a regular file".to_owned()));
    }
    let file_len = metadata.len();
    let offset = number("offset")?.unwrap_or(0);
    let length = match number("length")? {
        Some(length) => length,
        None => file_len.saturating_sub(offset),
    };
    if offset.checked_add(length).is_none_or(|end| end > file_len) {
        return Err(TensorError::ExternalOutOfBounds {
            path,
            offset,
            length,
            file_len,
        });
    }
    decoder.check_raw_len(length)?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| file_err(e.to_string()))?;
    if let Some(tensor) = decoder.read_plain(&mut file) {
        return tensor.map_err(|e| file_err(e.to_string()));
    }
    let mut raw = vec![0u8; length as usize];
    file.read_exact(&mut raw).map_err(|e| file_err(e.to_string()))?;
    decoder.decode_raw(&raw)
}
