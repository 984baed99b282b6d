// AI SDK middleware (`tokensieve/ai-sdk`): for `wrapLanguageModel({model, middleware})`, with
// the LanguageModelV4 middleware shape of `ai` 7 / `@ai-sdk/provider` 4. `text-delta` parts
// go through a Sieve and come out as text-*, reasoning-*, tool-input-start/-delta/-end and
// tool-call parts; every other part is passed on, in order. No import of the AI SDK: the
// package does not depend on it.
import { Sieve } from './parse.js';

/** Maps the sieve's events to stream parts; keeps a stream's per-call state. */
class Mapper {
  constructor(config) {
    this.sieve = new Sieve(config);
    this.calls = 0;
    this.call = null;
  }

  parts(events, out) {
    for (const ev of events) {
      const id = `tokensieve-${ev.index ?? ev.block}`;
      if (ev.event === 'block_start') {
        if (ev.type === 'text') out.push({ type: 'text-start', id });
        else if (ev.type === 'thinking') out.push({ type: 'reasoning-start', id });
        else if (ev.type === 'tool_call') this.call = { name: '', id: '', input: '', started: false };
      } else if (ev.event === 'chunk') {
        if (ev.type === 'text') out.push({ type: 'text-delta', id, delta: ev.text });
        else if (ev.type === 'thinking') out.push({ type: 'reasoning-delta', id, delta: ev.text });
        else if (ev.type === 'tool_call' && this.call) {
          const c = this.call;
          if (ev.part === 'name') c.name += ev.text;
          else if (ev.part === 'id') c.id += ev.text;
          else if (ev.part === 'input') {
            if (!c.started) {
              c.started = true;
              out.push({ type: 'tool-input-start', id: c.id, toolName: c.name });
            }
            c.input += ev.text;
            out.push({ type: 'tool-input-delta', id: c.id, delta: ev.text });
          }
        }
      } else if (ev.event === 'block_complete') {
        if (ev.type === 'text') out.push({ type: 'text-end', id });
        else if (ev.type === 'thinking') out.push({ type: 'reasoning-end', id });
        else if (ev.type === 'tool_call' && this.call) {
          const c = this.call;
          this.call = null;
          if (c.started) out.push({ type: 'tool-input-end', id: c.id });
          if (!ev.error) {
            this.calls++;
            out.push({ type: 'tool-call', toolCallId: ev.tool_id, toolName: ev.tool_name, input: c.input || '{}' });
          }
        }
      }
    }
    return out;
  }
}

function withToolCalls(reason, calls) {
  if (!calls) return reason;
  if (reason && typeof reason === 'object') return { ...reason, unified: 'tool-calls' };
  return { unified: 'tool-calls', raw: typeof reason === 'string' ? reason : undefined };
}

/**
 * The middleware. `config`: a Sieve config (`{dialect, tools?, stop_sequences?, …}`);
 * `tools` may also be omitted and are then taken from nothing (pass them for morph-xml).
 */
export function tokensieveMiddleware(config) {
  new Sieve(config).free(); // a bad config throws here, not mid-stream
  return {
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      const m = new Mapper(config);
      const content = [];
      for (const part of result.content ?? []) {
        if (part.type !== 'text') {
          content.push(part);
          continue;
        }
        const parts = m.parts([...m.sieve.feed(part.text), ...m.sieve.finish()], []);
        m.sieve.reset();
        let cur = null;
        for (const p of parts) {
          if (p.type === 'text-delta' || p.type === 'reasoning-delta') {
            const type = p.type === 'text-delta' ? 'text' : 'reasoning';
            if (cur?.type === type && cur._id === p.id) cur.text += p.delta;
            else content.push((cur = { type, text: p.delta, _id: p.id }));
          } else if (p.type === 'tool-call') {
            content.push(p);
            cur = null;
          }
        }
      }
      for (const c of content) delete c._id;
      m.sieve.free();
      return { ...result, content, finishReason: withToolCalls(result.finishReason, m.calls) };
    },
    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream();
      const m = new Mapper(config);
      let finished = false;
      const end = (controller) => {
        if (finished) return;
        finished = true;
        for (const p of m.parts(m.sieve.finish(), [])) controller.enqueue(p);
      };
      const transform = new TransformStream({
        transform(part, controller) {
          if (part.type === 'text-delta') {
            for (const p of m.parts(m.sieve.feed(part.delta), [])) controller.enqueue(p);
          } else if (part.type === 'text-start' || part.type === 'text-end') {
            // the sieve's blocks replace the model's text block
          } else if (part.type === 'finish') {
            end(controller);
            controller.enqueue({ ...part, finishReason: withToolCalls(part.finishReason, m.calls) });
          } else {
            controller.enqueue(part);
          }
        },
        flush(controller) {
          end(controller);
          m.sieve.free();
        },
      });
      return { stream: stream.pipeThrough(transform), ...rest };
    },
  };
}
