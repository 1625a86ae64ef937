//! Writing a large output with streaming stores (x86_64).
//!
//! An ordinary store first reads the destination's cache line from memory (read for
//! ownership) and leaves the line in the cache; a streaming (non-temporal) store skips both.
//! For an output larger than the last-level cache, evicted before anyone reads it again, that
//! removes one of the three memory streams (read the input, read the output, write the output).
//!
//! Streaming stores must be 16-byte aligned, and a cache line written partly by ordinary stores
//! and partly by streaming ones is slow (a padding written so ran at half the speed of a copy),
//! so [`StreamWriter`] gathers what it is given into the aligned 16-byte chunks of the
//! destination and streams each chunk whole. Only the chunks at the two ends, which reach
//! outside the destination, are written with ordinary stores.
#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::{__m128i, _mm_sfence, _mm_stream_si128};
use std::mem::MaybeUninit;

use bytemuck::Pod;

/// Appends `len` elements to `out`, whose bytes `write` gives in order to a [`StreamWriter`].
///
/// Panics if `write` gives more or fewer than `len` elements' bytes (`out` then keeps its
/// elements).
pub(crate) fn extend_streaming<T: Pod>(out: &mut Vec<T>, len: usize, write: impl FnOnce(&mut StreamWriter<'_>)) {
    out.reserve(len);
    crate::tensor::huge_pages::advise_capacity(out);
    let spare = &mut out.spare_capacity_mut()[..len];
    let bytes = size_of_val(spare);
    // SAFETY: `spare` is `bytes` bytes of one allocation, borrowed exclusively for as long as
    // `dst` lives; `MaybeUninit<u8>` has alignment 1 and no validity requirement.
    let dst = unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<MaybeUninit<u8>>(), bytes) };
    let mut writer = StreamWriter::new(dst);
    write(&mut writer);
    let written = writer.finish();
    assert_eq!(written, bytes, "the writer was given {written} bytes for {bytes}");
    // SAFETY: the writer wrote every byte of the first `len` spare elements: it writes its
    // destination in order from the start, and `finish` returned how far it got and fenced the
    // streaming stores. It is still the writer made here on `dst`: `write` can neither make
    // another (`new` is private to this module) nor move it out. Any bytes are a valid `T`,
    // which is `Pod`.
    unsafe { out.set_len(out.len() + len) };
}

/// Writes a stream of bytes to its destination with 16-byte streaming stores.
///
/// The chunk in progress is kept in a register, so that the short runs of a padding (a border
/// of two elements) cost a few instructions each rather than a call to `memcpy`.
pub(crate) struct StreamWriter<'a> {
    dst: &'a mut [MaybeUninit<u8>],
    /// How far `dst` starts past a 16-byte boundary: the first chunk is partly outside `dst`.
    lead: usize,
    /// Bytes given so far; `dst[..len]` is written except for the chunk in progress.
    len: usize,
    /// The 16 bytes of memory in progress, little-endian: those below `given()` are given (for
    /// the first chunk, the `lead` bytes before `dst` count as given), the others are zero.
    chunk: u128,
}

impl<'a> StreamWriter<'a> {
    fn new(dst: &'a mut [MaybeUninit<u8>]) -> StreamWriter<'a> {
        StreamWriter {
            lead: dst.as_ptr().addr() % 16,
            dst,
            len: 0,
            chunk: 0,
        }
    }

    /// Appends `bytes`. Short writes (a padding's borders) stay in registers, inline.
    #[inline]
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        self.check_room(bytes.len());
        match bytes.first_chunk::<16>() {
            None => self.append(load_short(bytes), bytes.len()),
            Some(_) => self.write_long(bytes),
        }
    }

    /// Appends `len` bytes of `pattern` repeated (byte `i` of the fill is `pattern[i % 16]`).
    #[inline]
    pub(crate) fn write_repeated(&mut self, pattern: [u8; 16], len: usize) {
        self.check_room(len);
        let pattern = u128::from_le_bytes(pattern);
        match len {
            0..16 => self.append(pattern & low_bytes(len), len),
            _ => self.write_repeated_long(pattern, len),
        }
    }

    /// [`write`](Self::write) of 16 bytes or more.
    fn write_long(&mut self, bytes: &[u8]) {
        let given = self.given();
        let mut rest = bytes;
        if given != 0 {
            let first = bytes.first_chunk::<16>().expect("at least 16 bytes");
            self.complete(self.chunk | u128::from_le_bytes(*first) << (8 * given));
            rest = &bytes[16 - given..];
        }
        let (lines, tail) = rest.as_chunks::<16>();
        for (line, &bytes) in self.next_lines(lines.len()).iter_mut().zip(lines) {
            stream(line, bytes);
        }
        if !tail.is_empty() {
            // The tail is the end of the last 16 bytes.
            let last = bytes.last_chunk::<16>().expect("at least 16 bytes");
            self.chunk = u128::from_le_bytes(*last) >> (8 * (16 - tail.len()));
            self.len += tail.len();
        }
    }

