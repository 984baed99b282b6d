//! The writers: the assistant's past tool calls, the prompt's tool definitions and tool
//! results in a dialect's wire format, and the dialect's stop sequences (issue 27). The input
//! is the JSON form every binding takes (read by the core:
//! `tokensieve::format::format_tool_calls_json`, `format_tool_definitions_json`,
//! `format_tool_results_json`); the text goes into a caller buffer, rustls-ffi style: when
//! it is too small, TOKENSIEVE_E_BUFFER and the size needed in `*out_len` (call again with a
//! buffer that large). Nothing is allocated for the caller.

use core::ffi::c_char;

use tokensieve::format::{
    JsonInputError, format_tool_calls_json, format_tool_definitions_json, format_tool_results_json,
    stop_sequences_for,
};
use tokensieve::{Config, ConfigBuf, Dialect};

use crate::config::{DialectNames, json_config, read_config};
use crate::error::{Error, OK, Result, config_err, status};
use crate::panic::guard;
use crate::types::{tokensieve_config, tokensieve_dialect, tokensieve_str};

/// The input text of a writer: `len` bytes at `data`, UTF-8.
///
/// # Safety
/// `data` is NULL or readable for `len` bytes.
unsafe fn input<'a>(data: *const c_char, len: usize, what: &str, arg: &str) -> Result<&'a str> {
    if data.is_null() {
        return Err(Error::Null.report(format_args!("{what}: {arg} is NULL")));
    }
    // SAFETY: non-NULL and readable for `len` bytes by the caller's contract.
    let bytes = unsafe { core::slice::from_raw_parts(data.cast::<u8>(), len) };
    core::str::from_utf8(bytes).map_err(|e| {
        Error::Input.report(format_args!(
            "{what}: {arg} is not UTF-8 (at byte {})",
            e.valid_up_to()
        ))
    })
}

/// Writes `text` into the caller's buffer, or says how large it must be.
///
/// # Safety
/// `buf` is NULL or writable for `buf_len` bytes; `out_len` is non-NULL and writable.
unsafe fn deliver(
    text: &str,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
    what: &str,
) -> Result<i32> {
    // SAFETY: checked non-NULL by the entry point, writable by the contract.
    unsafe { out_len.write(text.len()) };
    if text.len() > buf_len || (buf.is_null() && !text.is_empty()) {
        return Err(Error::Buffer.report(format_args!(
            "{what}: the buffer holds {buf_len} bytes, the text needs {} (in *out_len): call again with a larger buffer",
            text.len()
        )));
    }
    if !text.is_empty() {
        // SAFETY: `buf` is non-NULL and writable for `buf_len >= text.len()` bytes; a Rust
        // string does not overlap caller memory.
        unsafe { core::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len()) };
    }
    Ok(OK)
}

fn input_err(what: &str, arg: &str, e: &JsonInputError) -> Error {
    Error::Input.report(format_args!("{what}: {arg}: {e}"))
}

/// The input of a writer: `len` bytes at `data`, the argument `arg` names.
#[derive(Clone, Copy)]
struct Input<'n> {
    arg: &'n str,
    data: *const c_char,
    len: usize,
}

/// Where a writer's text goes: `buf` (`buf_len` bytes) and its length (or the size needed)
/// in `*out_len`.
#[derive(Clone, Copy)]
struct Out {
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
}

impl<'n> Input<'n> {
    fn new(arg: &'n str, data: *const c_char, len: usize) -> Self {
        Input { arg, data, len }
    }
}

impl Out {
    fn new(buf: *mut c_char, buf_len: usize, out_len: *mut usize) -> Self {
        Out {
            buf,
            buf_len,
            out_len,
        }
    }
}

/// The shared steps of every writer: check `out_len`, read what the text is written for (a
/// config or a dialect: `prepare`, before the input, so a bad one is the error reported),
/// read the input, write it, deliver the text.
///
/// # Safety
/// `input.data` is NULL or readable for `input.len` bytes; `out.buf` is NULL or writable
/// for `out.buf_len` bytes; `out.out_len` is NULL or writable.
unsafe fn write<P>(
    what: &str,
    input: Input<'_>,
    out: Out,
    prepare: impl FnOnce() -> Result<P>,
    writer: impl FnOnce(P, &str) -> core::result::Result<String, JsonInputError>,
) -> i32 {
    guard(what, Error::Panic.code(), || {
        status((|| {
            if out.out_len.is_null() {
                return Err(Error::Null.report(format_args!("{what}: out_len is NULL")));
            }
            let prepared = prepare()?;
            // SAFETY: forwarded contract.
            let text = unsafe { self::input(input.data, input.len, what, input.arg) }?;
            let written = writer(prepared, text).map_err(|e| input_err(what, input.arg, &e))?;
            // SAFETY: forwarded contract; out_len checked above.
            unsafe { deliver(&written, out.buf, out.buf_len, out.out_len, what) }
        })())
    })
}

