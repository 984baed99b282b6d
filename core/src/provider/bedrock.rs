//! AWS Bedrock: ConverseStream events in the AWS event stream (one JSON payload per frame,
//! its kind in the `:event-type` header), exception and error frames, a whole Converse
//! response body, and InvokeModelWithResponseStream `chunk` frames (`{"bytes": base64}`,
//! read by the decoder's nested reader with the `invoke_format` mapper: this mapper only
//! says where the base64 text is).
//!
//! Paths read (depth = containers open at the value), by event type:
//! `contentBlockStart`: `contentBlockIndex` (1), `start.toolUse` (3): `name`, `toolUseId`,
//! `type` (`server_tool_use`: a server call); `start.toolResult` (3): `toolUseId`, `type` (a
//! server tool_result block);
//! `contentBlockDelta`: `delta` (2): `text` → text; `delta.toolUse.input` (3) → arguments;
//! `delta.toolResult[k]` (4): `text`, `json` (compact) → the server result's content;
//! `delta.reasoningContent` (3): `text` → thinking, `signature`, `redactedContent`;
//! `delta.citation` (2): captured into the text block's citations (`cite`);
//! `contentBlockStop`; `messageStop`: `stopReason` (1); `metadata`: `usage` (2);
//! `chunk`: `bytes` (1); an exception frame: `message` (1), its code the `:exception-type`;
//! a `:message-type error` frame: the `:error-code` and `:error-message` headers.
//! A whole body: `output.message.content[i]` (5): `text`; `toolUse` (6): `toolUseId`,
//! `name`, `input` (a JSON value, captured); `reasoningContent` (6): `redactedContent`,
//! `reasoningText` (7): `text`, `signature`; `stopReason` (1); `usage` (2); a bare error
//! body's `message` (1).
//!
//! Blocks: Converse opens a text or reasoning block at its first delta (no
//! `contentBlockStart` for them), a tool call at `contentBlockStart`; a delta for another
//! `contentBlockIndex` than the open block's completes it first (at its `delta` object when
//! the open block holds citations or a signature, which its completion reads from the
//! buffers the next block's would claim). The stream ends with `metadata` after
//! `messageStop` (docs/providers.md).

use super::cite;
use super::out::{Out, Slot};
use super::path::{Key, Path};
use super::{Capture, DocInfo, Map, Scalar, Sink, ValueStart};
use crate::event::{BlockType, ErrorSource, FinishReason};

const SIG_DROPPED: &str =
    "a reasoning block's signature or redacted data exceeded max_call_bytes; it is dropped";

/// What the current document is (from the frame headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doc {
    /// A whole JSON body (no frame headers): a Converse response or an error body.
    Whole,
    Start,
    Delta,
    Stop,
    MessageStop,
    Metadata,
    /// InvokeModelWithResponseStream.
    Chunk,
    /// `:message-type exception`.
    Exception,
    /// `:message-type error`.
    Error,
    /// Another event type (`messageStart`, unknown ones): nothing to read.
    Other,
}

/// What a `Collect` string is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    None,
    ToolName,
    ToolId,
    Reason,
    Signature,
    Redacted,
    ErrMessage,
    /// A server tool result's `type` (its tool name) and `toolUseId`.
    ResultType,
    ResultId,
    /// A tool call's `type` (`server_tool_use`: run by Bedrock, as Nova's system tools).
    CallType,
}

pub(crate) struct Bedrock {
    doc: Doc,
    what: What,
    /// The document's `contentBlockIndex` (a whole body: the content element's position).
    index: u32,
    /// The block index (as above) the open output block belongs to.
    open_wire: Option<u32>,
    /// The latest tool call: its block index, name, id and decoder-wide number.
    call_wire: Option<u32>,
    call_name: Slot,
    call_id: Slot,
    call_n: u32,
    /// Its block was opened (a whole body opens it at `input`, or at the end of `toolUse`).
    call_opened: bool,
    next_call: u32,
    reason: Slot,
    /// The block (index as `index`) whose signature or redacted data passed
    /// `max_call_bytes`: dropped and reported, its later pieces ignored.
    sig_dropped: Option<u32>,
    /// `messageStop` came: `metadata` now ends the stream.
    stopped: bool,
    finished: bool,
    /// The code of an exception or error frame.
    err_code: Slot,
    /// A whole body: it has `output`; it has a top-level `message`.
    output: bool,
    body_message: bool,
    /// The latest server tool result (`start.toolResult`): its block index, name (its
    /// `type`, else the name of the call it answers) and id.
    result_wire: Option<u32>,
    result_name: Slot,
    result_id: Slot,
    /// The latest tool call's `type`.
    call_type: Slot,
    /// The value captured is a citation (`cite`).
    citing: bool,
}

