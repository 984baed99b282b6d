//! The types of the ABI: `#[repr(C)]` enums (so that both headers, C and PHP, carry their
//! values) and structs. cbindgen writes them to the headers in this order, with these docs.

use core::ffi::c_char;
use core::ptr;

/// The version of this ABI: bumped on any change to a struct layout or a signature.
#[repr(C)]
pub enum tokensieve_abi {
    /// Compare with `tokensieve_abi_version()` at start-up.
    /// 2: `tokensieve_event` gained the provider-stream fields (kinds FINISH and ERROR,
    /// `choice`, finish reason, usage, response id, model, stream error, refusal/server,
    /// signature, redacted) at its end.
    /// 3: `tokensieve_config.unknown_tools`.
    /// 4: no default dialect: `tokensieve_config_default` leaves `dialect`
    /// TOKENSIEVE_DIALECT_NONE (it was anthropic-xml), which `tokensieve_new`, `tokensieve_init`
    /// and `tokensieve_state_size` refuse with a message naming the dialects.
    /// 5: `tokensieve_event.citations` at its end.
    TOKENSIEVE_ABI_VERSION = 5,
}

/// Status of `tokensieve_next`.
#[repr(C)]
pub enum tokensieve_next_status {
    /// An event was written to `*out`.
    TOKENSIEVE_EVENT = 0,
    /// All fed input is consumed: feed more (or finish).
    TOKENSIEVE_NEED_MORE = 1,
    /// The stream has ended (finish drained, or a stop sequence); nothing more will come.
    TOKENSIEVE_DONE = 2,
}

/// Status of the other calls; the negative values are also returned by `tokensieve_next`.
#[repr(C)]
pub enum tokensieve_status {
    /// Success.
    TOKENSIEVE_OK = 0,
    /// A required pointer argument was NULL.
    TOKENSIEVE_E_NULL = -1,
    /// The call is not allowed in the parser's state (feed after finish, next before feed,
    /// feed before the previous input was drained, prefill after feeding).
    TOKENSIEVE_E_STATE = -2,
    /// The configuration was rejected.
    TOKENSIEVE_E_CONFIG = -3,
    /// Memory too small, misaligned, or the heap refused.
    TOKENSIEVE_E_MEMORY = -4,
    /// The pointer is not a live parser (never initialised, or freed).
    TOKENSIEVE_E_INVALID = -5,
    /// An internal error (a Rust panic) was caught; the parser is poisoned until reset.
    TOKENSIEVE_E_PANIC = -6,
    /// The caller's output buffer is too small: nothing was written, the size needed is in
    /// the call's length out-parameter (`*out_len`, `*count`); call again with that much.
    TOKENSIEVE_E_BUFFER = -7,
    /// The input text was rejected (a writer's JSON array that is not of the form, or a
    /// call the dialect cannot carry): the message says what and where.
    TOKENSIEVE_E_INPUT = -8,
}

/// `tokensieve_event.kind`.
#[repr(C)]
pub enum tokensieve_kind {
    /// A block begins: `index`, `block_type`.
    TOKENSIEVE_KIND_BLOCK_START = 1,
    /// A piece of the open block: `text`, `block_type`, `index` (the block), `depth`, `part`,
    /// `tool_name`, `tool_id`.
    TOKENSIEVE_KIND_CHUNK = 2,
    /// The open block ends: `index`, `block_type`, `tool_name`, `tool_id`, the error fields,
    /// `content`/`input` when accumulating.
    TOKENSIEVE_KIND_BLOCK_COMPLETE = 3,
    /// A stop sequence matched (`text` is the sequence); it is the last event.
    TOKENSIEVE_KIND_STOP = 4,
    /// Decoders: a choice's generation ended: `finish_reason`, `raw_reason`, the usage
    /// fields (`flags & TOKENSIEVE_FLAG_USAGE`), `response_id`, `model`, `choice`.
    TOKENSIEVE_KIND_FINISH = 5,
    /// Decoders: the provider reported an error, or the body could not be read:
    /// `error_source`, `code` (may be absent), `message`.
    TOKENSIEVE_KIND_ERROR = 6,
}

