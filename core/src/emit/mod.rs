//! The emitter every front end writes into: block bookkeeping (indices, the open block),
//! the pending-event queue, the buffers behind queued chunks (spans of the raw, value and
//! strings buffers), the tool name/id/key slots, raw-text capture of a call, and failed calls.
//!
//! A front end (the model-text driver in `sieve/driver.rs` with its dialect; later the provider
//! decoders) decides *what* happens; the emitter turns that into well-formed events: every
//! block started is completed once, indices have no gaps, chunks carry the metadata of their
//! block (docs/design.md, rules 1, 3, 8, 9, 10). It borrows nothing from the input: queued
//! chunks are spans of its own buffers, read when the event is handed out (`materialize`).
//!
//! It holds no configuration: the driver owns it (`config::Settings`) and passes what the
//! emitter needs to the calls that need it — the id prefix, the tools for `unknown_tools`, the
//! stop sequences a stop event names; only `on_malformed` is copied in at construction.

use crate::buf::Buf;
use crate::config::Settings;
use crate::event::{BlockType, ErrorReason, Part};
use crate::scan::{Decision, TAG_CAP};

mod queue;

use queue::Queue;
pub(crate) use queue::{BufId, Meta, Pending, SPAN_LIMIT, Spool, SpoolMode};

/// Capacity of a tool name, a tool id and a parameter key (each).
pub const STR_CAP: usize = TAG_CAP;

/// Where [`Emit::Inline`] bytes live in the strings buffer, and how many fit.
pub(crate) const INLINE_AT: usize = 3 * STR_CAP;
pub(crate) const INLINE_CAP: usize = 128;
/// Size of the strings buffer: name, id, key, inline bytes.
pub(crate) const STRS_LEN: usize = INLINE_AT + INLINE_CAP;

/// What a front end does with a decision: how much of its window it consumed, and a chunk
/// to hand out now.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Act {
    /// Bytes of the window consumed.
    pub consume: usize,
    /// A chunk to return now, whose text is `window[..consume]` or a static string.
    pub emit: Option<(Meta, Emit)>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Emit {
    /// `window[start..end]`.
    Window(usize, usize),
    Static(&'static str),
    /// `n` bytes a dialect made (a character, an escape), kept in the strings buffer after
    /// the name, id and key slots.
    Inline(u8),
}

impl Act {
    pub(crate) const WAIT: Act = Act {
        consume: 0,
        emit: None,
    };

    pub(crate) fn skip(n: usize) -> Act {
        Act {
            consume: n,
            emit: None,
        }
    }
}

/// The open block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Open {
    pub index: u32,
    pub ty: BlockType,
    pub depth: u8,
}

/// Heap `raw` buffers hold this much beyond `max_call_bytes`: the act that crosses the limit
/// (at most a tag, a marker or one character past it) is kept whole, so a call that fails as
/// too large loses no byte of it, whatever the chunking.
pub(crate) const RAW_SLACK: usize = TAG_CAP;

/// The emitter: everything a front end writes events through (see the module docs).
pub(crate) struct Emitter<'a> {
    next_index: u32,
    pub(crate) open: Option<Open>,
    queue: Queue,
    pub(crate) calls: u32,
    pub(crate) raw: Buf<'a>,
    pub(crate) value: Buf<'a>,
    /// Tool name at `[0..STR_CAP)`, tool id at `[STR_CAP..2*STR_CAP)`, parameter key after,
    /// then the inline bytes.
    pub(crate) strs: Buf<'a>,
    pub(crate) name_len: u8,
    pub(crate) id_len: u8,
    pub(crate) key_len: u8,
    /// The configured tool whose name the name slot holds ([`NAME_DIRTY`]: not looked up
    /// since it changed; [`NAME_UNKNOWN`]: none): its `&str` is handed out as the chunks'
    /// `tool_name` without validating the slot again at every chunk.
    name_tool: u16,
    /// The id slot holds `call_{id_gen - 1}` from [`DEFAULT_IDS`] (0: it does not): handed
    /// out from there, without validating the slot at every chunk.
    id_gen: u8,
    /// The tool id came from the wire ([`set_wire_id`](Emitter::set_wire_id)), not from
    /// `{id_prefix}{n}`: a prefill that ends inside the call keeps it.
    id_from_wire: bool,
    /// Input bytes consumed are appended to `raw` (inside a tool call).
    pub(crate) capture: bool,
    /// What happens to capturing once this act's bytes are captured.
    capture_next: CaptureNext,
    /// `raw` overflowed, or no longer holds the whole call (it spilled).
    pub(crate) raw_cut: bool,
    /// A failed call too long for `raw` streams the rest of its text (see `skip`).
    spill: bool,
    /// The open call's input began inside the prefill (see `complete_tool`).
    pub(crate) input_in_prefill: bool,
    /// The stream has ended (a stop, or the end of input was closed).
    pub(crate) done: bool,
    /// The input consumed so far ends at the start of a line: nothing, or a line feed
    /// followed by nothing but spaces and tabs. A tool-call opener inside thinking counts
    /// only there (docs/design.md, "Thinking that yields to tool calls").
    pub(crate) line_start: bool,
    /// Where a failed call's raw text is re-emitted: the depth at which the front end's calls
    /// sit (a fact of the dialect).
    call_depth: u8,
    /// `on_malformed = text`: a failed call's raw text comes back as a text block (the one
    /// configuration fact the emitter keeps, copied at construction).
    re_emit: bool,
}

