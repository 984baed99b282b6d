//! The checks the fuzz targets run: docs/design.md's event-model rules as assertions.
//!
//! A stream target's input is `[flags, seed, (prefill length)?, input…]`: `flags` picks a
//! configuration (stop sequences, typed or untyped tools, start in thinking, drop malformed
//! calls, a tiny `max_call_bytes`, caller-provided fixed memory, a prefill, custom thinking
//! markers) and `seed` the chunk splits. Every input is parsed whole and in random pieces
//! (empty pieces included); the coalesced events must be equal (rule 4), and both runs must
//! obey rules 1, 3, 6 (where checkable), 7, 8, 9 and 10.

pub mod c_record;
pub mod fast;
pub mod ffi;
pub mod ffi_decoder;
pub mod frame;
pub mod provider;

use std::borrow::Cow;

use serde_json::{Value, json};
use tokensieve::{
    BlockType, Config, ConfigBuf, Dialect, Event, EventSource, MIN_MEMORY, Part, Sieve,
};

/// One event, owned (with the error's `raw_truncated`, which `OwnedEvent` does not keep).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ev {
    /// `block_start`.
    Start(u32, BlockType),
    /// `chunk`: text, type, block, depth, part, tool_name, tool_id.
    Chunk {
        /// The text.
        text: String,
        /// Its block's type.
        ty: BlockType,
        /// Its block's index.
        block: u32,
        /// Depth.
        depth: u8,
        /// Part (tool calls).
        part: Option<Part>,
        /// Tool name, once known.
        name: Option<String>,
        /// Tool id, once known.
        id: Option<String>,
    },
    /// `block_complete`.
    Complete {
        /// Index.
        index: u32,
        /// Type.
        ty: BlockType,
        /// Tool name.
        name: Option<String>,
        /// Tool id.
        id: Option<String>,
        /// Error: reason, raw, raw truncated.
        error: Option<(tokensieve::ErrorReason, Vec<u8>, bool)>,
        /// An error result.
        is_error: bool,
    },
    /// `stop`.
    Stop(String),
}

impl Ev {
    /// The owned form of an event.
    pub fn of(ev: &Event<'_>) -> Ev {
        match *ev {
            Event::BlockStart {
                index, block_type, ..
            } => Ev::Start(index, block_type),
            Event::Chunk(c) => Ev::Chunk {
                text: c.text.into(),
                ty: c.block_type,
                block: c.block,
                depth: c.depth,
                part: c.part,
                name: c.tool_name.map(Into::into),
                id: c.tool_id.map(Into::into),
            },
            Event::BlockComplete(b) => Ev::Complete {
                index: b.index,
                ty: b.block_type,
                name: b.tool_name.map(Into::into),
                id: b.tool_id.map(Into::into),
                error: b.error.map(|e| (e.reason, e.raw.to_vec(), e.raw_truncated)),
                is_error: b.is_error,
            },
            Event::Stop { sequence } => Ev::Stop(sequence.into()),
            Event::Finish(_) | Event::Error(_) => panic!("a parser emitted a provider event"),
        }
    }
}

/// SplitMix64.
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// Next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Piece lengths for `len` bytes: mostly 1–11, some 0 (an empty feed), some up to 200.
pub fn splits(len: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut at = 0;
    while at < len {
        let n = match rng.below(16) {
            0 => 0,
            k @ 1..=11 => k,
            _ => 1 + rng.below(200),
        };
        let n = n.min(len - at);
        out.push(n);
        at += n;
    }
    out
}

/// The fuzz configuration of a stream target, decoded from the first input bytes.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The config object (JSON form).
    pub config: Value,
    /// Caller-provided memory of this size instead of heap buffers.
    pub fixed_memory: Option<usize>,
    /// Prefill text.
    pub prefill: Vec<u8>,
    /// The stream.
    pub input: Vec<u8>,
    /// Seed of the random splits.
    pub seed: u64,
}

/// Flag bits cleared from every input: `$TOKENSIEVE_FUZZ_MASK` (decimal or `0x` hex), so a
/// campaign can step around an open finding (e.g. `0x60`: no fixed memory, no prefill).
pub fn flag_mask() -> u8 {
    static MASK: std::sync::OnceLock<u8> = std::sync::OnceLock::new();
    *MASK.get_or_init(|| {
        let v = std::env::var("TOKENSIEVE_FUZZ_MASK").unwrap_or_default();
        let v = v.trim();
        match v.strip_prefix("0x") {
            Some(h) => u8::from_str_radix(h, 16).unwrap_or(0),
            None => v.parse().unwrap_or(0),
        }
    })
}