/// `tokensieve_event.block_type`.
#[repr(C)]
pub enum tokensieve_block_type {
    /// Visible text.
    TOKENSIEVE_BLOCK_TEXT = 0,
    /// Thinking.
    TOKENSIEVE_BLOCK_THINKING = 1,
    /// A tool call.
    TOKENSIEVE_BLOCK_TOOL_CALL = 2,
    /// A tool result.
    TOKENSIEVE_BLOCK_TOOL_RESULT = 3,
}

/// `tokensieve_event.part` (tool_call chunks).
#[repr(C)]
pub enum tokensieve_part {
    /// Not a tool_call chunk.
    TOKENSIEVE_PART_NONE = 0,
    /// The tool's name.
    TOKENSIEVE_PART_NAME = 1,
    /// The call id.
    TOKENSIEVE_PART_ID = 2,
    /// A piece of the input JSON object.
    TOKENSIEVE_PART_INPUT = 3,
}

/// `tokensieve_event.error_code`: why a tool call failed (0: it did not).
#[repr(C)]
pub enum tokensieve_call_error {
    /// No error.
    TOKENSIEVE_CALL_OK = 0,
    /// `malformed-body`.
    TOKENSIEVE_CALL_MALFORMED_BODY = 1,
    /// `missing-name`.
    TOKENSIEVE_CALL_MISSING_NAME = 2,
    /// `malformed-parameter`.
    TOKENSIEVE_CALL_MALFORMED_PARAMETER = 3,
    /// `unexpected-content`.
    TOKENSIEVE_CALL_UNEXPECTED_CONTENT = 4,
    /// `unfinished`.
    TOKENSIEVE_CALL_UNFINISHED = 5,
    /// `too-large`.
    TOKENSIEVE_CALL_TOO_LARGE = 6,
    /// `nesting-too-deep`.
    TOKENSIEVE_CALL_NESTING_TOO_DEEP = 7,
    /// `unknown-tool` (with `unknown_tools: "fail"` in the JSON config).
    TOKENSIEVE_CALL_UNKNOWN_TOOL = 8,
}

/// Bits of `tokensieve_event.flags`.
#[repr(C)]
pub enum tokensieve_flag {
    /// The event belongs to a text block (what a text-to-speech engine speaks).
    TOKENSIEVE_FLAG_VISIBLE = 1,
    /// block_complete of a tool result that reports an error.
    TOKENSIEVE_FLAG_IS_ERROR = 2,
    /// block_complete of a failed call whose `error_raw` was cut (it outgrew the buffer).
    TOKENSIEVE_FLAG_RAW_TRUNCATED = 4,
    /// block_complete whose accumulated `content`/`input` was cut (caller memory only: it
    /// outgrew `accumulate_size`; the slice holds whole characters up to that point).
    TOKENSIEVE_FLAG_ACCUMULATED_TRUNCATED = 8,
    /// Decoders, block_complete of a text block that is a refusal.
    TOKENSIEVE_FLAG_REFUSAL = 16,
    /// Decoders, block_complete of a call (or result) the provider ran itself.
    TOKENSIEVE_FLAG_SERVER = 32,
    /// Decoders, finish: the provider reported usage (`usage_present` says which counters).
    TOKENSIEVE_FLAG_USAGE = 64,
    /// Decoders, block_complete of a thinking block that is a context compaction (Anthropic
    /// `compaction`, Responses `compaction` item): `content` is the summary, `redacted` the
    /// encrypted content; the host sends it back as a compaction, not as thinking.
    TOKENSIEVE_FLAG_COMPACTION = 128,
}

/// Bits of `tokensieve_event.usage_present`: which usage counters a finish carries.
#[repr(C)]
pub enum tokensieve_usage {
    /// `input_tokens`.
    TOKENSIEVE_USAGE_INPUT_TOKENS = 1,
    /// `output_tokens`.
    TOKENSIEVE_USAGE_OUTPUT_TOKENS = 2,
    /// `cache_read_tokens`.
    TOKENSIEVE_USAGE_CACHE_READ_TOKENS = 4,
    /// `cache_write_tokens`.
    TOKENSIEVE_USAGE_CACHE_WRITE_TOKENS = 8,
    /// `reasoning_tokens`.
    TOKENSIEVE_USAGE_REASONING_TOKENS = 16,
}

