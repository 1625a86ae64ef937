//! The 4-bit and 2-bit integer types, one element per byte in memory.
//!
//! ONNX packs them two (4-bit) or four (2-bit) to a byte, low bits first. Unpacking at the
//! edges lets every kernel treat them as ordinary elements, so padding works element by
//! element and never byte by byte.

/// Signed 4-bit integer, -8..=7.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Int4(pub i8);

/// Unsigned 4-bit integer, 0..=15.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Uint4(pub u8);

/// Signed 2-bit integer, -2..=1.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Int2(pub i8);

/// Unsigned 2-bit integer, 0..=3.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Uint2(pub u8);

/// A sub-byte element: its width and its packed bit pattern.
pub(crate) trait SubByte: Copy {
    /// Bits per element: 4 or 2.
    const BITS: u32;
    /// The element for the low `BITS` bits of `bits` (higher bits ignored).
    fn from_bits(bits: u8) -> Self;
    /// The element's bit pattern, in the low `BITS` bits.
    fn to_bits(self) -> u8;
}

/// Sign-extends the low `bits` bits of `v`.
pub(super) fn sign_extend(v: u8, bits: u32) -> i8 {
    let shift = 8 - bits;
    ((v << shift) as i8) >> shift
}

impl SubByte for Int4 {
    const BITS: u32 = 4;
    fn from_bits(bits: u8) -> Self {
        Int4(sign_extend(bits, 4))
    }
    fn to_bits(self) -> u8 {
        self.0 as u8 & 0x0F
    }
}

impl SubByte for Uint4 {
    const BITS: u32 = 4;
    fn from_bits(bits: u8) -> Self {
        Uint4(bits & 0x0F)
    }
    fn to_bits(self) -> u8 {
        self.0 & 0x0F
    }
}

impl SubByte for Int2 {
    const BITS: u32 = 2;
    fn from_bits(bits: u8) -> Self {
        Int2(sign_extend(bits, 2))
    }
    fn to_bits(self) -> u8 {
        self.0 as u8 & 0x03
    }
}

impl SubByte for Uint2 {
    const BITS: u32 = 2;
    fn from_bits(bits: u8) -> Self {
        Uint2(bits & 0x03)
    }
    fn to_bits(self) -> u8 {
        self.0 & 0x03
    }
}

impl SubByte for super::Float4E2M1 {
    const BITS: u32 = 4;
    fn from_bits(bits: u8) -> Self {
        super::Float4E2M1::from_bits(bits & 0x0F)
    }
    fn to_bits(self) -> u8 {
        super::Float4E2M1::to_bits(self) & 0x0F
    }
}

/// Bytes needed to pack `count` elements of `bits` bits.
pub(super) fn packed_len(count: usize, bits: u32) -> usize {
    let per_byte = (8 / bits) as usize;
    count.div_ceil(per_byte)
}

/// Unpacks `count` elements from `packed`, low bits first. `packed` must hold
/// `packed_len(count, T::BITS)` bytes; padding bits of the last byte are ignored.
pub(super) fn unpack<T: SubByte>(packed: &[u8], count: usize) -> Vec<T> {
    let per_byte = (8 / T::BITS) as usize;
    (0..count)
        .map(|i| T::from_bits(packed[i / per_byte] >> ((i % per_byte) as u32 * T::BITS)))
        .collect()
}

/// Packs elements low bits first; the unused bits of the last byte are zero.
pub(super) fn pack<T: SubByte>(values: &[T]) -> Vec<u8> {
    let per_byte = (8 / T::BITS) as usize;
    values
        .chunks(per_byte)
        .map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u8, |byte, (i, v)| byte | (v.to_bits() << (i as u32 * T::BITS)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int4_unpacks_low_nibble_first_with_sign() {
        // 0x8F: low nibble 0xF = -1, high nibble 0x8 = -8; 0x07: 7, then padding.
        let v: Vec<Int4> = unpack(&[0x8F, 0x07], 3);
        assert_eq!(v, [Int4(-1), Int4(-8), Int4(7)]);
        assert_eq!(pack(&v), [0x8F, 0x07]);
    }

    #[test]
    fn uint2_packs_four_per_byte() {
        let v = [Uint2(1), Uint2(2), Uint2(3), Uint2(0), Uint2(3)];
        let packed = pack(&v);
        assert_eq!(packed, [0b00_11_10_01, 0b11]);
        assert_eq!(unpack::<Uint2>(&packed, 5), v);
        assert_eq!(packed_len(5, 2), 2);
    }

    #[test]
    fn int2_covers_its_range() {
        let v: Vec<Int2> = unpack(&[0b11_10_01_00], 4);
        assert_eq!(v, [Int2(0), Int2(1), Int2(-2), Int2(-1)]);
    }
}
