//! The worker protocol's raw tensor files: a tensor's elements with no header, row-major and
//! little-endian, exactly as numpy's `tofile` writes them, so a worker in any language reads
//! them without protobuf. The element type and shape travel beside the file, in the request
//! or reply. Sub-byte types take one byte per element, as ml_dtypes stores them; a string is
//! a little-endian u32 byte length followed by its bytes. docs/backend-protocol.md has the table.

use std::io::{Read, Write};
use std::path::Path;

use super::decode::{Decoder, MAX_RANK};
use super::file::open_limited;
use super::file_error::{FileError, FileProblem};
use super::impossible_value::{ImpossibleValue, Stored};
use super::sub_byte::{SubByte, sign_extend};
use super::{DataType, DecodeOptions, Element, Float4E2M1, Int2, Int4, Tensor, Uint2, Uint4};
use crate::platform::no_follow_private;
use crate::proto::TensorProto;

/// The name a raw descriptor's `dtype` gives `data_type`: ONNX's own lower-case name, but
/// `float32` and `float64` for float and double, as numpy, ml_dtypes and onnx.helper spell them.
pub(crate) fn dtype_name(data_type: DataType) -> &'static str {
    match data_type {
        DataType::Float => "float32",
        DataType::Double => "float64",
        other => other.name(),
    }
}

/// The element type a raw descriptor's `dtype` names; ONNX's `float` and `double` are read too.
pub(crate) fn dtype_from_name(name: &str) -> Option<DataType> {
    DataType::ALL
        .into_iter()
        .find(|&t| dtype_name(t) == name)
        .or_else(|| DataType::from_name(name))
}

/// Writes `tensor`'s elements to `path` in the raw layout, a file only its owner reads. A link
/// in the file's place (a worker's, in a shared scratch directory) is not followed.
pub(crate) fn write_raw(tensor: &Tensor, path: &Path) -> Result<(), FileError> {
    let bytes = raw_bytes(tensor).map_err(|problem| problem.writing(path))?;
    no_follow_private(std::fs::OpenOptions::new().write(true).create(true).truncate(true))
        .open(path)
        .and_then(|mut file| file.write_all(&bytes))
        .map_err(|e| FileProblem::Io(e).writing(path))
}

/// The raw layout of `tensor`'s elements.
fn raw_bytes(tensor: &Tensor) -> Result<Vec<u8>, FileProblem> {
    Ok(match tensor {
        Tensor::String(a) => {
            let mut bytes = Vec::with_capacity(a.iter().map(|s| 4 + s.len()).sum());
            for s in a {
                let len = u32::try_from(s.len()).map_err(|_| {
                    FileProblem::Io(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("a string of {} bytes is longer than a u32 length can say", s.len()),
                    ))
                })?;
                bytes.extend_from_slice(&len.to_le_bytes());
                bytes.extend_from_slice(s);
            }
            bytes
        }
        Tensor::Int4(a) => a.iter().map(|v| v.0 as u8).collect(),
        Tensor::Int2(a) => a.iter().map(|v| v.0 as u8).collect(),
        Tensor::Uint4(a) => a.iter().map(|v| v.0).collect(),
        Tensor::Uint2(a) => a.iter().map(|v| v.0).collect(),
        Tensor::Float4E2M1(a) => a.iter().map(|v| v.to_bits()).collect(),
        // Every other type's ONNX raw_data is already one little-endian element after another.
        other => other.raw_bytes().expect("strings were handled above"),
    })
}

