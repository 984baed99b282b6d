//! The one vocabulary every layer and binding speaks: blocks, chunks, completions, stops.
//!
//! Events borrow their texts from the input slice or from the parser's small buffers, so
//! they are valid until the next call on the parser. See docs/design.md, "The event model".

use core::fmt;

/// `ALL` and `from_code` for a `#[repr(u8)]` enum whose codes run 0, 1, 2, … in the order
/// listed (the bindings send the code and rebuild the value from it). Generated from one
/// list, checked at compile time: a variant missing from the list makes the exhaustive match
/// below fail, and a code out of order makes the const assertion fail.
macro_rules! codes {
    ($t:ident: $($v:ident),+ $(,)?) => {
        impl $t {
            /// Every variant, in the order of their codes (`as u8`).
            pub const ALL: &'static [$t] = &[$($t::$v),+];

            /// The variant whose code (`as u8`) is `code`; `None` for a code no variant has.
            ///
            #[doc = concat!("```\nuse tokensieve::", stringify!($t), ";\nfor v in ",
                stringify!($t), "::ALL {\n    assert_eq!(", stringify!($t),
                "::from_code(*v as u8), Some(*v));\n}\nassert_eq!(", stringify!($t),
                "::from_code(200), None);\n```")]
            pub const fn from_code(code: u8) -> Option<$t> {
                let i = code as usize;
                if i < Self::ALL.len() {
                    Some(Self::ALL[i])
                } else {
                    None
                }
            }
        }

        const _: () = {
            let mut i = 0;
            while i < $t::ALL.len() {
                assert!($t::ALL[i] as usize == i, "codes out of order");
                i += 1;
            }
        };
        const _: fn($t) = |v| match v {
            $($t::$v)|+ => {}
        };
    };
}

codes!(BlockType: Text, Thinking, ToolCall, ToolResult);
codes!(Part: Name, Id, Input);
codes!(
    ErrorReason: MalformedBody,
    MissingName,
    MalformedParameter,
    UnexpectedContent,
    Unfinished,
    TooLarge,
    NestingTooDeep,
    UnknownTool,
);
codes!(
    FinishReason: Stop,
    Length,
    ToolCalls,
    ContentFilter,
    Refusal,
    Error,
    Other,
    MalformedToolCall,
);
codes!(ErrorSource: Provider, Framing);

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
    /// The tool is not one of the configured tools (with `unknown_tools: "fail"`).
    UnknownTool = 7,
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
            ErrorReason::UnknownTool => "unknown-tool",
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
    /// Provider streams with `n > 1`: which choice (0 for model text).
    pub choice: u32,
}

impl Chunk<'_> {
    /// True exactly for text chunks (docs/design.md rule 3).
    ///
    /// ```
    /// # use tokensieve::*;
    /// let c = Chunk { text: "hi", block_type: BlockType::Text, block: 0, depth: 0,
    ///                 part: None, tool_name: None, tool_id: None, choice: 0 };
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
    /// Provider streams with `n > 1`: which choice (0 for model text).
    pub choice: u32,
    /// Provider streams: a text block made of refusal deltas.
    pub refusal: bool,
    /// Provider streams: a server-side tool call or its result.
    pub server: bool,
    /// Provider streams: opaque signature the host must send back with the block.
    pub signature: Option<&'a str>,
    /// Provider streams: a thinking block's redacted (encrypted) data, or a text block's
    /// citations — the two never meet on one block, so they share this field (an `Event`
    /// stays 104 bytes). Read it with [`redacted`](Self::redacted) and
    /// [`citations`](Self::citations), set it with [`with_redacted`](Self::with_redacted)
    /// and [`with_citations`](Self::with_citations).
    pub(crate) extra: Option<&'a str>,
    /// Provider streams: a thinking block that is a context compaction (Anthropic
    /// `compaction`, Responses `compaction` item): its text is the summary, `redacted` its
    /// `encrypted_content`; the host sends it back as a compaction, not as thinking.
    pub compaction: bool,
}

