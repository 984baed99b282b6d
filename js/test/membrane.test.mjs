// The two example streams of shared/seeds/000 ("Example Stream", "With tool calls").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MembraneAdapter } from '../src/membrane.js';

function record(config, pieces) {
  const calls = [];
  const a = new MembraneAdapter(config, {
    onChunk: (text, meta) => calls.push(['onChunk', text, meta]),
    onBlock: (ev) => calls.push(['onBlock', ev]),
  });
  const returned = [];
  for (const p of pieces) returned.push(a.processChunk(p));
  returned.push(a.flush());
  return { calls, returned, a };
}

/** Merges adjacent onChunk calls with equal meta (chunking is the transport's). */
function merged(calls) {
  const out = [];
  for (const c of calls) {
    const last = out.at(-1);
    if (c[0] === 'onChunk' && last?.[0] === 'onChunk' && JSON.stringify(last[2]) === JSON.stringify(c[2])) {
      out[out.length - 1] = ['onChunk', last[1] + c[1], c[2]];
    } else out.push(c);
  }
  return out;
}

test('Example Stream, exactly, in every chunking', () => {
  const wire = 'Hello <thinking>let me think</thinking>The answer is 42.';
  const expected = [
    ['onBlock', { event: 'block_start', index: 0, block: { type: 'text' } }],
    ['onChunk', 'Hello ', { type: 'text', visible: true, blockIndex: 0 }],
    ['onBlock', { event: 'block_complete', index: 0, block: { type: 'text', content: 'Hello ' } }],
    ['onBlock', { event: 'block_start', index: 1, block: { type: 'thinking' } }],
    ['onChunk', 'let me think', { type: 'thinking', visible: false, blockIndex: 1 }],
    ['onBlock', { event: 'block_complete', index: 1, block: { type: 'thinking', content: 'let me think' } }],
    ['onBlock', { event: 'block_start', index: 2, block: { type: 'text' } }],
    ['onChunk', 'The answer is 42.', { type: 'text', visible: true, blockIndex: 2 }],
    ['onBlock', { event: 'block_complete', index: 2, block: { type: 'text', content: 'The answer is 42.' } }],
  ];
  const whole = record({ dialect: 'anthropic-xml' }, [wire]);
  assert.deepEqual(whole.calls, expected);
  for (const n of [1, 3, 7]) {
    const pieces = [];
    for (let i = 0; i < wire.length; i += n) pieces.push(wire.slice(i, i + n));
    assert.deepEqual(merged(record({ dialect: 'anthropic-xml' }, pieces).calls), expected);
  }
  // processChunk's return values carry the same content and block events.
  const content = whole.returned.flatMap((r) => r.content.map((c) => ['onChunk', c.text, c.meta]));
  assert.deepEqual(content, expected.filter((c) => c[0] === 'onChunk'));
  assert.equal(whole.a.getBlockIndex(), 2);
  assert.equal(whole.a.getCurrentBlockType(), 'text');
});

test('With tool calls (chunks as the document splits them; ids and extra meta: see below)', () => {
  // anthropic-xml's <invoke> carries no id, so the call's id comes from id_prefix
  // ("tool_" + 0); the document's "tool_123" is the result's tool_use_id. The adapter's meta
  // also carries depth (1 inside tool blocks) and toolName/toolId once known, which the
  // document's example leaves out: compared here on the document's keys, extras checked.
  const wire = ['Let me check.', '<function_calls><invoke name="search"><parameter name="query">',
    'weather</parameter></invoke></function_calls>',
    '<function_results><result tool_use_id="tool_123"><stdout>Results: ...</stdout></result></function_results>',
    'Found it!'];
  const { calls } = record({ dialect: 'anthropic-xml', id_prefix: 'tool_' }, wire);
  const expected = [
    ['onBlock', { event: 'block_start', index: 0, block: { type: 'text' } }],
    ['onChunk', 'Let me check.', { type: 'text', visible: true, blockIndex: 0 }],
    ['onBlock', { event: 'block_complete', index: 0, block: { type: 'text', content: 'Let me check.' } }],
    ['onBlock', { event: 'block_start', index: 1, block: { type: 'tool_call' } }],
    ['onChunk', 'search', { type: 'tool_call', visible: false, blockIndex: 1, toolCallPart: 'name' }],
    ['onChunk', 'tool_0', { type: 'tool_call', visible: false, blockIndex: 1, toolCallPart: 'id' }],
    ['onChunk', '{"query":"weather"}', { type: 'tool_call', visible: false, blockIndex: 1, toolCallPart: 'input' }],
    ['onBlock', { event: 'block_complete', index: 1, block: { type: 'tool_call', toolName: 'search', toolId: 'tool_0', input: { query: 'weather' } } }],
    ['onBlock', { event: 'block_start', index: 2, block: { type: 'tool_result' } }],
    ['onChunk', 'Results: ...', { type: 'tool_result', visible: false, blockIndex: 2, toolId: 'tool_123' }],
    ['onBlock', { event: 'block_complete', index: 2, block: { type: 'tool_result', content: 'Results: ...', toolId: 'tool_123' } }],
    ['onBlock', { event: 'block_start', index: 3, block: { type: 'text' } }],
    ['onChunk', 'Found it!', { type: 'text', visible: true, blockIndex: 3 }],
    ['onBlock', { event: 'block_complete', index: 3, block: { type: 'text', content: 'Found it!' } }],
  ];
  const project = (c) => {
    if (c[0] !== 'onChunk') return c;
    const { depth, toolName, toolId, ...rest } = c[2];
    if (c[2].type !== 'text') assert.equal(depth, 1);
    if (c[2].type === 'tool_result') rest.toolId = toolId;
    return ['onChunk', c[1], rest];
  };
  // The input arrives as '{"query":' + '"weather"' + '}' (the core emits as soon as known);
  // merged like the document's two pieces.
  const got = merged(calls.map(project));
  assert.deepEqual(got, expected);
});