/// Reads a raw tensor file of `data_type` and `shape`. The size the two call for is checked
/// against `max_bytes` before the file is opened, and against the file's size before anything
/// is read, so a hostile descriptor or file allocates nothing.
pub(crate) fn read_raw(path: &Path, data_type: DataType, shape: &[u64], max_bytes: u64) -> Result<Tensor, FileError> {
    let tensor = describe(data_type, shape);
    let too_large = |expected: String| {
        FileProblem::RawTooLarge {
            tensor: tensor.clone(),
            expected,
            limit: max_bytes,
        }
        .at(path)
    };
    let dims = checked_dims(shape).ok_or_else(|| too_large("more than 2^64".into()))?;
    let count = element_count(&dims).ok_or_else(|| too_large("more than 2^64".into()))?;
    // Strings: at least their four length bytes each; the file's size bounds the rest.
    let item = match data_type.bit_width() {
        Some(bits) => u64::from(bits.max(8) / 8),
        None => 4,
    };
    let expected = count
        .checked_mul(item)
        .ok_or_else(|| too_large("more than 2^64".into()))?;
    if expected > max_bytes {
        return Err(too_large(expected.to_string()));
    }
    let (mut file, len) = open_limited(path, max_bytes)?;
    if data_type == DataType::String {
        // The strings' bytes, and each string's own buffer: what reading them takes.
        let memory = count.saturating_mul(size_of::<Vec<u8>>() as u64).saturating_add(len);
        if memory > max_bytes {
            return Err(too_large(memory.to_string()));
        }
    }
    let size_mismatch = match data_type {
        DataType::String => len < expected,
        _ => len != expected,
    };
    if size_mismatch {
        return Err(FileProblem::RawSize {
            tensor,
            bytes: len,
            expected,
        }
        .at(path));
    }
    let header = TensorProto {
        dims,
        data_type: data_type.code(),
        ..Default::default()
    };
    let options = DecodeOptions {
        base_dir: None,
        max_bytes,
    };
    let io = |e: std::io::Error| FileProblem::Io(e).at(path);
    // Checked above: the shape counts and its size is within the limit.
    let decoder = Decoder::new(&header, &options).map_err(|e| FileProblem::tensor(&header, e).at(path))?;
    if let Some(read) = decoder.read_plain(&mut file) {
        return read.map_err(io);
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 != len {
        return Err(FileProblem::RawSize {
            tensor,
            bytes: bytes.len() as u64,
            expected,
        }
        .at(path));
    }
    let element = |index: usize, problem: String| {
        FileProblem::RawElement {
            tensor: tensor.clone(),
            index: index as u64,
            problem,
        }
        .at(path)
    };
    let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    // A byte its element type cannot have: the file is well formed, the value impossible.
    let impossible = |index: usize| {
        FileProblem::RawValue {
            tensor: tensor.clone(),
            value: Box::new(ImpossibleValue {
                data_type,
                shape: shape.clone(),
                index,
                stored: Stored::Byte(bytes[index]),
            }),
        }
        .at(path)
    };
    let values = |tensor: Result<Tensor, _>| tensor.map_err(|e| FileProblem::tensor(&header, e).at(path));
    match data_type {
        DataType::String => strings(&bytes, count as usize, &shape).map_err(|(index, problem)| element(index, problem)),
        DataType::Int4 => one_per_byte::<Int4>(&bytes, &shape, true).map_err(impossible),
        DataType::Int2 => one_per_byte::<Int2>(&bytes, &shape, true).map_err(impossible),
        DataType::Uint4 => one_per_byte::<Uint4>(&bytes, &shape, false).map_err(impossible),
        DataType::Uint2 => one_per_byte::<Uint2>(&bytes, &shape, false).map_err(impossible),
        DataType::Float4E2M1 => one_per_byte::<Float4E2M1>(&bytes, &shape, false).map_err(impossible),
        DataType::Bool => match bytes.iter().position(|&b| b > 1) {
            Some(index) => Err(impossible(index)),
            None => values(Tensor::from_raw(data_type, &shape, &bytes)),
        },
        // The 8-bit floats: their ONNX raw_data is one byte of bits per element too.
        _ => values(Tensor::from_raw(data_type, &shape, &bytes)),
    }
}

/// `float32[3, 2]`: how errors name a raw file's declared tensor.
fn describe(data_type: DataType, shape: &[u64]) -> String {
    format!("{}{shape:?}", dtype_name(data_type))
}

/// The shape as TensorProto dims, if it has a rank and extents a tensor can have.
fn checked_dims(shape: &[u64]) -> Option<Vec<i64>> {
    if shape.len() > MAX_RANK {
        return None;
    }
    shape.iter().map(|&d| i64::try_from(d).ok()).collect()
}

/// The number of elements, if the non-zero extents multiply within `isize` (as ndarray needs
/// even when another extent is 0).
fn element_count(dims: &[i64]) -> Option<u64> {
    let nonzero = dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |n, &d| n.checked_mul(d as usize))
        .filter(|&n| isize::try_from(n).is_ok())?;
    Some(if dims.contains(&0) { 0 } else { nonzero as u64 })
}

