//! Where a JSON token sits: the keys and array positions of the containers around it.
//!
//! Mappers decide by path (`choices[i].delta.content`), so the reader keeps, per open
//! container up to [`PATH_DEPTH`], its kind and the current key (interned as a [`Key`]) or
//! array position. Deeper containers are counted, not recorded: no provider puts anything a
//! mapper reads that deep.

/// How many container levels are recorded.
pub(crate) const PATH_DEPTH: usize = 10;
/// Longest key that is interned; longer keys are [`Key::Other`].
const KEY_CAP: usize = 40;

macro_rules! keys {
    ($($v:ident = $s:literal,)*) => {
        /// The object keys any mapper reads; every other key is `Other`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub(crate) enum Key { Other, $($v,)* }

        #[cfg(not(target_arch = "wasm32"))]
        fn intern(bytes: &[u8]) -> Key {
            match bytes {
                $($s => Key::$v,)*
                _ => Key::Other,
            }
        }

        /// The keys in a table: on wasm32 the `match` above compiles to 12 KB of
        /// comparisons, a tenth of which the table takes (js/README.md, "Size").
        #[cfg(any(target_arch = "wasm32", test))]
        const KEYS: &[(&[u8], Key)] = &[$(($s, Key::$v),)*];
    };
}

/// A key by looking it up in [`KEYS`] (lengths compare first, so few bytes are read).
#[cfg(target_arch = "wasm32")]
fn intern(bytes: &[u8]) -> Key {
    KEYS.iter()
        .find(|(k, _)| *k == bytes)
        .map_or(Key::Other, |&(_, key)| key)
}

keys! {
    Arguments = b"arguments",
    Bytes = b"bytes",
    CacheCreationInputTokens = b"cache_creation_input_tokens",
    CacheReadInputTokens = b"cache_read_input_tokens",
    CachedTokens = b"cached_tokens",
    Choices = b"choices",
    CompletionTokens = b"completion_tokens",
    CompletionTokensDetails = b"completion_tokens_details",
    Code = b"code",
    Content = b"content",
    Delta = b"delta",
    Error = b"error",
    FinishReason = b"finish_reason",
    Function = b"function",
    Id = b"id",
    Index = b"index",
    InputTokens = b"input_tokens",
    Message = b"message",
    Model = b"model",
    Name = b"name",
    Object = b"object",
    OutputTokens = b"output_tokens",
    PromptTokens = b"prompt_tokens",
    PromptTokensDetails = b"prompt_tokens_details",
    Reasoning = b"reasoning",
    ReasoningContent = b"reasoning_content",
    ReasoningTokens = b"reasoning_tokens",
    Refusal = b"refusal",
    ToolCalls = b"tool_calls",
    Type = b"type",
    Usage = b"usage",
    // anthropic
    ContentBlock = b"content_block",
    Data = b"data",
    Input = b"input",
    PartialJson = b"partial_json",
    Signature = b"signature",
    StopReason = b"stop_reason",
    Text = b"text",
    Thinking = b"thinking",
    ToolUseId = b"tool_use_id",
    // citations (Anthropic `delta.citation`, a block's `citations`; Bedrock `delta.citation`)
    Citation = b"citation",
    Citations = b"citations",
    // bedrock (also Input, Signature, Text above)
    AwsCacheReadInputTokens = b"cacheReadInputTokens",
    AwsCacheWriteInputTokens = b"cacheWriteInputTokens",
    AwsInputTokens = b"inputTokens",
    AwsOutputTokens = b"outputTokens",
    AwsReasoningContent = b"reasoningContent",
    AwsStopReason = b"stopReason",
    AwsToolUseId = b"toolUseId",
    ContentBlockIndex = b"contentBlockIndex",
    Output = b"output",
    ReasoningText = b"reasoningText",
    RedactedContent = b"redactedContent",
    Start = b"start",
    ToolUse = b"toolUse",
    AwsToolResult = b"toolResult",
    AwsJson = b"json",
    // openai-responses (also Output above)
    CallId = b"call_id",
    EncryptedContent = b"encrypted_content",
    IncompleteDetails = b"incomplete_details",
    InputTokensDetails = b"input_tokens_details",
    Item = b"item",
    OutputTokensDetails = b"output_tokens_details",
    Reason = b"reason",
    Response = b"response",
    Status = b"status",
    Summary = b"summary",
    ContentIndex = b"content_index",
    OutputIndex = b"output_index",
    SummaryIndex = b"summary_index",
    // gemini (also Status above)
    Args = b"args",
    BlockReason = b"blockReason",
    CachedContentTokenCount = b"cachedContentTokenCount",
    Candidates = b"candidates",
    CandidatesTokenCount = b"candidatesTokenCount",
    FinishReasonCamel = b"finishReason",
    FunctionCall = b"functionCall",
    ModelVersion = b"modelVersion",
    Parts = b"parts",
    PromptFeedback = b"promptFeedback",
    PromptTokenCount = b"promptTokenCount",
    ResponseId = b"responseId",
    Thought = b"thought",
    ThoughtSignature = b"thoughtSignature",
    // Gemini's OpenAI-compatible API: `tool_calls[j].extra_content.google.thought_signature`.
    ExtraContent = b"extra_content",
    Google = b"google",
    ThoughtSignatureSnake = b"thought_signature",
    // OpenRouter: `delta.reasoning_details[k]` (`signature`, `data`).
    ReasoningDetails = b"reasoning_details",
    // Bedrock InvokeModelWithResponseStream: the last chunk's metrics, whatever the format.
    InvocationMetrics = b"amazon-bedrock-invocationMetrics",
    InputTokenCount = b"inputTokenCount",
    OutputTokenCount = b"outputTokenCount",
    // Gemini code execution parts.
    ExecutableCode = b"executableCode",
    CodeExecutionResult = b"codeExecutionResult",
    ThoughtsTokenCount = b"thoughtsTokenCount",
    // Vertex streamed function-call arguments (`streamFunctionCallArguments`).
    PartialArgs = b"partialArgs",
    JsonPath = b"jsonPath",
    StringValue = b"stringValue",
    NumberValue = b"numberValue",
    BoolValue = b"boolValue",
    NullValue = b"nullValue",
    WillContinue = b"willContinue",
    UsageMetadata = b"usageMetadata",
    // ollama (also Message, Content, Thinking, ToolCalls, Response, Model, Error above)
    Done = b"done",
    DoneReason = b"done_reason",
    EvalCount = b"eval_count",
    PromptEvalCount = b"prompt_eval_count",
}

