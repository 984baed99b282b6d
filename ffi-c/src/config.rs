//! Reading a configuration: a C `tokensieve_config` (checked, its strings viewed in place as
//! [`Read`]), or the JSON text of `tokensieve_new_json`.

use core::ffi::{CStr, c_char};

use tokensieve::config::DEFAULT_MAX_CALL_BYTES;
use tokensieve::provider::DecoderConfigBuf;
use tokensieve::{
    Config, ConfigBuf, DEFAULT_MEMORY, Dialect, OnMalformed, Sieve, StartIn, StrList, ToolList,
    UnknownTools,
};

use crate::error::{Error, Result, config_err};
use crate::types::{
    tokensieve_config, tokensieve_dialect, tokensieve_dialect_unset, tokensieve_on_malformed,
    tokensieve_start_in, tokensieve_tool, tokensieve_unknown_tools,
};

/// Default `accumulate_size` (caller memory).
pub(crate) const DEFAULT_ACCUMULATE: usize = 4096;

/// A C config read into Rust views of the caller's strings (valid during the call).
pub(crate) struct Read<'c> {
    pub(crate) dialect: Dialect,
    pub(crate) thinking: Option<(&'c str, &'c str)>,
    pub(crate) markers: Option<(&'c str, &'c str)>,
    pub(crate) start_in: StartIn,
    pub(crate) on_malformed: OnMalformed,
    pub(crate) unknown_tools: UnknownTools,
    pub(crate) id_prefix: Option<&'c str>,
    pub(crate) max_call_bytes: usize,
    pub(crate) stops: &'c [*const c_char],
    pub(crate) tools: &'c [tokensieve_tool],
    pub(crate) accumulate: bool,
    pub(crate) buffer_size: usize,
    pub(crate) accumulate_size: usize,
}

/// A C string as UTF-8 (`None` for NULL).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that outlives `'c`.
pub(crate) unsafe fn cstr<'c>(p: *const c_char, what: &str) -> Result<Option<&'c str>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str()
        .map(Some)
        .map_err(|_| Error::Config.report(format_args!("config: {what} is not valid UTF-8")))
}

fn pair<'c>(
    a: Option<&'c str>,
    b: Option<&'c str>,
    what: &str,
) -> Result<Option<(&'c str, &'c str)>> {
    match (a, b) {
        (None, None) => Ok(None),
        (Some(a), Some(b)) => Ok(Some((a, b))),
        _ => Err(Error::Config.report(format_args!(
            "config: {what} markers must both be set or both be NULL"
        ))),
    }
}

/// The enum fields, decoded by their ties to the core (see `codes`).
fn read_enums(c: &tokensieve_config) -> Result<(Dialect, StartIn, OnMalformed, UnknownTools)> {
    let dialect = tokensieve_dialect::decode(c.dialect).ok_or_else(|| {
        if c.dialect == tokensieve_dialect_unset::TOKENSIEVE_DIALECT_NONE as u32 {
            Error::Config.report(format_args!(
                "config: no dialect (TOKENSIEVE_DIALECT_NONE); set a TOKENSIEVE_DIALECT_* value: {}",
                DialectNames
            ))
        } else {
            Error::Config.report(format_args!(
                "config: dialect {} is not a TOKENSIEVE_DIALECT_* value: {}",
                c.dialect, DialectNames
            ))
        }
    })?;
    let start_in = tokensieve_start_in::decode(c.start_in).ok_or_else(|| {
        Error::Config.report(format_args!(
            "config: start_in {} is not a TOKENSIEVE_START_IN_* value",
            c.start_in
        ))
    })?;
    let on_malformed = tokensieve_on_malformed::decode(c.on_malformed).ok_or_else(|| {
        Error::Config.report(format_args!(
            "config: on_malformed {} is not a TOKENSIEVE_ON_MALFORMED_* value",
            c.on_malformed
        ))
    })?;
    let unknown_tools = tokensieve_unknown_tools::decode(c.unknown_tools).ok_or_else(|| {
        Error::Config.report(format_args!(
            "config: unknown_tools {} is not a TOKENSIEVE_UNKNOWN_TOOLS_* value",
            c.unknown_tools
        ))
    })?;
    Ok((dialect, start_in, on_malformed, unknown_tools))
}

/// `len` items at `items`: empty when `len` is 0, an error when `items` is NULL otherwise.
///
/// # Safety
/// `items` is NULL or points to `len` readable items that outlive `'c`.
unsafe fn array<'c, T>(items: *const T, len: usize, what: &str) -> Result<&'c [T]> {
    if len == 0 {
        Ok(&[])
    } else if items.is_null() {
        Err(Error::Null.report(format_args!("config: {what} is NULL but {what}_len > 0")))
    } else {
        // SAFETY: the caller provides `len` readable items.
        Ok(unsafe { core::slice::from_raw_parts(items, len) })
    }
}

