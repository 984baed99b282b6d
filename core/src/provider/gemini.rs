//! Google Gemini `streamGenerateContent` (`alt=sse` events or the default streamed JSON
//! array, one `GenerateContentResponse` per document), or one whole `generateContent` body.
//!
//! Paths read (depth = containers open at the value):
//! `responseId`, `modelVersion` (1); `candidates[i]` (3): `index`, `finishReason`;
//! `candidates[i].content.parts[j]` (6): `text`, `thought`, `thoughtSignature`,
//! `functionCall` (7): `id`, `name`, `args`, `willContinue`, `partialArgs[k]` (9): `jsonPath`,
//! `stringValue`, `numberValue`, `boolValue`, `nullValue`, `willContinue`; `executableCode`, `codeExecutionResult` (6,
//! objects); `usageMetadata` (2); `promptFeedback` (2):
//! `blockReason`; `error` (2): `code`, `message`, `status`.
//!
//! Decisions (docs/providers.md, "Readings the vectors pin"):
//! - A candidate is the choice of its `index`, or of its position until an `index` is read
//!   (the wire writes `index` after `content`, so content uses the position).
//! - A part's block type is known only from its `thought` flag, which the wire writes after
//!   `text`: the text is held (`out.held`) until the flag or the part's end, then goes out
//!   as one chunk (`Out::text_as`: through the text dialect when one is set); text after a
//!   `thought` flag streams straight into its block. Consecutive parts of one kind join one
//!   block, across documents. Past the held bound the text is decided where it stands (the
//!   choice's open thinking block's kind, else text) and streams on.
//! - A `thoughtSignature` goes on the `block_complete` of its part's block and ends that
//!   block; an empty part with only a signature signs the open text or thinking block of
//!   the choice, or with none open (or text run through a dialect) is a signature-only
//!   thinking block.
//! - A `functionCall` arrives whole: one tool_call block, opened when `args` starts (its
//!   `id` and `name` come first on the wire) or at the call's end, completed at the part's
//!   end. `args` (an object) is rendered as compact JSON; no `args` is `{}`.
//! - Vertex streamed arguments (`partialArgs`, `willContinue`): a call whose `functionCall`
//!   says `willContinue` stays open across parts and documents; its input is rebuilt as
//!   `{"key":value,…}` from the top-level members the `jsonPath`s name (`Streamed`); other
//!   paths fail the call with a `partial-args` framing error.
//! - Code execution runs on Google's side: an `executableCode` part is a server tool_call
//!   (`server: true`) named `code_execution` whose input is the part's object as written
//!   (`{"language": …, "code": …}`), its id `{id_prefix}{n}`; a `codeExecutionResult`
//!   part is a server tool_result of that call (name and id), its content the part's object
//!   as compact JSON (`{"outcome": …, "output": …}`, as other server tool results carry
//!   JSON). Neither makes a `STOP` a `tool_calls` finish: the host runs nothing.
//! - `finishReason` is applied at the candidate's end; `STOP` in a choice that made function
//!   calls is `tool_calls`. Gemini has no end marker: the finishes come at the end of the
//!   body (`eof`), each choice's with its reason when it gave one.

use super::error_fields::ErrorFields;
use super::out::{Out, Slot};
use super::path::{Key, Path};
use super::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use crate::event::{BlockType, FinishReason};
use crate::json::relaxed::Literal;

/// What a `Collect` (or `Hold`) string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    None,
    ResponseId,
    Model,
    FinishReason,
    BlockReason,
    /// A part's `text` whose block type is not known yet.
    PartText,
    Signature,
    CallName,
    CallId,
    /// A partial argument's `jsonPath`.
    JsonPath,
    ErrMessage,
    ErrCode,
    ErrType,
    ErrStatus,
}

/// The part being read.
#[derive(Clone, Copy, Debug, Default)]
struct Part {
    /// Its `thought` flag, once read.
    thought: Option<bool>,
    /// Its text is in `out.held`, not sent yet.
    held: bool,
    /// Its text outgrew `out.held`: decided, the rest goes straight out.
    streaming: bool,
    /// A non-empty `thoughtSignature` is in `out.signature`.
    sig: bool,
    /// Its `thoughtSignature` outgrew `out.signature` (reported at the part's end).
    sig_over: bool,
    /// It opened a tool_call block.
    call: bool,
    /// It opened a tool_result block (a code execution's result).
    result: bool,
}

