//! One small state machine per wire format, each over the shared scanning layer.
//!
//! A dialect is one file implementing [`Machine`]: it owns its state and answers the
//! driver's questions — what may appear in the current context ([`Machine::vocab`]), what to
//! do with the scanner's decision there ([`Machine::act`]), what to close at the end of input
//! ([`Machine::end_of_input`]) — and states its facts (default thinking tags, where its
//! calls sit). It reads its configuration from the [`Settings`] the driver hands to every
//! call, and writes events through the [`Emitter`]; holdback, UTF-8, stop sequences,
//! block bookkeeping and JSON escaping live in the shared layers, so dialects only choose.
//! The driver (`sieve.rs`) never names a dialect: it holds an [`Active`], which the
//! [`registry!`] below generates together with the public [`Dialect`] enum.
//!
//! # Adding a dialect
//!
//! 1. Write `core/src/dialect/<name>.rs`: a `State` (`Copy`, small: it lives in the
//!    512-byte parser) implementing [`Machine`], over [`Vocab`] (tags, literals, stops) and
//!    the emitter's helpers (`content`, `open_call`, `announce_call`, `queue_chunk`,
//!    `finish_call`, `fail_call`, …); JSON bodies go through [`crate::json::relaxed`], typed
//!    parameter values through [`value`]. Where its closers end calls or values, answer
//!    [`Machine::cut_closer`] (a closer cut off by the end of input completes what parses;
//!    docs/design.md, Clarifications, "Tool calls"). Document its choices in the module docs.
//! 2. Add `mod <name>;` and one line to the `registry!` invocation below (variant, C code,
//!    config name, state type). `Dialect::ALL`, `name`, `from_name`,
//!    `default_thinking_tags` and the dispatch follow from it.
//! 3. The C enum `tokensieve_dialect` in `ffi-c` gets the same variant and code (a
//!    compile-time assertion there fails until it does); regenerate the headers with
//!    `bash ffi-c/gen-headers.sh`.
//! 4. Vectors in `conformance/cases/<name>/` (text only, thinking, one call, parallel
//!    calls, escapes and unicode, a malformed call, truncation, markers split across
//!    chunks); the chunk-invariance proptests, zero-allocation and size tests iterate
//!    `Dialect::ALL`, so they cover it once vectors exist.
//! 5. The dialect's markers in the fuzz dictionary (`fuzz/dict.txt`), a `mixed-<name>`
//!    bench input (`benches/src/lib.rs`), its line in the README's dialect table and its
//!    section in `docs/design.md`; if its tool results are written differently from
//!    `<tool_response>`, an arm in `format/tool_results.rs`.

pub(crate) mod anthropic;
pub(crate) mod deepseek_v3;
pub(crate) mod deepseek_v31;
pub(crate) mod gemma;
pub(crate) mod glm;
pub(crate) mod harmony;
pub(crate) mod hermes;
pub(crate) mod invoke;
mod json_body;
pub(crate) mod json_call;
pub(crate) mod kimi;
pub(crate) mod kimi_k3;
pub(crate) mod llama3;
pub(crate) mod minimax;
pub(crate) mod minimax_m3;
pub(crate) mod mistral;
pub(crate) mod morph;
pub(crate) mod passthrough;
pub(crate) mod pythonic;
pub(crate) mod qwen3;
mod sectioned;
pub(crate) mod value;
pub(crate) mod xml_value;

use crate::config::{Config, Settings};
use crate::emit::{Act, Emitter};
use crate::event::BlockType;
use crate::scan::{Decision, Vocab};
use crate::spec::Dialect;

/// A dialect's state machine: what the driver asks of every wire format.
pub(crate) trait Machine: Sized {
    /// The depth of the text the dialect's calls sit in: where a failed call's raw text is
    /// re-emitted (0 for calls at top level, 1 for calls inside a region).
    const CALL_DEPTH: u8;