impl<'a> BlockComplete<'a> {
    /// A completion with no provider extras (choice 0, no refusal, signature, …).
    ///
    /// ```
    /// # use tokensieve::*;
    /// let c = BlockComplete::new(3, BlockType::Text);
    /// assert_eq!((c.index, c.signature, c.choice), (3, None, 0));
    /// ```
    pub const fn new(index: u32, block_type: BlockType) -> BlockComplete<'a> {
        BlockComplete {
            index,
            block_type,
            tool_name: None,
            tool_id: None,
            error: None,
            is_error: false,
            choice: 0,
            refusal: false,
            server: false,
            signature: None,
            extra: None,
            compaction: false,
        }
    }

    /// Provider streams: the redacted (encrypted) thinking the host must send back — a
    /// thinking block's only (a compaction's `encrypted_content`, Anthropic
    /// `redacted_thinking` data, Bedrock `redactedContent`, …).
    ///
    /// ```
    /// # use tokensieve::*;
    /// let c = BlockComplete::new(0, BlockType::Thinking).with_redacted(Some("EmwKAhgB"));
    /// assert_eq!((c.redacted(), c.citations()), (Some("EmwKAhgB"), None));
    /// ```
    pub const fn redacted(&self) -> Option<&'a str> {
        match self.block_type {
            BlockType::Thinking => self.extra,
            _ => None,
        }
    }

    /// Provider streams: a text block's citations, the host sends them back as the block's
    /// `citations`: a JSON array of the citation objects in the order they came, each as
    /// the provider sent it, in compact JSON (Anthropic `citations_delta`, Bedrock
    /// `citation` deltas). A text block's only.
    ///
    /// ```
    /// # use tokensieve::*;
    /// let json = r#"[{"type":"char_location","cited_text":"Hi.","document_index":0}]"#;
    /// let c = BlockComplete::new(0, BlockType::Text).with_citations(Some(json));
    /// assert_eq!((c.citations(), c.redacted()), (Some(json), None));
    /// ```
    pub const fn citations(&self) -> Option<&'a str> {
        match self.block_type {
            BlockType::Text => self.extra,
            _ => None,
        }
    }

    /// This completion with `redacted` data (see [`redacted`](Self::redacted): read back
    /// on a thinking block only).
    pub const fn with_redacted(mut self, redacted: Option<&'a str>) -> BlockComplete<'a> {
        self.extra = redacted;
        self
    }

    /// This completion with `citations` (see [`citations`](Self::citations): read back on
    /// a text block only).
    pub const fn with_citations(mut self, citations: Option<&'a str>) -> BlockComplete<'a> {
        self.extra = citations;
        self
    }
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
        /// Provider streams with `n > 1`: which choice (0 for model text).
        choice: u32,
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
    /// Provider streams: the response (or one choice of it) ended.
    Finish(Finish<'a>),
    /// Provider streams: an error the provider sent, or a broken frame; the stream goes on.
    Error(StreamError<'a>),
}

/// Why a provider response ended, normalised across providers (docs/providers.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FinishReason {
    /// The model ended its turn (or met a stop sequence).
    Stop = 0,
    /// A token limit cut the response.
    Length = 1,
    /// The model called tools and waits for their results.
    ToolCalls = 2,
    /// A content filter stopped the response.
    ContentFilter = 3,
    /// The model refused.
    Refusal = 4,
    /// The response ended with an error (or the body ended early).
    Error = 5,
    /// Any other reason; `raw_reason` has the provider's word.
    Other = 6,
    /// The model wrote a tool call the provider could not accept (Gemini's
    /// `MALFORMED_FUNCTION_CALL`, or `UNEXPECTED_TOOL_CALL`: a call to a tool it was not
    /// given): nothing to run, and the answer is incomplete — a host may retry.
    MalformedToolCall = 7,
}

impl FinishReason {
    /// The name used in the JSON form.
    ///
    /// ```
    /// assert_eq!(tokensieve::FinishReason::ToolCalls.as_str(), "tool_calls");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Refusal => "refusal",
            FinishReason::Error => "error",
            FinishReason::Other => "other",
            FinishReason::MalformedToolCall => "malformed_tool_call",
        }
    }
}

/// Token counts a provider reported (the last value of each counter wins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Generated tokens.
    pub output_tokens: Option<u64>,
    /// Prompt tokens read from the provider's cache.
    pub cache_read_tokens: Option<u64>,
    /// Prompt tokens written to the provider's cache.
    pub cache_write_tokens: Option<u64>,
    /// Generated tokens spent on reasoning.
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    /// True when no counter was reported.
    ///
    /// ```
    /// assert!(tokensieve::Usage::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }
}

/// The end of a provider response or of one of its choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finish<'a> {
    /// The normalised reason.
    pub reason: FinishReason,
    /// The provider's own word for it, when it gave one (`"eof"` when the body ended early).
    pub raw_reason: Option<&'a str>,
    /// Token counts, when the provider reported any.
    pub usage: Option<&'a Usage>,
    /// The provider's response id.
    pub response_id: Option<&'a str>,
    /// The model that answered.
    pub model: Option<&'a str>,
    /// Which choice ended (0 unless `n > 1`).
    pub choice: u32,
}

/// Where a stream error came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ErrorSource {
    /// The provider sent an error.
    Provider = 0,
    /// The body's framing or JSON was broken.
    Framing = 1,
}

impl ErrorSource {
    /// The name used in the JSON form.
    ///
    /// ```
    /// assert_eq!(tokensieve::ErrorSource::Framing.as_str(), "framing");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorSource::Provider => "provider",
            ErrorSource::Framing => "framing",
        }
    }
}

/// An error in a provider stream; decoding goes on after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamError<'a> {
    /// Who reported it.
    pub source: ErrorSource,
    /// The provider's error code or type, or the framing fault's name.
    pub code: Option<&'a str>,
    /// What was wrong.
    pub message: &'a str,
}
