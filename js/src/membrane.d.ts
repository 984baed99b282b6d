import type { SieveConfig, BlockType, Part, Input } from './index.js';

export interface ChunkMeta {
  type: BlockType;
  visible: boolean;
  blockIndex: number;
  /** Present when nonzero (1 inside tool_call / tool_result blocks). */
  depth?: number;
  toolCallPart?: Part;
  toolId?: string;
  toolName?: string;
}

export interface MembraneBlock {
  type: BlockType;
  content?: string;
  toolId?: string;
  toolName?: string;
  input?: unknown;
  error?: { reason: string; raw: string };
  isError?: boolean;
}

export type BlockEvent =
  | { event: 'block_start'; index: number; block: { type: BlockType } }
  | { event: 'block_complete'; index: number; block: MembraneBlock };

export interface ProcessResult {
  content: { text: string; meta: ChunkMeta }[];
  blockEvents: BlockEvent[];
}

export declare class MembraneAdapter {
  constructor(
    config?: SieveConfig,
    callbacks?: { onChunk?: (text: string, meta: ChunkMeta) => void; onBlock?: (event: BlockEvent) => void },
  );
  processChunk(chunk: Input): ProcessResult;
  flush(): ProcessResult;
  push(prefill: Input): void;
  reset(): void;
  getCurrentBlockType(): BlockType;
  getBlockIndex(): number;
}
