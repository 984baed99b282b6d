// Type declarations of the npm package `tokensieve` (hand-written; checked by
// test/types.test.mjs through `tsc --noEmit` when TypeScript is installed).

export type Dialect =
  | 'anthropic-xml' | 'hermes' | 'morph-xml' | 'qwen3-coder' | 'minimax-m2' | 'glm-4.5'
  | 'harmony' | 'kimi-k2' | 'deepseek-v3.1' | 'deepseek-v3' | 'mistral' | 'llama3-json'
  | 'pythonic' | 'passthrough' | 'deepseek-v3.2' | 'deepseek-v4' | 'seed-oss' | 'olmo-3' | 'lfm2'
  | 'cohere-command' | 'granite' | 'phi-4-mini' | 'apertus' | 'xlam' | 'gemma-4' | 'functiongemma' | 'minicpm5' | 'step-3'
  | 'hunyuan'
  | 'minimax-m3'
  | 'inkling' | 'kimi-k3';

export type Provider = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock' | 'ollama';

export interface Tool {
  name: string;
  /** What it does (written by formatToolDefinitions; the parser ignores it). */
  description?: string | null;
  /** A JSON Schema for the input object, or its JSON text. */
  schema?: Record<string, unknown> | string | null;
}

/** The parser config: the JSON form's `config` (conformance/README.md, "Config keys"). */
export interface SieveConfig {
  dialect: Dialect;
  tools?: Tool[];
  /** `[open, close]`, or a list of up to three such pairs: other spellings, the first in force. */
  thinking_tags?: [string, string] | [string, string][];
  tool_call_markers?: [string, string];
  start_in?: 'text' | 'thinking';
  stop_sequences?: string[];
  id_prefix?: string;
  on_malformed?: 'text' | 'drop';
  max_call_bytes?: number;
}

/** The decoder config (docs/providers.md): a provider, and the options of its text dialect. */
export interface DecoderConfig extends Partial<Omit<SieveConfig, 'dialect'>> {
  provider: Provider;
  text_dialect?: Dialect;
  max_frame_bytes?: number;
  invoke_format?: 'anthropic' | 'openai-chat';
}

export type BlockType = 'text' | 'thinking' | 'tool_call' | 'tool_result';
export type Part = 'name' | 'id' | 'input';

export interface BlockStartEvent {
  event: 'block_start';
  index: number;
  type: BlockType;
}

export interface ChunkEvent {
  event: 'chunk';
  text: string;
  type: BlockType;
  /** True exactly for `type === "text"`. */
  visible: boolean;
  /** The index of the chunk's block. */
  block: number;
  depth: number;
  part?: Part;
  tool_id?: string;
  tool_name?: string;
}

export interface BlockCompleteEvent {
  event: 'block_complete';
  index: number;
  type: BlockType;
  content?: string;
  tool_name?: string;
  tool_id?: string;
  /** The call's input, a JSON value (JSON.parse'd: use feedJson() for numbers as written). */
  input?: unknown;
  error?: { reason: string; raw: string };
  is_error?: boolean;
  /** Provider streams (docs/providers.md): the choice, when not 0. */
  choice?: number;
  /** Provider streams: a text block made of refusal deltas. */
  refusal?: true;
  /** Provider streams: a call (or result) the provider ran itself. */
  server?: true;
  /** Provider streams: the opaque signature the host sends back with the block. */
  signature?: string;
  /** Provider streams: redacted thinking, or a compaction's encrypted content, to send back. */
  redacted?: string;
  /** Provider streams: a thinking block that is a context compaction (`content` the summary):
   * the host sends it back as a compaction, not as thinking. */
  compaction?: true;
  /** Provider streams: a text block's citations (Anthropic `citations_delta`, Bedrock
   * `citation`), each object as the provider sent it, in arrival order: the host sends them
   * back as the block's `citations`. */
  citations?: Record<string, unknown>[];
}

export interface StopEvent {
  event: 'stop';
  sequence: string;
}

/** Provider streams only. */
export interface FinishEvent {
  event: 'finish';
  reason?: string;
  raw_reason?: string;
  usage?: Record<string, number>;
  response_id?: string;
  model?: string;
}

/** Provider streams only; the stream goes on. */
export interface ErrorEvent {
  event: 'error';
  source: 'provider' | 'framing';
  code?: string;
  message?: string;
}

/** One event, discriminated on `event`, exactly the JSON form. */
export type Event =
  | BlockStartEvent | ChunkEvent | BlockCompleteEvent | StopEvent | FinishEvent | ErrorEvent;

export type Input = string | Uint8Array;

/** Milliseconds the parser's module (`tokensieve.wasm`) took to decode and instantiate. */
export declare const instantiateMs: number;

/**
 * Milliseconds the decoder's module (`tokensieve-decode.wasm`) took to decode and
 * instantiate (0 until the first `Decoder`).
 */
export declare let decodeInstantiateMs: number;

/**
 * Compiles and instantiates the provider decoder's module asynchronously. Optional: the first
 * `new Decoder` loads it synchronously, and `stream()` of a provider body awaits this itself;
 * a page that would rather not compile it on its main thread at that constructor awaits this
 * first.
 *
 * ```js
 * await loadDecoder();
 * const d = new Decoder({ provider: 'openai-chat' });
 * ```
 */
