// `tokensieve/format`: the writers alone (their own module, without the parser's).
export {
  formatToolCalls, formatToolDefinitions, formatToolResults, stopSequences, loadWriters, formatInstantiateMs,
  ToolCallInput, ToolResultInput, Tool, Dialect, SieveConfig,
} from './index.js';
