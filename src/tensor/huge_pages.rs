//! Transparent huge pages for large buffers. A fresh buffer costs a page fault per page on
//! first touch; backed by 2 MiB pages instead of 4 KiB ones, a 64 MiB tensor takes 32 faults
//! instead of 16,384. Where THP is `madvise` (as on many distributions), the kernel uses them
//! only for ranges advised so. A no-op off Linux, for small buffers, and where the kernel
//! declines.

/// The huge page size advised for, and the smallest buffer worth advising twice over.
const HUGE_PAGE: usize = 2 << 20;

/// Advises the whole 2 MiB pages inside the capacity of `buffer` for huge pages. Call it
/// before the buffer is first written.
pub(crate) fn advise_capacity<T>(buffer: &Vec<T>) {
    advise(buffer.as_ptr().cast(), buffer.capacity() * size_of::<T>());
}

/// Advises the whole 2 MiB pages inside `len` bytes from `start` for huge pages.
pub(crate) fn advise(start: *const u8, len: usize) {
    if len < 2 * HUGE_PAGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let first = (start as usize).next_multiple_of(HUGE_PAGE);
        let end = (start as usize + len) / HUGE_PAGE * HUGE_PAGE;
        if end > first {
            // SAFETY: madvise(MADV_HUGEPAGE) changes how the kernel backs pages, never their
            // contents, and the range lies inside one live allocation of ours. Its result is
            // only advice taken or not: an error leaves ordinary pages.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    // Huge pages are advised on Linux only.
    #[cfg(not(target_os = "linux"))]
    let _ = start;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advised_buffers_keep_their_contents() {
        let mut big: Vec<u32> = Vec::with_capacity(8 << 20);
        advise_capacity(&big);
        big.extend(0..8 << 20);
        assert_eq!(big[(8 << 20) - 1], (8 << 20) - 1);
        let small = vec![1u8; 16];
        advise_capacity(&small);
        assert_eq!(small, [1; 16]);
    }
}