    /// The state at the start of a stream.
    fn new(cfg: &Config<'_>) -> Self;

    /// What may appear in the current context (borrowing the configuration's markers).
    fn vocab<'m>(&self, cfg: &'m Settings<'_>, emit: &'m Emitter<'_>) -> Vocab<'m>;

    /// A key for the current context's [`vocab`](Machine::vocab) and
    /// [`plain_block`](Machine::plain_block): two states with the same key have the same
    /// vocabulary. It lets the driver keep what it derived from a vocabulary (the fast
    /// path's special bytes, the rest of a text run) across acts that leave the context
    /// alone. Bit 30 and up are the driver's.
    fn vocab_key(&self) -> u32;

    /// The content block that plain text goes to in the current context, when it goes there
    /// as is (the driver's fast path for input holding no special byte).
    fn plain_block(&self) -> Option<(BlockType, u8)>;

    /// What to do with the scanner's decision `d` about the head of `window`.
    fn act(
        &mut self,
        cfg: &Settings<'_>,
        emit: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act;

    /// End of input: close what is open (the driver then completes any open block).
    fn end_of_input(&mut self, cfg: &Settings<'_>, emit: &mut Emitter<'_>);

    /// The input ends in `cut`, the beginning of one of the current context's markers cut off
    /// by the end of input (`</tool_`, `</`, `<`: a model stopped by `max_tokens` inside a
    /// closer). Asked only in contexts whose text is not content as is ([`plain_block`] is
    /// `None`: calls, values, regions); text, thinking and a result's content keep a cut
    /// marker as content, like any partial tag held at the end.
    ///
    /// When the marker is a closer (or any marker between elements) and what it would close
    /// already parses, the machine closes it as the whole closer would — a value ends there
    /// and is typed — then, one level per answer, everything else open as [`end_of_input`]
    /// does, and finally names the depth of the text block the cut bytes become: the depth
    /// of stray text where they sit (docs/design.md, Clarifications, "Tool calls").
    /// [`Cut::Again`] asks to be called again, with the same bytes, once the events queued so
    /// far are out (the queue is short: a value's closing events, then the call's, each as
    /// many as the whole closer would queue); the machine must then take the bytes whatever
    /// its context has become. [`Cut::No`] leaves the bytes to the usual decision (a failed
    /// call keeps them in its raw text; a body that does not parse fails as before).
    ///
    /// [`plain_block`]: Machine::plain_block
    /// [`end_of_input`]: Machine::end_of_input
    fn cut_closer(&mut self, cfg: &Settings<'_>, emit: &mut Emitter<'_>, cut: &[u8]) -> Cut {
        let _ = (cfg, emit, cut);
        Cut::No
    }
}

/// A machine's answer to a closer cut off by the end of input ([`Machine::cut_closer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Not taken: the bytes are decided as usual.
    No,
    /// Taken, one level closed: ask again once the queued events are out.
    Again,
    /// Taken, everything closed: the bytes are wire syntax, dropped.
    Done,
}

/// Generates the driver's [`Active`] dispatch from one list: `Variant, state type;` — the
/// variant is the [`Dialect`] preset (`crate::spec`) whose machine the state is — then
/// `=> Preset: Variant;` for the presets that run on another preset's variant (the same
/// machine: a second variant holding the largest state, hermes's, would cost the enum a tag
/// and the parser state 8 bytes over its 512).
macro_rules! registry {
    ($($variant:ident, $state:ty;)* $(=> $alias:ident: $target:ident;)*) => {
        /// The dialect in use, with its state.
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Active {
            $($variant($state),)*
        }

        impl Active {
            pub(crate) fn new(cfg: &Config<'_>) -> Active {
                match cfg.machine() {
                    $(Dialect::$variant => Active::$variant(<$state as Machine>::new(cfg)),)*
                    $(Dialect::$alias => Active::$target(Machine::new(cfg)),)*
                }
            }

            pub(crate) fn call_depth(&self) -> u8 {
                match self {
                    $(Active::$variant(_) => <$state as Machine>::CALL_DEPTH,)*
                }
            }

            #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
            pub(crate) fn vocab<'m>(
                &self,
                cfg: &'m Settings<'_>,
                emit: &'m Emitter<'_>,
            ) -> Vocab<'m> {
                match self {
                    $(Active::$variant(s) => s.vocab(cfg, emit),)*
                }
            }

            #[inline]
            pub(crate) fn vocab_key(&self) -> u32 {
                match self {
                    $(Active::$variant(s) => s.vocab_key(),)*
                }
            }

            #[inline]
            pub(crate) fn plain_block(&self) -> Option<(BlockType, u8)> {
                match self {
                    $(Active::$variant(s) => s.plain_block(),)*
                }
            }

            #[inline]
            pub(crate) fn act(
                &mut self,
                cfg: &Settings<'_>,
                emit: &mut Emitter<'_>,
                d: Decision,
                window: &[u8],
            ) -> Act {
                match self {
                    $(Active::$variant(s) => s.act(cfg, emit, d, window),)*
                }
            }

            pub(crate) fn end_of_input(&mut self, cfg: &Settings<'_>, emit: &mut Emitter<'_>) {
                match self {
                    $(Active::$variant(s) => s.end_of_input(cfg, emit),)*
                }
            }

            pub(crate) fn cut_closer(
                &mut self,
                cfg: &Settings<'_>,
                emit: &mut Emitter<'_>,
                cut: &[u8],
            ) -> Cut {
                match self {
                    $(Active::$variant(s) => s.cut_closer(cfg, emit, cut),)*
                }
            }
        }
    };
}