/// A function call whose arguments stream as `partialArgs` (Vertex
/// `streamFunctionCallArguments`): its input is rebuilt as `{"key":value,…}` in the order
/// the arguments come, so its input chunks concatenate to its input.
#[derive(Clone, Copy)]
struct Streamed {
    /// A call is streaming: its `{` went out, its `}` goes out with the part that ends it.
    active: bool,
    /// Its call number (`OpenBlock::call`).
    call: u32,
    /// Members written.
    members: u32,
    /// A string value is open (its last piece said `willContinue`), of the member `key`.
    in_string: bool,
    key: Slot,
    /// A partial argument could not be rebuilt: the call failed (one error event), the rest
    /// of it is skipped until the part that ends it.
    broken: bool,
}

const STREAMED: Streamed = Streamed {
    active: false,
    call: 0,
    members: 0,
    in_string: false,
    key: Slot::EMPTY,
    broken: false,
};

/// The partial argument being read (`partialArgs[k]`).
#[derive(Clone, Copy)]
struct PartialArg {
    /// Its `jsonPath` was read and its member opened.
    path: bool,
    /// It continues the open string value (same path).
    cont_string: bool,
    /// Its value is a string.
    string: bool,
    /// Its `willContinue`.
    cont: bool,
    key: Slot,
}

const PARTIAL_ARG: PartialArg = PartialArg {
    path: false,
    cont_string: false,
    string: false,
    cont: false,
    key: Slot::EMPTY,
};

const PARTIAL_UNSUPPORTED: &str = "a streamed function-call argument (partialArgs) that is not rebuilt: its jsonPath is not a top-level member ($.name or $['name']), or its value came before its jsonPath, or the call was interrupted; the call fails and the rest of its arguments is skipped";

pub(crate) struct Gemini {
    choice: u32,
    what: What,
    part: Part,
    /// The `functionCall` being read.
    call_name: Slot,
    call_id: Slot,
    /// The mapper's call numbering (`OpenBlock::call`).
    next_call: u32,
    /// Choices (bit `min(choice, 31)`) that made function calls.
    called: u32,
    /// A string value collected (an id, model, reason, error field).
    value: Slot,
    /// The candidate's `finishReason`, applied at its end.
    reason: Slot,
    err: ErrorFields,
    /// The id of the last `executableCode` call (its result names it).
    code_id: Slot,
    streamed: Streamed,
    pa: PartialArg,
    /// The `functionCall` being read said `willContinue: true`.
    call_continue: bool,
}

/// The server tool a code execution part is a call of.
const CODE_EXECUTION: &[u8] = b"code_execution";

impl Gemini {
    pub(crate) const fn new() -> Gemini {
        Gemini {
            choice: 0,
            what: What::None,
            part: Part {
                thought: None,
                held: false,
                streaming: false,
                sig: false,
                sig_over: false,
                call: false,
                result: false,
            },
            call_name: Slot::EMPTY,
            call_id: Slot::EMPTY,
            next_call: 0,
            called: 0,
            value: Slot::EMPTY,
            reason: Slot::EMPTY,
            err: ErrorFields::NEW,
            code_id: Slot::EMPTY,
            streamed: STREAMED,
            pa: PARTIAL_ARG,
            call_continue: false,
        }
    }

    /// Inside a partial argument object (`functionCall.partialArgs[k]`).
    fn in_partial_arg(p: &Path) -> bool {
        p.depth() == 9
            && Self::in_part(p, 9)
            && p.key(6) == Key::FunctionCall
            && p.key(7) == Key::PartialArgs
    }