/// [`Emitter::name_tool`]: the name changed since it was looked up.
const NAME_DIRTY: u16 = u16::MAX - 1;
/// [`Emitter::name_tool`]: the name is no configured tool's.
const NAME_UNKNOWN: u16 = u16::MAX;

/// The first ids made with the default `id_prefix`, back to back: `call_0` … `call_99`.
/// A chunk's `tool_id` is sliced from here rather than validated again at every chunk.
const DEFAULT_IDS: &str = "call_0call_1call_2call_3call_4call_5call_6call_7call_8call_9call_10call_11call_12call_13call_14call_15call_16call_17call_18call_19call_20call_21call_22call_23call_24call_25call_26call_27call_28call_29call_30call_31call_32call_33call_34call_35call_36call_37call_38call_39call_40call_41call_42call_43call_44call_45call_46call_47call_48call_49call_50call_51call_52call_53call_54call_55call_56call_57call_58call_59call_60call_61call_62call_63call_64call_65call_66call_67call_68call_69call_70call_71call_72call_73call_74call_75call_76call_77call_78call_79call_80call_81call_82call_83call_84call_85call_86call_87call_88call_89call_90call_91call_92call_93call_94call_95call_96call_97call_98call_99";
/// How many ids [`DEFAULT_IDS`] holds.
const DEFAULT_IDS_LEN: u32 = 100;

/// `call_{n}` from [`DEFAULT_IDS`], for `n` below [`DEFAULT_IDS_LEN`].
#[inline]
fn default_id(n: u32) -> Option<&'static str> {
    let n = n as usize;
    let (at, len) = if n < 10 {
        (6 * n, 6)
    } else {
        (60 + 7 * (n - 10), 7)
    };
    DEFAULT_IDS.get(at..at + len)
}

/// What happens to raw capture after the bytes of the current act are captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaptureNext {
    Continue,
    /// Stop (a failed call's closer belongs to its raw text).
    Stop,
    /// Forget what was captured (it belongs to a completed call of an array).
    Restart,
}

/// Text the scanner has validated; the fallback is unreachable in practice (debug builds
/// — tests, vectors, the fuzz smoke — say so loudly instead, as F11 showed they should).
#[inline]
pub(crate) fn str_of(bytes: &[u8]) -> &str {
    let text = core::str::from_utf8(bytes);
    debug_assert!(text.is_ok(), "handing out invalid UTF-8: {bytes:x?}");
    text.unwrap_or("\u{FFFD}")
}