/// Sub-byte elements stored one per byte: a signed type as its value in an int8, an unsigned
/// one (and float4e2m1's bits) as a uint8. The index of a byte outside the type's range is
/// the error.
fn one_per_byte<T: SubByte + Element>(bytes: &[u8], shape: &[usize], signed: bool) -> Result<Tensor, usize> {
    let mut values = Vec::with_capacity(bytes.len());
    for (index, &byte) in bytes.iter().enumerate() {
        let value = T::from_bits(byte);
        let bits = value.to_bits();
        let stored = if signed { sign_extend(bits, T::BITS) as u8 } else { bits };
        if stored != byte {
            return Err(index);
        }
        values.push(value);
    }
    Ok(Tensor::from_vec(shape, values).expect("the element count was checked against the shape"))
}

/// `count` strings, each a little-endian u32 length and its bytes, filling `bytes` exactly.
fn strings(bytes: &[u8], count: usize, shape: &[usize]) -> Result<Tensor, (usize, String)> {
    let mut values = Vec::with_capacity(count);
    let mut rest = bytes;
    for index in 0..count {
        let (len, tail) = rest
            .split_first_chunk::<4>()
            .ok_or_else(|| (index, format!("its length needs 4 bytes, {} are left", rest.len())))?;
        let len = u32::from_le_bytes(*len) as usize;
        if len > tail.len() {
            return Err((index, format!("a length of {len} bytes runs past the end of the file")));
        }
        let (value, tail) = tail.split_at(len);
        values.push(value.to_vec());
        rest = tail;
    }
    if !rest.is_empty() {
        return Err((count, format!("{} bytes are left after the last element", rest.len())));
    }
    Ok(Tensor::from_vec(shape, values).expect("the element count was checked against the shape"))
}