    /// The streamed call's block is open, and nothing broke it.
    fn streaming(&mut self, out: &mut Out) -> bool {
        if !self.streamed.active || self.streamed.broken {
            return false;
        }
        let open = matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && o.call == self.streamed.call);
        if !open {
            // Another block came between its parts: what follows cannot join it.
            self.partial_fail(out);
        }
        open
    }

    /// A partial argument that cannot be rebuilt: the call fails (the fault completes it,
    /// cut), reported once; the rest of it is skipped.
    fn partial_fail(&mut self, out: &mut Out) {
        if !self.streamed.broken {
            self.streamed.broken = true;
            out.fault("partial-args", PARTIAL_UNSUPPORTED);
        }
    }

    /// Starts the streamed call (its block, its `{`) unless one is streaming.
    fn stream_start(&mut self, out: &mut Out) {
        if self.streamed.active || self.streamed.broken {
            return;
        }
        self.streamed = Streamed {
            active: true,
            call: self.next_call,
            ..STREAMED
        };
        self.open_call(out);
        out.args_text(b"{");
        // Its block outlives the part (`end_part`).
        self.part.call = false;
    }

    /// The part that ends the streamed call: an open string and the object close.
    fn stream_end(&mut self, out: &mut Out) {
        if self.streaming(out) {
            if self.streamed.in_string {
                out.args_text(b"\"");
            }
            out.args_text(b"}");
            // Its block completes at this part's end.
            self.part.call = true;
        }
        self.streamed = STREAMED;
    }

    /// A partial argument's `jsonPath` (in `value`): the member it names opens, or the open
    /// string goes on.
    fn partial_path(&mut self, out: &mut Out) {
        if !self.streaming(out) {
            return;
        }
        let Some(key) = member_of(self.value.bytes()) else {
            self.partial_fail(out);
            return;
        };
        if self.streamed.in_string {
            if key == self.streamed.key.bytes() {
                self.pa.path = true;
                self.pa.cont_string = true;
                return;
            }
            out.args_text(b"\"");
            self.streamed.in_string = false;
        }
        let mut buf = [0u8; super::out::ARGS_STEP];
        let mut n = 0;
        let mut put = |bytes: &[u8]| -> bool {
            if n + bytes.len() > buf.len() {
                return false;
            }
            buf[n..n + bytes.len()].copy_from_slice(bytes);
            n += bytes.len();
            true
        };
        let mut ok = (self.streamed.members == 0 || put(b",")) && put(b"\"");
        for &b in key {
            let mut esc = [0u8; 6];
            ok = ok && put(super::out::escape_byte(b, &mut esc));
        }
        ok = ok && put(b"\":");
        if !ok {
            self.partial_fail(out);
            return;
        }
        self.pa.key.set(key);
        out.args_text(&buf[..n]);
        self.streamed.members += 1;
        self.pa.path = true;
    }

    /// A partial argument's value starts: is its member open?
    fn partial_value(&mut self, out: &mut Out) -> bool {
        if !self.streaming(out) {
            return false;
        }
        if !self.pa.path {
            self.partial_fail(out);
            return false;
        }
        true
    }

    /// Inside `candidates[i].content.parts[j]` (at `level` or deeper).
    fn in_part(p: &Path, level: u32) -> bool {
        p.depth() >= level
            && p.key(1) == Key::Candidates
            && p.key(3) == Key::Content
            && p.key(4) == Key::Parts
    }

    /// Inside the part's `functionCall` object.
    fn in_call(p: &Path) -> bool {
        p.depth() == 7 && Self::in_part(p, 7) && p.key(6) == Key::FunctionCall
    }

    fn bit(choice: u32) -> u32 {
        1 << choice.min(31)
    }

    /// The block type of the part's text as far as it is known.
    fn part_type(&self) -> BlockType {
        if self.part.thought == Some(true) {
            BlockType::Thinking
        } else {
            BlockType::Text
        }
    }

    /// Sends the part's held text into the block of its type (joining an open one).
    fn flush_text(&mut self, out: &mut Out) {
        if !self.part.held {
            return;
        }
        self.part.held = false;
        out.text_as(self.part_type(), self.choice, None);
    }

    /// A piece of the part's text while its type is unknown: held, or past the bound,
    /// decided now and sent on.
    fn text_piece(&mut self, bytes: &[u8], out: &mut Out) {
        if !self.part.streaming {
            if out.held.len() + bytes.len() <= out.held.limit() {
                let _ = out.held.push(bytes);
                self.part.held = true;
                return;
            }
            // Decided where it stands: the open block's kind, else text.
            let thinking = matches!(
                out.open,
                Some(o) if o.choice == self.choice && !o.routed && o.ty == BlockType::Thinking
            );
            self.part.thought = Some(thinking);
            self.part.streaming = true;
            self.flush_text(out);
        }
        out.text_as(self.part_type(), self.choice, Some(bytes));
    }

    /// Opens the part's tool_call block (once).
    fn open_call(&mut self, out: &mut Out) {
        if self.part.call {
            return;
        }
        self.flush_text(out);
        self.part.call = true;
        self.called |= Self::bit(self.choice);
        out.open_call(
            self.choice,
            self.next_call,
            false,
            self.call_name.bytes(),
            self.call_id.bytes(),
        );
        self.next_call = self.next_call.wrapping_add(1);
    }

    /// An `executableCode` part: a server tool_call named `code_execution`, its input the
    /// part's object; its id is kept for the result that follows.
    fn open_code(&mut self, out: &mut Out) {
        self.flush_text(out);
        self.part.call = true;
        out.open_call(self.choice, self.next_call, true, CODE_EXECUTION, b"");
        self.next_call = self.next_call.wrapping_add(1);
        self.code_id = out.id;
    }

    /// The part ended: its text goes out, its signature signs its block, which ends.
    fn end_part(&mut self, out: &mut Out) {
        self.flush_text(out);
        if self.streamed.active && !self.part.call {
            // A part of a call still streaming: its block stays open, and a signature waits
            // for it.
            let part = self.part;
            self.part = Part::default();
            if part.sig_over {
                out.signature.clear();
                self.partial_fail(out);
            } else if part.sig && self.streaming(out) {
                out.sig_block = out.open.map(|o| o.index);
            }
            return;
        }
        let part = self.part;
        self.part = Part::default();
        let choice = self.choice;
        let call = matches!(out.open, Some(o) if part.call && o.ty == BlockType::ToolCall)
            || matches!(out.open, Some(o) if part.result && o.ty == BlockType::ToolResult);
        if part.sig_over {
            // A cut signature would be refused when sent back: its block completes unsigned
            // and the limit is reported.
            out.signature.clear();
            out.fault(
                "max-call-bytes",
                "a thoughtSignature exceeded max_call_bytes; it is dropped",
            );
        } else if part.sig {
            // Text run through a text dialect has no block of its own to sign.
            let own = matches!(
                out.open,
                Some(o) if o.choice == choice
                    && !o.routed
                    && matches!(o.ty, BlockType::Text | BlockType::Thinking)
            );
            if !(call || own) {
                out.open_text(BlockType::Thinking, choice, false);
            }
            out.sig_block = out.open.map(|o| o.index);
            out.close();
        } else if call {
            out.close();
        }
    }
}