impl Key {
    /// The key's bit in a [`Keys`] set.
    #[inline]
    pub(crate) const fn bit(self) -> u128 {
        1 << (self as u8)
    }
}

/// A set of keys, one bit each (a mapper's table of the members it reads).
pub(crate) type Keys = u128;

/// The set of `keys`.
pub(crate) const fn keys(keys: &[Key]) -> Keys {
    let mut set = 0;
    let mut i = 0;
    while i < keys.len() {
        set |= keys[i].bit();
        i += 1;
    }
    set
}

/// A mapper's table of the members it reads (`Map::unread`): `key`, a member of the object
/// that `read` is the set of for (`None`: an object the table does not cover, whose members
/// are all read), is not one of them.
#[inline]
pub(crate) fn unread_by(read: Option<Keys>, key: Key) -> bool {
    read.is_some_and(|set| set & key.bit() == 0)
}

// Every key has a bit (`PromptEvalCount` is the last).
const _: () = assert!((Key::PromptEvalCount as u8) < 128);

#[derive(Clone, Copy, Debug)]
struct Level {
    object: bool,
    key: Key,
    /// Array: the position of the current element.
    index: u32,
}

const EMPTY: Level = Level {
    object: false,
    key: Key::Other,
    index: 0,
};

/// The path of the current token (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Path {
    levels: [Level; PATH_DEPTH],
    depth: u32,
    key: [u8; KEY_CAP],
    key_len: u8,
    key_long: bool,
    /// The value at the current position has started (arrays count elements by it).
    started: bool,
    /// Between a key's quotes.
    in_key: bool,
}

impl Path {
    pub(crate) const fn new() -> Path {
        Path {
            levels: [EMPTY; PATH_DEPTH],
            depth: 0,
            key: [0; KEY_CAP],
            key_len: 0,
            key_long: false,
            started: false,
            in_key: false,
        }
    }

    /// Inside a key's quotes (its text pieces are the key).
    pub(crate) fn in_key(&self) -> bool {
        self.in_key
    }

    pub(crate) fn reset(&mut self) {
        self.depth = 0;
        self.in_key = false;
        self.started = false;
        self.key_len = 0;
        self.key_long = false;
    }

    /// How many containers are open.
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// The key of the member being read in the object at `level` (1 = outermost).
    pub(crate) fn key(&self, level: u32) -> Key {
        match self.levels.get(level.wrapping_sub(1) as usize) {
            Some(l) if level <= self.depth && l.object => l.key,
            _ => Key::Other,
        }
    }

    /// The position of the element being read in the array at `level`.
    pub(crate) fn index(&self, level: u32) -> u32 {
        match self.levels.get(level.wrapping_sub(1) as usize) {
            Some(l) if level <= self.depth && !l.object => l.index,
            _ => 0,
        }
    }