/// Every element type's raw bytes, for the round-trip tests of this module and the protocol's.
#[cfg(test)]
pub(crate) fn elements_of_every_type() -> Vec<Tensor> {
    use half::{bf16, f16};
    use num_complex::Complex;

    use super::{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0};
    let nan_payload = f32::from_bits(0x7fc0_1234);
    let t = |tensor: Result<Tensor, _>| tensor.expect("a valid tensor");
    vec![
        t(Tensor::from_vec(
            &[2, 3],
            vec![1.5f32, -0.0, nan_payload, f32::INFINITY, f32::MIN_POSITIVE / 4.0, -7.25],
        )),
        t(Tensor::from_vec(&[3], vec![0u8, 255, 7])),
        t(Tensor::from_vec(&[2], vec![i8::MIN, i8::MAX])),
        t(Tensor::from_vec(&[2], vec![0u16, u16::MAX])),
        t(Tensor::from_vec(&[2], vec![i16::MIN, i16::MAX])),
        t(Tensor::from_vec(&[2], vec![i32::MIN, -1])),
        t(Tensor::from_vec(&[3], vec![i64::MIN, (1i64 << 53) + 1, i64::MAX])),
        t(Tensor::from_vec(
            &[2, 2],
            vec![
                b"".to_vec(),
                b"pad".to_vec(),
                vec![0xff, 0x00, 0xc3],
                "é".as_bytes().to_vec(),
            ],
        )),
        t(Tensor::from_vec(&[3], vec![true, false, true])),
        t(Tensor::from_vec(
            &[2],
            vec![f16::from_bits(0x8000), f16::from_bits(0x7e01)],
        )),
        t(Tensor::from_vec(
            &[3],
            vec![-0.0f64, f64::from_bits(0x7ff8_0000_0000_0042), 1e300],
        )),
        t(Tensor::from_vec(&[2], vec![0u32, u32::MAX])),
        t(Tensor::from_vec(&[2], vec![0u64, u64::MAX])),
        t(Tensor::from_vec(&[1], vec![Complex::new(-0.0f32, f32::NAN)])),
        t(Tensor::from_vec(&[1], vec![Complex::new(1.0f64, -0.0)])),
        t(Tensor::from_vec(
            &[2],
            vec![bf16::from_bits(0x8000), bf16::from_bits(0x7fc1)],
        )),
        t(Tensor::from_vec(
            &[3],
            vec![
                Float8E4M3FN::from_bits(0x7f),
                Float8E4M3FN::from_bits(0x80),
                Float8E4M3FN::from_bits(1),
            ],
        )),
        t(Tensor::from_vec(
            &[2],
            vec![Float8E4M3FNUZ::from_bits(0x80), Float8E4M3FNUZ::from_bits(0x7f)],
        )),
        t(Tensor::from_vec(
            &[2],
            vec![Float8E5M2::from_bits(0x7d), Float8E5M2::from_bits(0xfc)],
        )),
        t(Tensor::from_vec(
            &[2],
            vec![Float8E5M2FNUZ::from_bits(0x80), Float8E5M2FNUZ::from_bits(0xff)],
        )),
        t(Tensor::from_vec(&[3], vec![Uint4(0), Uint4(15), Uint4(9)])),
        t(Tensor::from_vec(&[3], vec![Int4(-8), Int4(7), Int4(-1)])),
        t(Tensor::from_vec(
            &[3],
            vec![
                Float4E2M1::from_bits(0x0f),
                Float4E2M1::from_bits(0x08),
                Float4E2M1::from_bits(0x07),
            ],
        )),
        t(Tensor::from_vec(
            &[2],
            vec![Float8E8M0::from_bits(0xff), Float8E8M0::from_bits(0)],
        )),
        t(Tensor::from_vec(&[2], vec![Uint2(0), Uint2(3)])),
        t(Tensor::from_vec(&[3], vec![Int2(-2), Int2(1), Int2(-1)])),
    ]
}

