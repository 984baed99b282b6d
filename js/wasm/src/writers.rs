//! The writers (issue 27): tool calls, tool definitions, tool results, stop sequences, each
//! into the output buffer (its length, or -1 and the message). Behind the feature `writers`:
//! js/build.sh builds them alone into the package's second module, `tokensieve-format.wasm`,
//! which the JS instantiates on the first writer call (js/README.md, "Size and start-up").

use alloc::format;
use alloc::string::String;
use tokensieve::config::ConfigBuf;

use crate::{bytes, out, set_error};

/// Two texts given back to back in one input buffer: the first `a` bytes, then `b` bytes.
///
/// # Safety
/// See [`bytes`] (for `a + b` bytes).
unsafe fn two_texts<'a>(ptr: *const u8, a: usize, b: usize) -> Result<(&'a str, &'a str), String> {
    out().clear();
    // SAFETY: per the caller's contract.
    let all = unsafe { bytes(ptr, a.saturating_add(b)) };
    let (x, y) = all.split_at(a.min(all.len()));
    match (core::str::from_utf8(x), core::str::from_utf8(y)) {
        (Ok(x), Ok(y)) => Ok((x, y)),
        _ => Err("input: not UTF-8".into()),
    }
}

/// Puts a writer's text (or its error) in the output buffer: its length, or -1.
fn written(r: Result<String, String>) -> i32 {
    match r {
        Ok(text) => {
            let o = out();
            o.clear();
            o.extend_from_slice(text.as_bytes());
            o.len() as i32
        }
        Err(e) => set_error(&e),
    }
}

fn dialect_named(name: &str) -> Result<tokensieve::Dialect, String> {
    tokensieve::Dialect::from_name(name)
        .filter(|d| d.is_supported())
        .ok_or_else(|| format!("unknown dialect {name:?}"))
}

/// Writes tool calls: a JSON config (`config_len` bytes) then the calls' JSON array
/// (`calls_len` bytes) at `ptr`; the text's length in the output buffer, or -1 (message).
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_format_calls(
    ptr: *const u8,
    config_len: usize,
    calls_len: usize,
) -> i32 {
    // SAFETY: per the caller's contract.
    let r = unsafe { two_texts(ptr, config_len, calls_len) }.and_then(|(config, calls)| {
        let c = ConfigBuf::from_json(config).map_err(|e| format!("config: {e}"))?;
        tokensieve::format::format_tool_calls_json(&c.config(), calls)
            .map_err(|e| format!("calls: {e}"))
    });
    written(r)
}

/// Writes the prompt's tool-definition section: a JSON config (`config_len` bytes) then the
/// tools' JSON array in the config's tool form (`tools_len` bytes) at `ptr`; the text's
/// length in the output buffer, or -1 (message).
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_format_tool_definitions(
    ptr: *const u8,
    config_len: usize,
    tools_len: usize,
) -> i32 {
    // SAFETY: per the caller's contract.
    let r = unsafe { two_texts(ptr, config_len, tools_len) }.and_then(|(config, tools)| {
        let c = ConfigBuf::from_json(config).map_err(|e| format!("config: {e}"))?;
        tokensieve::format::format_tool_definitions_json(&c.config(), tools)
            .map_err(|e| format!("tools: {e}"))
    });
    written(r)
}

/// Writes tool results: a dialect name (`name_len` bytes) then the results' JSON array.
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_format_results(
    ptr: *const u8,
    name_len: usize,
    results_len: usize,
) -> i32 {
    // SAFETY: per the caller's contract.
    let r = unsafe { two_texts(ptr, name_len, results_len) }.and_then(|(name, results)| {
        tokensieve::format::format_tool_results_json(dialect_named(name)?, results)
            .map_err(|e| format!("results: {e}"))
    });
    written(r)
}

/// The stop sequences of a dialect (its name at `ptr`), as a JSON array of strings.
///
/// # Safety
/// See [`bytes`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ts_stop_sequences(ptr: *const u8, len: usize) -> i32 {
    // SAFETY: per the caller's contract.
    let r = unsafe { two_texts(ptr, len, 0) }.and_then(|(name, _)| {
        let mut json = String::from("[");
        for (i, s) in tokensieve::format::stop_sequences_for(dialect_named(name)?)
            .iter()
            .enumerate()
        {
            if i > 0 {
                json.push(',');
            }
            json.push('"');
            for c in s.chars() {
                match u8::try_from(c).ok().and_then(tokensieve::json::escape_byte) {
                    Some(e) => json.push_str(e),
                    None => json.push(c),
                }
            }
            json.push('"');
        }
        json.push(']');
        Ok(json)
    });
    written(r)
}