impl<'a> Emitter<'a> {
    /// An emitter over the raw, value and strings buffers, for a front end whose calls sit
    /// at `call_depth` and whose configuration is `cfg` (read here for `on_malformed` only:
    /// the emitter holds no configuration).
    pub(crate) fn new(cfg: &Settings<'_>, bufs: [Buf<'a>; 3], call_depth: u8) -> Emitter<'a> {
        let [raw, value, strs] = bufs;
        Emitter {
            next_index: 0,
            open: None,
            queue: Queue::new(),
            calls: 0,
            raw,
            value,
            strs,
            name_len: 0,
            id_len: 0,
            key_len: 0,
            name_tool: NAME_DIRTY,
            id_gen: 0,
            id_from_wire: false,
            capture: false,
            capture_next: CaptureNext::Continue,
            raw_cut: false,
            spill: false,
            input_in_prefill: false,
            done: false,
            line_start: true,
            call_depth,
            re_emit: cfg.on_malformed() == crate::config::OnMalformed::Text,
        }
    }

    /// Back to the start of a stream, keeping configuration and memory.
    pub(crate) fn reset(&mut self) {
        self.next_index = 0;
        self.open = None;
        self.queue.clear();
        self.calls = 0;
        self.raw.clear();
        self.value.clear();
        self.clear_tool_strs();
        self.capture = false;
        self.capture_next = CaptureNext::Continue;
        self.raw_cut = false;
        self.spill = false;
        self.input_in_prefill = false;
        self.done = false;
        self.line_start = true;
    }

    /// The stream has begun: a block was started, or it ended.
    pub(crate) fn started(&self) -> bool {
        self.next_index > 0 || self.done
    }

    /// Events are waiting.
    #[inline]
    pub(crate) fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The front end consumed `bytes` of its input in the act just made: a call's raw text
    /// captures them, then capturing goes on, stops or restarts as the act asked.
    #[inline]
    pub(crate) fn consumed(&mut self, bytes: &[u8]) {
        // Most acts: no thinking block, no capture, nothing to change (tested inline).
        let thinking = matches!(self.open, Some(o) if o.ty == BlockType::Thinking);
        if thinking || self.capture || self.capture_next != CaptureNext::Continue {
            self.consumed_slow(bytes);
        }
    }

    #[inline(never)]
    fn consumed_slow(&mut self, bytes: &[u8]) {
        // Where lines start is read only inside a thinking block (`thinking_yields`), and
        // every byte of one is consumed while it is open: elsewhere nothing to note.
        if matches!(self.open, Some(o) if o.ty == BlockType::Thinking) {
            self.note_line(bytes);
        }
        if self.capture {
            self.capture_raw(bytes);
        }
        match core::mem::replace(&mut self.capture_next, CaptureNext::Continue) {
            CaptureNext::Continue => {}
            CaptureNext::Stop => self.capture = false,
            CaptureNext::Restart => {
                self.raw.clear();
                self.raw_cut = false;
            }
        }
    }

    /// `bytes` were consumed: whether the input now stands at the start of a line.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn note_line(&mut self, bytes: &[u8]) {
        if let Some(&b) = bytes.iter().rev().find(|&&b| b != b' ' && b != b'\t') {
            self.line_start = b == b'\n';
        }
    }

    /// Whether a tool-call opener met inside thinking opens a call: at the start of the
    /// thinking (nothing of it emitted yet) or of a line; elsewhere it is quoted in prose.
    pub(crate) fn thinking_yields(&self) -> bool {
        self.line_start || !matches!(self.open, Some(o) if o.ty == BlockType::Thinking)
    }

    /// A stop sequence (the `index`th) ended the stream: the open content block completes,
    /// then `stop`.
    pub(crate) fn stop(&mut self, index: usize) {
        self.close_content();
        self.push(Pending::Stop {
            index: index as u16,
        });
        self.done = true;
    }

    /// End of input, after the front end closed what it had open: whatever is still open
    /// completes, and the stream is done.
    pub(crate) fn end(&mut self) {
        self.close_content();
        self.close_open();
        self.done = true;
    }

    /// A prefill was replayed (`streamed_input`, `streamed_name`: the open call's input or
    /// name chunks were among its events): its events are forgotten and the stream starts
    /// at block 0, inside the block the prefill left open if that is a tool call or result
    /// (a call's name and id are announced again, the id counting from 0 — the name only
    /// when it was announced: a name still being read, e.g. a special-token dialect's header
    /// the prefill ends inside, is announced whole when it ends; fuzz finding F18).
    pub(crate) fn after_prefill(
        &mut self,
        cfg: &Settings<'_>,
        streamed_input: bool,
        streamed_name: bool,
    ) {
        self.queue.clear();
        self.next_index = 0;
        self.calls = 0;
        self.done = false;
        match self.open.take() {
            Some(o) if o.ty == BlockType::ToolCall => {
                self.start_block(o.ty, o.depth);
                // Its input began inside the prefill and is not repeated: the call cannot
                // complete with a valid input, so it will complete as failed (its raw text
                // spans prefill and stream).
                self.input_in_prefill = streamed_input;
                if self.name_len > 0 && streamed_name {
                    self.queue_chunk(Some(Part::Name), self.name_spool());
                }
                if self.id_len > 0 {
                    if self.id_from_wire {
                        // The wire's id stays; the call still counts.
                        self.calls += 1;
                    } else {
                        self.next_call_id(cfg);
                    }
                    self.queue_chunk(Some(Part::Id), self.id_spool());
                }
            }
            Some(o) if o.ty == BlockType::ToolResult => {
                self.start_block(o.ty, o.depth);
            }
            _ => {}
        }
    }

    /// How much of a text run (`text`, valid UTF-8) the act may take while a call is being
    /// captured, so that its raw text fills up at the same byte whatever the chunking: up to
    /// one character past the call's budget (the call then outgrows it and fails as too
    /// large; `raw` has [`RAW_SLACK`] bytes of room for the act that crosses it).
    pub(crate) fn capture_cut(&mut self, text: &[u8]) -> usize {
        let room = self.raw_budget().saturating_sub(self.raw.len());
        text_prefix(text, room + 1)
    }

    /// The bytes a call may take: `max_call_bytes` for heap buffers (their `raw` has
    /// [`RAW_SLACK`] more); for caller memory, the `raw` buffer less the same slack — a call
    /// longer than the memory the host gave fails as too large at that byte, so its text
    /// comes back whole (raw, then the rest streamed) whatever the chunking (fuzz F19: a
    /// call that went on past a full `raw` and failed later lost the bytes between).
    fn raw_budget(&self) -> usize {
        self.raw.limit().saturating_sub(RAW_SLACK)
    }

    /// The call being captured outgrew its budget ([`raw_budget`](Emitter::raw_budget)).
    pub(crate) fn call_too_large(&self) -> bool {
        self.capture && self.outgrown()
    }

    /// `raw` went past the call's budget.
    fn outgrown(&self) -> bool {
        self.raw.len() > self.raw_budget()
    }

    fn capture_raw(&mut self, bytes: &[u8]) {
        if !self.raw.push(bytes) {
            self.raw_cut = true;
        }
    }

    /// Starts a block (completing the open one first).
    pub(crate) fn start_block(&mut self, ty: BlockType, depth: u8) -> u32 {
        self.close_open();
        let index = self.next_index;
        self.next_index += 1;
        self.open = Some(Open { index, ty, depth });
        self.push(Pending::Start { index, ty });
        index
    }

    /// Completes the open block, whatever it is, without error.
    fn close_open(&mut self) {
        if let Some(open) = self.open.take() {
            self.push(Pending::Complete {
                index: open.index,
                ty: open.ty,
                error: None,
                is_error: false,
                name: false,
                id: false,
            });
        }
    }

    /// Completes the open text or thinking block, if any.
    pub(crate) fn close_content(&mut self) {
        if matches!(
            self.open,
            Some(Open {
                ty: BlockType::Text | BlockType::Thinking,
                ..
            })
        ) {
            self.close_open();
        }
    }

    /// Completes the open tool block with its names and the given outcome (`cfg`: the
    /// configured tools, for `unknown_tools: "fail"`).
    pub(crate) fn complete_tool(
        &mut self,
        cfg: &Settings<'_>,
        error: Option<ErrorReason>,
        is_error: bool,
    ) {
        if error.is_none()
            && self.open.is_some_and(|o| o.ty == BlockType::ToolCall)
            && cfg.unknown_tool(self.tool_name())
        {
            // docs/design.md, "Unknown tools": a call that parsed, to a tool not configured.
            self.fail_call(ErrorReason::UnknownTool, true);
            return;
        }
        self.close_tool(error, is_error);
    }

    /// [`complete_tool`](Emitter::complete_tool) without the unknown-tool check (a failure,
    /// or a call already checked).
    fn close_tool(&mut self, error: Option<ErrorReason>, is_error: bool) {
        if self.input_in_prefill && self.open.is_some_and(|o| o.ty == BlockType::ToolCall) {
            self.input_in_prefill = false;
            if error.is_none() {
                // A call whose input began in the prefill: its input chunks are not one JSON
                // object, so it fails (its raw text re-emitted where the dialect's calls sit).
                self.fail_call(ErrorReason::MalformedBody, true);
                return;
            }
        }
        if let Some(open) = self.open.take() {
            self.push(Pending::Complete {
                index: open.index,
                ty: open.ty,
                error,
                is_error,
                name: self.name_len > 0,
                id: self.id_len > 0,
            });
        }
    }

    /// A chunk of `window[..n]` in a text or thinking block at `depth`, opening it first if
    /// needed (then nothing is consumed now: the same decision comes again).
    #[inline]
    pub(crate) fn content(&mut self, ty: BlockType, depth: u8, d: Decision) -> Act {
        match self.open {
            Some(o) if o.ty == ty && o.depth == depth => {}
            _ => {
                self.start_block(ty, depth);
                return Act::WAIT;
            }
        }
        let meta = self.meta(None);
        content_act(meta, d)
    }

    /// Metadata for a chunk of the open block.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn meta(&self, part: Option<Part>) -> Meta {
        let open = self.open.unwrap_or(Open {
            index: 0,
            ty: BlockType::Text,
            depth: 0,
        });
        let tool = matches!(open.ty, BlockType::ToolCall | BlockType::ToolResult);
        Meta {
            ty: open.ty,
            block: open.index,
            depth: open.depth,
            part,
            name: tool && part != Some(Part::Name) && self.name_len > 0,
            id: tool && !matches!(part, Some(Part::Name) | Some(Part::Id)) && self.id_len > 0,
        }
    }

    pub(crate) fn queue_chunk(&mut self, part: Option<Part>, text: Spool) {
        let meta = self.meta(part);
        self.push(Pending::Chunk { meta, text });
    }

    // --- names, ids, keys --------------------------------------------------------------

    /// Keeps a name, id or key (from a tag or attribute: bounded by TAG_CAP, any bytes) as
    /// valid UTF-8 — invalid sequences as U+FFFD, as `from_utf8_lossy` does (rule 7) — cut to
    /// whole characters within the slot. Everything that reads it back (name and id chunks,
    /// chunk metadata, a key escaped into the input) then reads valid text.
    fn set_str(&mut self, slot: usize, bytes: &[u8]) -> u8 {
        let mut out = [0u8; STR_CAP - 1];
        let mut len = 0;
        lossy_parts(bytes, |part| {
            let fit = floor_char_boundary(part, part.len().min(out.len() - len));
            out[len..len + fit].copy_from_slice(&part[..fit]);
            len += fit;
            fit == part.len()
        });
        self.strs.write_at(slot * STR_CAP, &out[..len]);
        len as u8
    }

    /// The tool name kept so far.
    pub(crate) fn tool_name(&self) -> &[u8] {
        self.strs
            .bytes()
            .get(..self.name_len as usize)
            .unwrap_or(&[])
    }

    pub(crate) fn set_name(&mut self, name: &[u8]) {
        self.name_len = self.set_str(0, name);
        self.name_tool = NAME_DIRTY;
    }

    /// Looks the name up among the configured tools if it changed since the last look
    /// (the driver asks after every act: a name is set by one).
    #[inline]
    pub(crate) fn resolve_name(&mut self, cfg: &Settings<'_>) {
        if self.name_tool == NAME_DIRTY {
            self.resolve_name_slow(cfg);
        }
    }

    #[inline(never)]
    fn resolve_name_slow(&mut self, cfg: &Settings<'_>) {
        self.name_tool = match cfg.tools().find(self.tool_name()) {
            Some(i) if self.name_len > 0 && i < NAME_DIRTY as usize => i as u16,
            _ => NAME_UNKNOWN,
        };
    }

    /// Appends to the tool name what fits (whole characters); returns how many bytes did.
    pub(crate) fn append_name(&mut self, piece: &[u8]) -> usize {
        let len = self.name_len as usize;
        let n = floor_char_boundary(piece, piece.len().min(STR_CAP - 1 - len));
        self.strs.write_at(len, &piece[..n]);
        self.name_len = (len + n) as u8;
        self.name_tool = NAME_DIRTY;
        n
    }

    /// An act streaming the head of `bytes` (text at the window's start: valid UTF-8, whole
    /// characters) as JSON string content. A run that needs no escape is emitted in place;
    /// escapes and the short runs around them are packed into one inline chunk of at most
    /// [`INLINE_CAP`] bytes — `a"b` + newline is one event, not four.
    pub(crate) fn escaped_act(&mut self, meta: Meta, bytes: &[u8]) -> Act {
        let run = match crate::json::escape_piece(bytes) {
            crate::json::EscapePiece::Run(r) => r,
            crate::json::EscapePiece::Escape(_) => 0,
        };
        if run == bytes.len() || run >= INLINE_CAP {
            return Act {
                consume: run,
                emit: Some((meta, Emit::Window(0, run))),
            };
        }
        let mut out = [0u8; INLINE_CAP];
        let (mut len, mut used) = (0, 0);
        while used < bytes.len() {
            let room = INLINE_CAP - len;
            // Look no further than what could still fit (and the rest of a character).
            let look = &bytes[used..bytes.len().min(used + room + 3)];
            let (piece, width): (&[u8], usize) = match crate::json::escape_piece(look) {
                crate::json::EscapePiece::Escape(e) if e.len() <= room => (e.as_bytes(), 1),
                crate::json::EscapePiece::Escape(_) => break,
                crate::json::EscapePiece::Run(r) => {
                    // A run ends at an escape (ASCII) or is cut at a character boundary.
                    let take = if r > room {
                        floor_char_boundary(&bytes[used..], room)
                    } else {
                        r
                    };
                    (&bytes[used..used + take], take)
                }
            };
            if width == 0 {
                break;
            }
            out[len..len + piece.len()].copy_from_slice(piece);
            len += piece.len();
            used += width;
        }
        self.inline_act(meta, used, &out[..len])
    }

    /// The `n` bytes of the last inline chunk.
    #[inline]
    pub(crate) fn inline_bytes(&self, n: u8) -> &[u8] {
        self.strs
            .bytes()
            .get(INLINE_AT..INLINE_AT + n as usize)
            .unwrap_or(&[])
    }

    /// Returns an act emitting `bytes` (at most [`INLINE_CAP`], valid UTF-8) through
    /// [`Emit::Inline`].
    pub(crate) fn inline_act(&mut self, meta: Meta, consume: usize, bytes: &[u8]) -> Act {
        let n = bytes.len().min(INLINE_CAP);
        self.strs.write_at(INLINE_AT, &bytes[..n]);
        Act {
            consume,
            emit: Some((meta, Emit::Inline(n as u8))),
        }
    }

    pub(crate) fn set_id(&mut self, id: &[u8]) {
        self.id_len = self.set_str(1, id);
        self.id_gen = 0;
    }

    /// Sets the id to one the wire carries (kimi-k2's `functions.N:0`) and counts the call.
    pub(crate) fn set_wire_id(&mut self, id: &[u8]) {
        self.set_id(id);
        self.id_from_wire = true;
        self.calls += 1;
    }

    pub(crate) fn set_key(&mut self, key: &[u8]) {
        self.key_len = self.set_str(2, key);
    }

    /// Sets the id to `{id_prefix}{n}` for the next call and counts it.
    pub(crate) fn next_call_id(&mut self, cfg: &Settings<'_>) {
        let mut buf = [0u8; crate::config::MAX_ID_PREFIX_LEN + 10];
        let prefix = cfg.id_prefix();
        let p = prefix.len();
        buf[..p].copy_from_slice(prefix);
        let mut digits = [0u8; 20];
        let d = decimal(u64::from(self.calls), &mut digits);
        let k = d.len();
        buf[p..p + k].copy_from_slice(d);
        let n = self.calls;
        self.calls += 1;
        self.set_id(&buf[..p + k]);
        if prefix == b"call_" && n < DEFAULT_IDS_LEN {
            self.id_gen = n as u8 + 1;
        }
    }

    pub(crate) fn clear_tool_strs(&mut self) {
        self.name_len = 0;
        self.id_len = 0;
        self.key_len = 0;
        self.name_tool = NAME_DIRTY;
        self.id_gen = 0;
        self.id_from_wire = false;
    }

    pub(crate) fn key_spool(&self) -> Spool {
        Spool::buf(
            BufId::Strs,
            SpoolMode::Escaped,
            (2 * STR_CAP) as u32,
            (2 * STR_CAP + self.key_len as usize) as u32,
        )
    }

    pub(crate) fn name_spool(&self) -> Spool {
        Spool::buf(BufId::Strs, SpoolMode::Plain, 0, self.name_len as u32)
    }

    pub(crate) fn id_spool(&self) -> Spool {
        Spool::buf(
            BufId::Strs,
            SpoolMode::Plain,
            STR_CAP as u32,
            (STR_CAP + self.id_len as usize) as u32,
        )
    }

    // --- failed calls ------------------------------------------------------------------

    /// Completes the open tool call as failed and, with `on_malformed = text`, re-emits its
    /// raw text as a text block where the front end's calls sit. `with_closer`: the bytes this act consumes (the
    /// call's closing tag) still belong to the raw text.
    pub(crate) fn fail_call(&mut self, reason: ErrorReason, with_closer: bool) {
        if self.spill {
            // The call completed when it began to spill; its text block ends here.
            self.spill = false;
            self.close_open();
            return;
        }
        // A call that outgrew `max_call_bytes` fails as too large, however it ends.
        let reason = if self.outgrown() {
            ErrorReason::TooLarge
        } else {
            reason
        };
        if with_closer {
            self.capture_next = CaptureNext::Stop;
        } else {
            self.capture = false;
        }
        self.close_tool(Some(reason), false);
        if self.re_emit && (self.raw.len() > 0 || with_closer) {
            self.start_block(BlockType::Text, self.call_depth);
            // To the end of `raw` as it is when the chunk is emitted (the closer included).
            let end = u32::MAX;
            self.queue_chunk(None, Spool::buf(BufId::Raw, SpoolMode::Lossy, 0, end));
            self.close_open();
        }
    }

    /// What a failed call skips on its way to its closer (`d`, text or invalid bytes): kept
    /// in its raw text while that holds the whole call. Once it no longer can (the call
    /// outgrew `max_call_bytes`, or caller memory is full), the call completes as failed at
    /// once, its raw text comes back as a text block (`on_malformed = text`) that stays open,
    /// and the rest of the call streams into it as it is read, up to and including its
    /// closer ([`close_skipped`](Emitter::close_skipped)): nothing of it is lost, however
    /// long it is.
    pub(crate) fn skip(&mut self, d: Decision, reason: ErrorReason) -> Act {
        let n = match d {
            Decision::Text(n) | Decision::Invalid(n) => n,
            _ => return Act::WAIT,
        };
        if !self.spill {
            if !(self.raw_cut || self.outgrown()) {
                return Act::skip(n);
            }
            self.begin_spill(reason);
            return Act::WAIT;
        }
        if self.re_emit {
            self.content(BlockType::Text, self.call_depth, d)
        } else {
            Act::skip(n)
        }
    }

    /// The failed call's raw text can no longer hold it: complete it now (its `raw` is
    /// marked cut) and open the text block the rest streams into.
    fn begin_spill(&mut self, reason: ErrorReason) {
        let reason = if self.outgrown() {
            ErrorReason::TooLarge
        } else {
            reason
        };
        self.capture = false;
        self.raw_cut = true;
        self.close_tool(Some(reason), false);
        self.spill = true;
        if self.re_emit {
            self.start_block(BlockType::Text, self.call_depth);
            let end = self.raw.len() as u32;
            self.queue_chunk(None, Spool::buf(BufId::Raw, SpoolMode::Lossy, 0, end));
        }
    }

    /// The closer of a failed call that was being skipped (`len` bytes; `with_closer`: it
    /// belongs to the call's raw text). Normally the call fails here ([`fail_call`]); a call
    /// that spilled already completed, and its closer ends the text block.
    ///
    /// [`fail_call`]: Emitter::fail_call
    pub(crate) fn close_skipped(
        &mut self,
        reason: ErrorReason,
        len: usize,
        with_closer: bool,
    ) -> Act {
        if !self.spill {
            self.fail_call(reason, with_closer);
            return Act::skip(len);
        }
        self.spill = false;
        // A spill opened its text block exactly when the text comes back (`re_emit`).
        let meta = self.meta(None);
        self.close_open();
        if with_closer && self.re_emit {
            return Act {
                consume: len,
                emit: Some((meta, Emit::Window(0, len))),
            };
        }
        Act::skip(len)
    }

    /// Keeps capturing, but forgets what was captured so far, this act's bytes included (a
    /// completed call of an array owns them; a later failure's raw starts after it).
    pub(crate) fn restart_capture(&mut self) {
        self.capture_next = CaptureNext::Restart;
    }

    /// Sets the depth a failed call's raw text is re-emitted at, for a front end whose calls
    /// sit at different depths (the special-token dialects: 1 in a section, 0 for a bare
    /// call at top level).
    pub(crate) fn set_call_depth(&mut self, depth: u8) {
        self.call_depth = depth;
    }

    /// Opens a tool_call block at `depth` for a call whose opening marker is being read:
    /// its raw text is captured from that marker on.
    pub(crate) fn open_call(&mut self, depth: u8) {
        self.begin_capture();
        self.start_block(BlockType::ToolCall, depth);
        self.clear_tool_strs();
    }

    /// Streams the open call's name part, then its id part (`{id_prefix}{n}`).
    pub(crate) fn announce_call(&mut self, cfg: &Settings<'_>, name: &[u8]) {
        self.set_name(name);
        self.queue_chunk(Some(Part::Name), self.name_spool());
        self.next_call_id(cfg);
        self.queue_chunk(Some(Part::Id), self.id_spool());
    }

    /// Completes the open call successfully: its input object closes (`{}` when it had no
    /// member) and capturing stops.
    pub(crate) fn finish_call(&mut self, cfg: &Settings<'_>, had_members: bool) {
        let close = if had_members { "}" } else { "{}" };
        self.queue_chunk(Some(Part::Input), Spool::Static(close));
        self.complete_call(cfg);
    }

    /// Completes the open tool call normally and stops capturing its raw text.
    pub(crate) fn complete_call(&mut self, cfg: &Settings<'_>) {
        self.complete_tool(cfg, None, false);
        self.stop_capture();
    }

    /// Stops capturing raw text now — unless a failure asked to capture this act's bytes
    /// too (the closer belongs to a failed call's raw text).
    pub(crate) fn stop_capture(&mut self) {
        if self.capture_next != CaptureNext::Stop {
            self.capture = false;
        }
    }

    /// Starts capturing a call's raw text (the opening marker is captured with it).
    pub(crate) fn begin_capture(&mut self) {
        self.raw.clear();
        self.raw_cut = false;
        self.capture = true;
    }
}