/// Thinking markers used when flag bit 7 is set.
pub const CUSTOM_THINKING: (&str, &str) = ("<reasoning>", "</reasoning>");
/// Stop sequences used when flag bit 0 is set.
pub const STOPS: [&str; 2] = ["\nHuman:", "<|eot|>"];

fn tools(typed: bool) -> Value {
    let t = |ty: &str| {
        if typed {
            json!({"type": ty})
        } else {
            json!({})
        }
    };
    json!([
        {"name": "get_weather", "schema": {"type": "object", "properties": {
            "city": t("string"), "days": t("integer"), "unit": t("string")}}},
        {"name": "search", "schema": {"type": "object", "properties": {
            "query": t("string"), "filters": t("object"), "limit": t("integer"), "tags": t("array")}}},
        {"name": "write_file", "schema": {"type": "object", "properties": {
            "path": t("string"), "content": t("string")}}},
        {"name": "get", "schema": {"type": "object", "properties": {"url": t("string")}}},
        {"name": "get_time", "schema": {"type": "object", "properties": {}}},
        {"name": "f", "schema": {"type": "object", "properties": {
            "s": t("string"), "p": t("integer"), "a": t("array"), "b": t("boolean"), "n": t("number")}}}
    ])
}

impl Setup {
    /// Decodes `[flags, seed, (prefill length)?, input…]`; `None` for too short data.
    pub fn decode(dialect: Dialect, data: &[u8]) -> Option<Setup> {
        let head = Head::read(data)?;
        Some(Setup {
            config: head.config(dialect),
            fixed_memory: head.fixed_memory(),
            prefill: head.prefill.to_vec(),
            input: head.input.to_vec(),
            seed: u64::from(head.seed) ^ (data.len() as u64).rotate_left(17),
        })
    }
}

/// A stream target's input `[flags, seed, (prefill length)?, input…]` read, borrowed; what
/// [`Setup::decode`] builds its config and memory from.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    /// The flag bits (`$TOKENSIEVE_FUZZ_MASK` cleared).
    pub flags: u8,
    /// The seed byte.
    pub seed: u8,
    /// Prefill text (flag bit 6).
    pub prefill: &'a [u8],
    /// The stream.
    pub input: &'a [u8],
}

impl<'a> Head<'a> {
    /// Flag bits that only choose the config, apart from the seed's `max_call_bytes`.
    pub const CONFIG_BITS: u8 = 0b1000_1111;

    /// Splits the input; `None` for too short data.
    pub fn read(data: &'a [u8]) -> Option<Head<'a>> {
        let (&flags, rest) = data.split_first()?;
        let flags = flags & !flag_mask();
        let (&seed, mut input) = rest.split_first()?;
        let mut prefill: &[u8] = &[];
        if flags & 64 != 0 {
            let (&n, r) = input.split_first()?;
            (prefill, input) = r.split_at((n as usize % 48).min(r.len()));
        }
        Some(Head {
            flags,
            seed,
            prefill,
            input,
        })
    }

    /// The config object (JSON form) the flags pick.
    pub fn config(&self, dialect: Dialect) -> Value {
        let flags = self.flags;
        let mut config = json!({"dialect": dialect.name()});
        if flags & 1 != 0 {
            config["stop_sequences"] = json!(STOPS);
        }
        // morph-xml needs tools; the others get them typed (bit 1) or not at all.
        if flags & 2 != 0 {
            config["tools"] = tools(true);
        } else if dialect == Dialect::MorphXml {
            config["tools"] = tools(false);
        }
        if flags & 4 != 0 {
            config["start_in"] = json!("thinking");
        }
        if flags & 8 != 0 {
            config["on_malformed"] = json!("drop");
        }
        if let Some(n) = self.max_call_bytes() {
            config["max_call_bytes"] = json!(n);
        }
        if flags & 128 != 0 {
            config["thinking_tags"] = if self.seed & 128 != 0 {
                // Several spellings (issue 22): the custom pair in force, `<think>` beside it.
                json!([
                    [CUSTOM_THINKING.0, CUSTOM_THINKING.1],
                    ["<think>", "</think>"]
                ])
            } else {
                json!([CUSTOM_THINKING.0, CUSTOM_THINKING.1])
            };
        }
        config
    }

    /// A tiny `max_call_bytes` (bit 4).
    pub fn max_call_bytes(&self) -> Option<usize> {
        (self.flags & 16 != 0).then(|| 64 + (self.seed as usize) * 3)
    }

    /// Caller-provided memory of this size instead of heap buffers (bit 5).
    pub fn fixed_memory(&self) -> Option<usize> {
        (self.flags & 32 != 0).then(|| MIN_MEMORY + (self.seed as usize) * 13)
    }
}

/// `input` cut into pieces of `sizes` (a size past the end gives what is left, possibly
/// nothing), then the rest whole.
pub fn pieces<'a>(input: &'a [u8], sizes: &'a [usize]) -> impl Iterator<Item = &'a [u8]> + 'a {
    let mut at = 0usize;
    sizes
        .iter()
        .chain(std::iter::once(&usize::MAX))
        .map(move |&n| {
            let end = at.saturating_add(n).min(input.len());
            let piece = &input[at..end];
            at = end;
            piece
        })
}