    /// The key of the member being read when the innermost open container is an object
    /// (`None` in an array or outside any container).
    #[inline]
    pub(crate) fn member_key(&self) -> Option<Key> {
        match self.levels.get(self.depth.wrapping_sub(1) as usize) {
            Some(l) if l.object => Some(l.key),
            _ => None,
        }
    }

    /// The key of the innermost open object member (the value being read), if the
    /// innermost container is an object.
    pub(crate) fn last_key(&self) -> Key {
        self.key(self.depth)
    }

    /// The decoded text of the last key read (the innermost member's, while its value is
    /// read and nothing deeper had a key); `None` when it was longer than 40 bytes.
    pub(crate) fn last_key_bytes(&self) -> Option<&[u8]> {
        (!self.key_long).then(|| &self.key[..self.key_len as usize])
    }

    /// A value starts at the current position (arrays: the next element).
    pub(crate) fn value_start(&mut self) {
        if let Some(l) = self.levels.get_mut(self.depth.wrapping_sub(1) as usize) {
            if !l.object && self.started {
                l.index += 1;
            }
        }
        self.started = true;
    }

    /// A container opens (its `value_start` was called).
    pub(crate) fn open(&mut self, object: bool) {
        if let Some(l) = self.levels.get_mut(self.depth as usize) {
            *l = Level {
                object,
                key: Key::Other,
                index: 0,
            };
        }
        self.depth += 1;
        self.started = false;
    }

    pub(crate) fn close(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.started = true;
    }

    pub(crate) fn key_start(&mut self) {
        self.key_len = 0;
        self.key_long = false;
        self.in_key = true;
    }

    pub(crate) fn key_piece(&mut self, bytes: &[u8]) {
        let at = self.key_len as usize;
        match self.key.get_mut(at..at + bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.key_len += bytes.len() as u8;
            }
            None => self.key_long = true,
        }
    }

    /// A whole key at once: `key_start`, `key_piece` and `key_end`.
    #[inline]
    pub(crate) fn whole_key(&mut self, bytes: &[u8]) {
        let key = match self.key.get_mut(..bytes.len()) {
            Some(dst) => {
                // Kept for `last_key_bytes`.
                dst.copy_from_slice(bytes);
                self.key_len = bytes.len() as u8;
                self.key_long = false;
                intern(bytes)
            }
            None => {
                self.key_len = 0;
                self.key_long = true;
                Key::Other
            }
        };
        if let Some(l) = self.levels.get_mut(self.depth.wrapping_sub(1) as usize) {
            l.key = key;
        }
        self.started = false;
        self.in_key = false;
    }

    pub(crate) fn key_end(&mut self) {
        let key = if self.key_long {
            Key::Other
        } else {
            intern(&self.key[..self.key_len as usize])
        };
        if let Some(l) = self.levels.get_mut(self.depth.wrapping_sub(1) as usize) {
            l.key = key;
        }
        self.started = false;
        self.in_key = false;
    }
}

/// For the tests of the mappers' tables of read keys (`Map::unread`).
#[cfg(test)]
pub(crate) mod table_tests {
    use super::{Key, Path};

    /// The path at the start of the value of the last key in `keys` (a number: an array
    /// element at that position; every other key: an object member).
    pub(crate) fn at(keys: &[&str]) -> Path {
        let mut p = Path::new();
        p.value_start();
        for k in keys {
            match k.parse::<u32>() {
                Ok(n) => {
                    p.open(false);
                    for _ in 0..=n {
                        p.value_start();
                    }
                }
                Err(_) => {
                    p.open(true);
                    p.whole_key(k.as_bytes());
                    p.value_start();
                }
            }
        }
        p
    }

    /// A container at each path of `skipped` is skipped, at each of `read` it is read, as
    /// the reader asks (`unread`: the mapper's table; only an object's members are asked).
    pub(crate) fn check(unread: fn(&Path, Key) -> bool, skipped: &[&[&str]], read: &[&[&str]]) {
        let skips = |p: &Path| p.member_key().is_some_and(|k| unread(p, k));
        for keys in skipped {
            assert!(skips(&at(keys)), "{keys:?}");
        }
        for keys in read {
            assert!(!skips(&at(keys)), "{keys:?}");
        }
        // A document, and an element of a top-level array, are not members: read.
        assert!(!skips(&at(&[])));
        assert!(!skips(&at(&["0"])));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wasm32 table and the native `match` intern alike.
    #[test]
    fn the_key_table_agrees_with_the_match() {
        for &(bytes, key) in KEYS {
            assert_eq!(intern(bytes), key);
            assert_ne!(key, Key::Other);
        }
        for other in [&b""[..], b"x", b"Name", b"usage_", b"tool_call"] {
            assert_eq!(intern(other), Key::Other);
        }
    }
}
