// Compiled with tsc --noEmit by test/types.test.mjs: the declarations accept real use and
// narrow events on `event`.
import { Sieve, Decoder, stream, loadDecoder, decodeInstantiateMs, formatToolCalls, formatToolDefinitions, formatToolResults, stopSequences, type Event, type Tool, type ToolCallInput } from 'tokensieve';
import { MembraneAdapter, type ChunkMeta } from 'tokensieve/membrane';
import { tokensieveMiddleware } from 'tokensieve/ai-sdk';
import * as writers from 'tokensieve/format';
import { Sieve as ParseSieve, type Event as ParseEvent } from 'tokensieve/parse';

const s = new Sieve({ dialect: 'hermes', stop_sequences: ['<|im_end|>'], tools: [{ name: 'f' }] });
// thinking_tags: one pair, or several spellings.
new Sieve({ dialect: 'hermes', thinking_tags: ['<think>', '</think>'] });
new Sieve({ dialect: 'hermes', thinking_tags: [['<think>', '</think>'], ['<thinking>', '</thinking>']] });
s.prefill('x');
const evs: Event[] = [...s.feed('a'), ...s.feed(new Uint8Array([0x62])), ...s.finish()];
for (const ev of evs) {
  if (ev.event === 'chunk') {
    const v: boolean = ev.visible;
    const b: number = ev.block;
    void v; void b;
  } else if (ev.event === 'block_complete') {
    const i: unknown = ev.input;
    void i;
  }
}
const d = new Decoder({ provider: 'anthropic', text_dialect: 'anthropic-xml' });
const t: TransformStream<string | Uint8Array, Event> = d.transform();
void t;
async function f(body: ReadableStream<Uint8Array>) {
  await loadDecoder();
  const ms: number = decodeInstantiateMs;
  void ms;
  for await (const ev of stream(body, { provider: 'openai-chat' })) if (ev.event === 'finish') void ev.reason;
}
void f;
const m = new MembraneAdapter({ dialect: 'anthropic-xml' }, { onChunk: (text: string, meta: ChunkMeta) => void [text, meta.blockIndex] });
m.processChunk('x').content.forEach((c) => void c.meta.visible);
const mw = tokensieveMiddleware({ dialect: 'hermes' });
void mw.specificationVersion;
// @ts-expect-error an unknown dialect
new Sieve({ dialect: 'nope' });

// The writers.
const calls: ToolCallInput[] = [{ name: 'f', id: 'call_0', input: { a: 1 } }, { name: 'g' }];
const written: string = formatToolCalls('hermes', calls) + formatToolCalls({ dialect: 'qwen3-coder', tools: [{ name: 'f' }] }, calls);
const results: string = formatToolResults('kimi-k2', [{ content: 'x', tool_use_id: 'functions.f:0', is_error: false }]);
const stops: string[] = stopSequences('harmony');
const tools: Tool[] = [{ name: 'f', description: 'Does f.', schema: { type: 'object' } }, { name: 'g', schema: '{}' }];
const defined: string = formatToolDefinitions('hermes', tools) + formatToolDefinitions({ dialect: 'step-3', tool_call_markers: ['<c>', '</c>'] }, '[]');
// @ts-expect-error a tool needs a name
formatToolDefinitions('hermes', [{ description: 'x' }]);
void [written, results, stops, defined];
// The writers alone (their own module): the same functions, and an async preload.
const preloaded: Promise<void> = writers.loadWriters();
const ms: number = writers.formatInstantiateMs;
const alone: string = writers.formatToolResults('hermes', [{ content: 'x' }]);
const typed: writers.ToolCallInput = { name: 'f' };
void [preloaded, ms, alone, typed];
// The parser alone.
const parsed: ParseEvent[] = new ParseSieve({ dialect: 'hermes' }).feed('x');
void parsed;
