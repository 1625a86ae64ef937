//! Random element values of every ONNX type: ordinary values mostly, and each type's special
//! values (NaN with payloads, ±inf, −0.0, subnormals, min and max, float64 values no float32
//! holds, empty and non-ASCII strings) often enough to reach the corners of a backend's copy
//! loops and comparisons — and in a constant, whose one value fills all the padding, often.

use half::{bf16, f16};
use num_complex::Complex;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::tensor::{
    DataType, Float4E2M1, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Int2, Int4, Tensor,
    Uint2, Uint4,
};

/// The chance that an element of the data is one of its type's special values.
const SPECIAL: f64 = 0.1;

/// The chance that a constant is one: a constant's sign of zero or NaN payload is copied
/// into every padded element.
const CONSTANT_SPECIAL: f64 = 0.4;

/// Strings the data draws from: empty, non-ASCII, combining, an emoji, a NUL.
const WORDS: [&str; 9] = ["", "a", "pad", "é", "e\u{301}", "日本", "🙂", "a b", "\0x"];

/// A data tensor of `dtype` and `shape` with random values.
pub(super) fn random_tensor(dtype: DataType, shape: &[usize], rng: &mut ChaCha8Rng) -> Tensor {
    random_values(dtype, shape, rng, SPECIAL)
}

/// A constant value of `dtype` and `shape`: special values more often.
pub(super) fn random_constant(dtype: DataType, shape: &[usize], rng: &mut ChaCha8Rng) -> Tensor {
    random_values(dtype, shape, rng, CONSTANT_SPECIAL)
}

/// A tensor with a share `special` of special values.
fn random_values(dtype: DataType, shape: &[usize], rng: &mut ChaCha8Rng, special: f64) -> Tensor {
    let n: usize = shape.iter().product();
    macro_rules! fill {
        ($make:expr) => {{
            let values: Vec<_> = (0..n).map(|_| $make(&mut *rng)).collect();
            Tensor::from_vec(shape, values).expect("n elements for the shape")
        }};
    }
    match dtype {
        DataType::Float => fill!(|r: &mut ChaCha8Rng| float_bits(r, special, f32_special, |v| v as f32)),
        DataType::Double => fill!(|r: &mut ChaCha8Rng| float_bits(r, special, f64_special, |v| v)),
        DataType::Float16 => fill!(|r: &mut ChaCha8Rng| float_bits(r, special, f16_special, f16::from_f64)),
        DataType::Bfloat16 => fill!(|r: &mut ChaCha8Rng| float_bits(r, special, bf16_special, bf16::from_f64)),
        DataType::Complex64 => fill!(|r: &mut ChaCha8Rng| Complex::new(
            float_bits(r, special, f32_special, |v| v as f32),
            float_bits(r, special, f32_special, |v| v as f32)
        )),
        DataType::Complex128 => fill!(|r: &mut ChaCha8Rng| Complex::new(
            float_bits(r, special, f64_special, |v| v),
            float_bits(r, special, f64_special, |v| v)
        )),
        DataType::Int8 => fill!(|r: &mut ChaCha8Rng| int(r, special, i8::MIN as i64, i8::MAX as i64) as i8),
        DataType::Int16 => fill!(|r: &mut ChaCha8Rng| int(r, special, i16::MIN as i64, i16::MAX as i64) as i16),
        DataType::Int32 => fill!(|r: &mut ChaCha8Rng| int(r, special, i32::MIN as i64, i32::MAX as i64) as i32),
        DataType::Int64 => fill!(|r: &mut ChaCha8Rng| int(r, special, i64::MIN, i64::MAX)),
        DataType::Uint8 => fill!(|r: &mut ChaCha8Rng| int(r, special, 0, u8::MAX as i64) as u8),
        DataType::Uint16 => fill!(|r: &mut ChaCha8Rng| int(r, special, 0, u16::MAX as i64) as u16),
        DataType::Uint32 => fill!(|r: &mut ChaCha8Rng| int(r, special, 0, u32::MAX as i64) as u32),
        DataType::Uint64 => fill!(|r: &mut ChaCha8Rng| {
            if r.random_bool(special) {
                u64::MAX
            } else {
                int(r, special, 0, 100) as u64
            }
        }),
        DataType::Bool => fill!(|r: &mut ChaCha8Rng| r.random_bool(0.5)),
        DataType::String => fill!(|r: &mut ChaCha8Rng| WORDS[r.random_range(0..WORDS.len())].as_bytes().to_vec()),
        DataType::Int4 => fill!(|r: &mut ChaCha8Rng| Int4(r.random_range(-8..=7))),
        DataType::Uint4 => fill!(|r: &mut ChaCha8Rng| Uint4(r.random_range(0..=15))),
        DataType::Int2 => fill!(|r: &mut ChaCha8Rng| Int2(r.random_range(-2..=1))),
        DataType::Uint2 => fill!(|r: &mut ChaCha8Rng| Uint2(r.random_range(0..=3))),
        // Every bit pattern of the 8- and 4-bit floats is a value worth padding, NaNs included.
        DataType::Float8E4M3FN => fill!(|r: &mut ChaCha8Rng| Float8E4M3FN::from_bits(r.random())),
        DataType::Float8E4M3FNUZ => fill!(|r: &mut ChaCha8Rng| Float8E4M3FNUZ::from_bits(r.random())),
        DataType::Float8E5M2 => fill!(|r: &mut ChaCha8Rng| Float8E5M2::from_bits(r.random())),
        DataType::Float8E5M2FNUZ => fill!(|r: &mut ChaCha8Rng| Float8E5M2FNUZ::from_bits(r.random())),
        DataType::Float8E8M0 => fill!(|r: &mut ChaCha8Rng| Float8E8M0::from_bits(r.random())),
        DataType::Float4E2M1 => fill!(|r: &mut ChaCha8Rng| Float4E2M1::from_bits(r.random())),
    }
}