/// Runs `input` in pieces of `sizes` (then the rest whole) through `sieve`, then finishes.
pub fn drive(sieve: &mut Sieve<'_>, prefill: &[u8], input: &[u8], sizes: &[usize]) -> Vec<Ev> {
    let mut out = Vec::new();
    drive_with(sieve, prefill, input, sizes, |ev| out.push(Ev::of(ev)));
    out
}

/// [`drive`], handing every event to `f` as it comes instead of keeping it.
pub fn drive_with(
    sieve: &mut Sieve<'_>,
    prefill: &[u8],
    input: &[u8],
    sizes: &[usize],
    f: impl FnMut(&Event<'_>),
) {
    if !prefill.is_empty() {
        sieve.prefill(prefill).expect("a prefill on a fresh parser");
    }
    pump(sieve, input, sizes, f);
}

/// The one drive loop of the parser and decoder targets: `input` in pieces of `sizes`
/// (then the rest whole) through `source`, then its end, every event to `f`; checks that
/// `next` stops only with the piece used up (or the stream done), that the stream is done
/// after draining `finish`, and that nothing comes after the end.
pub fn pump(
    source: &mut impl EventSource,
    input: &[u8],
    sizes: &[usize],
    mut f: impl FnMut(&Event<'_>),
) {
    for mut piece in pieces(input, sizes) {
        while let Some(ev) = source.next(&mut piece) {
            f(&ev);
        }
        assert!(
            piece.is_empty() || source.is_done(),
            "next() returned None with {} input bytes left",
            piece.len()
        );
    }
    let mut empty: &[u8] = &[];
    source.finish_with(|ev| f(&ev));
    assert!(source.is_done(), "not done after draining finish()");
    assert!(source.next(&mut empty).is_none(), "an event after the end");
    // After the end, nothing more comes.
    let mut more: &[u8] = b"<thinking>x";
    assert!(source.next(&mut more).is_none(), "an event after the end");
}

type Meta<'a> = (
    BlockType,
    u32,
    u8,
    Option<Part>,
    Option<&'a str>,
    Option<&'a str>,
);

fn meta(e: &Ev) -> Option<Meta<'_>> {
    match e {
        Ev::Chunk {
            ty,
            block,
            depth,
            part,
            name,
            id,
            ..
        } => Some((*ty, *block, *depth, *part, name.as_deref(), id.as_deref())),
        _ => None,
    }
}