    /// [`write_repeated`](Self::write_repeated) of 16 bytes or more.
    fn write_repeated_long(&mut self, pattern: u128, len: usize) {
        let given = self.given();
        let mut line = pattern;
        let mut rest = len;
        if given != 0 {
            self.complete(self.chunk | pattern << (8 * given));
            // The rest of the fill starts at byte 16 - given of the pattern.
            line = pattern.rotate_right(8 * (16 - given) as u32);
            rest -= 16 - given;
        }
        for chunk in self.next_lines(rest / 16) {
            stream(chunk, line.to_le_bytes());
        }
        self.chunk = line & low_bytes(rest % 16);
        self.len += rest % 16;
    }

    /// Writes the chunk in progress with ordinary stores, orders the streaming stores before
    /// any later store (so another thread that is handed the output sees them), and returns
    /// how many bytes were written.
    fn finish(self) -> usize {
        let given = self.given();
        // The chunk's given bytes in `dst` (fewer for the first chunk, which starts before it).
        let start = self.len.saturating_sub(given);
        let bytes = self.chunk.to_le_bytes();
        write_plain(
            &mut self.dst[start..self.len],
            &bytes[given - (self.len - start)..given],
        );
        // SAFETY: SSE is part of the x86_64 baseline.
        unsafe { _mm_sfence() };
        self.len
    }

    fn check_room(&self, len: usize) {
        assert!(
            len <= self.dst.len() - self.len,
            "more bytes than the destination holds"
        );
    }

    /// How many bytes of the chunk in progress are given.
    fn given(&self) -> usize {
        (self.lead + self.len) % 16
    }

    /// Appends the `n` low bytes of `value` (fewer than 16; the others zero).
    #[inline]
    fn append(&mut self, value: u128, n: usize) {
        let given = self.given();
        if given + n < 16 {
            self.chunk |= value << (8 * given);
            self.len += n;
        } else {
            // `given` is at least 1: the bytes that do not fit start the next chunk.
            self.complete(self.chunk | value << (8 * given));
            self.chunk = value >> (8 * (16 - given));
            self.len += n - (16 - given);
        }
    }

    /// Writes `line`, the chunk in progress completed, and starts the next chunk.
    fn complete(&mut self, line: u128) {
        let given = self.given();
        match self.len.checked_sub(given) {
            Some(start) => stream(
                (&mut self.dst[start..start + 16]).try_into().unwrap(),
                line.to_le_bytes(),
            ),
            // The first chunk, which starts before `dst`.
            None => write_plain(&mut self.dst[..16 - self.lead], &line.to_le_bytes()[self.lead..]),
        }
        self.len += 16 - given;
        self.chunk = 0;
    }

    /// The next `count` whole chunks of `dst`, counted as written; no chunk may be in progress.
    fn next_lines(&mut self, count: usize) -> &mut [[MaybeUninit<u8>; 16]] {
        debug_assert_eq!(self.given(), 0);
        let start = self.len;
        self.len += 16 * count;
        self.dst[start..self.len].as_chunks_mut::<16>().0
    }
}

/// Fewer than 16 bytes as the low bytes of a number, the others zero: two overlapping reads
/// of the widest size that fits, rather than a loop or a call to `memcpy`.
#[inline]
fn load_short(bytes: &[u8]) -> u128 {
    fn overlapped<const N: usize>(bytes: &[u8], read: fn([u8; N]) -> u128) -> u128 {
        let (low, high) = (bytes.first_chunk().unwrap(), bytes.last_chunk().unwrap());
        read(*low) | read(*high) << (8 * (bytes.len() - N))
    }
    match bytes.len() {
        0 => 0,
        1 => u128::from(bytes[0]),
        2..4 => overlapped(bytes, |b| u16::from_le_bytes(b).into()),
        4..8 => overlapped(bytes, |b| u32::from_le_bytes(b).into()),
        8..16 => overlapped(bytes, |b| u64::from_le_bytes(b).into()),
        _ => panic!("{} bytes are not short", bytes.len()),
    }
}

/// The mask of the `n` low bytes of a `u128`, `n` below 16.
fn low_bytes(n: usize) -> u128 {
    (1 << (8 * n)) - 1
}

/// Stores `bytes` to `line` with a streaming store. Panics if `line` is not 16-byte aligned.
#[inline(always)]
fn stream(line: &mut [MaybeUninit<u8>; 16], bytes: [u8; 16]) {
    assert!(
        line.as_ptr().addr().is_multiple_of(16),
        "streaming store to an unaligned address"
    );
    // SAFETY: `line` is an exclusive borrow of 16 bytes, so valid for a 16-byte write, and
    // 16-byte aligned (checked above); SSE2 is part of the x86_64 baseline.
    unsafe { _mm_stream_si128(line.as_mut_ptr().cast::<__m128i>(), bytemuck::cast(bytes)) }
}