impl Bedrock {
    pub(crate) const fn new() -> Bedrock {
        Bedrock {
            doc: Doc::Other,
            what: What::None,
            index: 0,
            open_wire: None,
            call_wire: None,
            call_name: Slot::EMPTY,
            call_id: Slot::EMPTY,
            call_n: 0,
            call_opened: false,
            next_call: 0,
            reason: Slot::EMPTY,
            sig_dropped: None,
            stopped: false,
            finished: false,
            err_code: Slot::EMPTY,
            output: false,
            body_message: false,
            result_wire: None,
            result_name: Slot::EMPTY,
            result_id: Slot::EMPTY,
            call_type: Slot::EMPTY,
            citing: false,
        }
    }

    /// Makes the server tool result of block `self.index` the open block (a delta after a
    /// framing fault reopens it; a delta for a result never started opens one unnamed).
    fn result_block(&mut self, out: &mut Out) {
        if self.result_wire != Some(self.index) {
            self.result_wire = Some(self.index);
            self.result_name.clear();
            self.result_id.clear();
        }
        let open = matches!(out.open, Some(o) if o.ty == BlockType::ToolResult);
        if !open || self.open_wire != Some(self.index) {
            self.switch_to(out);
            out.open_result(0, true, self.result_name.bytes(), self.result_id.bytes());
        }
    }

    /// Inside `output.message.content[i]` of a whole body, at `level` or deeper.
    fn in_content(&self, p: &Path, level: u32) -> bool {
        self.doc == Doc::Whole
            && p.depth() >= level
            && p.key(1) == Key::Output
            && p.key(2) == Key::Message
            && p.key(3) == Key::Content
    }

    /// Content of the block at `self.index`: the open block completes first if it belongs
    /// to another.
    fn text_sink(&mut self, ty: BlockType, out: &mut Out) -> Sink {
        self.switch_to(out);
        Sink::Text {
            ty,
            choice: 0,
            refusal: false,
        }
    }

    fn switch_to(&mut self, out: &mut Out) {
        if out.open.is_some() && self.open_wire != Some(self.index) {
            out.close();
        }
        self.open_wire = Some(self.index);
    }

    /// Opens the tool call named by `contentBlockStart` (or a whole body's `toolUse`).
    fn start_call(&mut self, out: &mut Out) {
        self.call_wire = Some(self.index);
        self.call_n = self.next_call;
        self.next_call += 1;
        self.call_opened = true;
        self.switch_to(out);
        let server = self.call_type.bytes() == b"server_tool_use";
        out.open_call(
            0,
            self.call_n,
            server,
            self.call_name.bytes(),
            self.call_id.bytes(),
        );
    }

    /// Makes the call of block `self.index` the open block (a delta after a framing fault
    /// reopens it; a delta for a block never started opens a call without a name).
    fn call_block(&mut self, out: &mut Out) {
        if self.call_wire != Some(self.index) {
            self.call_name.clear();
            self.call_id.clear();
            self.call_type.clear();
            self.start_call(out);
            return;
        }
        let n = self.call_n;
        let open = matches!(out.open, Some(o) if o.ty == BlockType::ToolCall && o.call == n);
        if !open || self.open_wire != Some(self.index) {
            self.switch_to(out);
            let server = self.call_type.bytes() == b"server_tool_use";
            out.open_call(0, n, server, self.call_name.bytes(), self.call_id.bytes());
        }
    }

    /// The signature or redacted data of the reasoning block at `self.index` (a block that
    /// has only these still appears).
    fn signed_block(&mut self, out: &mut Out) {
        if !out.is_open(BlockType::Thinking, 0, false) || self.open_wire != Some(self.index) {
            self.switch_to(out);
            out.open_text(BlockType::Thinking, 0, false);
        }
        let block = out.open.map(|o| o.index);
        if out.sig_block != block {
            out.sig_block = block;
            out.signature.clear();
            out.redacted.clear();
        }
    }

