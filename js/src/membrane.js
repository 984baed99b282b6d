// membrane's streaming shape (shared/seeds/000: "Streaming Enhancements for Membrane") over a
// Sieve: processChunk → {content: [{text, meta}], blockEvents}, onChunk(text, meta) and
// onBlock(event) callbacks, ChunkMeta {type, visible, blockIndex, depth, toolCallPart, toolId,
// toolName}. Wire syntax never reaches onChunk (the core strips it).
import { Sieve } from './parse.js';

function metaOf(ev) {
  const meta = { type: ev.type, visible: ev.visible, blockIndex: ev.block };
  if (ev.depth) meta.depth = ev.depth;
  if (ev.part) meta.toolCallPart = ev.part;
  if (ev.tool_id !== undefined) meta.toolId = ev.tool_id;
  if (ev.tool_name !== undefined) meta.toolName = ev.tool_name;
  return meta;
}

function blockOf(ev) {
  const block = { type: ev.type };
  if (ev.content !== undefined) block.content = ev.content;
  if (ev.tool_name !== undefined) block.toolName = ev.tool_name;
  if (ev.tool_id !== undefined) block.toolId = ev.tool_id;
  if (ev.input !== undefined) block.input = ev.input;
  if (ev.error !== undefined) block.error = ev.error;
  if (ev.is_error !== undefined) block.isError = ev.is_error;
  return block;
}

export class MembraneAdapter {
  /**
   * @param config a Sieve config (default `{dialect: "anthropic-xml"}`, membrane's prefill format)
   * @param callbacks `{onChunk?(text, meta), onBlock?(event)}`
   */
  constructor(config = { dialect: 'anthropic-xml' }, callbacks = {}) {
    this.sieve = new Sieve(config);
    this.onChunk = callbacks.onChunk;
    this.onBlock = callbacks.onBlock;
    this._type = 'text';
    this._index = 0;
  }

  _run(events) {
    const content = [];
    const blockEvents = [];
    for (const ev of events) {
      if (ev.event === 'chunk') {
        const meta = metaOf(ev);
        content.push({ text: ev.text, meta });
        this.onChunk?.(ev.text, meta);
      } else if (ev.event === 'block_start' || ev.event === 'block_complete') {
        const be = ev.event === 'block_start'
          ? { event: 'block_start', index: ev.index, block: { type: ev.type } }
          : { event: 'block_complete', index: ev.index, block: blockOf(ev) };
        if (ev.event === 'block_start') {
          this._type = ev.type;
          this._index = ev.index;
        }
        blockEvents.push(be);
        this.onBlock?.(be);
      }
    }
    return { content, blockEvents };
  }

  /** Feeds a chunk of model output; returns its content portions and block events. */
  processChunk(chunk) {
    return this._run(this.sieve.feed(chunk));
  }

  /** End of stream: what is held, and the completion of open blocks. */
  flush() {
    return this._run(this.sieve.finish());
  }

  /** Text already in the prompt (prefill mode's assistant prefix): silent. */
  push(prefill) {
    this.sieve.prefill(prefill);
  }

  reset() {
    this.sieve.reset();
    this._type = 'text';
    this._index = 0;
  }

  /** The type of the block the latest content belongs to. */
  getCurrentBlockType() {
    return this._type;
  }

  /** The index of the latest block. */
  getBlockIndex() {
    return this._index;
  }
}