/// Writes `bytes` to `dst` with ordinary stores.
fn write_plain(dst: &mut [MaybeUninit<u8>], bytes: &[u8]) {
    for (d, &b) in dst.iter_mut().zip(bytes) {
        d.write(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A destination at every offset from a 16-byte boundary, and a way to read it back.
    fn with_destination(offset: usize, len: usize, f: impl FnOnce(&mut [MaybeUninit<u8>])) -> Vec<u8> {
        let mut buffer = vec![MaybeUninit::new(0xAAu8); len + 64];
        let start = buffer.as_ptr().align_offset(16) + offset;
        f(&mut buffer[start..start + len]);
        let check = |b: &MaybeUninit<u8>| {
            // SAFETY: every byte of `buffer` was initialized by `vec!`.
            unsafe { b.assume_init() }
        };
        assert!(
            buffer[..start]
                .iter()
                .chain(&buffer[start + len..])
                .all(|b| check(b) == 0xAA)
        );
        buffer[start..start + len].iter().map(check).collect()
    }

    #[test]
    fn write_copies_at_every_alignment_and_length() {
        for offset in 0..16 {
            for len in 0..100 {
                let source: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(7).wrapping_add(1)).collect();
                // One write, then the same bytes in pieces of every length 1..=17.
                let whole = with_destination(offset, len, |dst| {
                    let mut writer = StreamWriter::new(dst);
                    writer.write(&source);
                    assert_eq!(writer.finish(), len);
                });
                assert_eq!(whole, source, "offset {offset}, length {len}");
                for piece in 1..=17 {
                    let pieces = with_destination(offset, len, |dst| {
                        let mut writer = StreamWriter::new(dst);
                        source.chunks(piece).for_each(|p| writer.write(p));
                        assert_eq!(writer.finish(), len);
                    });
                    assert_eq!(pieces, source, "offset {offset}, length {len}, pieces of {piece}");
                }
            }
        }
    }

    #[test]
    fn write_repeated_fills_for_each_element_size_at_every_alignment() {
        for size in [1, 2, 4, 8, 16] {
            let element: Vec<u8> = (1..=size as u8).collect();
            for offset in 0..16 {
                for count in 0..40 {
                    // A fill after a 3-byte write, so the fill also starts mid-chunk.
                    let len = 3 + size * count;
                    let mut expected = vec![0xF0, 0xF1, 0xF2];
                    (0..count).for_each(|_| expected.extend_from_slice(&element));
                    let written = with_destination(offset, len, |dst| {
                        let mut writer = StreamWriter::new(dst);
                        writer.write(&expected[..3]);
                        let pattern = std::array::from_fn(|i| element[i % size]);
                        writer.write_repeated(pattern, size * count);
                        assert_eq!(writer.finish(), len);
                    });
                    assert_eq!(written, expected, "size {size}, offset {offset}, count {count}");
                }
            }
        }
    }

    #[test]
    fn extend_streaming_appends_elements_of_every_size() {
        fn check<T: Pod + PartialEq + std::fmt::Debug>(values: &[T], fill: T) {
            let mut out = vec![fill];
            extend_streaming(&mut out, 2 * values.len() + 3, |writer| {
                writer.write(bytemuck::cast_slice(values));
                let element = bytemuck::bytes_of(&fill);
                writer.write_repeated(std::array::from_fn(|i| element[i % element.len()]), 3 * element.len());
                writer.write(bytemuck::cast_slice(values));
            });
            let expected: Vec<T> = [&[fill][..], values, &[fill; 3], values].concat();
            assert_eq!(out, expected);
        }
        check(&(0..200u8).collect::<Vec<_>>(), 255);
        check(&(0..200u16).collect::<Vec<_>>(), 9999);
        check(&(0..200).map(|i| i as f32 + 0.5).collect::<Vec<_>>(), -1.0);
        check(&(0..200u64).collect::<Vec<_>>(), u64::MAX);
        let complex: Vec<num_complex::Complex<f64>> =
            (0..200).map(|i| num_complex::Complex::new(i as f64, -1.0)).collect();
        check(&complex, num_complex::Complex::new(7.0, 8.0));
    }

    #[test]
    #[should_panic(expected = "more bytes than the destination holds")]
    fn writing_past_the_end_panics() {
        let mut out: Vec<u32> = Vec::new();
        extend_streaming(&mut out, 2, |writer| writer.write(&[0; 12]));
    }

    #[test]
    fn too_few_bytes_panic_and_leave_the_output_unchanged() {
        let mut out = vec![1u32];
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            extend_streaming(&mut out, 2, |writer| writer.write(&[0; 4]));
        }));
        assert!(result.is_err());
        assert_eq!(out, [1]);
    }
}