/// `tokensieve_event.finish_reason` (finish events; 0 on the others).
#[repr(C)]
pub enum tokensieve_finish_reason {
    /// Not a finish event.
    TOKENSIEVE_FINISH_NONE = 0,
    /// `stop`: the model ended its turn.
    TOKENSIEVE_FINISH_STOP = 1,
    /// `length`: the token limit.
    TOKENSIEVE_FINISH_LENGTH = 2,
    /// `tool_calls`: the model wants its calls run.
    TOKENSIEVE_FINISH_TOOL_CALLS = 3,
    /// `content_filter`.
    TOKENSIEVE_FINISH_CONTENT_FILTER = 4,
    /// `refusal`.
    TOKENSIEVE_FINISH_REFUSAL = 5,
    /// `error`.
    TOKENSIEVE_FINISH_ERROR = 6,
    /// `other` (`raw_reason` says which).
    TOKENSIEVE_FINISH_OTHER = 7,
    /// `malformed_tool_call`: the provider could not accept a tool call the model wrote.
    TOKENSIEVE_FINISH_MALFORMED_TOOL_CALL = 8,
}

/// `tokensieve_event.error_source` (error events; 0 on the others).
#[repr(C)]
pub enum tokensieve_error_source {
    /// Not an error event.
    TOKENSIEVE_ERROR_SOURCE_NONE = 0,
    /// The provider sent an error (or the stream's shape is wrong).
    TOKENSIEVE_ERROR_SOURCE_PROVIDER = 1,
    /// The body could not be framed (not SSE, bad JSON, a bad AWS frame).
    TOKENSIEVE_ERROR_SOURCE_FRAMING = 2,
}

/// A provider stream format (`tokensieve_provider_supported`; in JSON configs, the
/// `provider` names `openai-chat`, `openai-responses`, `anthropic`, `gemini`, `bedrock`,
/// `ollama`).
#[repr(C)]
pub enum tokensieve_provider {
    /// OpenAI Chat Completions and compatible servers.
    TOKENSIEVE_PROVIDER_OPENAI_CHAT = 0,
    /// OpenAI Responses.
    TOKENSIEVE_PROVIDER_OPENAI_RESPONSES = 1,
    /// Anthropic Messages.
    TOKENSIEVE_PROVIDER_ANTHROPIC = 2,
    /// Google Gemini.
    TOKENSIEVE_PROVIDER_GEMINI = 3,
    /// AWS Bedrock ConverseStream.
    TOKENSIEVE_PROVIDER_BEDROCK = 4,
    /// Ollama's native API (`/api/chat`, `/api/generate`), newline-delimited JSON.
    TOKENSIEVE_PROVIDER_OLLAMA = 5,
}