export declare function loadDecoder(): Promise<void>;

declare class Feeder {
  /** Feeds a chunk (split anywhere, also inside a UTF-8 character); returns its events. */
  feed(chunk: Input): Event[];
  /** Ends the stream: what is held is emitted, open blocks complete. */
  finish(): Event[];
  /** As feed(), as JSON lines (the CLI's `--json` form, numbers as written). */
  feedJson(chunk: Input): string;
  /** As finish(), as JSON lines. */
  finishJson(): string;
  /** Back to the state after construction (same config). */
  reset(): void;
  /** Frees the WebAssembly memory now (otherwise the garbage collector does). */
  free(): void;
  /** Strings or bytes in, events out; finish() when the writable side closes. */
  transform(): TransformStream<Input, Event>;
}

/** A parser of model text. Throws an Error with the message on a bad config. */
export declare class Sieve extends Feeder {
  constructor(config: SieveConfig);
  readonly config: SieveConfig;
  /** Text the prompt template already wrote (silent); before any feed. */
  prefill(text: Input): void;
}

/**
 * A decoder of a provider's streaming HTTP body. Its WebAssembly module is the package's
 * second, instantiated by the first Decoder (or ahead by `loadDecoder()`).
 */
export declare class Decoder extends Feeder {
  constructor(config: DecoderConfig);
  readonly config: DecoderConfig;
}

export type Body =
  | Input
  | ReadableStream<Input>
  | Iterable<Input>
  | AsyncIterable<Input>;

/**
 * The events of a whole stream: `for await (const ev of stream((await fetch(url)).body,
 * {provider: "anthropic"}))`. A config with `provider` decodes a provider body; one with
 * `dialect` parses model text.
 */
export declare function stream(
  body: Body,
  config: SieveConfig | DecoderConfig,
  options?: { prefill?: Input },
): AsyncGenerator<Event, void, undefined>;

/** A tool call to write (formatToolCalls). */
export interface ToolCallInput {
  name: string;
  /** Written where the format carries ids (mistral, kimi-k2, cohere-command). */
  id?: string | null;
  /** The arguments (absent or null: `{}`). */
  input?: Record<string, unknown> | null;
}

/** A tool result to write (formatToolResults). */
export interface ToolResultInput {
  content: string;
  tool_use_id?: string | null;
  name?: string | null;
  is_error?: boolean | null;
}

/**
 * The assistant's past tool calls written as the model writes them (what the family's chat
 * template renders), for a host that builds the prompt itself; a Sieve of the same config
 * reads the text back as the same calls. `config`: a dialect name, or a Sieve config whose
 * `tools` type the values of the XML-parameter formats. Throws an Error naming the bad item
 * (`calls: [0]: no "name" string`) or config key.
 *
 * ```js
 * formatToolCalls('hermes', [{ name: 'get_weather', input: { city: 'Paris' } }]);
 * // '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
 * ```
 */
export declare function formatToolCalls(config: Dialect | SieveConfig, calls: ToolCallInput[]): string;

/**
 * The prompt's tool-definition section as the family's published chat template renders the
 * tools (hermes' `# Tools` … `<tools>` list, qwen3-coder's `<function>` entries, harmony's
 * `namespace functions`, kimi-k2's `tool_declare` message, …), for a host that builds the
 * prompt itself: the section only, which the host places where the template does. `tools`
 * is the config's tool list (`{name, description?, schema?}`; other keys are errors) or its
 * JSON text, whose numbers are kept as spelled. `[]` writes `''`. Throws an Error naming
 * the bad tool (`tools: [0]: no "name" string`) or config key.
 *
 * ```js
 * formatToolDefinitions('mistral', [{ name: 'ping', schema: { type: 'object' } }]);
 * // '[AVAILABLE_TOOLS][{"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}}][/AVAILABLE_TOOLS]'
 * ```
 */
export declare function formatToolDefinitions(config: Dialect | SieveConfig, tools: Tool[] | string): string;

/**
 * Tool results written as the family's chat template gives them back to the model.
 *
 * ```js
 * formatToolResults('hermes', [{ content: '18°C' }]); // '<tool_response>\n18°C\n</tool_response>'
 * ```
 */
export declare function formatToolResults(dialect: Dialect, results: ToolResultInput[]): string;

/**
 * The stop sequences a host sets when it runs a model of the dialect in completions mode
 * (for anthropic-xml prefill, add `"\n" + name + ":"` per other participant).
 *
 * ```js
 * stopSequences('harmony'); // ['<|return|>', '<|call|>']
 * ```
 */
export declare function stopSequences(dialect: Dialect): string[];

/**
 * Compiles and instantiates the writers' module (`tokensieve-format.wasm`) asynchronously.
 * Optional: the writers above load it synchronously on their first call; a page that would
 * rather not compile it on its main thread at that call awaits this first.
 *
 * ```js
 * await loadWriters();
 * formatToolResults('hermes', [{ content: 'ok' }]);
 * ```
 */
export declare function loadWriters(): Promise<void>;

/** Milliseconds the writers' module took to decode and instantiate (0 until first use). */
export declare let formatInstantiateMs: number;