/// An ordinary value (a multiple of 1/8 in [-6, 6], exact in every float format) or a
/// special one.
fn float_bits<T>(rng: &mut ChaCha8Rng, share: f64, special: fn(&mut ChaCha8Rng) -> T, make: impl Fn(f64) -> T) -> T {
    if rng.random_bool(share) {
        special(rng)
    } else {
        make(f64::from(rng.random_range(-48i32..=48)) / 8.0)
    }
}

fn int(rng: &mut ChaCha8Rng, share: f64, min: i64, max: i64) -> i64 {
    if rng.random_bool(share) {
        if rng.random_bool(0.5) { min } else { max }
    } else {
        rng.random_range(min.max(-100)..=max.min(100))
    }
}

fn f32_special(rng: &mut ChaCha8Rng) -> f32 {
    match rng.random_range(0..6) {
        // A NaN with a random payload and sign: a copy must keep its bits.
        0 => f32::from_bits(0x7fc0_0000 | rng.random_range(1..0x0040_0000u32) | (rng.random::<u32>() & 0x8000_0000)),
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => f32::from_bits(rng.random_range(1..0x0080_0000u32)), // subnormal
        _ => {
            if rng.random_bool(0.5) {
                f32::MAX
            } else {
                f32::MIN
            }
        }
    }
}

fn f64_special(rng: &mut ChaCha8Rng) -> f64 {
    match rng.random_range(0..7) {
        0 => f64::from_bits(0x7ff8_0000_0000_0000 | rng.random_range(1..1u64 << 51) | (rng.random::<u64>() & 1 << 63)),
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => -0.0,
        4 => f64::from_bits(rng.random_range(1..1u64 << 52)),
        // No float32 holds it: a backend computing in float32 rounds it.
        5 => {
            f64::from_bits(0x3ff0_0000_0000_0000 | rng.random_range(1..1u64 << 29))
                * if rng.random_bool(0.5) { 1.0 } else { 1e300 }
        }
        _ => {
            if rng.random_bool(0.5) {
                f64::MAX
            } else {
                f64::MIN
            }
        }
    }
}

fn f16_special(rng: &mut ChaCha8Rng) -> f16 {
    match rng.random_range(0..6) {
        0 => f16::from_bits(0x7e00 | rng.random_range(1..0x0200u16) | (rng.random::<u16>() & 0x8000)),
        1 => f16::INFINITY,
        2 => f16::NEG_INFINITY,
        3 => f16::NEG_ZERO,
        4 => {
            if rng.random_bool(0.5) {
                f16::MAX
            } else {
                f16::MIN
            }
        }
        _ => f16::from_bits(rng.random_range(1..0x0400u16)),
    }
}

fn bf16_special(rng: &mut ChaCha8Rng) -> bf16 {
    match rng.random_range(0..6) {
        0 => bf16::from_bits(0x7fc0 | rng.random_range(1..0x0040u16) | (rng.random::<u16>() & 0x8000)),
        1 => bf16::INFINITY,
        2 => bf16::NEG_INFINITY,
        3 => bf16::NEG_ZERO,
        4 => {
            if rng.random_bool(0.5) {
                bf16::MAX
            } else {
                bf16::MIN
            }
        }
        _ => bf16::from_bits(rng.random_range(1..0x0080u16)),
    }
}
