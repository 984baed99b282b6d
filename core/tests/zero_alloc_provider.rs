//! Zero heap allocations while decoding provider streams (docs/design.md "Measured, not
//! assumed"; issue: "the zero-allocation counter on the decode path"), proven with a counting
//! global allocator: the caller-memory decoder reads every provider body of
//! `conformance/providers/` (for the providers this build decodes), with and without a text
//! dialect, at several read sizes. CI runs it with `alloc` off too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tokensieve::provider::{Decoder, DecoderConfig, Provider};
use tokensieve::{Dialect, Event};

struct Counting;

thread_local! {
    // Per thread: the test harness's own threads allocate while a test runs.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The response bodies of a provider's vectors (every file that is not a `.json` vector).
fn bodies(provider: Provider) -> Vec<(String, Vec<u8>)> {
    let dir = format!(
        "{}/../conformance/providers/{}",
        env!("CARGO_MANIFEST_DIR"),
        provider.name()
    );
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
        if matches!(ext.as_deref(), Some("json" | "frames" | "py")) || name.starts_with('.') {
            continue;
        }
        out.push((name, std::fs::read(&path).unwrap()));
    }
    out.sort();
    out
}

/// (allocations, events) while decoding `body` in `chunk`-byte reads on caller memory.
fn count_while_decoding(config: &DecoderConfig<'_>, body: &[u8], chunk: usize) -> (usize, usize) {
    let mut memory = vec![0u8; 64 * 1024];
    let mut decoder = Decoder::with_memory(config, &mut memory).unwrap();
    let mut events = 0usize;
    let before = allocations();
    for read in body.chunks(chunk) {
        let mut input = read;
        while let Some(ev) = decoder.next(&mut input) {
            events += 1;
            if let Event::Chunk(c) = ev {
                std::hint::black_box(c.text);
            }
        }
    }
    decoder.finish();
    let mut empty: &[u8] = &[];
    while decoder.next(&mut empty).is_some() {
        events += 1;
    }
    (allocations() - before, events)
}

#[test]
fn the_counter_sees_allocations() {
    let before = allocations();
    std::hint::black_box(vec![1u8; 10]);
    assert!(allocations() > before);
}

#[test]
fn decoding_never_allocates() {
    let mut checked = 0;
    for provider in Provider::ALL.into_iter().filter(|p| p.is_supported()) {
        for dialect in [Dialect::Passthrough, Dialect::Hermes] {
            let mut config = DecoderConfig::new(provider);
            config.options.dialect = dialect;
            for (name, body) in bodies(provider) {
                for chunk in [1, 4, 64, 4096, body.len().max(1)] {
                    let (allocs, events) = count_while_decoding(&config, &body, chunk);
                    assert!(events > 0, "{name}: no events");
                    assert_eq!(
                        allocs, 0,
                        "{name} ({dialect:?}) at {chunk}-byte reads: {allocs} allocations"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0);
}
