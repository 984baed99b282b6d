//! A parser's memory: one block (the caller's, or one heap allocation) that holds the
//! parser, a copy of its configuration and, for caller memory, its buffers.
//!
//! [`plan`] validates a config without a heap and lays out its block; [`build`] copies the
//! config into the block and writes the parser at its start. [`init`] and [`new_on_heap`]
//! are the two ways to get a block.

use core::mem::{align_of, size_of};
use core::ptr;
use std::alloc::Layout;

use tokensieve::json::schema::{self, Found, SchemaError};
use tokensieve::{Config, MIN_MEMORY, Param, Sieve, StrList, Tool, ToolList};

use tokensieve::provider::DecoderConfig;

use crate::config::{Read, read_config};
use crate::decoder::tokensieve_decoder;
use crate::error::{Error, Result, config_err};
use crate::event::Acc;
use crate::parser::tokensieve_parser;
use crate::types::tokensieve_config;

/// The alignment of a parser's or a decoder's block (`tokensieve_state_align`).
pub(crate) const STATE_ALIGN: usize = {
    let mut a = align_of::<tokensieve_parser>();
    if align_of::<tokensieve_decoder>() > a {
        a = align_of::<tokensieve_decoder>();
    }
    if a > 16 { a } else { 16 }
};

/// What a block holds before its copied strings: the handle at its start, then the
/// configuration slot; and the least memory (`buffer_size`) its engine takes.
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    head: usize,
    slot_size: usize,
    slot_align: usize,
    min_buffer: usize,
}

/// A parser's block: the parser, then its `Config`.
pub(crate) const PARSER: Shape = Shape {
    head: size_of::<tokensieve_parser>(),
    slot_size: size_of::<Config<'static>>(),
    slot_align: align_of::<Config<'static>>(),
    min_buffer: MIN_MEMORY,
};

/// A decoder's block: the decoder, then its `DecoderConfig`. `Decoder::with_memory` takes 640
/// bytes, and half (at least MIN_MEMORY) more for a text dialect.
pub(crate) const fn decoder_shape(text_dialect: bool) -> Shape {
    Shape {
        head: size_of::<tokensieve_decoder>(),
        slot_size: size_of::<DecoderConfig<'static>>(),
        slot_align: align_of::<DecoderConfig<'static>>(),
        min_buffer: if text_dialect {
            MIN_MEMORY + DECODER_MIN
        } else {
            DECODER_MIN
        },
    }
}

/// The least memory `Decoder::with_memory` takes without a text dialect.
const DECODER_MIN: usize = 640;

/// Where everything goes in a block (offsets from its start).
pub(crate) struct Plan {
    pub(crate) total: usize,
    pub(crate) config: usize,
    stops: usize,
    tools: usize,
    params: usize,
    bytes: usize,
    n_bytes: usize,
    pub(crate) sieve: usize,
    pub(crate) sieve_len: usize,
    pub(crate) acc: usize,
    pub(crate) acc_len: usize,
}

/// What a config copies into its block.
struct Counts {
    /// Bytes of strings (markers, id prefix, stop sequences, tool and parameter names).
    bytes: usize,
    /// Declared parameters of all tools.
    params: usize,
}

fn align_up(n: usize, a: usize) -> Option<usize> {
    n.checked_add(a - 1).map(|v| v & !(a - 1))
}

/// Validates the config (without a heap) and lays out its block. `fixed`: caller memory
/// (sieve buffers and accumulation live in the block).
/// The largest `buffer_size` and `accumulate_size` taken (as `max_call_bytes`: 256 MiB - 1).
pub(crate) const MAX_BUFFER: usize = (1 << 28) - 1;

pub(crate) fn plan(r: &Read<'_>, fixed: bool, shape: Shape) -> Result<Plan> {
    let counts = validate(r)?;
    if fixed && r.buffer_size < shape.min_buffer {
        return Err(Error::Config.report(format_args!(
            "config: buffer_size {} is below the minimum {}",
            r.buffer_size, shape.min_buffer
        )));
    }
    // Buffers are addressed with 28 bits (the core's spans): 256 MiB is also what a
    // heap parser's max_call_bytes may be. Beyond it `state_size` would only overflow.
    for (key, size) in [
        ("buffer_size", r.buffer_size),
        ("accumulate_size", r.accumulate_size),
    ] {
        if fixed && size > MAX_BUFFER {
            return Err(Error::Config.report(format_args!(
                "config: {key} {size} is above the maximum {MAX_BUFFER} (256 MiB - 1)"
            )));
        }
    }
    let sieve_len = if fixed { r.buffer_size } else { 0 };
    let acc_len = if fixed && r.accumulate {
        r.accumulate_size
    } else {
        0
    };
    lay_out(r, &counts, sieve_len, acc_len, shape)
        .ok_or_else(|| Error::Memory.report(format_args!("config: the state size overflows")))
}