fn reason_of(raw: &[u8], called: bool) -> FinishReason {
    match raw {
        b"STOP" if called => FinishReason::ToolCalls,
        b"STOP" => FinishReason::Stop,
        b"MAX_TOKENS" => FinishReason::Length,
        b"SAFETY"
        | b"RECITATION"
        | b"BLOCKLIST"
        | b"PROHIBITED_CONTENT"
        | b"SPII"
        | b"IMAGE_SAFETY" => FinishReason::ContentFilter,
        b"MALFORMED_FUNCTION_CALL" | b"UNEXPECTED_TOOL_CALL" => FinishReason::MalformedToolCall,
        _ => FinishReason::Other,
    }
}

impl Map for Gemini {
    fn reset_state(&mut self) {
        *self = Gemini::new();
    }

    fn begin(&mut self, _doc: DocInfo<'_>, _out: &mut Out) {
        self.choice = 0;
        self.what = What::None;
        self.part = Part::default();
        self.reason.clear();
        self.err.depth = 0;
    }

    fn open(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if d == 3 && p.key(1) == Key::Candidates {
            self.choice = p.index(2);
            self.reason.clear();
        } else if d == 6 && Self::in_part(p, 6) {
            self.part = Part::default();
            out.held.clear();
            if !self.streamed.active {
                // (A streamed call's signature waits for its block to complete.)
                out.signature.clear();
                out.sig_block = None;
            }
        } else if d == 7 && Self::in_part(p, 7) && p.key(6) == Key::FunctionCall {
            self.call_name.clear();
            self.call_id.clear();
            self.call_continue = false;
        } else if Self::in_partial_arg(p) {
            self.pa = PARTIAL_ARG;
            self.stream_start(out);
        } else if d == 2 && p.key(1) == Key::Error && self.err.depth == 0 {
            self.err.start(2, out);
        }
    }

    fn close(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        if d == 7 && Self::in_part(p, 7) && p.key(6) == Key::FunctionCall {
            if self.streamed.active || self.streamed.broken {
                // A part of the streamed call; without `willContinue` it is the last.
                if !self.call_continue {
                    self.stream_end(out);
                }
            } else if self.call_continue {
                // Its arguments stream in the parts that follow.
                self.stream_start(out);
            } else {
                // A call without `args`: its input is `{}`.
                self.open_call(out);
            }
        } else if Self::in_partial_arg(p) {
            if self.pa.string && self.streamed.active && !self.streamed.broken {
                if self.pa.cont {
                    self.streamed.in_string = true;
                    if !self.pa.cont_string {
                        self.streamed.key = self.pa.key;
                    }
                } else {
                    out.args_text(b"\"");
                    self.streamed.in_string = false;
                }
            }
        } else if d == 6 && Self::in_part(p, 6) {
            self.end_part(out);
        } else if d == 3 && p.key(1) == Key::Candidates {
            if !self.reason.is_empty() {
                let raw = self.reason;
                let called = self.called & Self::bit(self.choice) != 0;
                out.choice_reason(self.choice, reason_of(raw.bytes(), called), raw.bytes());
                self.reason.clear();
            }
        } else if d == 2 && self.err.depth == 2 && p.key(1) == Key::Error {
            self.err.depth = 0;
            self.err.seen = false;
            self.err.report(out);
        }
    }

