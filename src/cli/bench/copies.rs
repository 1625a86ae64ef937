//! The copies a figure is measured against. A memcpy alone would flatter the kernel, which
//! writes large outputs with streaming stores that a memcpy of the same size may not use (this
//! machine's glibc streams only above 240 MiB): so each figure is also timed against a copy
//! with streaming stores, and the faster of the two is the baseline.

use std::hint::black_box;

/// Copies `source` into `target`, reused from round to round, with the C library's memcpy.
pub(super) fn memcpy_into(target: &mut Vec<u8>, source: &[u8]) {
    target.clear();
    target.extend_from_slice(source);
    black_box(target);
}

/// Copies `source` into `target`, reused from round to round, with streaming stores where
/// the kernel uses them (x86_64), and with memcpy elsewhere.
pub(super) fn stream_copy_into(target: &mut Vec<u8>, source: &[u8]) {
    target.clear();
    #[cfg(target_arch = "x86_64")]
    crate::reference::extend_streaming(target, source.len(), |writer| writer.write(source));
    #[cfg(not(target_arch = "x86_64"))]
    target.extend_from_slice(source);
    black_box(target);
}

/// Copies `source` into a fresh buffer advised for huge pages, as the kernels' fresh outputs
/// are, and frees it.
pub(super) fn fresh_memcpy(source: &[u8]) {
    let mut target = Vec::with_capacity(source.len());
    crate::tensor::huge_pages::advise_capacity(&target);
    target.extend_from_slice(source);
    black_box(target);
}

/// Copies `source` into a fresh buffer advised for huge pages with streaming stores (memcpy
/// off x86_64), and frees it.
pub(super) fn fresh_stream_copy(source: &[u8]) {
    let mut target = Vec::new();
    stream_copy_into(&mut target, source);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_copy_copies_every_byte() {
        // Odd lengths and offsets exercise the streaming writer's ragged ends.
        let source: Vec<u8> = (0..100_003u32).map(|i| (i * 7 % 251) as u8).collect();
        for slice in [&source[..], &source[1..], &source[3..40], &source[..0]] {
            let mut target = vec![9u8; 5];
            memcpy_into(&mut target, slice);
            assert_eq!(target, slice);
            let mut target = vec![9u8; 5];
            stream_copy_into(&mut target, slice);
            assert_eq!(target, slice);
        }
    }
}
