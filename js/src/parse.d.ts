// `tokensieve/parse`: the parser alone (without the writers' embedded module).
export {
  Dialect, Provider, Tool, SieveConfig, DecoderConfig, BlockType, Part, BlockStartEvent, ChunkEvent,
  BlockCompleteEvent, StopEvent, FinishEvent, ErrorEvent, Event, Input, instantiateMs, decodeInstantiateMs, loadDecoder, Sieve, Decoder, Body, stream,
} from './index.js';
