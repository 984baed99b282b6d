//! The C enums tied to the core enums they mirror, checked when this crate compiles.
//!
//! Each `mirror!` below lists every pair (C variant, core value) once and generates, as
//! inherent `const fn`s of the C enum, `code(core) -> u32` and `decode(u32) -> Option<core>`.
//! It fails to compile when:
//! - the core enum gains a variant without a C one (`code`'s match is exhaustive over the
//!   core values), or the C enum gains one without a pair (a match over the C variants);
//! - a variant is paired twice, on either side (unreachable patterns are denied);
//! - a C value is not the core's value as stated by the pair list's `value` rule (the
//!   core's discriminant, or one more where 0 means "none");
//! - an `all` list (`Dialect::ALL`) is not every core value in the order of their C codes
//!   (increasing; a code may be skipped: codes reserved for presets of another branch).

use tokensieve::provider::Provider;
use tokensieve::{
    BlockType, Dialect, ErrorReason, ErrorSource, FinishReason, OnMalformed, Part, StartIn,
    UnknownTools,
};

use crate::types::{
    tokensieve_block_type, tokensieve_call_error, tokensieve_dialect, tokensieve_error_source,
    tokensieve_finish_reason, tokensieve_on_malformed, tokensieve_part, tokensieve_provider,
    tokensieve_start_in, tokensieve_unknown_tools,
};

/// `mirror!(CEnum <=> CoreType, value(v) = EXPR[, all = LIST]; { C_VARIANT = [core value], … })`:
/// see the module's doc. `EXPR` computes, from the core value `v`, the C value it must have.
/// `mirror!(CEnum <=> Option<Core>, none = C_NONE; { … })` for enums where 0 means none.
macro_rules! mirror {
    // An optional core value: `NONE` is 0 and stands for `None`, the others are one more
    // than the core's discriminant.
    (
        $c:ident <=> Option<$core:ty>, none = $none:ident;
        { $($cv:ident = [$($core_value:tt)+]),+ $(,)? }
    ) => {
        mirror!($c <=> Option<$core>, value(v) = if let Some(v) = v { v as u32 + 1 } else { 0 }; {
            $none = [None],
            $($cv = [Some($($core_value)+)],)+
        });
    };
    (
        $c:ident <=> $core:ty, value($v:ident) = $value:expr $(, all = $all:expr)?;
        { $($cv:ident = [$($core_value:tt)+]),+ $(,)? }
    ) => {
        #[deny(unreachable_patterns)]
        impl $c {
            /// The C value of a core value.
            pub(crate) const fn code(v: $core) -> u32 {
                (match v {
                    $($($core_value)+ => $c::$cv,)+
                }) as u32
            }

            /// The core value of a C value; `None` for a value that is not one of the enum's.
            pub(crate) const fn decode(n: u32) -> Option<$core> {
                $(if n == $c::$cv as u32 {
                    return Some($($core_value)+);
                })+
                None
            }

            /// The core value a C variant stands for (exhaustive over the C variants).
            const fn mirrored(c: $c) -> $core {
                match c {
                    $($c::$cv => $($core_value)+,)+
                }
            }
        }

        const _: () = {
            $(
                let $v = $c::mirrored($c::$cv);
                assert!(
                    $c::$cv as u32 == $value,
                    concat!(stringify!($cv), " is not the value of ", stringify!($($core_value)+))
                );
                assert!($c::code($v) == $c::$cv as u32);
                assert!(matches!(
                    $c::decode($c::$cv as u32),
                    Some(d) if $c::code(d) == $c::$cv as u32
                ));
            )+
            let pairs = [$(stringify!($cv)),+].len();
            $(
                // The list of every core value: complete (as long as the pairs) and in the
                // order of their C codes (increasing from 0; a code may be skipped).
                let all = $all;
                assert!(all.len() == pairs);
                let mut i = 0;
                while i < all.len() {
                    assert!(if i == 0 {
                        $c::code(all[i]) == 0
                    } else {
                        $c::code(all[i]) > $c::code(all[i - 1])
                    });
                    i += 1;
                }
            )?
            let _ = pairs;
        };
    };
}