    /// A `citation` delta of the text block at `self.index` (the block is opened unless
    /// open: a citation may come before the text it cites).
    fn citation(&mut self, out: &mut Out) -> Option<Capture> {
        if self.sig_dropped == Some(self.index) {
            return None;
        }
        if !out.is_open(BlockType::Text, 0, false) || self.open_wire != Some(self.index) {
            self.switch_to(out);
            out.open_text(BlockType::Text, 0, false);
        }
        self.citing = cite::begin(out);
        self.citing.then_some(Capture::Citation)
    }

    fn report_error(&mut self, out: &mut Out) {
        let code = self.err_code;
        out.error_held(
            ErrorSource::Provider,
            (!code.is_empty()).then_some(code.bytes()),
        );
    }
}

fn reason_of(raw: &[u8]) -> FinishReason {
    match raw {
        b"end_turn" | b"stop_sequence" => FinishReason::Stop,
        b"tool_use" => FinishReason::ToolCalls,
        b"max_tokens" => FinishReason::Length,
        b"guardrail_intervened" | b"content_filtered" => FinishReason::ContentFilter,
        _ => FinishReason::Other,
    }
}

impl Map for Bedrock {
    fn reset_state(&mut self) {
        *self = Bedrock::new();
    }

    fn begin(&mut self, doc: DocInfo<'_>, out: &mut Out) {
        self.what = What::None;
        self.doc = match (doc.message_type, doc.event) {
            (b"exception", _) => Doc::Exception,
            (b"error", _) => Doc::Error,
            (b"", b"") => Doc::Whole,
            (_, b"contentBlockStart") => Doc::Start,
            (_, b"contentBlockDelta") => Doc::Delta,
            (_, b"contentBlockStop") => Doc::Stop,
            (_, b"messageStop") => Doc::MessageStop,
            (_, b"metadata") => Doc::Metadata,
            (_, b"chunk") => Doc::Chunk,
            _ => Doc::Other,
        };
        match self.doc {
            Doc::Exception => {
                // Header values are bytes: kept as valid UTF-8.
                self.err_code.set_lossy(doc.exception_type);
                out.message.clear();
            }
            Doc::Error => {
                self.err_code.set_lossy(doc.error_code);
                out.message.clear();
                let message = &mut out.message;
                crate::emit::lossy_parts(doc.error_message, |piece| message.push(piece));
            }
            Doc::Whole => {
                self.output = false;
                self.body_message = false;
            }
            _ => {}
        }
    }

