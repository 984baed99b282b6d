import type { SieveConfig } from './index.js';
/**
 * A LanguageModelV4 middleware (ai 7 / @ai-sdk/provider 4) for `wrapLanguageModel`: the
 * model's text becomes text, reasoning and tool-call parts.
 */
export declare function tokensieveMiddleware(config: SieveConfig): {
  specificationVersion: 'v4';
  wrapGenerate: (options: { doGenerate: () => PromiseLike<any> }) => Promise<any>;
  wrapStream: (options: { doStream: () => PromiseLike<any> }) => Promise<any>;
};