mirror!(tokensieve_dialect <=> Dialect, value(d) = d as u32, all = Dialect::ALL; {
    TOKENSIEVE_DIALECT_PASSTHROUGH = [Dialect::Passthrough],
    TOKENSIEVE_DIALECT_ANTHROPIC_XML = [Dialect::AnthropicXml],
    TOKENSIEVE_DIALECT_HERMES = [Dialect::Hermes],
    TOKENSIEVE_DIALECT_MORPH_XML = [Dialect::MorphXml],
    TOKENSIEVE_DIALECT_QWEN3_CODER = [Dialect::Qwen3Coder],
    TOKENSIEVE_DIALECT_MINIMAX_M2 = [Dialect::MinimaxM2],
    TOKENSIEVE_DIALECT_GLM_4_5 = [Dialect::Glm45],
    TOKENSIEVE_DIALECT_HARMONY = [Dialect::Harmony],
    TOKENSIEVE_DIALECT_KIMI_K2 = [Dialect::KimiK2],
    TOKENSIEVE_DIALECT_DEEPSEEK_V3_1 = [Dialect::DeepSeekV31],
    TOKENSIEVE_DIALECT_DEEPSEEK_V3 = [Dialect::DeepSeekV3],
    TOKENSIEVE_DIALECT_MISTRAL = [Dialect::Mistral],
    TOKENSIEVE_DIALECT_LLAMA3_JSON = [Dialect::Llama3Json],
    TOKENSIEVE_DIALECT_PYTHONIC = [Dialect::Pythonic],
    TOKENSIEVE_DIALECT_DEEPSEEK_V3_2 = [Dialect::DeepSeekV32],
    TOKENSIEVE_DIALECT_DEEPSEEK_V4 = [Dialect::DeepSeekV4],
    TOKENSIEVE_DIALECT_SEED_OSS = [Dialect::SeedOss],
    TOKENSIEVE_DIALECT_OLMO_3 = [Dialect::Olmo3],
    TOKENSIEVE_DIALECT_LFM2 = [Dialect::Lfm2],
    TOKENSIEVE_DIALECT_COHERE_COMMAND = [Dialect::CohereCommand],
    TOKENSIEVE_DIALECT_GRANITE = [Dialect::Granite],
    TOKENSIEVE_DIALECT_PHI_4_MINI = [Dialect::Phi4Mini],
    TOKENSIEVE_DIALECT_APERTUS = [Dialect::Apertus],
    TOKENSIEVE_DIALECT_XLAM = [Dialect::Xlam],
    TOKENSIEVE_DIALECT_GEMMA_4 = [Dialect::Gemma4],
    TOKENSIEVE_DIALECT_FUNCTIONGEMMA = [Dialect::FunctionGemma],
    TOKENSIEVE_DIALECT_MINICPM5 = [Dialect::MiniCpm5],
    TOKENSIEVE_DIALECT_STEP_3 = [Dialect::Step3],
    TOKENSIEVE_DIALECT_HUNYUAN = [Dialect::Hunyuan],
    TOKENSIEVE_DIALECT_MINIMAX_M3 = [Dialect::MinimaxM3],
    TOKENSIEVE_DIALECT_INKLING = [Dialect::Inkling],
    TOKENSIEVE_DIALECT_KIMI_K3 = [Dialect::KimiK3],
});

mirror!(tokensieve_start_in <=> StartIn, value(s) = s as u32; {
    TOKENSIEVE_START_IN_TEXT = [StartIn::Text],
    TOKENSIEVE_START_IN_THINKING = [StartIn::Thinking],
});

mirror!(tokensieve_on_malformed <=> OnMalformed, value(m) = m as u32; {
    TOKENSIEVE_ON_MALFORMED_TEXT = [OnMalformed::Text],
    TOKENSIEVE_ON_MALFORMED_DROP = [OnMalformed::Drop],
});

