//! The process's global allocator: mimalloc, called through its plain entry points whenever
//! they already give the alignment a layout asks for.
//!
//! Why not `mimalloc::MiMalloc`: that wrapper sends every allocation to `mi_malloc_aligned`,
//! and mimalloc v3 serves an aligned request from its fast path only while the size class's
//! free list is non-empty, and otherwise takes the plain path only for power-of-two block
//! sizes. Any other size (a 24-, 48- or 80-byte block) falls back to over-allocation: it
//! is served from the next larger size class, so its own class's free list never refills and
//! every later request of that size pays the slow path again. Measured with callgrind on
//! `monotable serve`: 3.7 of a GetItem's 16 allocations took that path, about 270
//! instructions each instead of about 20. (The same finding: reussir-lang/reussir#339; the
//! wrapper crate has an open pull request, purpleprotocol/mimalloc_rust#170.)
//!
//! Invariant: `mi_malloc`, `mi_zalloc` and `mi_realloc` return blocks aligned to 16 bytes
//! (`MI_MAX_ALIGN_SIZE` on 64-bit targets) for any size of at least 16, and to the machine
//! word for smaller ones: every size class but the one-word class is a multiple of two words,
//! and a page's first block is 16-byte aligned. So a layout whose alignment is at most 16 and
//! at most its size is served by the plain entry points, exactly the rule `std`'s `System`
//! allocator applies to `malloc`. Everything else keeps the aligned entry points. The test
//! below checks the rule against this build of mimalloc for every small size and alignment.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The largest alignment the plain entry points give a block of at least that size.
const PLAIN_ALIGN: usize = 16;

fn plain(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

/// mimalloc as the global allocator (see the module documentation).
pub struct MonotableAlloc;

// SAFETY: every method forwards to the mimalloc function that honours the layout's size and
// alignment (see the module's invariant), and `dealloc` frees with `mi_free`, which accepts
// every pointer either family returns.
unsafe impl GlobalAlloc for MonotableAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the mimalloc functions have no preconditions beyond a valid size.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator, hence from mimalloc.
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new block keeps its
        // alignment by the same rule as `alloc`, applied to the new size.
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aligned(p: *mut u8, align: usize) -> bool {
        !p.is_null() && (p as usize).is_multiple_of(align)
    }

    /// The invariant the plain path relies on, checked against the mimalloc this binary links:
    /// every size up to 2 KiB and every alignment up to 16, allocated, zero-allocated and
    /// grown, comes back aligned (several blocks of each, so more than a page's first block).
    #[test]
    fn every_small_layout_comes_back_aligned() {
        let a = MonotableAlloc;
        for align in [1usize, 2, 4, 8, 16, 32, 64] {
            for size in (1..=2048usize).filter(|s| s.is_multiple_of(align) || *s < align) {
                let layout = Layout::from_size_align(size, align).unwrap();
                let mut held = Vec::new();
                for _ in 0..4 {
                    // SAFETY: the layout has a non-zero size; every block is freed below.
                    unsafe {
                        let p = a.alloc(layout);
                        assert!(aligned(p, align), "alloc {size}/{align}");
                        let z = a.alloc_zeroed(layout);
                        assert!(aligned(z, align), "zalloc {size}/{align}");
                        assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                        let grown = a.realloc(p, layout, size * 3);
                        assert!(aligned(grown, align), "realloc {size}/{align}");
                        held.push((grown, Layout::from_size_align(size * 3, align).unwrap()));
                        held.push((z, layout));
                    }
                }
                for (p, l) in held {
                    // SAFETY: each block came from `a` with this layout.
                    unsafe { a.dealloc(p, l) };
                }
            }
        }
    }
}
