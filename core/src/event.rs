//! The one vocabulary every layer and binding speaks: blocks, chunks, completions, stops.
//!
//! Events borrow their texts from the input slice or from the parser's small buffers, so
//! they are valid until the next call on the parser. See docs/design.md, "The event model".

use core::fmt;

/// The kind of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BlockType {
    /// Visible text: what a text-to-speech engine speaks.
    Text = 0,
    /// The model's thinking.
    Thinking = 1,
    /// One tool call: name, id and input stream as parts.
    ToolCall = 2,
    /// One tool result.
    ToolResult = 3,
}

impl BlockType {
    /// The name used in the JSON form (`text`, `thinking`, `tool_call`, `tool_result`).
    ///
    /// ```
    /// assert_eq!(tokensieve::BlockType::ToolCall.as_str(), "tool_call");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            BlockType::Text => "text",
            BlockType::Thinking => "thinking",
            BlockType::ToolCall => "tool_call",
            BlockType::ToolResult => "tool_result",
        }
    }
}

impl fmt::Display for BlockType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of a tool call a `tool_call` chunk carries; parts stream in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Part {
    /// The tool's name.
    Name = 0,
    /// The call id (from the wire, or `{id_prefix}{n}`).
    Id = 1,
    /// The input: pieces of one compact, strict JSON object.
    Input = 2,
}

impl Part {
    /// The name used in the JSON form.
    ///
    /// ```
    /// assert_eq!(tokensieve::Part::Input.as_str(), "input");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Part::Name => "name",
            Part::Id => "id",
            Part::Input => "input",
        }
    }
}

/// Why a tool call could not be parsed (docs/design.md, Clarifications).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ErrorReason {
    /// The body is not what the dialect expects (bad JSON, wrong shape).
    MalformedBody = 0,
    /// The call has no usable tool name.
    MissingName = 1,
    /// A parameter element is malformed (no name, bad value).
    MalformedParameter = 2,
    /// Content appeared where only elements may stand.
    UnexpectedContent = 3,
    /// The input ended inside the call.
    Unfinished = 4,
    /// The call outgrew `max_call_bytes` (or a fixed buffer without `alloc`).
    TooLarge = 5,
    /// JSON nested deeper than the parser's bound.
    NestingTooDeep = 6,
}

impl ErrorReason {
    /// The name used in the JSON form.
    ///
    /// ```
    /// assert_eq!(tokensieve::ErrorReason::MissingName.as_str(), "missing-name");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorReason::MalformedBody => "malformed-body",
            ErrorReason::MissingName => "missing-name",
            ErrorReason::MalformedParameter => "malformed-parameter",
            ErrorReason::UnexpectedContent => "unexpected-content",
            ErrorReason::Unfinished => "unfinished",
            ErrorReason::TooLarge => "too-large",
            ErrorReason::NestingTooDeep => "nesting-too-deep",
        }
    }
}

impl fmt::Display for ErrorReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed tool call: why, and its original text (markers included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallError<'a> {
    /// Why the call failed.
    pub reason: ErrorReason,
    /// The call's original bytes (may hold invalid UTF-8, exactly as received).
    pub raw: &'a [u8],
    /// True when `raw` was cut because it outgrew the parser's buffer.
    pub raw_truncated: bool,
}

/// A piece of a block's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The text: whole UTF-8 characters, never empty.
    pub text: &'a str,
    /// The type of the block this chunk belongs to.
    pub block_type: BlockType,
    /// The index of that block.
    pub block: u32,
    /// Nesting depth: 0 top level, 1 inside a tool region or call.
    pub depth: u8,
    /// For tool_call chunks: which part.
    pub part: Option<Part>,
    /// The tool's name, once known (never on `name` chunks).
    pub tool_name: Option<&'a str>,
    /// The call or result id, once known (only on `input` chunks and results).
    pub tool_id: Option<&'a str>,
}

impl Chunk<'_> {
    /// True exactly for text chunks (docs/design.md rule 3).
    ///
    /// ```
    /// # use tokensieve::*;
    /// let c = Chunk { text: "hi", block_type: BlockType::Text, block: 0, depth: 0,
    ///                 part: None, tool_name: None, tool_id: None };
    /// assert!(c.visible());
    /// ```
    pub fn visible(&self) -> bool {
        self.block_type == BlockType::Text
    }
}

/// The end of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockComplete<'a> {
    /// The block's index.
    pub index: u32,
    /// The block's type.
    pub block_type: BlockType,
    /// Tool name (tool_call, and tool_result when known).
    pub tool_name: Option<&'a str>,
    /// Tool id (tool_call, and tool_result when known).
    pub tool_id: Option<&'a str>,
    /// Set when a tool call could not be parsed.
    pub error: Option<CallError<'a>>,
    /// True for a tool result that reports an error.
    pub is_error: bool,
}

/// One event of the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A block begins.
    BlockStart {
        /// 0, 1, 2, … in stream order.
        index: u32,
        /// The block's type.
        block_type: BlockType,
    },
    /// A piece of the open block.
    Chunk(Chunk<'a>),
    /// The open block ends.
    BlockComplete(BlockComplete<'a>),
    /// A configured stop sequence was met; it is the last event.
    Stop {
        /// The stop sequence that matched.
        sequence: &'a str,
    },
}
