//! Heap allocations per chunk for every contender, counted by a global allocator.
//!
//! Each contender is built first (construction may allocate), then the count is taken over
//! the feed and event consumption of a whole input, including `finish`. Printed as JSON
//! lines: `{"input","chunking","contender","chunks","allocs","per_chunk","bytes"}`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use tokensieve::Sieve;
use tokensieve_benches::{CHUNKINGS, Input, chunk_count, feed_all, load, throughput_inputs};

/// Counts allocations (and reallocations) and the bytes they ask for; delegates to System.
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// GlobalAlloc contract (layouts, pointer provenance, alignment) is System's own; the
// counters are plain atomics and never touch the memory handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, i.e. from System, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: `ptr` came from System with `layout`; the caller upholds `realloc`'s
        // contract for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn snapshot() -> (u64, u64) {
    (ALLOCS.load(Ordering::SeqCst), BYTES.load(Ordering::SeqCst))
}

fn report(input: &Input, chunking: &str, contender: &str, chunks: u64, before: (u64, u64)) {
    let after = snapshot();
    let allocs = after.0 - before.0;
    let line = serde_json::json!({
        "input": input.name, "chunking": chunking, "contender": contender, "chunks": chunks,
        "allocs": allocs, "per_chunk": allocs as f64 / chunks as f64, "bytes": after.1 - before.1,
    });
    println!("{line}");
}

/// tokensieve on the heap (`memory` None) or on caller memory.
fn tokensieve(input: &Input, chunking: &str, chunk: usize, memory: Option<&mut [u8]>) {
    let config = input.config_buf();
    let c = config.config();
    let (mut sieve, contender) = match memory {
        None => (Sieve::new(&c), "tokensieve"),
        Some(m) => (Sieve::with_memory(&c, m), "tokensieve-fixed-8KiB"),
    };
    let sieve = sieve.as_mut().expect("config");
    let before = snapshot();
    feed_all(sieve, &input.bytes, chunk);
    report(
        input,
        chunking,
        contender,
        chunk_count(input.bytes.len(), chunk),
        before,
    );
}

fn main() {
    // `--quick`: the mixed transcripts only.
    let quick = std::env::args().any(|a| a == "--quick");
    for name in throughput_inputs() {
        if quick && !name.starts_with("mixed") {
            continue;
        }
        let input = load(&name);
        for (label, chunk) in CHUNKINGS {
            tokensieve(&input, label, chunk, None);
            if !name.starts_with("longarg") {
                tokensieve(&input, label, chunk, Some(&mut vec![0u8; 8192]));
            }
            #[cfg(feature = "compare")]
            if name.starts_with("mixed") {
                for peer in tokensieve_benches::peers::Peer::for_dialect(input.dialect) {
                    let text = input.text();
                    let chunks = tokensieve_benches::char_chunk_count(text, chunk);
                    let before = snapshot();
                    peer.run(text, chunk);
                    report(&input, label, peer.name(), chunks, before);
                }
            }
        }
    }
}