/// `tokensieve_config.dialect`.
#[repr(C)]
pub enum tokensieve_dialect {
    /// All text, plus thinking markers and stop sequences.
    TOKENSIEVE_DIALECT_PASSTHROUGH = 0,
    /// `<thinking>`, `<function_calls><invoke name=…>`, `<function_results>`.
    TOKENSIEVE_DIALECT_ANTHROPIC_XML = 1,
    /// `<tool_call>{json}</tool_call>`.
    TOKENSIEVE_DIALECT_HERMES = 2,
    /// `<tool_name><arg>…</arg></tool_name>`.
    TOKENSIEVE_DIALECT_MORPH_XML = 3,
    /// `<tool_call><function=N><parameter=K>…`.
    TOKENSIEVE_DIALECT_QWEN3_CODER = 4,
    /// `<minimax:tool_call><invoke name="N"><parameter name="K">…` (MiniMax M2).
    TOKENSIEVE_DIALECT_MINIMAX_M2 = 5,
    /// `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>` (GLM 4.5–4.7).
    TOKENSIEVE_DIALECT_GLM_4_5 = 6,
    /// OpenAI gpt-oss: `<|channel|>…<|message|>…<|end|>`, calls `… to=functions.N …<|call|>`.
    TOKENSIEVE_DIALECT_HARMONY = 7,
    /// `<|tool_calls_section_begin|><|tool_call_begin|>functions.N:0<|tool_call_argument_begin|>{json}…` (Kimi K2).
    TOKENSIEVE_DIALECT_KIMI_K2 = 8,
    /// DeepSeek V3.1: `tool calls begin`, `tool call begin` N `tool sep` {json} `tool call end`
    /// special tokens (U+FF5C bars, U+2581 separators).
    TOKENSIEVE_DIALECT_DEEPSEEK_V3_1 = 9,
    /// DeepSeek V3 and R1: `tool calls begin`, `tool call begin` function `tool sep` N, a
    /// json-fenced body, `tool call end` special tokens (U+FF5C bars, U+2581 separators).
    TOKENSIEVE_DIALECT_DEEPSEEK_V3 = 10,
    /// `[TOOL_CALLS]NAME[ARGS]{…}` or `[TOOL_CALLS][{"name": N, "arguments": {…}}]`, `[THINK]`
    /// (Mistral, Magistral, Devstral).
    TOKENSIEVE_DIALECT_MISTRAL = 11,
    /// `{"name": N, "parameters": {…}}` as the whole message or after `<|python_tag|>`, several
    /// separated by `;` (Llama 3.1–3.3).
    TOKENSIEVE_DIALECT_LLAMA3_JSON = 12,
    /// `[get_weather(city="Paris"), get_time()]`, optionally in
    /// `<|python_start|>…<|python_end|>` (Llama 3.2/4, ToolACE).
    TOKENSIEVE_DIALECT_PYTHONIC = 13,
    /// DeepSeek V3.2's DSML: `<｜DSML｜function_calls>`, `<｜DSML｜invoke name="N">`,
    /// `<｜DSML｜parameter name="K" string="true|false">`.
    TOKENSIEVE_DIALECT_DEEPSEEK_V3_2 = 14,
    /// DeepSeek V4's DSML: the region is `<｜DSML｜tool_calls>`.
    TOKENSIEVE_DIALECT_DEEPSEEK_V4 = 15,
    /// ByteDance Seed-OSS: qwen3-coder calls in `<seed:tool_call>`, thinking `<seed:think>`.
    TOKENSIEVE_DIALECT_SEED_OSS = 16,
    /// AllenAI Olmo 3: pythonic calls one per line in `<function_calls>`.
    TOKENSIEVE_DIALECT_OLMO_3 = 17,
    /// Liquid LFM2: the pythonic list in `<|tool_call_start|>`…`<|tool_call_end|>`.
    TOKENSIEVE_DIALECT_LFM2 = 18,
    /// Google Gemma 4: `<|tool_call>call:N{…}<tool_call|>`, `<|channel>thought…<channel|>`.
    TOKENSIEVE_DIALECT_GEMMA_4 = 19,
    /// Google FunctionGemma: `<start_function_call>call:N{…}<end_function_call>`.
    TOKENSIEVE_DIALECT_FUNCTIONGEMMA = 20,
    /// Cohere Command R7B / A: `<|START_ACTION|>[{"tool_name": N, "parameters": {…}}]<|END_ACTION|>`.
    TOKENSIEVE_DIALECT_COHERE_COMMAND = 22,
    /// Swiss AI Apertus: `<|tools_prefix|>[{"N": {…}}]<|tools_suffix|>`, the key is the name.
    TOKENSIEVE_DIALECT_APERTUS = 23,
    /// IBM Granite 3.x: `<|tool_call|>[{"name": N, "arguments": {…}}]`, no closer.
    TOKENSIEVE_DIALECT_GRANITE = 24,
    /// Microsoft Phi-4-mini: `functools[{"name": N, "arguments": {…}}]`, no closer.
    TOKENSIEVE_DIALECT_PHI_4_MINI = 25,
    /// Salesforce xLAM: a bare JSON list of calls as the message, or in a json fence.
    TOKENSIEVE_DIALECT_XLAM = 26,
    /// OpenBMB MiniCPM5: `<function name="N"><param name="K">…</param></function>` in text,
    /// CDATA values.
    TOKENSIEVE_DIALECT_MINICPM5 = 27,
    /// StepFun Step-3, Step-3.5: `<steptml:invoke name="N">` calls in a
    /// `<｜tool_calls_begin｜>…<｜tool_calls_end｜>` region of special tokens.
    TOKENSIEVE_DIALECT_STEP_3 = 28,
    /// Tencent Hunyuan HY3: `<tool_calls><tool_call>N<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value></tool_call></tool_calls>`.
    TOKENSIEVE_DIALECT_HUNYUAN = 29,
    /// MiniMax M3: `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="N">]<]minimax[>[<k>V]<]minimax[>[</k>…`,
    /// arguments as elements named by their key, `<mm:think>`.
    TOKENSIEVE_DIALECT_MINIMAX_M3 = 30,
    /// Inkling: typed content blocks, calls
    /// `<|message_model|>N<|content_invoke_tool_json|>{"name": N, "args": {…}}<|end_message|>`
    /// (the `N` header is wire syntax), `<|content_thinking|>`.
    TOKENSIEVE_DIALECT_INKLING = 31,
    /// Moonshot Kimi K3's XTML: `<|open|>tools<|sep|><|open|>call tool="N" index="I"<|sep|>`
    /// `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>…`, think and
    /// response channels.
    TOKENSIEVE_DIALECT_KIMI_K3 = 32,
}