/// Validates everything the core validates, one stop sequence and one schema at a time
/// (with a stand-in tool list, so nothing is copied yet), and counts what the block holds.
fn validate(r: &Read<'_>) -> Result<Counts> {
    let dummy = [Tool {
        name: "x",
        params: &[],
    }];
    let probe = Config {
        tools: if r.tools.is_empty() {
            ToolList::Tools(&[])
        } else {
            ToolList::Tools(&dummy)
        },
        ..r.base_config()
    };
    probe.validate().map_err(|e| config_err(&e))?;
    let mut counts = Counts {
        bytes: 0,
        params: 0,
    };
    for s in [r.thinking.map(|t| t.0), r.thinking.map(|t| t.1)]
        .into_iter()
        .chain([r.markers.map(|t| t.0), r.markers.map(|t| t.1), r.id_prefix])
        .flatten()
    {
        counts.bytes += s.len();
    }
    for i in 0..r.stops.len() {
        let s = r.stop(i)?;
        let one = [s];
        Config {
            stop_sequences: StrList::Strs(&one),
            ..probe
        }
        .validate()
        .map_err(|e| config_err(&e))?;
        counts.bytes += s.len();
    }
    for i in 0..r.tools.len() {
        count_tool(r, i, &mut counts)?;
    }
    Ok(counts)
}

/// Counts the `i`-th tool's name and parameters, validating its schema.
fn count_tool(r: &Read<'_>, i: usize, counts: &mut Counts) -> Result<()> {
    let (name, schema) = r.tool(i)?;
    counts.bytes += name.len();
    if schema.is_empty() {
        return Ok(());
    }
    schema::scan(schema, |f| {
        if let Found::Property(p) = f {
            counts.params += 1;
            counts.bytes += p.raw_name.len(); // decoded names are never longer
        }
    })
    .map_err(|m| {
        Error::Config.report(format_args!(
            "config: the schema of tools[{i}] (`{name}`) {}",
            m.message()
        ))
    })
}

/// The offsets of every region; `None` when the size overflows.
fn lay_out(
    r: &Read<'_>,
    counts: &Counts,
    sieve_len: usize,
    acc_len: usize,
    shape: Shape,
) -> Option<Plan> {
    let arr = |at: usize, align: usize, n: usize, size: usize| -> Option<(usize, usize)> {
        let start = align_up(at, align)?;
        Some((start, start.checked_add(n.checked_mul(size)?)?))
    };
    let (config, end) = arr(shape.head, shape.slot_align, 1, shape.slot_size)?;
    let (stops, end) = arr(end, align_of::<&str>(), r.stops.len(), size_of::<&str>())?;
    let (tools, end) = arr(
        end,
        align_of::<Tool<'static>>(),
        r.tools.len(),
        size_of::<Tool<'static>>(),
    )?;
    let (params, end) = arr(
        end,
        align_of::<Param<'static>>(),
        counts.params,
        size_of::<Param<'static>>(),
    )?;
    let (bytes, end) = arr(end, 1, counts.bytes, 1)?;
    let (sieve, end) = arr(end, 8, sieve_len, 1)?;
    let (acc, end) = arr(end, 1, acc_len, 1)?;
    Some(Plan {
        total: align_up(end, STATE_ALIGN)?,
        config,
        stops,
        tools,
        params,
        bytes,
        n_bytes: counts.bytes,
        sieve,
        sieve_len,
        acc,
        acc_len,
    })
}

/// Appends strings to the block's byte region.
struct Bytes {
    base: *mut u8,
    cap: usize,
    len: usize,
}