/// Merges adjacent chunks whose fields other than the text are equal.
pub fn coalesce(events: &[Ev]) -> Vec<Ev> {
    let mut out: Vec<Ev> = Vec::new();
    for ev in events {
        if let (Some(last), Ev::Chunk { text, .. }) = (out.last_mut(), ev) {
            if meta(last).is_some() && meta(last) == meta(ev) {
                if let Ev::Chunk { text: t0, .. } = last {
                    t0.push_str(text);
                }
                continue;
            }
        }
        out.push(ev.clone());
    }
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// Rules 1, 3, 6 (raw), 7, 8 and 9 over one event list; panics with the first violation.
pub fn lint(events: &[Ev], whole: &[u8]) {
    let mut lint = Lint::default();
    for (i, ev) in events.iter().enumerate() {
        assert!(!lint.stopped, "#{i}: event after stop: {ev:?}");
        match ev {
            Ev::Start(index, ty) => lint.start(i, *index, *ty),
            Ev::Chunk { .. } => lint.chunk(i, ev),
            Ev::Complete { .. } => lint.complete(i, ev, whole),
            Ev::Stop(seq) => lint.stop(i, seq),
        }
    }
    assert!(lint.open.is_none(), "a block never completes");
}

/// What `lint` remembers between events.
#[derive(Default)]
struct Lint {
    /// The index the next block must have.
    next: u32,
    /// The open block: its index and type.
    open: Option<(u32, BlockType)>,
    stopped: bool,
    /// The open tool call's name and input chunks so far, and the part of its last chunk.
    name: String,
    input: String,
    last_part: Option<Part>,
}

impl Lint {
    /// `block_start`: none open, indices without gaps.
    fn start(&mut self, i: usize, index: u32, ty: BlockType) {
        assert!(
            self.open.is_none(),
            "#{i}: block_start while a block is open"
        );
        assert_eq!(index, self.next, "#{i}: block index gap");
        self.next += 1;
        self.open = Some((index, ty));
        self.name.clear();
        self.input.clear();
        self.last_part = None;
    }

    /// `chunk`: of the open block, not empty, deep enough, a part exactly on tool calls (in
    /// order, the id only on the input).
    fn chunk(&mut self, i: usize, ev: &Ev) {
        let Ev::Chunk {
            text,
            ty,
            block,
            depth,
            part,
            name: tool_name,
            id: tool_id,
        } = ev
        else {
            unreachable!("a chunk");
        };
        let Some((idx, oty)) = self.open else {
            panic!("#{i}: chunk outside a block: {ev:?}")
        };
        assert_eq!((*block, *ty), (idx, oty), "#{i}: chunk of another block");
        assert!(!text.is_empty(), "#{i}: empty chunk text");
        if matches!(ty, BlockType::ToolCall | BlockType::ToolResult) {
            assert!(*depth >= 1, "#{i}: {ty:?} chunk at depth 0");
        }
        if *ty == BlockType::ToolCall && *part != Some(Part::Input) {
            assert!(tool_id.is_none(), "#{i}: tool_id on a {part:?} chunk");
        }
        assert_eq!(
            *ty == BlockType::ToolCall,
            part.is_some(),
            "#{i}: part exactly on tool_call chunks"
        );
        if let Some(p) = part {
            self.part(i, *p, text, tool_name.is_some());
        }
    }

    /// A tool call's chunk of part `p`: parts in order; name and input text collected.
    fn part(&mut self, i: usize, p: Part, text: &str, has_tool_name: bool) {
        assert!(self.last_part <= Some(p), "#{i}: parts out of order");
        self.last_part = Some(p);
        match p {
            Part::Name => {
                assert!(!has_tool_name, "#{i}: tool_name on a name chunk");
                self.name.push_str(text);
            }
            Part::Input => self.input.push_str(text),
            Part::Id => {}
        }
    }

    /// `block_complete`: of the open block; an error only on tool calls.
    fn complete(&mut self, i: usize, ev: &Ev, whole: &[u8]) {
        let Ev::Complete {
            index,
            ty,
            name: tool_name,
            error,
            ..
        } = ev
        else {
            unreachable!("a block_complete");
        };
        let Some((idx, oty)) = self.open.take() else {
            panic!("#{i}: completes a block that did not start")
        };
        assert_eq!((*index, *ty), (idx, oty), "#{i}: completes another block");
        if *ty == BlockType::ToolCall {
            self.tool_call_complete(i, tool_name, error, whole);
        } else {
            assert!(error.is_none(), "#{i}: error on a {ty:?} block");
        }
    }

    /// A tool call's `block_complete`: without an error, its input chunks are one compact
    /// JSON object and its name is its name chunks; with one, its raw text is a slice of the
    /// input (unless truncated).
    fn tool_call_complete(
        &self,
        i: usize,
        tool_name: &Option<String>,
        error: &Option<(tokensieve::ErrorReason, Vec<u8>, bool)>,
        whole: &[u8],
    ) {
        let input = &self.input;
        match error {
            None => {
                assert!(
                    is_json_object(input),
                    "#{i}: input chunks are not a JSON object: {input:?}"
                );
                assert!(is_compact(input), "#{i}: input is not compact: {input:?}");
                assert_eq!(
                    tool_name.as_deref(),
                    Some(&*self.name),
                    "#{i}: tool_name differs from the name chunks"
                );
            }
            Some((_, raw, truncated)) => {
                if !*truncated {
                    assert!(
                        contains(whole, raw),
                        "#{i}: error.raw is not a slice of the input: {:?}",
                        String::from_utf8_lossy(raw)
                    );
                }
            }
        }
    }

    /// `stop`: a configured sequence, with no block open.
    fn stop(&mut self, i: usize, seq: &str) {
        assert!(STOPS.contains(&seq), "#{i}: stop {seq:?} not configured");
        assert!(self.open.is_none(), "#{i}: block open at stop");
        self.stopped = true;
    }
}

/// Whether `text` is one JSON object that a strict reader (serde_json) takes: every `input`
/// must be (lone surrogate escapes included: the core writes U+FFFD for them).
pub fn is_json_object(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object())
}