/// Compares two tensors bit for bit (NaN payloads and -0.0 included).
#[cfg(test)]
pub(crate) fn same_bits(a: &Tensor, b: &Tensor) -> bool {
    a.data_type() == b.data_type() && a.shape() == b.shape() && raw_bytes(a).ok() == raw_bytes(b).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(tensor: &Tensor) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        write_raw(tensor, &path).unwrap();
        (dir, path)
    }

    fn shape_of(tensor: &Tensor) -> Vec<u64> {
        tensor.shape().iter().map(|&d| d as u64).collect()
    }

    #[test]
    fn every_element_type_round_trips_bit_for_bit() {
        let tensors = elements_of_every_type();
        let mut types: Vec<_> = tensors.iter().map(Tensor::data_type).collect();
        types.dedup();
        assert_eq!(types, DataType::ALL, "one tensor of each type, in code order");
        for tensor in &tensors {
            let (_dir, path) = written(tensor);
            let back = read_raw(&path, tensor.data_type(), &shape_of(tensor), 1 << 20).unwrap();
            assert!(same_bits(tensor, &back), "{tensor:?} came back as {back:?}");
        }
    }

    #[test]
    fn the_layout_is_the_contracts_byte_for_byte() {
        let bytes = |tensor: Tensor| {
            let (_dir, path) = written(&tensor);
            std::fs::read(path).unwrap()
        };
        assert_eq!(
            bytes(Tensor::from_vec(&[2], vec![1.0f32, -0.0]).unwrap()),
            [0, 0, 0x80, 0x3f, 0, 0, 0, 0x80]
        );
        assert_eq!(
            bytes(Tensor::from_vec(&[3], vec![Int4(-8), Int4(7), Int4(-1)]).unwrap()),
            [0xf8, 7, 0xff]
        );
        assert_eq!(
            bytes(Tensor::from_vec(&[2], vec![Int2(-2), Int2(1)]).unwrap()),
            [0xfe, 1]
        );
        assert_eq!(
            bytes(Tensor::from_vec(&[2], vec![Uint4(15), Uint4(3)]).unwrap()),
            [15, 3]
        );
        assert_eq!(
            bytes(Tensor::from_vec(&[1], vec![Float4E2M1::from_bits(0x0f)]).unwrap()),
            [0x0f]
        );
        assert_eq!(bytes(Tensor::from_vec(&[2], vec![true, false]).unwrap()), [1, 0]);
        assert_eq!(
            bytes(Tensor::from_vec(&[2], vec![b"ab".to_vec(), Vec::new()]).unwrap()),
            [2, 0, 0, 0, b'a', b'b', 0, 0, 0, 0]
        );
    }

    #[test]
    fn the_protocol_docs_table_lists_every_dtype_with_its_size() {
        let docs = include_str!("../../docs/backend-protocol.md");
        let table = docs
            .split_once("<!-- raw-dtypes:begin -->")
            .and_then(|(_, rest)| rest.split_once("<!-- raw-dtypes:end -->"))
            .map(|(table, _)| table)
            .unwrap();
        let rows: Vec<(String, String)> = table
            .lines()
            .filter(|l| l.starts_with("| `") && !l.starts_with("| `dtype`"))
            .map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (cells[1].trim_matches('`').to_owned(), cells[2].to_owned())
            })
            .collect();
        let expected: Vec<(String, String)> = DataType::ALL
            .into_iter()
            .map(|t| {
                let bytes = t
                    .bit_width()
                    .map_or("–".to_owned(), |bits| (bits.max(8) / 8).to_string());
                (dtype_name(t).to_owned(), bytes)
            })
            .collect();
        assert_eq!(rows, expected);
        // And the files are that size.
        for tensor in elements_of_every_type()
            .iter()
            .filter(|t| t.data_type() != DataType::String)
        {
            let (_dir, path) = written(tensor);
            let size = std::fs::metadata(&path).unwrap().len();
            let row = &expected[tensor.data_type().code() as usize - 1];
            assert_eq!(size, tensor.len() as u64 * row.1.parse::<u64>().unwrap(), "{}", row.0);
        }
    }

    #[test]
    fn dtype_names_are_onnxs_with_numpys_float32_and_float64() {
        assert_eq!(dtype_name(DataType::Float), "float32");
        assert_eq!(dtype_name(DataType::Double), "float64");
        assert_eq!(dtype_name(DataType::Float8E4M3FNUZ), "float8e4m3fnuz");
        for t in DataType::ALL {
            assert_eq!(dtype_from_name(dtype_name(t)), Some(t));
        }
        assert_eq!(dtype_from_name("float"), Some(DataType::Float));
        assert_eq!(dtype_from_name("double"), Some(DataType::Double));
        assert_eq!(dtype_from_name("Float32"), None);
        assert_eq!(dtype_from_name("float128"), None);
    }

    #[test]
    fn a_file_of_the_wrong_size_is_refused_naming_file_size_and_expected_size() {
        let tensor = Tensor::from_vec(&[3], vec![1i32, 2, 3]).unwrap();
        let (_dir, path) = written(&tensor);
        let error = read_raw(&path, DataType::Int32, &[4], 1 << 20).unwrap_err();
        assert!(
            matches!(
                error.problem,
                FileProblem::RawSize {
                    bytes: 12,
                    expected: 16,
                    ..
                }
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("t.bin") && message.contains("int32[4]"), "{message}");
        assert!(
            message.contains("12 bytes") && message.contains("16 bytes"),
            "{message}"
        );
    }

    #[test]
    fn a_huge_or_overflowing_shape_is_refused_before_the_file_is_opened() {
        // The path does not exist: the shape alone is refused.
        let path = Path::new("/nonexistent/huge.bin");
        let error = read_raw(path, DataType::Float, &[1 << 20, 1 << 20], 1 << 30).unwrap_err();
        assert!(
            matches!(&error.problem, FileProblem::RawTooLarge { expected, limit: 1073741824, .. } if expected == "4398046511104"),
            "{error:?}"
        );
        let error = read_raw(path, DataType::Int64, &[u64::MAX, 2], 1 << 30).unwrap_err();
        assert!(
            matches!(&error.problem, FileProblem::RawTooLarge { expected, .. } if expected == "more than 2^64"),
            "{error:?}"
        );
        let error = read_raw(path, DataType::Uint8, &[1 << 62, 1 << 62, 0], 1 << 30).unwrap_err();
        assert!(matches!(error.problem, FileProblem::RawTooLarge { .. }), "{error:?}");
        let error = read_raw(path, DataType::Uint8, &[0, 1 << 63], 1 << 30).unwrap_err();
        assert!(matches!(error.problem, FileProblem::RawTooLarge { .. }), "{error:?}");
    }

    #[test]
    fn elements_out_of_their_types_range_are_impossible_values_naming_element_and_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.bin");
        let impossible = |dtype: DataType, shape: &[u64], bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let error = read_raw(&path, dtype, shape, 1 << 20).unwrap_err();
            let value = error
                .impossible_value()
                .expect("an impossible value, not a malformed file");
            (value.position(), value.stored, error.to_string())
        };
        let (position, stored, message) = impossible(DataType::Int4, &[2], &[7, 0xf7]);
        assert_eq!((position, stored), (vec![1], Stored::Byte(0xf7)));
        assert!(
            message.ends_with("raw int4[2]: element [1] is byte 247, which is no int4"),
            "{message}"
        );
        let (position, stored, _) = impossible(DataType::Uint2, &[2], &[3, 4]);
        assert_eq!((position, stored), (vec![1], Stored::Byte(4)));
        let (position, stored, _) = impossible(DataType::Float4E2M1, &[1], &[0x10]);
        assert_eq!((position, stored), (vec![0], Stored::Byte(16)));
        let (position, stored, message) = impossible(DataType::Bool, &[2, 3], &[0, 1, 1, 0, 0, 122]);
        assert_eq!((position, stored), (vec![1, 2], Stored::Byte(122)));
        assert!(
            message.ends_with("element [1, 2] is byte 122, which is no bool"),
            "{message}"
        );
        // A malformed file is no impossible value: too short for its shape.
        std::fs::write(&path, [0u8, 1]).unwrap();
        let short = read_raw(&path, DataType::Bool, &[3], 1 << 20).unwrap_err();
        assert_eq!(short.impossible_value(), None, "{short}");
    }

    #[test]
    fn strings_that_run_past_the_file_or_leave_bytes_over_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.bin");
        std::fs::write(&path, [9, 0, 0, 0, b'a']).unwrap();
        let message = read_raw(&path, DataType::String, &[1], 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("element 0: a length of 9 bytes runs past the end"),
            "{message}"
        );
        std::fs::write(&path, [0, 0, 0, 0, b'a']).unwrap();
        let message = read_raw(&path, DataType::String, &[1], 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(message.contains("1 bytes are left after the last element"), "{message}");
        std::fs::write(&path, [0, 0, 0]).unwrap();
        let error = read_raw(&path, DataType::String, &[1], 1 << 20).unwrap_err();
        assert!(
            matches!(
                error.problem,
                FileProblem::RawSize {
                    bytes: 3,
                    expected: 4,
                    ..
                }
            ),
            "{error:?}"
        );
    }

    #[test]
    fn strings_are_bounded_by_their_bytes_and_their_buffers_before_they_are_read() {
        let tensor = Tensor::from_vec(&[4], vec![b"ab".to_vec(); 4]).unwrap();
        let (_dir, path) = written(&tensor);
        // 24 bytes in file, and four string buffers of 24 bytes each.
        assert_eq!(read_raw(&path, DataType::String, &[4], 120).unwrap(), tensor);
        let error = read_raw(&path, DataType::String, &[4], 119).unwrap_err();
        assert!(
            matches!(&error.problem, FileProblem::RawTooLarge { expected, limit: 119, .. } if expected == "120"),
            "{error:?}"
        );
    }

    #[test]
    fn a_directory_or_fifo_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let error = read_raw(dir.path(), DataType::Uint8, &[0], 1 << 20).unwrap_err();
        assert!(matches!(error.problem, FileProblem::NotAFile), "{error:?}");
    }
}
