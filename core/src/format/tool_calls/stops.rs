//! The stop sequences a host sets per dialect.

use super::*;

/// The stop sequences (end-of-turn markers) a host sets when it runs a model of this
/// dialect in completions mode, so that generation ends where the model's turn does (or,
/// for harmony, where it waits for a tool).
///
/// | dialect | stops |
/// | --- | --- |
/// | anthropic-xml | `\nHuman:`, `\nUser:` (the prefill formatter's participant stops; add a host's other participants with [`participant_stops`]) |
/// | hermes, qwen3-coder, morph-xml, olmo-3 | `<\|im_end\|>`, `<\|endoftext\|>` (ChatML) |
/// | kimi-k2, lfm2 | `<\|im_end\|>` |
/// | glm-4.5 | `<\|user\|>`, `<\|observation\|>`, `<\|endoftext\|>` |
/// | minimax-m2 | `[e~[` |
/// | harmony | `<\|return\|>`, `<\|call\|>` |
/// | deepseek-v3, -v3.1, -v3.2, -v4 | `<｜end▁of▁sentence｜>` |
/// | mistral | `</s>` |
/// | llama3-json | `<\|eot_id\|>`, `<\|eom_id\|>` |
/// | pythonic | `<\|eot_id\|>`, `<\|eom_id\|>`, `<\|eot\|>`, `<\|eom\|>` (Llama 3.2 and 4) |
/// | gemma-4 | `<turn\|>`, `<\|tool_response>` |
/// | functiongemma | `<end_of_turn>`, `<start_function_response>` |
/// | seed-oss | `<seed:eos>` |
/// | cohere-command | `<\|END_OF_TURN_TOKEN\|>` |
/// | granite | `<\|end_of_text\|>` |
/// | phi-4-mini | `<\|end\|>`, `<\|endoftext\|>` |
/// | apertus | `<\|assistant_end\|>` |
/// | xlam | `<\|eot_id\|>`, `<\|im_end\|>` (Llama- and Qwen-based xLAM-2) |
/// | minicpm5 | `<\|im_end\|>`, `<\|endoftext\|>` |
/// | minimax-m3 | `[e~[` (as minimax-m2) |
/// | inkling | `<\|content_model_end_sampling\|>`, `<\|endoftext\|>` |
/// | step-3 | none known (its template was not found here) |
/// | hunyuan | none known (its template was not found here) |
/// | kimi-k3 | `<\|end_of_msg\|>` (K3's encoder ends every message with it; the model's end-of-turn token) |
/// | passthrough | none |
///
/// ```
/// use tokensieve::Dialect;
/// use tokensieve::format::stop_sequences_for;
/// assert_eq!(stop_sequences_for(Dialect::Harmony), ["<|return|>", "<|call|>"]);
/// assert_eq!(stop_sequences_for(Dialect::AnthropicXml)[0], "\nHuman:");
/// ```
pub fn stop_sequences_for(dialect: Dialect) -> &'static [&'static str] {
    const CHATML: &[&str] = &["<|im_end|>", "<|endoftext|>"];
    const DEEPSEEK: &[&str] = &["<｜end▁of▁sentence｜>"];
    match dialect {
        Dialect::Passthrough => &[],
        Dialect::AnthropicXml => &["\nHuman:", "\nUser:"],
        Dialect::Hermes | Dialect::Qwen3Coder | Dialect::MorphXml | Dialect::Olmo3 => CHATML,
        Dialect::KimiK2 | Dialect::Lfm2 => &["<|im_end|>"],
        Dialect::Glm45 => &["<|user|>", "<|observation|>", "<|endoftext|>"],
        Dialect::MinimaxM2 | Dialect::MinimaxM3 => &["[e~["],
        Dialect::Inkling => &["<|content_model_end_sampling|>", "<|endoftext|>"],
        Dialect::Harmony => &["<|return|>", "<|call|>"],
        Dialect::DeepSeekV3 | Dialect::DeepSeekV31 | Dialect::DeepSeekV32 | Dialect::DeepSeekV4 => {
            DEEPSEEK
        }
        Dialect::Mistral => &["</s>"],
        Dialect::Llama3Json => &["<|eot_id|>", "<|eom_id|>"],
        Dialect::Pythonic => &["<|eot_id|>", "<|eom_id|>", "<|eot|>", "<|eom|>"],
        Dialect::Gemma4 => &["<turn|>", "<|tool_response>"],
        Dialect::FunctionGemma => &["<end_of_turn>", "<start_function_response>"],
        Dialect::SeedOss => &["<seed:eos>"],
        Dialect::CohereCommand => &["<|END_OF_TURN_TOKEN|>"],
        Dialect::Granite => &["<|end_of_text|>"],
        Dialect::Phi4Mini => &["<|end|>", "<|endoftext|>"],
        Dialect::Apertus => &["<|assistant_end|>"],
        Dialect::Xlam => &["<|eot_id|>", "<|im_end|>"],
        Dialect::MiniCpm5 => CHATML,
        Dialect::Hunyuan => &[],
        Dialect::KimiK3 => &["<|end_of_msg|>"],
        // Not known here (its template was not found): the host's own.
        Dialect::Step3 => &[],
    }
}

/// The prefill formatter's participant stops: `\n{name}:` for each participant name (the
/// model must not write another participant's turn).
///
/// ```
/// use tokensieve::format::participant_stops;
/// assert_eq!(participant_stops(&["Alice", "Bob"]), ["\nAlice:", "\nBob:"]);
/// ```
pub fn participant_stops(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| alloc::format!("\n{n}:")).collect()
}