/// No whitespace outside JSON strings.
pub fn is_compact(text: &str) -> bool {
    let (mut in_str, mut esc) = (false, false);
    for c in text.bytes() {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
        } else if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            return false;
        }
    }
    true
}

/// Runs the setup with the given piece sizes, on heap buffers or fixed memory.
pub fn run(setup: &Setup, sizes: &[usize]) -> Option<Vec<Ev>> {
    let config = ConfigBuf::from_value(&setup.config).ok()?;
    with_sieve(&config.config(), setup.fixed_memory, |sieve| {
        let events = drive(sieve, &setup.prefill, &setup.input, sizes);
        if setup.fixed_memory.is_some() {
            // reset() gives a fresh parser: the same pieces again, the same events.
            sieve.reset();
            let again = drive(sieve, &setup.prefill, &setup.input, sizes);
            assert_same(
                &coalesce(&events),
                &coalesce(&again),
                "reset() changed the events",
            );
        }
        events
    })
}

/// `f` on a parser of `config`, on heap buffers or `fixed_memory` bytes of caller memory;
/// `None` when the config is rejected (a dialect this build does not parse).
pub fn with_sieve<R>(
    config: &Config<'_>,
    fixed_memory: Option<usize>,
    f: impl FnOnce(&mut Sieve<'_>) -> R,
) -> Option<R> {
    let mut mem = vec![0u8; fixed_memory.unwrap_or(0)];
    let mut sieve = match fixed_memory {
        Some(_) => Sieve::with_memory(config, &mut mem),
        None => Sieve::new(config),
    }
    .ok()?;
    Some(f(&mut sieve))
}

/// Panics with the first difference when two coalesced event lists differ.
pub(crate) fn assert_same<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
    if a != b {
        let at = a
            .iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        panic!(
            "{what}: first difference at coalesced event #{at}:\n  first:  {:?}\n  second: {:?}",
            a.get(at),
            b.get(at)
        );
    }
}

/// The whole check of one stream-target input.
pub fn check_stream(dialect: Dialect, data: &[u8]) {
    let Some(setup) = Setup::decode(dialect, data) else {
        return;
    };
    // A dialect this build does not parse: its config is rejected, nothing to check.
    let Some(whole) = run(&setup, &[]) else {
        return;
    };
    let sizes = splits(setup.input.len(), setup.seed);
    let split = run(&setup, &sizes).expect("the same config");
    let all: Vec<u8> = [&setup.prefill[..], &setup.input[..]].concat();
    lint(&whole, &all);
    lint(&split, &all);
    let (a, b) = (coalesce(&whole), coalesce(&split));
    assert_same(
        &a,
        &b,
        &format!("chunking changed the events (rule 4); sizes {sizes:?}"),
    );
    if dialect == Dialect::Passthrough {
        check_passthrough_lossless(&setup, &a);
    }
}

/// The wrappers a described dialect picks from (tag-like, special-token-like, bracketed).
const WRAPPERS: [(&str, &str); 8] = [
    ("<tool_call>", "</tool_call>"),
    ("<seed:tool_call>", "</seed:tool_call>"),
    ("<|call|>", "<|/call|>"),
    ("[CALL]", "[/CALL]"),
    ("<function_calls>", "</function_calls>"),
    ("<tc>", "</tc>"),
    (
        "<\u{ff5c}DSML\u{ff5c}calls>",
        "</\u{ff5c}DSML\u{ff5c}calls>",
    ),
    ("<x:a>", "</x:a>"),
];
/// The thinking markers a described dialect picks from.
const THINKINGS: [(&str, &str); 4] = [
    ("<think>", "</think>"),
    ("<seed:think>", "</seed:think>"),
    ("<|think|>", "<|/think|>"),
    ("[THINK]", "[/THINK]"),
];

