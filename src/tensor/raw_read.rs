//! A tensor file's raw_data read from disk straight into the buffer the tensor keeps.
//!
//! A large tensor file is nearly all raw_data. Read whole and then decoded, it takes a buffer
//! of its size, the tensor's own, and a copy between them. Here only the fields around
//! raw_data (the skeleton) are read and decoded, they are checked as `decode_tensor` checks
//! them, and the payload is read by the kernel into the tensor's typed buffer. A file laid out
//! otherwise, or one `decode_tensor` would judge on more than its raw_data's length, is left
//! to the whole-file path, whose errors are the precise ones. No mmap: a file truncated while
//! it is read is an error, not a SIGBUS.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use prost::Message;
// prost's own key and varint readers: public, though left out of its docs.
use prost::encoding::{WireType, decode_key, decode_varint};

use super::decode::{Decoder, filled_typed_field};
use super::file_error::FileProblem;
use super::{DataType, DecodeOptions, Tensor};
use crate::proto::{DATA_LOCATION_EXTERNAL, TensorProto};

/// The bytes read first, in which raw_data's field must begin, and the most the fields after
/// its payload may take: a tensor's type, dims and name take far less. A file no larger is
/// read whole, as its raw_data cannot reach past the prefix and there is little to save.
const FRAME: usize = 64 << 10;

/// `TensorProto.raw_data`'s field number.
const RAW_DATA: u32 = 9;

/// Where raw_data's field lies in a file.
#[derive(Debug, PartialEq, Eq)]
struct RawField {
    /// Where its key begins: the fields before it end here.
    key: usize,
    /// Where its payload begins, inside the prefix.
    payload: usize,
    /// Where its payload ends, past the prefix and inside the file.
    end: u64,
}

/// Reads the tensor in `file`, `len` bytes long and positioned at its start, with raw_data
/// read straight into the tensor's buffer. `Ok(None)` when the file is laid out otherwise, or
/// holds what `decode_tensor` judges on more than raw_data's length: the caller reads it whole.
pub(super) fn read_direct(file: &mut File, len: u64, options: &DecodeOptions) -> Result<Option<Tensor>, FileProblem> {
    if len <= FRAME as u64 {
        return Ok(None);
    }
    let mut prefix = vec![0; FRAME];
    file.read_exact(&mut prefix)?;
    let Some(field) = locate_raw_data(&prefix, len) else {
        return Ok(None);
    };
    let tail = len - field.end;
    if tail > FRAME as u64 {
        return Ok(None);
    }
    let mut skeleton = vec![0; field.key + tail as usize];
    skeleton[..field.key].copy_from_slice(&prefix[..field.key]);
    file.seek(SeekFrom::Start(field.end))?;
    file.read_exact(&mut skeleton[field.key..])?;
    // Fields are self-delimiting: without raw_data's, the message decodes to what it would
    // with it, less raw_data.
    let Ok(proto) = TensorProto::decode(&skeleton[..]) else {
        return Ok(None);
    };
    // Another raw_data field: the last one wins, and the whole-file path knows which that is.
    if proto.raw_data.is_some() {
        return Ok(None);
    }
    // From here on, `decode_tensor`'s steps for this proto with the payload as raw_data.
    let refuse = |problem| FileProblem::tensor(&proto, problem);
    let decoder = Decoder::new(&proto, options).map_err(refuse)?;
    if proto.data_location == DATA_LOCATION_EXTERNAL
        || filled_typed_field(&proto).is_some()
        || decoder.data_type == DataType::String
    {
        return Ok(None);
    }
    decoder
        .check_raw_len(field.end - field.payload as u64)
        .map_err(refuse)?;
    file.seek(SeekFrom::Start(FRAME as u64))?;
    let mut payload = (&prefix[field.payload..]).chain(file.take(field.end - FRAME as u64));
    Ok(decoder.read_plain(&mut payload).transpose()?)
}