    fn open(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        match self.doc {
            Doc::Delta
                if d == 2
                    && p.key(1) == Key::Delta
                    && self.open_wire != Some(self.index)
                    && out.open.is_some_and(|o| out.sig_block == Some(o.index)) =>
            {
                // A delta of another block while the open one holds citations or a
                // signature (its `contentBlockStop` left out): it completes here, at a token
                // boundary, so they are handed out before the next block's claim the buffers
                // they share (issue 25; docs/providers.md, "Citations").
                out.close();
                self.open_wire = None;
            }
            Doc::Start if d == 3 && p.key(1) == Key::Start && p.key(2) == Key::ToolUse => {
                self.call_name.clear();
                self.call_id.clear();
                self.call_type.clear();
            }
            Doc::Start if d == 3 && p.key(1) == Key::Start && p.key(2) == Key::AwsToolResult => {
                self.result_name.clear();
                self.result_id.clear();
            }
            Doc::Whole => {
                if d == 2 && p.key(1) == Key::Output {
                    self.output = true;
                } else if d == 5 && self.in_content(p, 5) {
                    self.index = p.index(4);
                } else if d == 6 && self.in_content(p, 6) && p.key(5) == Key::ToolUse {
                    self.call_name.clear();
                    self.call_id.clear();
                    self.call_opened = false;
                    self.call_type.clear();
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, p: &Path, out: &mut Out) {
        let d = p.depth();
        match self.doc {
            Doc::Start if d == 3 && p.key(1) == Key::Start && p.key(2) == Key::ToolUse => {
                self.start_call(out);
            }
            Doc::Start if d == 3 && p.key(1) == Key::Start && p.key(2) == Key::AwsToolResult => {
                if self.result_name.is_empty() && self.call_id.bytes() == self.result_id.bytes() {
                    // No `type`: named after the call it answers.
                    self.result_name = self.call_name;
                }
                self.result_wire = Some(self.index);
                self.switch_to(out);
                out.open_result(0, true, self.result_name.bytes(), self.result_id.bytes());
            }
            Doc::Whole => {
                if d == 6 && self.in_content(p, 6) && p.key(5) == Key::ToolUse {
                    if !self.call_opened {
                        self.start_call(out);
                    }
                } else if d == 5 && self.in_content(p, 5) {
                    // Each content element is a block of its own.
                    out.close();
                    self.open_wire = None;
                }
            }
            _ => {}
        }
    }

    fn string(&mut self, p: &Path, out: &mut Out) -> Sink {
        let d = p.depth();
        self.what = What::None;
        match self.doc {
            Doc::Delta if p.key(1) == Key::Delta => {
                if d == 2 && p.key(2) == Key::Text {
                    return self.text_sink(BlockType::Text, out);
                }
                if d == 3 {
                    match (p.key(2), p.key(3)) {
                        (Key::ToolUse, Key::Input) => {
                            self.call_block(out);
                            return Sink::Args;
                        }
                        (Key::AwsReasoningContent, Key::Text) => {
                            return self.text_sink(BlockType::Thinking, out);
                        }
                        (Key::AwsReasoningContent, Key::Signature) => self.what = What::Signature,
                        (Key::AwsReasoningContent, Key::RedactedContent) => {
                            self.what = What::Redacted
                        }
                        _ => {}
                    }
                }
                if d == 4 && p.key(2) == Key::AwsToolResult && p.key(4) == Key::Text {
                    // A server tool's result text (Nova's built-in tools).
                    self.result_block(out);
                    return Sink::Text {
                        ty: BlockType::ToolResult,
                        choice: 0,
                        refusal: false,
                    };
                }
            }
            Doc::Start if d == 3 && p.key(1) == Key::Start && p.key(2) == Key::AwsToolResult => {
                self.what = match p.key(3) {
                    Key::Type => What::ResultType,
                    Key::AwsToolUseId => What::ResultId,
                    _ => What::None,
                };
            }
            Doc::Start if d == 3 && p.key(1) == Key::Start && p.key(2) == Key::ToolUse => {
                self.what = match p.key(3) {
                    Key::Name => What::ToolName,
                    Key::AwsToolUseId => What::ToolId,
                    Key::Type => What::CallType,
                    _ => What::None,
                };
            }
            Doc::MessageStop if d == 1 && p.key(1) == Key::AwsStopReason => {
                self.what = What::Reason;
            }
            Doc::Exception if d == 1 && p.key(1) == Key::Message => {
                out.message.clear();
                self.what = What::ErrMessage;
            }
            Doc::Chunk if d == 1 && p.key(1) == Key::Bytes => return Sink::Inner,
            Doc::Whole => {
                if d == 1 {
                    match p.key(1) {
                        Key::AwsStopReason => self.what = What::Reason,
                        Key::Message => {
                            out.message.clear();
                            self.body_message = true;
                            self.what = What::ErrMessage;
                        }
                        _ => {}
                    }
                } else if d == 5 && self.in_content(p, 5) && p.key(5) == Key::Text {
                    return self.text_sink(BlockType::Text, out);
                } else if d == 6 && self.in_content(p, 6) {
                    match (p.key(5), p.key(6)) {
                        (Key::ToolUse, Key::Name) => self.what = What::ToolName,
                        (Key::ToolUse, Key::AwsToolUseId) => self.what = What::ToolId,
                        (Key::AwsReasoningContent, Key::RedactedContent) => {
                            self.what = What::Redacted
                        }
                        _ => {}
                    }
                } else if d == 7
                    && self.in_content(p, 7)
                    && p.key(5) == Key::AwsReasoningContent
                    && p.key(6) == Key::ReasoningText
                {
                    match p.key(7) {
                        Key::Text => return self.text_sink(BlockType::Thinking, out),
                        Key::Signature => self.what = What::Signature,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        match self.what {
            What::None => return Sink::Skip,
            What::ToolName => self.call_name.clear(),
            What::ToolId => self.call_id.clear(),
            What::ResultType => self.result_name.clear(),
            What::ResultId => self.result_id.clear(),
            What::CallType => self.call_type.clear(),
            What::Reason => self.reason.clear(),
            _ => {}
        }
        Sink::Collect
    }

    fn piece(&mut self, bytes: &[u8], out: &mut Out) {
        match self.what {
            What::None => {}
            What::ToolName => self.call_name.push(bytes),
            What::ToolId => self.call_id.push(bytes),
            What::ResultType => self.result_name.push(bytes),
            What::ResultId => self.result_id.push(bytes),
            What::CallType => self.call_type.push(bytes),
            What::Reason => self.reason.push(bytes),
            What::ErrMessage => {
                let _ = out.message.push(bytes);
            }
            What::Signature | What::Redacted
                if !bytes.is_empty() && self.sig_dropped != Some(self.index) =>
            {
                self.signed_block(out);
                let buf = if self.what == What::Signature {
                    &mut out.signature
                } else {
                    &mut out.redacted
                };
                if !buf.push(bytes) {
                    // A cut signature is worse than none (it would be refused when sent
                    // back): dropped and reported, as Anthropic's (providers.md).
                    buf.clear();
                    self.sig_dropped = Some(self.index);
                    out.fault("max-call-bytes", SIG_DROPPED);
                }
            }
            What::Signature | What::Redacted => {}
        }
    }

    fn string_end(&mut self, _p: &Path, out: &mut Out) {
        if self.what == What::Reason && !self.reason.is_empty() {
            let raw = self.reason;
            out.choice_reason(0, reason_of(raw.bytes()), raw.bytes());
            self.open_wire = None;
            self.stopped = true;
        }
        self.what = What::None;
    }

    fn scalar(&mut self, p: &Path, v: Scalar, out: &mut Out) {
        let Scalar::Int(n) = v else {
            return;
        };
        let d = p.depth();
        if d == 1 && p.key(1) == Key::ContentBlockIndex {
            self.index = n.min(u64::from(u32::MAX)) as u32;
        } else if d == 2 && p.key(1) == Key::Usage && matches!(self.doc, Doc::Metadata | Doc::Whole)
        {
            match p.key(2) {
                Key::AwsInputTokens => out.usage.input_tokens = Some(n),
                Key::AwsOutputTokens => out.usage.output_tokens = Some(n),
                Key::AwsCacheReadInputTokens => out.usage.cache_read_tokens = Some(n),
                Key::AwsCacheWriteInputTokens => out.usage.cache_write_tokens = Some(n),
                _ => {}
            }
        }
    }

    fn value(&mut self, p: &Path, v: ValueStart, out: &mut Out) -> Option<Capture> {
        let d = p.depth();
        if self.doc == Doc::Delta
            && d == 2
            && v == ValueStart::Object
            && p.key(1) == Key::Delta
            && p.key(2) == Key::Citation
        {
            return self.citation(out);
        }
        if self.doc == Doc::Delta
            && d == 4
            && p.key(1) == Key::Delta
            && p.key(2) == Key::AwsToolResult
            && p.key(4) == Key::AwsJson
        {
            // A server tool's JSON result: its compact JSON text, as other server results.
            self.result_block(out);
            return Some(Capture::Text);
        }
        // A whole body's `toolUse.input` is a JSON value; a stream's is a string (an object
        // there is taken too).
        let input = match self.doc {
            Doc::Whole => {
                d == 6
                    && self.in_content(p, 6)
                    && p.key(5) == Key::ToolUse
                    && p.key(6) == Key::Input
            }
            Doc::Delta => {
                v == ValueStart::Object
                    && d == 3
                    && p.key(1) == Key::Delta
                    && p.key(2) == Key::ToolUse
                    && p.key(3) == Key::Input
            }
            _ => false,
        };
        if !input {
            return None;
        }
        if self.doc == Doc::Whole {
            if !self.call_opened {
                self.start_call(out);
            }
        } else {
            self.call_block(out);
        }
        Some(Capture::Args)
    }

    fn value_end(&mut self, _p: &Path, out: &mut Out) {
        if core::mem::take(&mut self.citing) && !cite::end(out) {
            // As a signature: the block completes without them, then the error; the
            // block's later citations are ignored.
            self.sig_dropped = Some(self.index);
            out.fault("max-call-bytes", cite::DROPPED);
        }
    }

    fn end(&mut self, out: &mut Out) {
        match self.doc {
            Doc::Exception | Doc::Error => self.report_error(out),
            Doc::Stop => {
                if self.sig_dropped == Some(self.index) {
                    self.sig_dropped = None;
                }
                if self.open_wire == Some(self.index) {
                    out.close();
                    self.open_wire = None;
                }
            }
            Doc::Metadata if self.stopped && !self.finished => {
                self.finished = true;
                out.finish_all(false);
            }
            Doc::Whole => {
                if self.body_message && !self.output {
                    self.err_code.clear();
                    self.report_error(out);
                } else if self.stopped && !self.finished {
                    self.finished = true;
                    out.finish_all(false);
                }
            }
            _ => {}
        }
        self.doc = Doc::Other;
    }

    fn done(&mut self, _out: &mut Out) {}
}