/// A host-defined dialect (docs/design.md, "Dialect descriptions") picked by one byte: bit 0
/// the shape, bits 1-3 the wrapper, bits 4-5 the thinking markers, bits 6-7 the json-call
/// keys and result wrapper. xml-params takes the tag-like wrappers only (its closer is a
/// closing tag); a description the parser rejects is skipped.
pub fn description(pick: u8) -> Value {
    let wrapper = WRAPPERS[(pick as usize >> 1) & 7];
    let thinking = THINKINGS[(pick as usize >> 4) & 3];
    if pick & 1 == 0 {
        let (names, args, result): (&[&str], &[&str], Value) = match pick >> 6 {
            0 => (
                &["name"],
                &["arguments", "parameters"],
                json!(["<tool_response>", "</tool_response>"]),
            ),
            1 => (&["tool_name"], &["parameters"], Value::Null),
            2 => (
                &["function", "name"],
                &["args", "input"],
                json!(["<|result|>", "<|/result|>"]),
            ),
            _ => (&["n"], &["a"], json!(["[RESULT]", "[/RESULT]"])),
        };
        json!({"shape": "json-call", "wrapper": [wrapper.0, wrapper.1], "result_wrapper": result,
               "name_keys": names, "argument_keys": args, "thinking_tags": [thinking.0, thinking.1]})
    } else {
        json!({"shape": "xml-params", "wrapper": [wrapper.0, wrapper.1],
               "thinking_tags": [thinking.0, thinking.1]})
    }
}

/// The stream checks of [`check_stream`] over a described dialect: `[pick, flags, seed, …]`.
pub fn check_described(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some(mut setup) = Setup::decode(Dialect::Hermes, rest) else {
        return;
    };
    setup.config["dialect"] = description(pick);
    let Some(whole) = run(&setup, &[]) else {
        return; // a description the parser rejects (e.g. a wrapper equal to a result marker)
    };
    let sizes = splits(setup.input.len(), setup.seed);
    let split = run(&setup, &sizes).expect("the same config");
    let all: Vec<u8> = [&setup.prefill[..], &setup.input[..]].concat();
    lint(&whole, &all);
    lint(&split, &all);
    assert_same(
        &coalesce(&whole),
        &coalesce(&split),
        &format!("chunking changed the events (rule 4); sizes {sizes:?}"),
    );
}

/// Rules 6 and 7 for passthrough, against a whole-string model: without stop sequences and
/// prefill, text and thinking together are the input (invalid UTF-8 as U+FFFD, as
/// `from_utf8_lossy`) minus the structural markers, each in its place.
fn check_passthrough_lossless(setup: &Setup, events: &[Ev]) {
    if setup.config.get("stop_sequences").is_some() || !setup.prefill.is_empty() {
        return;
    }
    // The whole-string model knows one spelling of the markers.
    if setup.config["thinking_tags"][0].is_array() {
        return;
    }
    let (open, close) = if setup.config.get("thinking_tags").is_some() {
        CUSTOM_THINKING
    } else {
        Dialect::Passthrough.default_thinking_tags()
    };
    let lossy: Cow<'_, str> = String::from_utf8_lossy(&setup.input);
    let mut rest: &str = &lossy;
    let mut thinking = setup.config.get("start_in").is_some();
    let (mut text_exp, mut think_exp) = (String::new(), String::new());
    loop {
        let marker = if thinking { close } else { open };
        let (before, after) = match rest.find(marker) {
            Some(k) => (&rest[..k], Some(&rest[k + marker.len()..])),
            None => (rest, None),
        };
        if thinking {
            think_exp.push_str(before);
        } else {
            text_exp.push_str(before);
        }
        match after {
            Some(a) => {
                rest = a;
                thinking = !thinking;
            }
            None => break,
        }
    }
    let (mut text, mut think) = (String::new(), String::new());
    for ev in events {
        if let Ev::Chunk { text: t, ty, .. } = ev {
            match ty {
                BlockType::Text => text.push_str(t),
                BlockType::Thinking => think.push_str(t),
                other => panic!("passthrough made a {other:?} chunk"),
            }
        }
    }
    assert_eq!(
        text, text_exp,
        "passthrough text lost or changed bytes (rule 6/7)"
    );
    assert_eq!(
        think, think_exp,
        "passthrough thinking lost or changed bytes (rule 6/7)"
    );
}