impl Bytes {
    /// Copies `s` into the block; the result lives as long as the block.
    fn put(&mut self, s: &[u8]) -> &'static str {
        let start = self.len;
        self.append(s);
        self.finish(start)
    }

    fn append(&mut self, s: &[u8]) {
        let n = s.len().min(self.cap - self.len);
        // SAFETY: `base..base+cap` is this block's byte region (planned to hold every
        // string); `n` keeps the copy inside it; `s` is caller or block memory elsewhere.
        unsafe { ptr::copy_nonoverlapping(s.as_ptr(), self.base.add(self.len), n) };
        self.len += n;
    }

    fn finish(&self, start: usize) -> &'static str {
        // SAFETY: `start..len` was written above and is never written again while the
        // parser lives; the block outlives every user of the returned `&'static str`
        // (the parser's config), see `tokensieve_parser::sieve`.
        let b: &'static [u8] =
            unsafe { core::slice::from_raw_parts(self.base.add(start), self.len - start) };
        core::str::from_utf8(b).unwrap_or("")
    }
}

/// Builds a parser in `mem` (aligned to STATE_ALIGN, at least `plan.total` bytes).
///
/// # Safety
/// `mem` is valid for writes of `plan.total` bytes, aligned, and stays allocated and
/// untouched by anyone else until the parser is dropped. `r` views the caller's config.
unsafe fn build(
    mem: *mut u8,
    plan: &Plan,
    r: &Read<'_>,
    fixed: bool,
    alloc_size: usize,
) -> Result<*mut tokensieve_parser> {
    // SAFETY: forwarded contract.
    let config = unsafe { copy_config(mem, plan, r) }?;
    // SAFETY: the config slot is inside the block and aligned for `Config` (plan).
    let config_ptr = unsafe { mem.add(plan.config) }.cast::<Config<'static>>();
    // SAFETY: as above; written once, then only read (through the sieve's reference).
    unsafe { config_ptr.write(config) };
    // SAFETY: just written; the block outlives the parser (see `tokensieve_parser::sieve`).
    let config: &'static Config<'static> = unsafe { &*config_ptr };
    let sieve = if fixed {
        // SAFETY: the sieve region is inside the block, used by this sieve only.
        let memory: &'static mut [u8] =
            unsafe { core::slice::from_raw_parts_mut(mem.add(plan.sieve), plan.sieve_len) };
        Sieve::with_memory(config, memory)
    } else {
        Sieve::new(config)
    }
    .map_err(|e| config_err(&e))?;
    // SAFETY: forwarded contract.
    let acc = unsafe { block_acc(mem, plan, r, fixed) };
    let p = mem.cast::<tokensieve_parser>();
    // SAFETY: the block starts with room for the parser and is aligned for it.
    unsafe { p.write(tokensieve_parser::new(sieve, acc, alloc_size)) };
    Ok(p)
}

/// The accumulation of a block's handle: off, on the heap, or the block's region (`fixed`).
///
/// # Safety
/// `mem` is a block laid out by `plan`.
pub(crate) unsafe fn block_acc(mem: *mut u8, plan: &Plan, r: &Read<'_>, fixed: bool) -> Acc {
    match (r.accumulate, fixed) {
        (false, _) => Acc::Off,
        (true, false) => Acc::Heap(Vec::new()),
        (true, true) => Acc::Fixed {
            // SAFETY: the accumulation region is inside the block.
            ptr: unsafe { mem.add(plan.acc) },
            cap: plan.acc_len,
            len: 0,
            cut: false,
        },
    }
}

/// Copies the config's strings, stop sequences, tools and their parameters into the block
/// and returns the copy, which lives as long as the block.
///
/// # Safety
/// As [`build`].
pub(crate) unsafe fn copy_config(
    mem: *mut u8,
    plan: &Plan,
    r: &Read<'_>,
) -> Result<Config<'static>> {
    let mut bytes = Bytes {
        // SAFETY: inside the block (plan offsets are within `total`).
        base: unsafe { mem.add(plan.bytes) },
        cap: plan.n_bytes,
        len: 0,
    };
    let thinking = r
        .thinking
        .map(|(a, b)| (bytes.put(a.as_bytes()), bytes.put(b.as_bytes())));
    let markers = r
        .markers
        .map(|(a, b)| (bytes.put(a.as_bytes()), bytes.put(b.as_bytes())));
    let id_prefix = match r.id_prefix {
        Some(s) => bytes.put(s.as_bytes()),
        None => "call_",
    };
    // SAFETY: forwarded contract.
    let stops = unsafe { copy_stops(mem, plan, r, &mut bytes) }?;
    // SAFETY: forwarded contract.
    let tools = unsafe { copy_tools(mem, plan, r, &mut bytes) }?;
    Ok(Config {
        dialect: r.dialect,
        description: None,
        thinking_tags: thinking,
        thinking_alternates: StrList::Strs(&[]),
        tool_call_markers: markers,
        start_in: r.start_in,
        stop_sequences: StrList::Strs(stops),
        id_prefix,
        on_malformed: r.on_malformed,
        max_call_bytes: r.max_call_bytes,
        tools: ToolList::Tools(tools),
        unknown_tools: r.unknown_tools,
    })
}