/// Walks the top-level fields at the start of a file (`len` bytes) to raw_data's, whose
/// payload must reach past `prefix` and end inside the file. `None` for anything else: no such
/// field, another field reaching past the prefix, a group, a malformed key or varint.
fn locate_raw_data(prefix: &[u8], len: u64) -> Option<RawField> {
    let mut rest = prefix;
    loop {
        let key = prefix.len() - rest.len();
        let (tag, wire_type) = decode_key(&mut rest).ok()?;
        let skip = match wire_type {
            WireType::Varint => {
                decode_varint(&mut rest).ok()?;
                0
            }
            WireType::SixtyFourBit => 8,
            WireType::ThirtyTwoBit => 4,
            WireType::LengthDelimited => {
                let size = decode_varint(&mut rest).ok()?;
                let payload = prefix.len() - rest.len();
                let end = (payload as u64).checked_add(size).filter(|&end| end <= len)?;
                if end > prefix.len() as u64 {
                    return (tag == RAW_DATA).then_some(RawField { key, payload, end });
                }
                size as usize
            }
            WireType::StartGroup | WireType::EndGroup => return None,
        };
        rest = rest.get(skip..)?;
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use prost::encoding::{encode_key, encode_varint};

    use super::*;
    use crate::tensor::file::{ReadPath, read_tensor_file_by};
    use crate::tensor::{decode_tensor, encode_tensor};

    /// Element bytes that reach well past the prefix.
    const BIG: usize = 3 * FRAME;

    /// What `path` decodes to when read whole and decoded in memory, as before the direct
    /// path: the reference every read must match, down to the error message.
    fn reference(path: &Path, options: &DecodeOptions) -> Result<Tensor, String> {
        let bytes = bytes::Bytes::from(std::fs::read(path).unwrap());
        let proto = TensorProto::decode(bytes).map_err(|e| FileProblem::from(e).at(path).to_string())?;
        decode_tensor(&proto, options).map_err(|problem| FileProblem::tensor(&proto, problem).at(path).to_string())
    }

    /// Type, shape and bits: NaN payloads compare too.
    fn bits(tensor: &Tensor) -> (DataType, Vec<usize>, Vec<u8>) {
        (tensor.data_type(), tensor.shape().to_vec(), tensor.raw_bytes().unwrap())
    }

    /// Writes `bytes` as a tensor file in a scratch directory and calls `read` on it; in its
    /// errors, the directory reads `DIR`, so two reads' messages compare.
    fn on_file<T>(bytes: &[u8], read: impl FnOnce(&Path) -> Result<T, String>) -> Result<T, String> {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("input_0.pb");
        std::fs::write(&path, bytes).unwrap();
        read(&path).map_err(|e| e.replace(&dir.path().display().to_string(), "DIR"))
    }

    /// Reads `bytes` as a file the way `read_tensor_file` does, checks the outcome is the
    /// reference's, and returns the tensor and how it was read.
    fn read_as_before(bytes: &[u8], options: &DecodeOptions) -> Result<(Tensor, ReadPath), String> {
        on_file(bytes, |path| {
            let read = read_tensor_file_by(path, options).map_err(|e| e.to_string());
            match (&read, reference(path, options)) {
                (Ok((tensor, _)), Ok(expected)) => assert_eq!(bits(tensor), bits(&expected)),
                (Err(error), Err(expected)) => assert_eq!(error, &expected),
                (read, expected) => panic!("read {read:?}, but read whole it is {expected:?}"),
            }
            read
        })
    }

    /// `read_direct` on `bytes` as a file, with its error as the file's message.
    fn direct(bytes: &[u8], options: &DecodeOptions) -> Result<Option<Tensor>, String> {
        on_file(bytes, |path| {
            let mut file = File::open(path).unwrap();
            read_direct(&mut file, bytes.len() as u64, options).map_err(|problem| problem.at(path).to_string())
        })
    }

    fn key(out: &mut Vec<u8>, tag: u32, wire_type: WireType) {
        encode_key(tag, wire_type, out);
    }

    fn varint_field(out: &mut Vec<u8>, tag: u32, value: u64) {
        key(out, tag, WireType::Varint);
        encode_varint(value, out);
    }

    fn bytes_field(out: &mut Vec<u8>, tag: u32, payload: &[u8]) {
        key(out, tag, WireType::LengthDelimited);
        encode_varint(payload.len() as u64, out);
        out.extend_from_slice(payload);
    }

    /// `count` floats 0.5, 1.5, 2.5, … as raw_data bytes.
    fn floats(count: usize) -> (Vec<f32>, Vec<u8>) {
        let values: Vec<f32> = (0..count).map(|i| i as f32 + 0.5).collect();
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        (values, raw)
    }

    fn float_file(dims: &[i64], raw: &[u8]) -> Vec<u8> {
        TensorProto {
            dims: dims.to_vec(),
            data_type: DataType::Float.code(),
            name: "x".into(),
            raw_data: Some(bytes::Bytes::copy_from_slice(raw)),
            ..Default::default()
        }
        .encode_to_vec()
    }

    fn options() -> DecodeOptions {
        DecodeOptions::default()
    }

    #[test]
    fn every_plain_type_is_read_straight_into_its_buffer_as_before() {
        let plain = [
            DataType::Float,
            DataType::Double,
            DataType::Float16,
            DataType::Bfloat16,
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
            DataType::Uint8,
            DataType::Uint16,
            DataType::Uint32,
            DataType::Uint64,
            DataType::Complex64,
            DataType::Complex128,
        ];
        // Types whose raw data is converted are read whole, to the same tensor.
        let converted = [DataType::Bool, DataType::Float8E4M3FN, DataType::Int4];
        for data_type in plain.into_iter().chain(converted) {
            let width = data_type.bit_width().unwrap() as usize;
            let count = BIG * 8 / width;
            let packed = count * width / 8;
            let raw: Vec<u8> = (0..packed)
                .map(|i| match data_type {
                    DataType::Bool => (i % 3 == 0) as u8,
                    _ => (i * 31 + 7) as u8,
                })
                .collect();
            let tensor = Tensor::from_raw(data_type, &[3, count / 3], &raw).unwrap();
            let file = encode_tensor(&tensor, "x").encode_to_vec();
            let (read, how) = read_as_before(&file, &options()).unwrap();
            assert_eq!(bits(&read), bits(&tensor), "{data_type}");
            let expected = if plain.contains(&data_type) {
                ReadPath::Direct
            } else {
                ReadPath::Whole
            };
            assert_eq!(how, expected, "{data_type}");
        }
    }

    #[test]
    fn fields_in_any_order_around_raw_data_are_read_directly() {
        let count = BIG / 4;
        let (values, raw) = floats(count);
        let dims = |out: &mut Vec<u8>| {
            varint_field(out, 1, 2);
            varint_field(out, 1, (count / 2) as u64);
        };
        let packed_dims = |out: &mut Vec<u8>| {
            let mut packed = Vec::new();
            encode_varint(2, &mut packed);
            encode_varint((count / 2) as u64, &mut packed);
            bytes_field(out, 1, &packed);
        };
        let data_type = |out: &mut Vec<u8>| varint_field(out, 2, DataType::Float.code() as u64);
        let name = |out: &mut Vec<u8>| bytes_field(out, 8, b"x");
        let raw_data = |out: &mut Vec<u8>| bytes_field(out, 9, &raw);
        // Fields the message does not declare are skipped, whatever their wire type.
        let unknown = |out: &mut Vec<u8>| {
            key(out, 100, WireType::ThirtyTwoBit);
            out.extend_from_slice(&[1, 2, 3, 4]);
            key(out, 101, WireType::SixtyFourBit);
            out.extend_from_slice(&[0; 8]);
            varint_field(out, 102, u64::MAX);
        };
        type Field<'a> = &'a dyn Fn(&mut Vec<u8>);
        let layouts: [&[Field]; 4] = [
            &[&raw_data, &dims, &data_type, &name],
            &[&data_type, &raw_data, &packed_dims, &name],
            &[&name, &unknown, &dims, &data_type, &raw_data],
            &[&unknown, &packed_dims, &raw_data, &unknown, &data_type],
        ];
        for (i, layout) in layouts.into_iter().enumerate() {
            let mut file = Vec::new();
            for field in layout {
                field(&mut file);
            }
            let (tensor, how) = read_as_before(&file, &options()).unwrap();
            assert_eq!(how, ReadPath::Direct, "layout {i}");
            assert_eq!(tensor.shape(), [2, count / 2], "layout {i}");
            assert_eq!(tensor.as_slice::<f32>().unwrap(), values, "layout {i}");
        }
    }

    #[test]
    fn a_second_raw_data_field_wins_as_in_protobuf() {
        let (_, big) = floats(BIG / 4);
        let (small_values, small) = floats(4);
        let header = |dims: i64| {
            let mut out = Vec::new();
            varint_field(&mut out, 1, dims as u64);
            varint_field(&mut out, 2, DataType::Float.code() as u64);
            out
        };
        // A big payload, then a small one that matches the dims: the small one is the data.
        let mut big_then_small = header(4);
        bytes_field(&mut big_then_small, 9, &big);
        bytes_field(&mut big_then_small, 9, &small);
        let (tensor, how) = read_as_before(&big_then_small, &options()).unwrap();
        assert_eq!(
            (tensor.as_slice::<f32>().unwrap(), how),
            (&small_values[..], ReadPath::Whole)
        );
        // A small payload inside the prefix, then the big one that matches the dims.
        let (big_values, _) = floats(BIG / 4);
        let mut small_then_big = header((BIG / 4) as i64);
        bytes_field(&mut small_then_big, 9, &small);
        bytes_field(&mut small_then_big, 9, &big);
        let (tensor, how) = read_as_before(&small_then_big, &options()).unwrap();
        assert_eq!(
            (tensor.as_slice::<f32>().unwrap(), how),
            (&big_values[..], ReadPath::Whole)
        );
    }

    #[test]
    fn refusals_of_the_direct_path_are_the_whole_files() {
        let (_, raw) = floats(BIG / 4);
        let segment = {
            let mut file = float_file(&[(BIG / 4) as i64], &raw);
            bytes_field(&mut file, 3, &[8, 1, 16, 2]);
            file
        };
        let cases = [
            // raw_data is not the length the dims call for.
            (float_file(&[10], &raw), "raw_data holds"),
            (float_file(&[(BIG / 4 + 1) as i64], &raw), "raw_data holds"),
            (float_file(&[-1], &raw), "negative extent"),
            (segment, "segment is set"),
            (
                TensorProto {
                    data_type: 0,
                    raw_data: Some(raw.clone().into()),
                    ..Default::default()
                }
                .encode_to_vec(),
                "not a known ONNX element type",
            ),
        ];
        for (file, message) in cases {
            let error = direct(&file, &options()).unwrap_err();
            assert!(error.contains(message) && error.contains("input_0.pb"), "{error}");
            assert_eq!(read_as_before(&file, &options()).unwrap_err(), error);
        }
        // Over the tensor limit: refused before the buffer is allocated.
        let small = DecodeOptions {
            max_bytes: 1000,
            ..options()
        };
        let error = direct(&float_file(&[(BIG / 4) as i64], &raw), &small).unwrap_err();
        assert!(error.contains("over the limit of 1000"), "{error}");
    }

    #[test]
    fn what_the_direct_path_does_not_judge_is_read_whole_to_the_same_outcome() {
        let count = BIG / 4;
        let (values, raw) = floats(count);
        let proto = |f: &dyn Fn(&mut TensorProto)| {
            let mut proto = TensorProto::decode(&float_file(&[count as i64], &raw)[..]).unwrap();
            f(&mut proto);
            proto.encode_to_vec()
        };
        let large_float_data = proto(&|p| {
            p.raw_data = None;
            p.float_data = values.clone();
        });
        // A large field after raw_data: the skeleton stays small.
        let mut late_name = float_file(&[count as i64], &raw);
        bytes_field(&mut late_name, 8, &vec![b'n'; FRAME + 1]);
        let cases = [
            (large_float_data, Ok(())),
            (late_name, Ok(())),
            (proto(&|p| p.int32_data = vec![1]), Err("both raw_data and int32_data")),
            (
                proto(&|p| p.data_type = DataType::String.code()),
                Err("not allowed for tensor(string)"),
            ),
            (
                proto(&|p| p.data_location = DATA_LOCATION_EXTERNAL),
                Err("external data location"),
            ),
            // A large field other than raw_data.
            (proto(&|p| p.name = "n".repeat(FRAME)), Ok(())),
        ];
        for (file, outcome) in cases {
            assert_eq!(direct(&file, &options()), Ok(None));
            match (read_as_before(&file, &options()), outcome) {
                (Ok((tensor, how)), Ok(())) => {
                    assert_eq!(tensor.as_slice::<f32>().unwrap(), values);
                    assert_eq!(how, ReadPath::Whole);
                }
                (Err(error), Err(message)) => assert!(error.contains(message), "{error}"),
                (read, outcome) => panic!("read {read:?}, expected {outcome:?}"),
            }
        }
    }

    #[test]
    fn a_raw_data_longer_than_the_file_is_the_whole_files_error() {
        let (_, raw) = floats(BIG / 4);
        let file = float_file(&[(BIG / 4) as i64], &raw);
        let cut = &file[..file.len() - 1];
        assert_eq!(direct(cut, &options()), Ok(None));
        let error = read_as_before(cut, &options()).unwrap_err();
        assert!(
            error.contains("input_0.pb") && error.contains("malformed protobuf"),
            "{error}"
        );
    }

    #[test]
    fn a_file_truncated_while_it_is_read_is_an_error_naming_it() {
        let (_, raw) = floats(BIG / 4);
        let bytes = float_file(&[(BIG / 4) as i64], &raw);
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("input_0.pb");
        std::fs::write(&path, &bytes).unwrap();
        let mut file = File::open(&path).unwrap();
        // Cut after its size was taken, as another process might.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(bytes.len() as u64 / 2)
            .unwrap();
        match read_direct(&mut file, bytes.len() as u64, &options()) {
            Err(problem @ FileProblem::Io(_)) => {
                let FileProblem::Io(e) = &problem else { unreachable!() };
                assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
                assert!(problem.at(&path).to_string().contains("input_0.pb"));
            }
            other => panic!("expected an end-of-file error, got {other:?}"),
        }
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_it_is_read() {
        let (_, raw) = floats((3 << 20) / 4);
        let small = DecodeOptions {
            max_bytes: 1 << 20,
            ..options()
        };
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("input_0.pb");
        std::fs::write(&path, float_file(&[(raw.len() / 4) as i64], &raw)).unwrap();
        let error = read_tensor_file_by(&path, &small).unwrap_err();
        assert!(
            matches!(error.problem, FileProblem::TooLarge { limit, .. } if limit == 2 << 20),
            "{error}"
        );
    }

    #[test]
    fn the_field_walk_finds_raw_data_or_gives_up() {
        let len = 2 * FRAME as u64;
        let mut found = Vec::new();
        varint_field(&mut found, 2, 1);
        key(&mut found, 9, WireType::LengthDelimited);
        encode_varint(len - 6, &mut found);
        let prefix = |bytes: &[u8]| [bytes, &vec![0; FRAME - bytes.len()]].concat();
        assert_eq!(
            locate_raw_data(&prefix(&found), len),
            Some(RawField {
                key: 2,
                payload: 6,
                end: len
            })
        );
        // One byte past the file's end.
        assert_eq!(locate_raw_data(&prefix(&found), len - 1), None);
        let mut group = Vec::new();
        key(&mut group, 5, WireType::StartGroup);
        let truncated = &found[..found.len() - 1];
        let mut other_field = Vec::new();
        key(&mut other_field, 8, WireType::LengthDelimited);
        encode_varint(len - 5, &mut other_field);
        for bytes in [&group[..], &other_field[..], &[0, 0][..]] {
            assert_eq!(locate_raw_data(&prefix(bytes), len), None, "{bytes:?}");
        }
        // A varint cut by the end of the prefix.
        let cut = [&vec![0x08; FRAME - 1][..], truncated].concat();
        assert_eq!(locate_raw_data(&cut[..FRAME], len), None);
        // A prefix of small fields only.
        assert_eq!(locate_raw_data(&vec![0x08; FRAME], len), None);
    }
}