/// serde_json's reading of `src` as one JSON value, without its recursion limit.
fn serde_parse(src: &[u8]) -> Result<Value, serde_json::Error> {
    use serde::Deserialize as _;
    let mut de = serde_json::Deserializer::from_slice(src);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// The JSON target: whatever `strict::validate` accepts, serde_json parses (lone surrogate
/// escapes included: both refuse them); `compact`
/// output validates, means the same value and has no whitespace outside strings;
/// `compact_piece` agrees with `compact`; and what serde_json accepts within the depth
/// bound, `validate` accepts.
pub fn check_json(data: &[u8]) {
    use tokensieve::json::strict::{Kind, MAX_DEPTH, compact, validate};
    let ours = validate(data);
    let theirs = serde_parse(data);
    match (&ours, &theirs) {
        (Ok(kind), Ok(v)) => {
            let k = match v {
                Value::Null => Kind::Null,
                Value::Bool(_) => Kind::Bool,
                Value::Number(_) => Kind::Number,
                Value::String(_) => Kind::String,
                Value::Array(_) => Kind::Array,
                Value::Object(_) => Kind::Object,
            };
            assert_eq!(*kind, k, "validate's kind differs from the value's");
            let c: Vec<u8> = compact(data).flatten().copied().collect();
            assert_eq!(validate(&c), Ok(*kind), "compact output does not validate");
            let cs = std::str::from_utf8(&c).expect("compact output is UTF-8");
            assert!(is_compact(cs), "compact output has whitespace: {cs:?}");
            assert_eq!(
                serde_parse(&c).ok().as_ref(),
                Some(v),
                "compact changed the value"
            );
            // compact_piece from the start agrees with compact.
            let mut pieces = Vec::new();
            let mut at = 0;
            loop {
                let (s, e) = tokensieve::json::compact_piece(data, at, data.len());
                if s == e {
                    break;
                }
                pieces.extend_from_slice(&data[s..e]);
                at = e;
            }
            assert_eq!(pieces, c, "compact_piece and compact disagree");
        }
        (Ok(_), Err(e)) => panic!(
            "validate accepted what serde_json rejects ({e}): {:?}",
            String::from_utf8_lossy(data)
        ),
        (Err(e), Ok(v)) => {
            assert!(
                depth(v) > MAX_DEPTH,
                "validate rejected valid JSON ({} at {}): {:?}",
                e.reason,
                e.offset,
                String::from_utf8_lossy(data)
            );
        }
        (Err(_), Err(_)) => {}
    }
}

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The whole-text helpers: `parse` obeys the event model and agrees with
/// `parse_tool_calls` and `has_tool_use`; `format_tool_results` output parses back into
/// exactly its results (anthropic-xml), with their error flags, names and ids.
pub fn check_format(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let dialect = Dialect::ALL[sel as usize % Dialect::ALL.len()];
    if dialect.is_supported() && dialect != Dialect::MorphXml {
        check_parse_agrees(dialect, rest);
    }
    let text = String::from_utf8_lossy(rest);
    let results = tool_results(&text);
    check_results_round_trip(&results);
}

/// `parse_tool_calls` finds as many calls as `parse` starts, `has_tool_use` says whether
/// there is one, and every call without an error has a JSON object as its input.
fn check_parse_agrees(dialect: Dialect, rest: &[u8]) {
    use tokensieve::Config;
    use tokensieve::accumulate::OwnedEvent;
    use tokensieve::format::{has_tool_use, parse, parse_tool_calls};
    let config = Config::new(dialect);
    let events = parse(&config, rest).expect("supported dialect");
    let starts = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                OwnedEvent::BlockStart {
                    block_type: BlockType::ToolCall,
                    ..
                }
            )
        })
        .count();
    let calls = parse_tool_calls(&config, rest).expect("supported dialect");
    assert_eq!(calls.len(), starts, "parse_tool_calls misses calls");
    assert_eq!(has_tool_use(&config, rest).expect("ok"), starts > 0);
    for c in &calls {
        if c.error.is_none() {
            assert!(
                is_json_object(&c.input),
                "input is not a JSON object: {:?}",
                c.input
            );
        }
    }
}

/// Results from the data: fields separated by 0xFF (U+FFFD in the lossy `text`), four per
/// result, at most eight results.
fn tool_results(text: &str) -> Vec<tokensieve::format::ToolResult<'_>> {
    use tokensieve::format::ToolResult;
    let fields: Vec<&str> = text.split('\u{FFFD}').collect();
    let mut results = Vec::new();
    for f in fields.chunks(4) {
        let get = |i: usize| f.get(i).copied().unwrap_or("");
        let id = get(0);
        let name = get(1);
        results.push(ToolResult {
            tool_use_id: (!id.is_empty() && id.len() <= 16).then_some(id),
            tool_name: (!name.is_empty() && name.len() <= 40 && !name.contains('<'))
                .then_some(name),
            content: get(2),
            is_error: get(3).len() % 2 == 1,
        });
        if results.len() == 8 {
            break;
        }
    }
    results
}