    fn string(&mut self, p: &Path, out: &mut Out) -> Sink {
        let d = p.depth();
        self.what = What::None;

        if self.err.depth > 0 && d == self.err.depth {
            self.what = match p.last_key() {
                Key::Message => What::ErrMessage,
                Key::Code => What::ErrCode,
                Key::Type => What::ErrType,
                Key::Status => What::ErrStatus,
                _ => What::None,
            };
        } else if d == 1 {
            self.what = match p.key(1) {
                Key::ResponseId => What::ResponseId,
                Key::ModelVersion => What::Model,
                Key::Error => {
                    // `{"error": "text"}`
                    self.err.start(1, out);
                    What::ErrMessage
                }
                _ => What::None,
            };
        } else if d == 2 && p.key(1) == Key::PromptFeedback && p.key(2) == Key::BlockReason {
            self.what = What::BlockReason;
        } else if d == 3 && p.key(1) == Key::Candidates && p.key(3) == Key::FinishReasonCamel {
            self.what = What::FinishReason;
        } else if d == 6 && Self::in_part(p, 6) {
            match p.key(6) {
                Key::Text => {
                    if self.part.thought.is_some() && !self.part.held {
                        // The flag came first: the text streams into its block.
                        return Sink::Text {
                            ty: self.part_type(),
                            choice: self.choice,
                            refusal: false,
                        };
                    }
                    if !self.part.held {
                        // What it held before went out in an earlier step.
                        out.held.clear();
                    }
                    self.what = What::PartText;
                    return Sink::Hold;
                }
                Key::ThoughtSignature => {
                    out.signature.clear();
                    self.part.sig = false;
                    self.part.sig_over = false;
                    self.what = What::Signature;
                }
                _ => {}
            }
        } else if Self::in_call(p) {
            match p.key(7) {
                Key::Name => self.what = What::CallName,
                Key::Id => self.what = What::CallId,
                Key::Args => {
                    // Arguments written as JSON text.
                    self.open_call(out);
                    return Sink::Args;
                }
                _ => {}
            }
        } else if Self::in_partial_arg(p) {
            match p.key(9) {
                Key::JsonPath => self.what = What::JsonPath,
                Key::StringValue if self.partial_value(out) => {
                    self.pa.string = true;
                    if !self.pa.cont_string {
                        out.args_text(b"\"");
                    }
                    return Sink::ArgsString;
                }
                Key::NullValue if self.partial_value(out) => {
                    out.args_text(b"null");
                }
                _ => {}
            }
        }
        if self.what == What::None {
            return Sink::Skip;
        }
        self.value.clear();
        Sink::Collect
    }

    fn piece(&mut self, bytes: &[u8], out: &mut Out) {
        match self.what {
            What::None => {}
            What::PartText => self.text_piece(bytes, out),
            What::Signature => {
                if !out.signature.push(bytes) {
                    self.part.sig_over = true;
                }
            }
            What::ErrMessage => {
                let _ = out.message.push(bytes);
            }
            What::CallName => self.call_name.push(bytes),
            What::CallId => self.call_id.push(bytes),
            What::JsonPath => self.value.push(bytes),
            What::ErrCode => self.err.code.push(bytes),
            What::ErrType => self.err.ty.push(bytes),
            What::ErrStatus => self.err.status.push(bytes),
            What::ResponseId | What::Model | What::FinishReason | What::BlockReason => {
                self.value.push(bytes)
            }
        }
    }