/// A writer of the configured ones (the calls' or the tool definitions' JSON form), taking
/// the config [`write`] prepared.
fn configured(
    writer: fn(&Config<'_>, &str) -> core::result::Result<String, JsonInputError>,
) -> impl FnOnce(ConfigBuf, &str) -> core::result::Result<String, JsonInputError> {
    move |config, text| writer(&config.config(), text)
}

/// Writes the assistant's past tool calls as the model writes them (what the family's chat
/// template renders), for a host that builds the prompt itself: `calls_json` is a JSON
/// array `[{"name": "get_weather", "id": "call_0", "input": {"city": "Paris"}}]` (`id` and
/// `input` optional; `input`'s numbers are written as spelled), `config_json` the JSON
/// config of `tokensieve_new_json` (its `dialect` — a name or a host-written description —
/// and its `tools`, whose parameter types decide how the XML-parameter formats write
/// values). The text goes into `buf` (`buf_len` bytes; not NUL-terminated) and its length
/// into `*out_len`.
///
/// Returns TOKENSIEVE_OK; TOKENSIEVE_E_BUFFER when `buf_len` is too small (or `buf` NULL),
/// with the size needed in `*out_len` and nothing written: call again with a buffer that
/// large; TOKENSIEVE_E_CONFIG (a bad config), TOKENSIEVE_E_INPUT (`calls_json` is not
/// such an array, or a call cannot be written in the dialect), TOKENSIEVE_E_NULL. The
/// message (`tokensieve_last_error(NULL)`) says what was wrong, e.g. `calls_json: [0]:
/// "input" is not an object`. Allocates internally, never for the caller.
///
/// ```c
/// char buf[256]; size_t n;
/// const char *calls = "[{\"name\": \"get_weather\", \"input\": {\"city\": \"Paris\"}}]";
/// if (tokensieve_format_tool_calls_json("{\"dialect\": \"hermes\"}", calls, strlen(calls),
///                                       buf, sizeof buf, &n) == TOKENSIEVE_OK)
///     printf("%.*s\n", (int)n, buf);
/// ```
///
/// # Safety
/// `config_json` is NULL or NUL-terminated; `calls_json` is NULL or readable for
/// `calls_json_len` bytes; `buf` is NULL or writable for `buf_len` bytes; `out_len` is NULL
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_format_tool_calls_json(
    config_json: *const c_char,
    calls_json: *const c_char,
    calls_json_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> i32 {
    const WHAT: &str = "tokensieve_format_tool_calls_json";
    let input = Input::new("calls_json", calls_json, calls_json_len);
    let out = Out::new(buf, buf_len, out_len);
    // SAFETY: NULL or NUL-terminated, by this function's contract.
    let config = || unsafe { json_config(config_json, WHAT) };
    let writer = configured(format_tool_calls_json);
    // SAFETY: the rest of this function's contract, forwarded.
    unsafe { write(WHAT, input, out, config, writer) }
}

/// What the writers take of a struct config: the preset, its call markers, its tools.
///
/// # Safety
/// `config` is NULL or a valid config.
unsafe fn struct_config(config: *const tokensieve_config, what: &str) -> Result<ConfigBuf> {
    if config.is_null() {
        return Err(Error::Null.report(format_args!("{what}: config is NULL")));
    }
    // SAFETY: non-NULL, valid by the contract.
    let r = unsafe { read_config(&*config) }?;
    let mut c = ConfigBuf::new(r.dialect);
    c.tool_call_markers = r.markers.map(|(a, b)| (a.into(), b.into()));
    for i in 0..r.tools.len() {
        let (name, schema) = r.tool(i)?;
        let schema = core::str::from_utf8(schema).map_err(|_| {
            Error::Config.report(format_args!("config: tools[{i}].schema is not UTF-8"))
        })?;
        c.add_tool(name, if schema.is_empty() { "{}" } else { schema })
            .map_err(|e| config_err(&e))?;
    }
    Ok(c)
}

/// `tokensieve_format_tool_calls_json` with a struct config (a `TOKENSIEVE_DIALECT_*`
/// preset, its `tools` and `tool_call_open`/`tool_call_close`; the other fields do not
/// change what is written).
///
/// # Safety
/// `config` is NULL or a valid config; the rest as `tokensieve_format_tool_calls_json`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_format_tool_calls(
    config: *const tokensieve_config,
    calls_json: *const c_char,
    calls_json_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> i32 {
    const WHAT: &str = "tokensieve_format_tool_calls";
    let input = Input::new("calls_json", calls_json, calls_json_len);
    let out = Out::new(buf, buf_len, out_len);
    // SAFETY: NULL or valid, by this function's contract.
    let config = || unsafe { struct_config(config, WHAT) };
    let writer = configured(format_tool_calls_json);
    // SAFETY: the rest of this function's contract, forwarded.
    unsafe { write(WHAT, input, out, config, writer) }
}

/// Writes the prompt's tool-definition section as the family's chat template renders the
/// `tools` a host passes (hermes' `# Tools` … `<tools>` list, qwen3-coder's `<function>`
/// entries, harmony's `namespace functions`, …: the section only, which the host places
/// where the template does; `tokensieve::format::format_tool_definitions` says where), for
/// a host that builds the prompt itself. `tools_json` is the config's tool-list form, a JSON
/// array `[{"name": "get_weather", "description": "…", "schema": {"type": "object", …}}]`
/// (`description` and `schema` optional; `schema` an object or its JSON text, its keys and
/// numbers written as given; other keys are errors); `config_json` the JSON config of
/// `tokensieve_new_json` (its `dialect`, a name or a host-written description). An empty
/// array writes nothing. The buffer, `*out_len` and the statuses are those of
/// `tokensieve_format_tool_calls_json` (TOKENSIEVE_E_INPUT: `tools_json` is not such an
/// array, a schema is not a JSON object, or the dialect has no tool format, e.g.
/// `tools_json: [0]: no "name" string`).
///
/// ```c
/// char buf[1024]; size_t n;
/// const char *tools = "[{\"name\": \"get_weather\", \"schema\": {\"type\": \"object\"}}]";
/// int32_t rc = tokensieve_format_tool_definitions_json("{\"dialect\": \"hermes\"}", tools,
///                                                      strlen(tools), buf, sizeof buf, &n);
/// if (rc == TOKENSIEVE_OK) fwrite(buf, 1, n, stdout);
/// else if (rc == TOKENSIEVE_E_BUFFER) grow_to(n);   // the size needed: call again
/// ```
///
/// # Safety
/// `config_json` is NULL or NUL-terminated; `tools_json` is NULL or readable for
/// `tools_json_len` bytes; `buf` is NULL or writable for `buf_len` bytes; `out_len` is NULL
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_format_tool_definitions_json(
    config_json: *const c_char,
    tools_json: *const c_char,
    tools_json_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> i32 {
    const WHAT: &str = "tokensieve_format_tool_definitions_json";
    let input = Input::new("tools_json", tools_json, tools_json_len);
    let out = Out::new(buf, buf_len, out_len);
    // SAFETY: NULL or NUL-terminated, by this function's contract.
    let config = || unsafe { json_config(config_json, WHAT) };
    let writer = configured(format_tool_definitions_json);
    // SAFETY: the rest of this function's contract, forwarded.
    unsafe { write(WHAT, input, out, config, writer) }
}

/// `tokensieve_format_tool_definitions_json` with a struct config (a `TOKENSIEVE_DIALECT_*`
/// preset and its `tool_call_open`/`tool_call_close`, which the conventional section's
/// example call shows; the tools described are those of `tools_json`, not the config's).
///
/// # Safety
/// `config` is NULL or a valid config; the rest as `tokensieve_format_tool_definitions_json`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_format_tool_definitions(
    config: *const tokensieve_config,
    tools_json: *const c_char,
    tools_json_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> i32 {
    const WHAT: &str = "tokensieve_format_tool_definitions";
    let input = Input::new("tools_json", tools_json, tools_json_len);
    let out = Out::new(buf, buf_len, out_len);
    // SAFETY: NULL or valid, by this function's contract.
    let config = || unsafe { struct_config(config, WHAT) };
    let writer = configured(format_tool_definitions_json);
    // SAFETY: the rest of this function's contract, forwarded.
    unsafe { write(WHAT, input, out, config, writer) }
}

/// The dialect of a `TOKENSIEVE_DIALECT_*` code, or a config error naming the dialects.
fn dialect(code: u32, what: &str) -> Result<Dialect> {
    tokensieve_dialect::decode(code).ok_or_else(|| {
        Error::Config.report(format_args!(
            "{what}: dialect {code} is not a TOKENSIEVE_DIALECT_* value: {DialectNames}"
        ))
    })
}

/// Writes tool results as the family's chat template gives them back to the model:
/// `results_json` is a JSON array `[{"tool_use_id": "call_0", "name": "get_weather",
/// "content": "18°C", "is_error": false}]` (only `content` required), `dialect` a
/// `TOKENSIEVE_DIALECT_*` value. The buffer, `*out_len` and the statuses are those of
/// `tokensieve_format_tool_calls_json` (TOKENSIEVE_E_CONFIG for an unknown dialect).
///
/// # Safety
/// `results_json` is NULL or readable for `results_json_len` bytes; `buf` is NULL or
/// writable for `buf_len` bytes; `out_len` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_format_tool_results(
    dialect_code: u32,
    results_json: *const c_char,
    results_json_len: usize,
    buf: *mut c_char,
    buf_len: usize,
    out_len: *mut usize,
) -> i32 {
    const WHAT: &str = "tokensieve_format_tool_results";
    let input = Input::new("results_json", results_json, results_json_len);
    let out = Out::new(buf, buf_len, out_len);
    let dialect = || dialect(dialect_code, WHAT);
    // SAFETY: this function's contract, forwarded.
    unsafe { write(WHAT, input, out, dialect, format_tool_results_json) }
}

/// The stop sequences a host sets when it runs a model of `dialect` (a
/// `TOKENSIEVE_DIALECT_*` value) in completions mode: up to `cap` of them are written to
/// `out` as slices of static strings (valid for the life of the process, not
/// NUL-terminated), their number to `*count` (0 for dialects with none known). Returns
/// TOKENSIEVE_OK; TOKENSIEVE_E_BUFFER when `cap` is smaller than `*count` (nothing written:
/// call again with `cap >= *count`; 8 is always enough today); TOKENSIEVE_E_CONFIG for an
/// unknown dialect; TOKENSIEVE_E_NULL (`count` NULL, or `out` NULL with `cap > 0`).
///
/// ```c
/// tokensieve_str stops[8]; size_t n;
/// if (tokensieve_stop_sequences(TOKENSIEVE_DIALECT_HARMONY, stops, 8, &n) == TOKENSIEVE_OK)
///     for (size_t i = 0; i < n; i++) printf("%.*s\n", (int)stops[i].len, stops[i].ptr);
/// ```
///
/// For anthropic-xml prefill, add `"\n" NAME ":"` for each of the host's other participants.
///
/// # Safety
/// `out` is NULL or writable for `cap` slices; `count` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_stop_sequences(
    dialect_code: u32,
    out: *mut tokensieve_str,
    cap: usize,
    count: *mut usize,
) -> i32 {
    const WHAT: &str = "tokensieve_stop_sequences";
    guard(WHAT, Error::Panic.code(), || {
        status((|| {
            if count.is_null() {
                return Err(Error::Null.report(format_args!("{WHAT}: count is NULL")));
            }
            if out.is_null() && cap > 0 {
                return Err(
                    Error::Null.report(format_args!("{WHAT}: out is NULL but cap is {cap}"))
                );
            }
            let stops = stop_sequences_for(dialect(dialect_code, WHAT)?);
            // SAFETY: non-NULL and writable by the contract.
            unsafe { count.write(stops.len()) };
            if stops.len() > cap {
                return Err(Error::Buffer.report(format_args!(
                    "{WHAT}: room for {cap} stop sequences, the dialect has {} (in *count)",
                    stops.len()
                )));
            }
            for (i, s) in stops.iter().enumerate() {
                // SAFETY: `i < stops.len() <= cap` slices are writable at `out`.
                unsafe {
                    out.add(i).write(tokensieve_str {
                        ptr: s.as_ptr().cast(),
                        len: s.len(),
                    })
                };
            }
            Ok(OK)
        })())
    })
}

/// The `TOKENSIEVE_DIALECT_*` value of a dialect name (`"hermes"`, `"anthropic-xml"`, an
/// alias such as `"glm-4.7"`), or TOKENSIEVE_E_CONFIG with a message naming the dialects
/// (TOKENSIEVE_E_NULL for NULL). For hosts that hold names (the JSON config's spelling).
///
/// # Safety
/// `name` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tokensieve_dialect_from_name(name: *const c_char) -> i32 {
    const WHAT: &str = "tokensieve_dialect_from_name";
    guard(WHAT, Error::Panic.code(), || {
        status((|| {
            // SAFETY: NULL or NUL-terminated by the contract.
            let n = unsafe { crate::config::cstr(name, "name") }?
                .ok_or_else(|| Error::Null.report(format_args!("{WHAT}: name is NULL")))?;
            Dialect::from_name(n)
                .map(|d| tokensieve_dialect::code(d) as i32)
                .ok_or_else(|| {
                    Error::Config.report(format_args!(
                        "{WHAT}: unknown dialect {n:?}: one of {DialectNames}"
                    ))
                })
        })())
    })
}