/// `format_tool_results` in every dialect parses; in anthropic-xml, back into `results`.
fn check_results_round_trip(results: &[tokensieve::format::ToolResult<'_>]) {
    use tokensieve::Config;
    use tokensieve::format::{format_tool_results, parse};
    // morph-xml has no result syntax of its own (and needs tools): not parsed back.
    for d in Dialect::ALL
        .into_iter()
        .filter(|d| d.is_supported() && *d != Dialect::MorphXml)
    {
        let wire = format_tool_results(d, results);
        let config = Config::new(d);
        let events = parse(&config, wire.as_bytes()).expect("supported");
        if d != Dialect::AnthropicXml {
            continue;
        }
        check_parsed_back(&events, results, &wire);
    }
}

/// The events of anthropic-xml `wire` are exactly `results` (error flags and trimmed
/// names kept): no text block, no call.
fn check_parsed_back(
    events: &[tokensieve::accumulate::OwnedEvent],
    results: &[tokensieve::format::ToolResult<'_>],
    wire: &str,
) {
    use tokensieve::accumulate::OwnedEvent;
    let done: Vec<&OwnedEvent> = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                OwnedEvent::BlockComplete {
                    block_type: BlockType::ToolResult,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(
        done.len(),
        results.len(),
        "format_tool_results did not parse back into its results:\n{wire}"
    );
    for (r, e) in results.iter().zip(done) {
        if let OwnedEvent::BlockComplete {
            is_error,
            tool_name,
            ..
        } = e
        {
            assert_eq!(*is_error, r.is_error, "is_error lost:\n{wire}");
            // The parser trims a result's tool name (as it trims `<tool_name>\nx\n`).
            let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
            if let Some(n) = r
                .tool_name
                .map(|n| n.trim_matches(ws))
                .filter(|n| !n.is_empty())
            {
                assert_eq!(tool_name.as_deref(), Some(n), "tool_name lost:\n{wire}");
            }
        }
    }
    // Nothing but the results: no text block, no call.
    assert!(
        events.iter().all(|e| !matches!(
            e,
            OwnedEvent::BlockStart {
                block_type: BlockType::Text | BlockType::ToolCall,
                ..
            }
        )),
        "format_tool_results output has text or calls:\n{wire}"
    );
}

/// Runs the relaxed-JSON transcoder over `input` in pieces of `sizes` (then the rest);
/// returns its output and whether it completed (`Done`) without an error.
pub fn transcode(input: &[u8], sizes: &[usize]) -> (Vec<u8>, bool) {
    use tokensieve::json::relaxed::{Step, Transcoder};
    let mut t = Transcoder::new();
    let mut out = Vec::new();
    let mut left = input.len();
    for mut piece in pieces(input, sizes) {
        left -= piece.len();
        loop {
            match t.next(&mut piece) {
                Step::Out(p) => out.extend_from_slice(p.as_bytes()),
                Step::NeedMore => break,
                Step::Done => return (out, true),
                Step::Error(_) => return (out, false),
            }
        }
        if left == 0 {
            break;
        }
    }
    loop {
        match t.finish() {
            Step::Out(p) => out.extend_from_slice(p.as_bytes()),
            Step::NeedMore => return (out, false),
            Step::Done => return (out, true),
            Step::Error(_) => return (out, false),
        }
    }
}

/// The relaxed-JSON target: whatever the transcoder completes is strict, compact JSON
/// (`strict::validate` and serde_json accept it); the same input split at random gives the
/// same output and outcome; and strict JSON input transcodes to the same value.
pub fn check_relaxed(data: &[u8]) {
    let Some((&seed, input)) = data.split_first() else {
        return;
    };
    let (whole, ok) = transcode(input, &[]);
    let sizes = splits(
        input.len(),
        u64::from(seed) ^ (input.len() as u64).rotate_left(9),
    );
    let (split, ok2) = transcode(input, &sizes);
    assert_eq!(
        (ok, String::from_utf8_lossy(&whole)),
        (ok2, String::from_utf8_lossy(&split)),
        "chunking changed the transcoder's output; sizes {sizes:?}"
    );
    if ok {
        let s = std::str::from_utf8(&whole).expect("transcoder output is UTF-8");
        assert!(is_compact(s), "output not compact: {s:?}");
        assert!(
            tokensieve::json::strict::validate(&whole).is_ok(),
            "output does not validate: {s:?}"
        );
        // Every output decodes with a strict reader (lone surrogates became U+FFFD).
        let v = serde_parse(&whole).unwrap_or_else(|e| panic!("serde_json rejects {s:?}: {e}"));
        // Strict input (that serde_json reads) means the same after transcoding.
        if let Ok(orig) = serde_parse(input) {
            assert_eq!(v, orig, "transcoding changed a strict value: {s:?}");
        }
    }
}