/// Checks the config's values and views its strings and arrays.
///
/// # Safety
/// `c` is a valid config whose pointers follow the documented contract.
pub(crate) unsafe fn read_config(c: &tokensieve_config) -> Result<Read<'_>> {
    let (dialect, start_in, on_malformed, unknown_tools) = read_enums(c)?;
    // The config's strings are NULL or NUL-terminated and live during this call
    // (documented contract of tokensieve_config).
    let s = |p: *const c_char, what: &str| {
        // SAFETY: see above.
        unsafe { cstr(p, what) }
    };
    let thinking = pair(
        s(c.thinking_open, "thinking_open")?,
        s(c.thinking_close, "thinking_close")?,
        "thinking",
    )?;
    let markers = pair(
        s(c.tool_call_open, "tool_call_open")?,
        s(c.tool_call_close, "tool_call_close")?,
        "tool_call",
    )?;
    let id_prefix = s(c.id_prefix, "id_prefix")?;
    // SAFETY: the caller provides `stop_sequences_len` readable pointers.
    let stops = unsafe { array(c.stop_sequences, c.stop_sequences_len, "stop_sequences") }?;
    // SAFETY: the caller provides `tools_len` readable tools.
    let tools = unsafe { array(c.tools, c.tools_len, "tools") }?;
    let or = |v: usize, d: usize| if v == 0 { d } else { v };
    Ok(Read {
        dialect,
        thinking,
        markers,
        start_in,
        on_malformed,
        unknown_tools,
        id_prefix,
        max_call_bytes: or(c.max_call_bytes, DEFAULT_MAX_CALL_BYTES),
        stops,
        tools,
        accumulate: c.accumulate != 0,
        buffer_size: or(c.buffer_size, DEFAULT_MEMORY),
        accumulate_size: or(c.accumulate_size, DEFAULT_ACCUMULATE),
    })
}

impl<'c> Read<'c> {
    /// The `i`-th stop sequence.
    pub(crate) fn stop(&self, i: usize) -> Result<&'c str> {
        // SAFETY: entries are NULL or NUL-terminated strings (config contract).
        match unsafe { cstr(self.stops[i], "a stop sequence") }? {
            Some(s) => Ok(s),
            None => Err(Error::Null.report(format_args!("config: stop_sequences[{i}] is NULL"))),
        }
    }

    /// The `i`-th tool's name and schema text (empty when NULL).
    pub(crate) fn tool(&self, i: usize) -> Result<(&'c str, &'c [u8])> {
        let t = self.tools[i];
        // SAFETY: tool strings are NULL or NUL-terminated (config contract).
        let name = unsafe { cstr(t.name, "a tool name") }?.unwrap_or("");
        if name.is_empty() {
            return Err(
                Error::Config.report(format_args!("config: tools[{i}] needs a non-empty name"))
            );
        }
        let schema = if t.schema.is_null() {
            &[][..]
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(t.schema) }.to_bytes()
        };
        Ok((name, schema))
    }

    /// The config without stop sequences and tools (what needs no copy to validate).
    pub(crate) fn base_config(&self) -> Config<'c> {
        Config {
            dialect: self.dialect,
            // The struct config names presets; a description comes through the JSON config.
            description: None,
            thinking_tags: self.thinking,
            thinking_alternates: StrList::Strs(&[]),
            tool_call_markers: self.markers,
            start_in: self.start_in,
            stop_sequences: StrList::Strs(&[]),
            id_prefix: self.id_prefix.unwrap_or("call_"),
            on_malformed: self.on_malformed,
            max_call_bytes: self.max_call_bytes,
            tools: ToolList::Tools(&[]),
            unknown_tools: self.unknown_tools,
        }
    }
}

/// The sieve of `tokensieve_new_json`: its JSON config read by the core.
///
/// # Safety
/// `config_json` is NULL or a NUL-terminated string.
pub(crate) unsafe fn json_sieve(config_json: *const c_char) -> Result<Sieve<'static>> {
    // SAFETY: forwarded contract.
    let c = unsafe { json_config(config_json, "tokensieve_new_json") }?;
    Sieve::from_config_buf(c).map_err(|e| config_err(&e))
}

/// A JSON config (`tokensieve_new_json`'s) read by the core; `what` names the entry point.
///
/// # Safety
/// `config_json` is NULL or a NUL-terminated string.
pub(crate) unsafe fn json_config(config_json: *const c_char, what: &str) -> Result<ConfigBuf> {
    // SAFETY: NULL or NUL-terminated by the contract.
    let text = unsafe { cstr(config_json, "config_json") }?
        .ok_or_else(|| Error::Null.report(format_args!("{what}: config_json is NULL")))?;
    ConfigBuf::from_json(text).map_err(|e| {
        if e.key() == "dialect" && e.message() == "is required" {
            // No binding picks a dialect: say which names exist.
            Error::Config.report(format_args!(
                "config key `dialect`: is required, one of {DialectNames}"
            ))
        } else {
            config_err(&e)
        }
    })
}

/// The dialects this build parses, by name, comma-separated (for messages; they fit the
/// 255 bytes of an error message).
pub(crate) struct DialectNames;

impl core::fmt::Display for DialectNames {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut first = true;
        for d in Dialect::ALL {
            if d.is_supported() {
                if !first {
                    f.write_str(", ")?;
                }
                first = false;
                f.write_str(d.name())?;
            }
        }
        Ok(())
    }
}

/// Reads a decoder's JSON config with the core's reader (`DecoderConfigBuf::from_json`,
/// docs/providers.md "Input and configuration"); its error names the bad key.
pub(crate) fn json_decoder(text: &[u8]) -> Result<DecoderConfigBuf> {
    let text = core::str::from_utf8(text)
        .map_err(|e| Error::Config.report(format_args!("config: not UTF-8: {e}")))?;
    DecoderConfigBuf::from_json(text).map_err(|e| {
        Error::Config.report(format_args!("config key `{}`: {}", e.key(), e.message()))
    })
}