/// `tokensieve_config.dialect` before one is chosen: what `tokensieve_config_default`
/// writes. No binding picks a dialect for the caller; a config still holding this value is
/// refused (TOKENSIEVE_E_CONFIG) with a message naming the dialects.
#[repr(C)]
pub enum tokensieve_dialect_unset {
    /// Not a dialect: set `dialect` to a `TOKENSIEVE_DIALECT_*` value.
    TOKENSIEVE_DIALECT_NONE = 0x7fff_ffff,
}

/// `tokensieve_config.start_in`.
#[repr(C)]
pub enum tokensieve_start_in {
    /// The stream starts in text.
    TOKENSIEVE_START_IN_TEXT = 0,
    /// The prompt template already opened the thinking tag.
    TOKENSIEVE_START_IN_THINKING = 1,
}

/// `tokensieve_config.on_malformed`.
#[repr(C)]
pub enum tokensieve_on_malformed {
    /// A failed call's raw text is also emitted as a visible text block.
    TOKENSIEVE_ON_MALFORMED_TEXT = 0,
    /// Only the failed tool_call block reports it.
    TOKENSIEVE_ON_MALFORMED_DROP = 1,
}

/// A tool the model may call: its name and the JSON Schema of its input object.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_tool {
    /// NUL-terminated UTF-8, not empty. Copied at init: need not outlive the call.
    pub name: *const c_char,
    /// NUL-terminated JSON Schema text of the input object, or NULL (no declared
    /// parameters). Only `properties` → `type` (and `items.type`) are read. Copied at init.
    pub schema: *const c_char,
}