registry! {
    Passthrough, passthrough::State;
    AnthropicXml, anthropic::State;
    Hermes, hermes::State;
    MorphXml, morph::State;
    Qwen3Coder, qwen3::State;
    MinimaxM2, minimax::State;
    Glm45, glm::State;
    Harmony, harmony::State;
    KimiK2, kimi::State;
    DeepSeekV31, deepseek_v31::State;
    DeepSeekV3, deepseek_v3::State;
    Mistral, mistral::State;
    Llama3Json, llama3::State;
    Pythonic, pythonic::State;
    DeepSeekV32, minimax::State;
    DeepSeekV4, minimax::State;
    SeedOss, qwen3::State;
    Olmo3, pythonic::State;
    Lfm2, pythonic::State;
    Gemma4, gemma::State;
    FunctionGemma, gemma::State;
    MinimaxM3, morph::State;
    KimiK3, kimi_k3::State;
    => CohereCommand: Hermes;
    => Granite: Hermes;
    => Phi4Mini: Hermes;
    => Apertus: Hermes;
    => Xlam: Hermes;
    => Inkling: Hermes;
    => MiniCpm5: MinimaxM2;
    => Step3: MinimaxM2;
    => Hunyuan: Glm45;
}

/// A marker met inside thinking other than its closer (docs/design.md, "Thinking that yields
/// to tool calls"): a tool-call opener (`call`) at the start of the thinking or of a line
/// completes the thinking block and is left for the text context to open the call (`None`:
/// the machine switches to its text context, and the same bytes are decided there); the
/// thinking opener again before any thinking text (a model repeating the opener a template
/// or prefill already wrote) is dropped; anywhere else either is thinking text (a marker
/// quoted in prose).
pub(crate) fn thinking_marker(out: &mut Emitter<'_>, call: bool, marker: &[u8]) -> Option<Act> {
    let started = matches!(out.open, Some(o) if o.ty == BlockType::Thinking);
    if call && out.thinking_yields() {
        out.close_content();
        None
    } else if !call && !started {
        Some(Act::skip(marker.len()))
    } else {
        // Thinking text: its valid UTF-8 prefix now (an opener's attribute may hold invalid
        // bytes, decided again as text; fuzz F22).
        let valid = core::str::from_utf8(marker).map_or_else(|e| e.valid_up_to(), str::len);
        let d = match valid {
            0 => Decision::Invalid(1),
            n => Decision::Text(n),
        };
        Some(out.content(BlockType::Thinking, 0, d))
    }
}

/// The bytes right after a completed call in top-level text (docs/design.md, "Lenient
/// recovery"), while `watching`: whitespace is text and the watch goes on; the call's closer
/// written again (`</tool_call>` twice) is wire syntax, dropped; anything else ends the watch
/// and is decided as usual (`None`). `closer` reads the call closer in force.
#[inline]
pub(crate) fn after_call(
    cfg: &Settings<'_>,
    out: &mut Emitter<'_>,
    watching: &mut bool,
    closer: impl for<'e> Fn(&'e Settings<'_>) -> &'e [u8],
    d: Decision,
    window: &[u8],
) -> Option<Act> {
    match d {
        Decision::Literal { len, .. } if window.get(..len) == Some(closer(cfg)) => {
            *watching = false;
            out.close_content();
            Some(Act::skip(len))
        }
        Decision::Text(n) => {
            let ws = window[..n]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            if ws > 0 {
                return Some(out.content(BlockType::Text, 0, Decision::Text(ws)));
            }
            *watching = false;
            None
        }
        _ => {
            *watching = false;
            None
        }
    }
}