/// Copies the stop sequences into the block.
///
/// # Safety
/// As [`build`].
unsafe fn copy_stops(
    mem: *mut u8,
    plan: &Plan,
    r: &Read<'_>,
    bytes: &mut Bytes,
) -> Result<&'static [&'static str]> {
    // SAFETY: the stop array region is inside the block, aligned for `&str` (plan).
    let stops_ptr = unsafe { mem.add(plan.stops) }.cast::<&'static str>();
    for i in 0..r.stops.len() {
        let s = bytes.put(r.stop(i)?.as_bytes());
        // SAFETY: `i < stops.len()`, the planned number of slots.
        unsafe { stops_ptr.add(i).write(s) };
    }
    // SAFETY: all `stops.len()` slots were written just above; aligned and non-NULL even
    // when empty; nothing writes them again.
    Ok(unsafe { core::slice::from_raw_parts(stops_ptr, r.stops.len()) })
}

/// Copies the tools and their declared parameters into the block.
///
/// # Safety
/// As [`build`].
unsafe fn copy_tools(
    mem: *mut u8,
    plan: &Plan,
    r: &Read<'_>,
    bytes: &mut Bytes,
) -> Result<&'static [Tool<'static>]> {
    // SAFETY: tool and param array regions are inside the block and aligned (plan).
    let tools_ptr = unsafe { mem.add(plan.tools) }.cast::<Tool<'static>>();
    // SAFETY: as above.
    let params_ptr = unsafe { mem.add(plan.params) }.cast::<Param<'static>>();
    let mut used = 0usize;
    for i in 0..r.tools.len() {
        let (name, schema) = r.tool(i)?;
        let name = bytes.put(name.as_bytes());
        // SAFETY: slots from `used` on are free; the plan counted every parameter.
        let slots = unsafe { params_ptr.add(used) };
        // SAFETY: forwarded: `slots` has room for this tool's parameters.
        let params = unsafe { copy_params(slots, schema, bytes) }.map_err(|m| {
            Error::Config.report(format_args!("config: tools[{i}] schema {}", m.message()))
        })?;
        used += params.len();
        // SAFETY: `i < tools.len()`, the planned number of tool slots.
        unsafe { tools_ptr.add(i).write(Tool { name, params }) };
    }
    // SAFETY: every tool slot was written above; never written again.
    Ok(unsafe { core::slice::from_raw_parts(tools_ptr, r.tools.len()) })
}

/// Reads one tool's schema into parameter slots at `slots` (a later duplicate replaces the
/// earlier, as serde_json does) and their names into `bytes`.
///
/// # Safety
/// `slots` is inside the block, aligned, with room for every property of `schema` (as
/// counted by `plan`), and not otherwise in use.
unsafe fn copy_params(
    slots: *mut Param<'static>,
    schema: &[u8],
    bytes: &mut Bytes,
) -> core::result::Result<&'static [Param<'static>], SchemaError> {
    let mut count = 0usize;
    if !schema.is_empty() {
        schema::scan(schema, |f| match f {
            Found::Reset => count = 0,
            Found::Property(p) => {
                let at = bytes.len;
                schema::decode(p.raw_name, |piece| bytes.append(piece));
                let pname = bytes.finish(at);
                // SAFETY: `count` slots stay within the planned number of params (plan
                // counted every property, resets only lower `count`); slots `0..count`
                // were written before being read.
                unsafe {
                    match (0..count).find(|&j| (*slots.add(j)).name == pname) {
                        // A later duplicate replaces the earlier (as serde_json does).
                        Some(j) => {
                            (*slots.add(j)).value_type = p.value_type;
                            (*slots.add(j)).items = p.items;
                        }
                        None => {
                            slots.add(count).write(Param {
                                name: pname,
                                value_type: p.value_type,
                                items: p.items,
                            });
                            count += 1;
                        }
                    }
                }
            }
        })?;
    }
    // SAFETY: slots `0..count` were written above and are not written again.
    Ok(unsafe { core::slice::from_raw_parts(slots, count) })
}