/// Parser configuration. Fill it with `tokensieve_config_default`, then set fields. Every
/// string is NUL-terminated UTF-8 and is copied by `tokensieve_new`/`tokensieve_init`: none
/// of it needs to outlive that call.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_config {
    /// A `TOKENSIEVE_DIALECT_*` value. Required: the default, TOKENSIEVE_DIALECT_NONE, is
    /// refused with a message naming the dialects.
    pub dialect: u32,
    /// A `TOKENSIEVE_START_IN_*` value (default text).
    pub start_in: u32,
    /// A `TOKENSIEVE_ON_MALFORMED_*` value (default text).
    pub on_malformed: u32,
    /// Non-zero: block_complete events carry `content` (text, thinking, tool_result) and
    /// `input` (successful tool_call), as in the JSON form (default 0).
    pub accumulate: u32,
    /// Thinking markers: both NULL for the dialect's default, or both set.
    pub thinking_open: *const c_char,
    /// See `thinking_open`.
    pub thinking_close: *const c_char,
    /// hermes only: tool-call markers, both NULL (`<tool_call>`, `</tool_call>`) or both set.
    pub tool_call_open: *const c_char,
    /// See `tool_call_open`.
    pub tool_call_close: *const c_char,
    /// Prefix of generated call ids; NULL for `call_`.
    pub id_prefix: *const c_char,
    /// `stop_sequences_len` stop sequences (matched in text blocks only), or NULL when 0.
    pub stop_sequences: *const *const c_char,
    /// Number of stop sequences.
    pub stop_sequences_len: usize,
    /// `tools_len` tools, or NULL when 0.
    pub tools: *const tokensieve_tool,
    /// Number of tools.
    pub tools_len: usize,
    /// Heap parsers: how many bytes of one call may be held (default 1 MiB; 0 = default;
    /// accepted: 64 to 268435455 (256 MiB - 1), else TOKENSIEVE_E_CONFIG). A failed call
    /// longer than that comes back as text whole (its raw, then the rest as it streams).
    pub max_call_bytes: usize,
    /// Caller memory: bytes for held parameter values and a failed call's raw text (default
    /// 2048, minimum 1028; maximum 268435455 (256 MiB - 1); 0 = default; outside that range
    /// the config is rejected with TOKENSIEVE_E_CONFIG). A raw text beyond ~3/4 of it is cut
    /// and flagged.
    pub buffer_size: usize,
    /// Caller memory with `accumulate`: bytes for one block's `content`/`input` (default
    /// 4096, maximum 268435455 (256 MiB - 1); 0 = default; above the maximum the config is
    /// rejected with TOKENSIEVE_E_CONFIG). Beyond it the block is flagged ACCUMULATED_TRUNCATED and carries
    /// the longest prefix of its text (whole characters) that fits, whatever the chunking.
    pub accumulate_size: usize,
    /// A `TOKENSIEVE_UNKNOWN_TOOLS_*` value (default call): what a call to a tool that is not
    /// in `tools` becomes (FAIL needs tools). Added in ABI version 3.
    pub unknown_tools: u32,
}

/// `tokensieve_config.unknown_tools`: what a call to a tool not in `tools` becomes.
#[repr(C)]
pub enum tokensieve_unknown_tools {
    /// A call like any other.
    TOKENSIEVE_UNKNOWN_TOOLS_CALL = 0,
    /// The call completes with `TOKENSIEVE_CALL_UNKNOWN_TOOL` and follows `on_malformed`.
    TOKENSIEVE_UNKNOWN_TOOLS_FAIL = 1,
}

/// Decoder configuration (`tokensieve_decoder_new`, `tokensieve_decoder_init`). Fill it with
/// `tokensieve_decoder_config_default`, then set fields. The JSON form of the same settings
/// is taken by `tokensieve_decoder_new_json`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_decoder_config {
    /// A `TOKENSIEVE_PROVIDER_*` value (default openai-chat).
    pub provider: u32,
    /// AWS event stream: the largest frame accepted (0 = the default, 16 MiB).
    pub max_frame_bytes: u32,
    /// Bedrock InvokeModelWithResponseStream: the format each `chunk` frame wraps,
    /// TOKENSIEVE_PROVIDER_ANTHROPIC (the default) or TOKENSIEVE_PROVIDER_OPENAI_CHAT.
    pub invoke_format: u32,
    /// The shared options and the text dialect: `text.dialect` is the dialect the provider's
    /// text runs through (default TOKENSIEVE_DIALECT_PASSTHROUGH: none), with its `tools`,
    /// markers, stop sequences; `id_prefix`, `on_malformed`, `max_call_bytes`, `accumulate`
    /// and `accumulate_size` as for a parser. `buffer_size`: caller memory for the decoder's
    /// held bytes (default 8192; at least 640, and 640 + 1028 with a text dialect, half of
    /// it then the dialect's). Strings are copied at creation.
    pub text: tokensieve_config,
}

/// A string slice: `len` bytes at `ptr`, not NUL-terminated. `ptr == NULL` means absent;
/// a present empty string has a non-NULL `ptr` and `len == 0`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_str {
    /// The bytes (UTF-8, except `error_raw`, which is the call's bytes as received).
    pub ptr: *const c_char,
    /// Their number.
    pub len: usize,
}