mirror!(tokensieve_unknown_tools <=> UnknownTools, value(m) = m as u32; {
    TOKENSIEVE_UNKNOWN_TOOLS_CALL = [UnknownTools::Call],
    TOKENSIEVE_UNKNOWN_TOOLS_FAIL = [UnknownTools::Fail],
});

mirror!(tokensieve_block_type <=> BlockType, value(t) = t as u32; {
    TOKENSIEVE_BLOCK_TEXT = [BlockType::Text],
    TOKENSIEVE_BLOCK_THINKING = [BlockType::Thinking],
    TOKENSIEVE_BLOCK_TOOL_CALL = [BlockType::ToolCall],
    TOKENSIEVE_BLOCK_TOOL_RESULT = [BlockType::ToolResult],
});

mirror!(tokensieve_part <=> Option<Part>, none = TOKENSIEVE_PART_NONE; {
    TOKENSIEVE_PART_NAME = [Part::Name],
    TOKENSIEVE_PART_ID = [Part::Id],
    TOKENSIEVE_PART_INPUT = [Part::Input],
});

mirror!(tokensieve_call_error <=> Option<ErrorReason>, none = TOKENSIEVE_CALL_OK; {
    TOKENSIEVE_CALL_MALFORMED_BODY = [ErrorReason::MalformedBody],
    TOKENSIEVE_CALL_MISSING_NAME = [ErrorReason::MissingName],
    TOKENSIEVE_CALL_MALFORMED_PARAMETER = [ErrorReason::MalformedParameter],
    TOKENSIEVE_CALL_UNEXPECTED_CONTENT = [ErrorReason::UnexpectedContent],
    TOKENSIEVE_CALL_UNFINISHED = [ErrorReason::Unfinished],
    TOKENSIEVE_CALL_TOO_LARGE = [ErrorReason::TooLarge],
    TOKENSIEVE_CALL_NESTING_TOO_DEEP = [ErrorReason::NestingTooDeep],
    TOKENSIEVE_CALL_UNKNOWN_TOOL = [ErrorReason::UnknownTool],
});

mirror!(tokensieve_finish_reason <=> Option<FinishReason>, none = TOKENSIEVE_FINISH_NONE; {
    TOKENSIEVE_FINISH_STOP = [FinishReason::Stop],
    TOKENSIEVE_FINISH_LENGTH = [FinishReason::Length],
    TOKENSIEVE_FINISH_TOOL_CALLS = [FinishReason::ToolCalls],
    TOKENSIEVE_FINISH_CONTENT_FILTER = [FinishReason::ContentFilter],
    TOKENSIEVE_FINISH_REFUSAL = [FinishReason::Refusal],
    TOKENSIEVE_FINISH_ERROR = [FinishReason::Error],
    TOKENSIEVE_FINISH_OTHER = [FinishReason::Other],
    TOKENSIEVE_FINISH_MALFORMED_TOOL_CALL = [FinishReason::MalformedToolCall],
});

mirror!(tokensieve_error_source <=> Option<ErrorSource>, none = TOKENSIEVE_ERROR_SOURCE_NONE; {
    TOKENSIEVE_ERROR_SOURCE_PROVIDER = [ErrorSource::Provider],
    TOKENSIEVE_ERROR_SOURCE_FRAMING = [ErrorSource::Framing],
});

mirror!(tokensieve_provider <=> Provider, value(p) = p as u32, all = Provider::ALL; {
    TOKENSIEVE_PROVIDER_OPENAI_CHAT = [Provider::OpenAiChat],
    TOKENSIEVE_PROVIDER_OPENAI_RESPONSES = [Provider::OpenAiResponses],
    TOKENSIEVE_PROVIDER_ANTHROPIC = [Provider::Anthropic],
    TOKENSIEVE_PROVIDER_GEMINI = [Provider::Gemini],
    TOKENSIEVE_PROVIDER_BEDROCK = [Provider::Bedrock],
    TOKENSIEVE_PROVIDER_OLLAMA = [Provider::Ollama],
});