/// A parser in caller memory (`tokensieve_init`).
///
/// # Safety
/// `mem` is NULL or valid for writes of `len` bytes; `config` is NULL or a valid config.
pub(crate) unsafe fn init(
    mem: *mut u8,
    len: usize,
    config: *const tokensieve_config,
) -> Result<*mut tokensieve_parser> {
    if mem.is_null() || config.is_null() {
        return Err(Error::Null.report(format_args!(
            "tokensieve_init: mem and config must not be NULL"
        )));
    }
    if (mem as usize) % STATE_ALIGN != 0 {
        return Err(Error::Memory.report(format_args!(
            "tokensieve_init: mem is not aligned to tokensieve_state_align() ({STATE_ALIGN})"
        )));
    }
    // SAFETY: non-NULL, valid by the contract.
    let r = unsafe { read_config(&*config) }?;
    let plan = plan(&r, true, PARSER)?;
    if len < plan.total {
        return Err(Error::Memory.report(format_args!(
            "tokensieve_init: len is {len} bytes, tokensieve_state_size says {}",
            plan.total
        )));
    }
    // SAFETY: `mem` is writable for `len >= plan.total` bytes, aligned, and the
    // caller's contract keeps it alive and untouched while the parser lives.
    unsafe { build(mem, &plan, &r, true, 0) }
}

/// A parser on the heap (`tokensieve_new`).
///
/// # Safety
/// `config` is NULL or a valid config.
pub(crate) unsafe fn new_on_heap(
    config: *const tokensieve_config,
) -> Result<*mut tokensieve_parser> {
    if config.is_null() {
        return Err(Error::Null.report(format_args!("tokensieve_new: config is NULL")));
    }
    // SAFETY: non-NULL, valid by the contract.
    let r = unsafe { read_config(&*config) }?;
    let plan = plan(&r, false, PARSER)?;
    let (mem, layout) = heap_alloc(plan.total)?;
    // SAFETY: a fresh heap block of `plan.total` bytes, aligned; freed only by
    // tokensieve_free after the parser is dropped.
    unsafe { build(mem, &plan, &r, false, layout.size()) }.inspect_err(|_| {
        // SAFETY: allocated above with `layout`; nothing in it needs dropping
        // (the parser was not written).
        unsafe { std::alloc::dealloc(mem, layout) };
    })
}

/// A heap parser around a sieve that owns its configuration (`tokensieve_new_json`).
pub(crate) fn heap_parser(sieve: Sieve<'static>, acc: Acc) -> Result<*mut tokensieve_parser> {
    let (mem, layout) = heap_alloc(size_of::<tokensieve_parser>())?;
    let p = mem.cast::<tokensieve_parser>();
    // SAFETY: a fresh block sized and aligned for one parser.
    unsafe { p.write(tokensieve_parser::new(sieve, acc, layout.size())) };
    Ok(p)
}

pub(crate) fn heap_alloc(size: usize) -> Result<(*mut u8, Layout)> {
    let layout = Layout::from_size_align(size.max(1), STATE_ALIGN)
        .map_err(|_| Error::Memory.report(format_args!("the state size overflows")))?;
    // SAFETY: the layout has a non-zero size.
    let mem = unsafe { std::alloc::alloc(layout) };
    if mem.is_null() {
        return Err(Error::Memory.report(format_args!("out of memory ({size} bytes)")));
    }
    Ok((mem, layout))
}

/// Frees a heap parser's block of `size` bytes (its parser already dropped).
///
/// # Safety
/// `mem` was allocated by `heap_alloc` with a layout of `size` bytes, and is not used again.
pub(crate) unsafe fn heap_free(mem: *mut u8, size: usize) {
    if let Ok(layout) = Layout::from_size_align(size, STATE_ALIGN) {
        // SAFETY: allocated by `heap_alloc` with this very layout (contract).
        unsafe { std::alloc::dealloc(mem, layout) };
    }
}