/// One event. Every slice points into the input given to `tokensieve_feed` or into the
/// parser's memory: valid until the next call on the same parser (any call, including
/// `tokensieve_next`, `tokensieve_reset` and `tokensieve_free`). Copy what you keep.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct tokensieve_event {
    /// A `TOKENSIEVE_KIND_*` value.
    pub kind: u32,
    /// A `TOKENSIEVE_BLOCK_*` value (all kinds but STOP).
    pub block_type: u32,
    /// `TOKENSIEVE_FLAG_*` bits.
    pub flags: u32,
    /// The block's index (for chunks: the index of the block they belong to).
    pub index: u32,
    /// Chunks: nesting depth (0 top level, 1 inside a tool region or call).
    pub depth: u32,
    /// Chunks: a `TOKENSIEVE_PART_*` value.
    pub part: u32,
    /// block_complete: a `TOKENSIEVE_CALL_*` value (non-zero: the call failed).
    pub error_code: u32,
    /// Always 0.
    pub reserved: u32,
    /// Chunks: the text (whole UTF-8 characters, never empty). STOP: the stop sequence.
    pub text: tokensieve_str,
    /// The tool's name, once known (never on `name` chunks).
    pub tool_name: tokensieve_str,
    /// The call or result id, once known.
    pub tool_id: tokensieve_str,
    /// block_complete of text, thinking, tool_result with `accumulate`: the block's text.
    pub content: tokensieve_str,
    /// block_complete of a successful tool_call with `accumulate`: compact JSON object text.
    pub input: tokensieve_str,
    /// block_complete of a failed call: the reason name (`malformed-body`, …).
    pub error_reason: tokensieve_str,
    /// block_complete of a failed call: its raw bytes (may be invalid UTF-8).
    pub error_raw: tokensieve_str,
    // ABI 2: the fields of provider streams (decoders; 0 / absent for parsers).
    /// Decoders: the choice (`n` > 1 completions) the event belongs to; 0 for the first and
    /// for parsers. On block_start, chunk, block_complete, finish.
    pub choice: u32,
    /// finish: a `TOKENSIEVE_FINISH_*` value.
    pub finish_reason: u32,
    /// error: a `TOKENSIEVE_ERROR_SOURCE_*` value.
    pub error_source: u32,
    /// finish with `TOKENSIEVE_FLAG_USAGE`: `TOKENSIEVE_USAGE_*` bits, the counters present.
    pub usage_present: u32,
    /// finish: usage counter (valid when its `usage_present` bit is set).
    pub input_tokens: u64,
    /// See `input_tokens`.
    pub output_tokens: u64,
    /// See `input_tokens`.
    pub cache_read_tokens: u64,
    /// See `input_tokens`.
    pub cache_write_tokens: u64,
    /// See `input_tokens`.
    pub reasoning_tokens: u64,
    /// finish: the provider's own finish reason, when it sent one.
    pub raw_reason: tokensieve_str,
    /// finish: the response id, when the provider sent one.
    pub response_id: tokensieve_str,
    /// finish: the model, when the provider named it.
    pub model: tokensieve_str,
    /// error: the provider's (or the framing's) error code, when there is one.
    pub code: tokensieve_str,
    /// error: the message (never absent on error events).
    pub message: tokensieve_str,
    /// Decoders, block_complete of thinking: the provider's signature, when sent.
    pub signature: tokensieve_str,
    /// Decoders, block_complete of redacted thinking: the opaque data.
    pub redacted: tokensieve_str,
    // ABI 5
    /// Decoders, block_complete of a text block with citations (Anthropic `citations_delta`,
    /// Bedrock `citation`): a JSON array of the citation objects in arrival order, each as
    /// the provider sent it (compact); the host sends them back as the block's `citations`.
    pub citations: tokensieve_str,
}

