//! `tokensieve demo`: a bundled transcript streamed through the parser in token-sized chunks.

use std::io::IsTerminal;
use std::time::Duration;

use tokensieve::{ConfigBuf, Dialect, Sieve};

use crate::output::{Output, View};
use crate::stream::Fail;

/// A realistic transcript: text, thinking, two tool calls, a result, and the answer.
const DEMO: &str = concat!(
    "<thinking>The user wants the weather in Paris and Tokyo. I'll look both up ",
    "in one go, then compare.</thinking>\n",
    "Let me check the weather in both cities for you.\n\n",
    "<function_calls>\n",
    "<invoke name=\"get_weather\">\n",
    "<parameter name=\"city\">Paris</parameter>\n",
    "<parameter name=\"unit\">celsius</parameter>\n",
    "</invoke>\n",
    "<invoke name=\"get_weather\">\n",
    "<parameter name=\"city\">東京 (Tokyo)</parameter>\n",
    "<parameter name=\"days\">3</parameter>\n",
    "</invoke>\n",
    "</function_calls>\n",
    "<function_results>\n",
    "<result tool_use_id=\"call_0\">\n",
    "<tool_name>get_weather</tool_name>\n",
    "<stdout>Paris: 18°C, light rain. Tokyo: 24°C, sunny 🌞</stdout>\n",
    "</result>\n",
    "</function_results>\n\n",
    "It is 18°C and raining in Paris, while Tokyo is sunny at 24°C — pack an umbrella ",
    "for Paris only.",
);

/// Streams [`DEMO`] through an `anthropic-xml` parser in the human view, one 1–7 byte piece
/// every 12 ms (`fast`: without the pauses).
pub fn demo(fast: bool) -> Result<(), Fail> {
    let mut sieve = Sieve::from_config_buf(demo_config()?).map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let color = stdout.is_terminal();
    let mut out = Output::new(View::Human, stdout.lock(), color);
    for piece in token_sized(DEMO.as_bytes()) {
        let mut rest = piece;
        while let Some(ev) = sieve.next(&mut rest) {
            out.event(&ev)?;
        }
        out.flush()?;
        if !fast {
            std::thread::sleep(Duration::from_millis(12));
        }
    }
    sieve.finish();
    while let Some(ev) = sieve.next(&mut &b""[..]) {
        out.event(&ev)?;
    }
    out.end()
}

/// The demo's parser config: `anthropic-xml` with the one tool the transcript calls.
fn demo_config() -> Result<ConfigBuf, String> {
    let mut config = ConfigBuf::new(Dialect::AnthropicXml);
    config
        .add_tool(
            "get_weather",
            r#"{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string"},"days":{"type":"integer"}}}"#,
        )
        .map_err(|e| e.to_string())?;
    Ok(config)
}

/// Token-sized pieces of 1–7 bytes, cut anywhere (inside tags and UTF-8 characters too),
/// the same cuts on every run.
fn token_sized(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    let mut seed = 7u32;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let n = (1 + (seed >> 16) % 7) as usize;
        let piece = &bytes[at..(at + n).min(bytes.len())];
        at += piece.len();
        Some(piece)
    })
}
