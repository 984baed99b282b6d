//! The interface between the JSON reader and a provider's mapper: what the reader tells the
//! mapper (`Map`), and what the mapper answers (`Sink`, `Capture`).

use super::out::Out;
use super::path::{Key, Path};
use crate::event::BlockType;
use crate::json::relaxed::Literal;

/// What a string value that starts now is for (the mapper decides at its first byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sink {
    /// Not needed.
    Skip,
    /// Content of a text or thinking block.
    Text {
        ty: BlockType,
        choice: u32,
        refusal: bool,
    },
    /// Arguments text of the open tool call (JSON text, transcoded to compact JSON).
    Args,
    /// Free-form text inside a JSON string of the open tool call's input: escaped, then
    /// transcoded as `Args` (the mapper wrote the string's opening quote and writes its end).
    ArgsString,
    /// Handed to the mapper piece by piece (`Map::piece`), then `Map::string_end`.
    Collect,
    /// As `Collect`, in pieces of at most `SMALL` bytes (so the mapper can send each one on
    /// with `Out::text_as`): text whose block type is known only later (Gemini writes a
    /// part's `thought` flag after its `text`).
    Hold,
    /// Base64 text of a nested JSON document (Bedrock's `chunk` frames), read by the nested
    /// reader and mapper (`Nested`).
    Inner,
}

/// A number or literal value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// A non-negative integer that fits u64.
    Int(u64),
    /// Any other number.
    Number,
    Literal(Literal),
}

/// How a whole JSON value is taken (`Map::value`): rendered as compact JSON text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Capture {
    /// The open tool call's arguments (an inline `input` / `args` object).
    Args,
    /// Content chunks of the open block (a server tool result's `content`).
    Text,
    /// As `Args`, except that an empty object gives nothing (Anthropic's
    /// `content_block_start` says `input: {}` and the input streams after it).
    InitialArgs,
    /// One citation object of the open text block (`provider::cite`).
    Citation,
    /// Not read at all, at any depth: the reader skips the value to its end without telling
    /// the mapper anything of it (no `value_end` either) and without keeping its path
    /// (`Map::unread` says which). Only for values under which the mapper reads nothing;
    /// malformed JSON inside is reported as it would be without the skip.
    Skip,
}

/// What kind of value starts (`Map::value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueStart {
    Object,
    Array,
    String,
    /// A number or literal.
    Scalar,
}

/// Per-document facts from the framing (all empty for a whole JSON body).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DocInfo<'a> {
    /// SSE `event:` name; AWS event stream: the frame's `:event-type` header.
    pub event: &'a [u8],
    /// AWS `:message-type` (`event`, `exception`, `error`).
    pub message_type: &'a [u8],
    /// AWS `:exception-type`.
    pub exception_type: &'a [u8],
    /// AWS `:error-code`.
    pub error_code: &'a [u8],
    /// AWS `:error-message`.
    pub error_message: &'a [u8],
}

/// One provider format's mapping from JSON tokens to events (see `openai_chat.rs`).
pub(crate) trait Map {
    /// Back to the initial state.
    fn reset_state(&mut self);
    /// A document begins.
    fn begin(&mut self, doc: DocInfo<'_>, out: &mut Out);
    /// A container opened; `p.depth()` counts it.
    fn open(&mut self, p: &Path, out: &mut Out);
    /// A container is about to close; `p.depth()` still counts it.
    fn close(&mut self, p: &Path, out: &mut Out);
    /// A string value starts at `p`.
    fn string(&mut self, p: &Path, out: &mut Out) -> Sink;
    /// A decoded piece of a `Collect` string.
    fn piece(&mut self, bytes: &[u8], out: &mut Out);
    /// A `Collect` string ended.
    fn string_end(&mut self, p: &Path, out: &mut Out);
    /// A number or literal at `p`.
    fn scalar(&mut self, p: &Path, v: Scalar, out: &mut Out);
    /// The document ended.
    fn end(&mut self, out: &mut Out);
    /// SSE `data: [DONE]` (the OpenAI end marker): every choice finishes.
    fn done(&mut self, out: &mut Out) {
        out.finish_all(false);
    }
    /// The body ended (without the end marker when no finish came): every choice finishes.
    fn eof(&mut self, out: &mut Out) {
        out.finish_all(true);
    }
    /// A value of any kind starts at `p` (before `open`, `string` or `scalar`). `Some`: the
    /// whole value is rendered as compact JSON into the open block (`Capture`); the mapper
    /// sees none of its tokens, then `value_end`.
    fn value(&mut self, _p: &Path, _v: ValueStart, _out: &mut Out) -> Option<Capture> {
        None
    }
    /// A captured value ended (`p` is where it was).
    fn value_end(&mut self, _p: &Path, _out: &mut Out) {}
    /// An object or array that starts at `p`, a member of an object under `key` (and that
    /// `value` did not take), is one the mapper reads nothing of, at any depth: the reader
    /// skips it to its end without the path or the mapper (`Capture::Skip`). Asked for the
    /// containers that are object members only: a scalar under an unread key costs less read
    /// (the quick path, `Sink::Skip`) than a look-up on every value would, and an array's
    /// elements are read whenever the array is.
    fn unread(&self, _p: &Path, _key: Key) -> bool {
        false
    }
}