/// One event of `tokensieve_next_batch`: its numbers, and the lengths of its strings, whose
/// bytes are in the call's byte area, one event after the other in the order of the records:
/// first `text_len` bytes of text, then `name_len` of tool name, `id_len` of tool id, then
/// `rest_len` bytes of everything else (see `tokensieve_next_batch`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct tokensieve_record {
    /// Bits 0–3 the `TOKENSIEVE_KIND_*`, 4–7 the `TOKENSIEVE_BLOCK_*`, 8–11 the
    /// `TOKENSIEVE_PART_*`, 12–15 `TOKENSIEVE_RECORD_*` bits, 16–23 the `TOKENSIEVE_FLAG_*`
    /// bits, 24–31 the depth (255 when larger: then the exact depth is in the rest).
    pub head: u32,
    /// The block's index (for chunks: the index of the block they belong to).
    pub index: u32,
    /// Length of the text (chunks; STOP: the stop sequence); 0 for the other kinds.
    pub text_len: u32,
    /// Length of the tool name (when `TOKENSIEVE_RECORD_NAME` is set, else 0).
    pub name_len: u32,
    /// Length of the tool id (when `TOKENSIEVE_RECORD_ID` is set, else 0).
    pub id_len: u32,
    /// Length of the rest: the numbers and strings of `tokensieve_event` not above, when
    /// any is present (`TOKENSIEVE_RECORD_EXT`, `TOKENSIEVE_RECORD_STRINGS`).
    pub rest_len: u32,
}

/// The buffers of a `tokensieve_next_batch` call and what it wrote into them. Set the four
/// buffer fields once; each call sets `n_records` and `n_bytes`. (One struct, not seven
/// arguments: PHP's FFI prepares every call anew, at a cost per argument.)
#[repr(C)]
pub struct tokensieve_batch {
    /// Where the records go: room for `records_cap`.
    pub records: *mut tokensieve_record,
    /// See `records`.
    pub records_cap: usize,
    /// Where the strings go: room for `bytes_cap` bytes.
    pub bytes: *mut u8,
    /// See `bytes`.
    pub bytes_cap: usize,
    /// Out: the records written (1 with TOKENSIEVE_E_BUFFER: the event that did not fit).
    pub n_records: usize,
    /// Out: the bytes written (with TOKENSIEVE_E_BUFFER: the bytes the next event needs).
    pub n_bytes: usize,
}

/// Bits of `tokensieve_record.head` (bits 12–15).
#[repr(C)]
pub enum tokensieve_record_bit {
    /// The event has a tool name (`name_len` bytes after the text).
    TOKENSIEVE_RECORD_NAME = 1 << 12,
    /// The event has a tool id (`id_len` bytes after the name).
    TOKENSIEVE_RECORD_ID = 1 << 13,
    /// The rest begins with six u32 (`choice`, `depth`, `error_code`, `finish_reason`,
    /// `error_source`, `usage_present`), then, when `usage_present` is not 0, five u64 (the
    /// usage counters, in the event's order). Without it all six are 0 (the depth is the
    /// head's).
    TOKENSIEVE_RECORD_EXT = 1 << 14,
    /// The rest holds a string table (after the EXT words): a u32 mask of the strings present
    /// (bit i: the event's i-th string, in its order: 3 `content`, 4 `input`, 5
    /// `error_reason`, 6 `error_raw`, 7 `raw_reason`, 8 `response_id`, 9 `model`, 10 `code`,
    /// 11 `message`, 12 `signature`, 13 `redacted`, 14 `citations`), a u32 length for each
    /// present string in that order, then their bytes in that order.
    TOKENSIEVE_RECORD_STRINGS = 1 << 15,
}

pub(crate) const NO_STR: tokensieve_str = tokensieve_str {
    ptr: ptr::null(),
    len: 0,
};

pub(crate) fn some_str(s: &[u8]) -> tokensieve_str {
    tokensieve_str {
        ptr: s.as_ptr().cast(),
        len: s.len(),
    }
}

pub(crate) fn opt_str(s: Option<&str>) -> tokensieve_str {
    s.map_or(NO_STR, |s| some_str(s.as_bytes()))
}

pub(crate) const EMPTY_EVENT: tokensieve_event = tokensieve_event {
    kind: 0,
    block_type: 0,
    flags: 0,
    index: 0,
    depth: 0,
    part: 0,
    error_code: 0,
    reserved: 0,
    text: NO_STR,
    tool_name: NO_STR,
    tool_id: NO_STR,
    content: NO_STR,
    input: NO_STR,
    error_reason: NO_STR,
    error_raw: NO_STR,
    choice: 0,
    finish_reason: 0,
    error_source: 0,
    usage_present: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    raw_reason: NO_STR,
    response_id: NO_STR,
    model: NO_STR,
    code: NO_STR,
    message: NO_STR,
    signature: NO_STR,
    redacted: NO_STR,
    citations: NO_STR,
};