    fn string_end(&mut self, _p: &Path, out: &mut Out) {
        // An empty id, model or reason names nothing (providers.md).
        let value = self.value;
        let named = !value.is_empty();
        match self.what {
            What::Signature => self.part.sig = out.signature.len() > 0 && !self.part.sig_over,
            What::ResponseId if named => out.response_id = value,
            What::Model if named => out.model = value,
            What::FinishReason if named => self.reason = value,
            What::BlockReason if named => {
                out.choice_reason(0, FinishReason::ContentFilter, value.bytes());
            }
            What::JsonPath => self.partial_path(out),
            What::ErrMessage if self.err.depth == 1 => {
                self.err.depth = 0;
                self.err.seen = false;
                self.err.report(out);
            }
            _ => {}
        }
        self.what = What::None;
    }

    fn scalar(&mut self, p: &Path, v: Scalar, out: &mut Out) {
        let d = p.depth();
        if d == 6 && Self::in_part(p, 6) && p.key(6) == Key::Thought {
            if self.part.streaming {
                return;
            }
            self.part.thought = Some(v == Scalar::Literal(Literal::True));
            // The type is known: held text goes out now.
            self.flush_text(out);
            return;
        }
        if p.last_key() == Key::WillContinue {
            let yes = v == Scalar::Literal(Literal::True);
            if Self::in_partial_arg(p) {
                self.pa.cont = yes;
            } else if Self::in_call(p) {
                self.call_continue = yes;
            }
            return;
        }
        let Scalar::Int(n) = v else {
            return;
        };
        if d == 3 && p.key(1) == Key::Candidates && p.key(3) == Key::Index {
            self.choice = n.min(u64::from(u32::MAX)) as u32;
        } else if d == 2 && p.key(1) == Key::UsageMetadata {
            let u = &mut out.usage;
            match p.key(2) {
                Key::PromptTokenCount => u.input_tokens = Some(n),
                Key::CandidatesTokenCount => u.output_tokens = Some(n),
                Key::CachedContentTokenCount => u.cache_read_tokens = Some(n),
                Key::ThoughtsTokenCount => u.reasoning_tokens = Some(n),
                _ => {}
            }
        } else if self.err.depth > 0 && d == self.err.depth && p.last_key() == Key::Code {
            self.err.number(n);
        }
    }

    fn value(&mut self, p: &Path, v: ValueStart, out: &mut Out) -> Option<Capture> {
        if v == ValueStart::Object
            && p.depth() == 6
            && Self::in_part(p, 6)
            && p.key(6) == Key::ExecutableCode
        {
            self.open_code(out);
            return Some(Capture::Args);
        }
        if v == ValueStart::Object
            && p.depth() == 6
            && Self::in_part(p, 6)
            && p.key(6) == Key::CodeExecutionResult
        {
            // The code's outcome and output: a server tool_result of its call whose content
            // is the object as compact JSON, as other server tool results are.
            self.flush_text(out);
            self.part.result = true;
            out.open_result(self.choice, true, CODE_EXECUTION, self.code_id.bytes());
            return Some(Capture::Text);
        }
        if v == ValueStart::Scalar
            && Self::in_partial_arg(p)
            && matches!(p.key(9), Key::NumberValue | Key::BoolValue)
        {
            // The number or literal as written.
            return self.partial_value(out).then_some(Capture::Args);
        }
        // `args` is an object (a `Struct`), rendered whole into the call's arguments.
        if matches!(v, ValueStart::Object | ValueStart::Array)
            && Self::in_call(p)
            && p.key(7) == Key::Args
        {
            self.open_call(out);
            return Some(Capture::Args);
        }
        None
    }

    fn end(&mut self, out: &mut Out) {
        // A document cut inside a part: what it held still goes out.
        self.flush_text(out);
        self.part = Part::default();
        self.err.depth = 0;
    }

    fn done(&mut self, _out: &mut Out) {
        // Gemini has no end marker; the finish comes at the end of the body.
    }

    fn eof(&mut self, out: &mut Out) {
        out.finish_all(true);
    }
}

/// The member a partial argument's `jsonPath` names: `$.name` or `$['name']` / `$["name"]`
/// (RFC 9535); `None` for any other path (nested members, array elements).
fn member_of(path: &[u8]) -> Option<&[u8]> {
    if let Some(name) = path.strip_prefix(b"$.") {
        let plain = !name.is_empty()
            && name
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80);
        return plain.then_some(name);
    }
    for q in [b'\'', b'"'] {
        let inner = path
            .strip_prefix(&[b'$', b'[', q][..])
            .and_then(|r| r.strip_suffix(&[q, b']'][..]));
        if let Some(name) = inner {
            return (!name.contains(&q) && !name.contains(&b'\\')).then_some(name);
        }
    }
    None
}