/// The act for a text or invalid decision in a content block described by `meta`.
#[inline]
pub(crate) fn content_act(meta: Meta, d: Decision) -> Act {
    match d {
        Decision::Text(n) => Act {
            consume: n,
            emit: Some((meta, Emit::Window(0, n))),
        },
        Decision::Invalid(n) => Act {
            consume: n,
            emit: Some((meta, Emit::Static("\u{FFFD}"))),
        },
        _ => Act::WAIT,
    }
}

/// The length of the longest prefix of `text` (valid UTF-8) of at most `max` bytes that ends
/// on a character boundary, but at least one character.
/// `n` in decimal, written at the end of `buf`.
pub(crate) fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

pub(crate) fn text_prefix(text: &[u8], max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let cut = floor_char_boundary(text, max);
    if cut > 0 {
        return cut;
    }
    // The first character is longer than `max`: take it whole.
    1 + text[1..].iter().take_while(|&&b| b & 0xC0 == 0x80).count()
}

/// Hands `bytes` to `push` as valid UTF-8 parts, each invalid sequence as U+FFFD (as
/// `from_utf8_lossy` makes them, rule 7), while `push` says it took the whole part.
pub(crate) fn lossy_parts(bytes: &[u8], mut push: impl FnMut(&[u8]) -> bool) {
    for chunk in bytes.utf8_chunks() {
        if !push(chunk.valid().as_bytes()) {
            return;
        }
        if !chunk.invalid().is_empty() && !push("\u{FFFD}".as_bytes()) {
            return;
        }
    }
}

/// The longest valid UTF-8 prefix of `bytes` (text cut inside a character at a buffer's end).
#[inline]
pub(crate) fn valid_prefix(bytes: &[u8]) -> &str {
    if bytes.len() < 16 {
        // Token-sized: `utf8_chunks` is a plain byte loop, cheaper here than `from_utf8`'s
        // word-at-a-time setup (and much slower than it on long input).
        return bytes.utf8_chunks().next().map_or("", |c| c.valid());
    }
    match core::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => core::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
    }
}

pub(crate) fn floor_char_boundary(bytes: &[u8], n: usize) -> usize {
    let mut n = n.min(bytes.len());
    while n > 0 && n < bytes.len() && (bytes[n] & 0xC0) == 0x80 {
        n -= 1;
    }
    n
}
