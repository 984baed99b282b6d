//! The global allocator on wasm32: size classes of powers of two, one free list per class,
//! new blocks bumped off memory grown a page run at a time.
//!
//! Why not dlmalloc (std's, 6.3 KB of code): this is about 0.5 KB, and O(1) both ways. The
//! price is memory: a block takes its size rounded up to a power of two, and a freed block
//! serves only its own class (never split or merged) — fine for this crate's few live
//! allocations (the parser states, the output buffer, a call's held text), which grow by
//! doubling anyway.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ptr::null_mut;

/// Smallest block (and the alignment every block has): 16 bytes.
const MIN_SHIFT: u32 = 4;
const CLASSES: usize = 32;
const PAGE: usize = 65536;

struct Heap {
    /// The first free block of each class; a free block's first word is the next one's address.
    free: [usize; CLASSES],
    /// Where the next new block starts, and where grown memory ends.
    bump: usize,
    end: usize,
}

/// The allocator (`#[global_allocator]` in lib.rs).
pub struct Classes(UnsafeCell<Heap>);

// SAFETY: wasm32-unknown-unknown runs this module single-threaded (no atomics, no threads).
unsafe impl Sync for Classes {}

impl Classes {
    /// An empty heap: memory is grown on the first allocation.
    pub const fn new() -> Classes {
        Classes(UnsafeCell::new(Heap {
            free: [0; CLASSES],
            bump: 0,
            end: 0,
        }))
    }
}

/// The class of a block of `size` bytes with `align` (≤ 16: see `alloc`); `None` past 2 GiB.
fn class(size: usize) -> Option<usize> {
    let shift = size.max(1).checked_next_power_of_two()?.trailing_zeros();
    let c = shift.max(MIN_SHIFT) as usize;
    (c < CLASSES).then_some(c)
}

impl Heap {
    /// A block of class `c`: from its free list, else new.
    fn take(&mut self, c: usize) -> *mut u8 {
        let head = self.free[c];
        if head != 0 {
            // SAFETY: a free block is ours and at least a word long; its first word was
            // written by `give`.
            self.free[c] = unsafe { *(head as *const usize) };
            return head as *mut u8;
        }
        self.room(1 << c).map_or(null_mut(), |p| p as *mut u8)
    }

    /// Takes `size` bytes at `bump` (growing memory when short; the memory before it when it
    /// is only partly free is left unused), returning where they start.
    fn room(&mut self, size: usize) -> Option<usize> {
        if self.end - self.bump < size {
            // Memory grows only here, so new pages follow `end` (except the first time).
            let pages = size.div_ceil(PAGE).max(16);
            let old = core::arch::wasm32::memory_grow(0, pages);
            if old == usize::MAX {
                return None;
            }
            if old * PAGE != self.end {
                self.bump = old * PAGE;
            }
            self.end = (old + pages) * PAGE;
        }
        let p = self.bump;
        self.bump += size;
        Some(p)
    }

    /// Grows the block `p` of class `c` to class `to` where it is, when it is the last one
    /// made and no block of class `to` is free (a buffer that doubles keeps its place instead
    /// of leaving its old block behind).
    fn grow_last(&mut self, p: *mut u8, c: usize, to: usize) -> bool {
        let p = p as usize;
        self.free[to] == 0 && p + (1 << c) == self.bump && {
            self.bump = p;
            // Room from `p` on: the grown pages follow it; should `room` start elsewhere, the
            // block stays where it was (and the new room is the next block's).
            match self.room(1 << to) {
                Some(q) if q == p => true,
                Some(_) => {
                    self.bump -= 1 << to;
                    false
                }
                None => {
                    self.bump = p + (1 << c);
                    false
                }
            }
        }
    }

    /// Puts a block of class `c` back on its free list.
    fn give(&mut self, p: *mut u8, c: usize) {
        // SAFETY: the block is ours, free now, 16-aligned and at least 16 bytes.
        unsafe { *(p as *mut usize) = self.free[c] };
        self.free[c] = p as usize;
    }
}

// SAFETY: blocks are 16-aligned (every class is a multiple of 16 and runs start on a page);
// larger alignments get a larger block and an aligned pointer inside it, with the block's
// start stored just before that pointer. A block is never handed out twice while in use.
unsafe impl GlobalAlloc for Classes {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded; no other reference to the heap is live.
        let heap = unsafe { &mut *self.0.get() };
        let align = layout.align();
        if align <= 1 << MIN_SHIFT {
            return class(layout.size()).map_or(null_mut(), |c| heap.take(c));
        }
        let Some(c) = layout.size().checked_add(align).and_then(class) else {
            return null_mut();
        };
        let start = heap.take(c);
        if start.is_null() {
            return start;
        }
        // At least 16 bytes past `start` (start is 16-aligned, align ≥ 32), inside the block.
        let p = (start as usize + align) & !(align - 1);
        // SAFETY: p - 4 is inside the block, after start.
        unsafe { *((p - 4) as *mut u32) = start as u32 };
        p as *mut u8
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: single-threaded; no other reference to the heap is live.
        let heap = unsafe { &mut *self.0.get() };
        let align = layout.align();
        if align <= 1 << MIN_SHIFT {
            if let Some(c) = class(layout.size()) {
                heap.give(p, c);
            }
        } else if let Some(c) = layout.size().checked_add(align).and_then(class) {
            // SAFETY: `alloc` stored the block's start there.
            let start = unsafe { *((p as usize - 4) as *const u32) } as usize;
            heap.give(start as *mut u8, c);
        }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= 1 << MIN_SHIFT {
            match (class(layout.size()), class(new_size)) {
                // Within its class a block grows or shrinks in place.
                (Some(c), Some(to)) if c == to => return p,
                // SAFETY: single-threaded; no other reference to the heap is live.
                (Some(c), Some(to))
                    if to > c && unsafe { &mut *self.0.get() }.grow_last(p, c, to) =>
                {
                    return p;
                }
                _ => {}
            }
        }
        // SAFETY: the layout is valid (same align, size checked by the caller's contract).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as GlobalAlloc's default realloc.
        unsafe {
            let q = self.alloc(new_layout);
            if !q.is_null() {
                core::ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                self.dealloc(p, layout);
            }
            q
        }
    }
}
