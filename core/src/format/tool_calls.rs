//! Writing the assistant's past tool calls in a dialect's wire format, and the stop sequences
//! a host sets for a dialect.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::config::{Config, ValueType};
use crate::json::strict::{self, Kind};
use crate::spec::{Description, Dialect, Shape};

/// One tool call to write, as the host stored it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolCallIn<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// The call id, when the host has one (written only where the format carries ids).
    pub id: Option<&'a str>,
    /// The arguments: JSON text of an object. Numbers are written as spelled here.
    pub arguments: &'a str,
}

/// What was wrong with a call [`format_tool_calls`] was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatErrorKind {
    /// The arguments are not valid JSON: where (a byte offset into them) and why.
    InvalidJson {
        /// Byte offset into the arguments.
        offset: usize,
        /// Why.
        reason: &'static str,
    },
    /// The arguments are valid JSON but not an object.
    NotAnObject,
    /// The name cannot be carried by the format (why).
    BadName(&'static str),
    /// A top-level argument key cannot be carried by the format (the key, why).
    BadKey(String, &'static str),
    /// The dialect writes no tool calls (passthrough).
    NoToolCalls,
}

/// Why [`format_tool_calls`] could not write the calls: the index of the call and what was
/// wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// Index of the offending call in the slice given.
    pub call: usize,
    /// What was wrong.
    pub kind: FormatErrorKind,
}

impl fmt::Display for FormatError {
    /// ```
    /// use tokensieve::{Config, Dialect};
    /// use tokensieve::format::{format_tool_calls, ToolCallIn};
    /// let err = format_tool_calls(&Config::new(Dialect::Hermes),
    ///     &[ToolCallIn { name: "f", id: None, arguments: "[1]" }]).unwrap_err();
    /// assert_eq!(err.to_string(), "call 0: arguments are not a JSON object");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "call {}: ", self.call)?;
        match &self.kind {
            FormatErrorKind::InvalidJson { offset, reason } => {
                write!(f, "arguments are not JSON: {reason} at byte {offset}")
            }
            FormatErrorKind::NotAnObject => f.write_str("arguments are not a JSON object"),
            FormatErrorKind::BadName(why) => write!(f, "the name cannot be written: {why}"),
            FormatErrorKind::BadKey(k, why) => {
                write!(f, "argument key {k:?} cannot be written: {why}")
            }
            FormatErrorKind::NoToolCalls => f.write_str("the dialect writes no tool calls"),
        }
    }
}

impl core::error::Error for FormatError {}

// --- a JSON tree that keeps numbers as written ---------------------------------------------

#[derive(Clone, Debug)]
enum J<'a> {
    Null,
    Bool(bool),
    Num(&'a str),
    Str(String),
    Arr(Vec<J<'a>>),
    Obj(Vec<(String, J<'a>)>),
}

/// Reads JSON text already checked by [`strict::validate`].
struct Reader<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Reader<'a> {
    fn ws(&mut self) {
        let b = self.s.as_bytes();
        while self.i < b.len() && matches!(b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self) -> J<'a> {
        self.ws();
        let b = self.s.as_bytes();
        match b[self.i] {
            b'n' => {
                self.i += 4;
                J::Null
            }
            b't' => {
                self.i += 4;
                J::Bool(true)
            }
            b'f' => {
                self.i += 5;
                J::Bool(false)
            }
            b'"' => J::Str(self.string()),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if b[self.i] == b']' {
                    self.i += 1;
                    return J::Arr(items);
                }
                loop {
                    items.push(self.value());
                    self.ws();
                    self.i += 1;
                    if b[self.i - 1] == b']' {
                        return J::Arr(items);
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if b[self.i] == b'}' {
                    self.i += 1;
                    return J::Obj(members);
                }
                loop {
                    self.ws();
                    let k = self.string();
                    self.ws();
                    self.i += 1; // ':'
                    let v = self.value();
                    members.push((k, v));
                    self.ws();
                    self.i += 1;
                    if b[self.i - 1] == b'}' {
                        return J::Obj(members);
                    }
                }
            }
            _ => {
                let start = self.i;
                while self.i < b.len()
                    && matches!(b[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.i += 1;
                }
                J::Num(&self.s[start..self.i])
            }
        }
    }

    fn hex4(&mut self) -> u32 {
        let v = u32::from_str_radix(&self.s[self.i..self.i + 4], 16).unwrap_or(0xFFFD);
        self.i += 4;
        v
    }

    fn string(&mut self) -> String {
        let b = self.s.as_bytes();
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while b[self.i] != b'"' && b[self.i] != b'\\' {
                self.i += 1;
            }
            out.push_str(&self.s[start..self.i]);
            if b[self.i] == b'"' {
                self.i += 1;
                return out;
            }
            self.i += 2;
            match b[self.i - 1] {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'u' => {
                    let mut c = self.hex4();
                    if (0xD800..0xDC00).contains(&c) {
                        self.i += 2; // `\u`
                        let lo = self.hex4();
                        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                other => out.push(other as char),
            }
        }
    }
}

fn read_arguments(call: usize, args: &str) -> Result<Vec<(String, J<'_>)>, FormatError> {
    match strict::validate(args.as_bytes()) {
        Ok(Kind::Object) => {}
        Ok(_) => {
            return Err(FormatError {
                call,
                kind: FormatErrorKind::NotAnObject,
            });
        }
        Err(e) => {
            return Err(FormatError {
                call,
                kind: FormatErrorKind::InvalidJson {
                    offset: e.offset,
                    reason: e.reason,
                },
            });
        }
    }
    match (Reader { s: args, i: 0 }).value() {
        J::Obj(m) => Ok(m),
        _ => Err(FormatError {
            call,
            kind: FormatErrorKind::NotAnObject,
        }),
    }
}

// --- writing values ------------------------------------------------------------------------

/// How JSON is spelled: separators, and the markers a string must not spell (the first
/// character of each occurrence is written as a `\u` escape: the same value, no marker).
#[derive(Clone, Copy)]
struct JsonStyle<'m> {
    /// `", "` and `": "` (what `json.dumps` and Jinja's `tojson` write) rather than compact.
    spaced: bool,
    markers: &'m [&'m str],
}

fn push_json_str(out: &mut String, s: &str, markers: &[&str]) {
    out.push('"');
    for (i, c) in s.char_indices() {
        let marked = markers.iter().any(|m| s[i..].starts_with(m));
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (marked && (c as u32) < 0x10000) => {
                let _ = fmt::Write::write_fmt(out, format_args!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_json(out: &mut String, v: &J<'_>, st: JsonStyle<'_>) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => push_json_str(out, s, st.markers),
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(if st.spaced { ", " } else { "," });
                }
                push_json(out, x, st);
            }
            out.push(']');
        }
        J::Obj(members) => push_json_obj(out, members, st),
    }
}

fn push_json_obj(out: &mut String, members: &[(String, J<'_>)], st: JsonStyle<'_>) {
    out.push('{');
    for (i, (k, x)) in members.iter().enumerate() {
        if i > 0 {
            out.push_str(if st.spaced { ", " } else { "," });
        }
        push_json_str(out, k, st.markers);
        out.push_str(if st.spaced { ": " } else { ":" });
        push_json(out, x, st);
    }
    out.push('}');
}

/// A Python literal (pythonic calls): `True`/`False`/`None`, `"…"` strings with Python
/// escapes, numbers as written; `markers` as in [`push_json_str`] (escaped `\xNN`/`\uNNNN`).
fn push_python(out: &mut String, v: &J<'_>, markers: &[&str]) {
    match v {
        J::Null => out.push_str("None"),
        J::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        J::Num(n) => out.push_str(n),
        J::Str(s) => push_python_str(out, s, markers),
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_python(out, x, markers);
            }
            out.push(']');
        }
        J::Obj(members) => {
            out.push('{');
            for (i, (k, x)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_python_str(out, k, markers);
                out.push_str(": ");
                push_python(out, x, markers);
            }
            out.push('}');
        }
    }
}

fn push_python_str(out: &mut String, s: &str, markers: &[&str]) {
    out.push('"');
    for (i, c) in s.char_indices() {
        let marked = markers.iter().any(|m| s[i..].starts_with(m));
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (marked && (c as u32) < 0x100) => {
                let _ = fmt::Write::write_fmt(out, format_args!("\\x{:02x}", c as u32));
            }
            c if marked && (c as u32) < 0x10000 => {
                let _ = fmt::Write::write_fmt(out, format_args!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Gemma's object syntax: bare keys (delimited when not an identifier), strings between
/// `quote` tokens, raw; other values as JSON literals.
fn push_gemma(out: &mut String, v: &J<'_>, quote: &str, markers: &[&str]) {
    match v {
        J::Str(s) => {
            out.push_str(quote);
            push_unmarked(out, s, markers);
            out.push_str(quote);
        }
        J::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_gemma(out, x, quote, markers);
            }
            out.push(']');
        }
        J::Obj(members) => push_gemma_obj(out, members, quote, markers),
        other => push_json(
            out,
            other,
            JsonStyle {
                spaced: false,
                markers: &[],
            },
        ),
    }
}

fn push_gemma_obj(out: &mut String, members: &[(String, J<'_>)], quote: &str, markers: &[&str]) {
    out.push('{');
    for (i, (k, x)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if is_identifier(k) && !matches!(k.as_str(), "true" | "false" | "null") {
            out.push_str(k);
        } else {
            out.push_str(quote);
            push_unmarked(out, k, markers);
            out.push_str(quote);
        }
        out.push(':');
        push_gemma(out, x, quote, markers);
    }
    out.push('}');
}

/// Writes `text` with a U+2060 WORD JOINER after the first character of every occurrence of
/// one of `markers` (as `format_tool_results` does).
fn push_unmarked(out: &mut String, text: &str, markers: &[&str]) {
    let mut rest = text;
    while let Some(at) = markers.iter().filter_map(|m| rest.find(m)).min() {
        let first = rest[at..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&rest[..at + first]);
        out.push('\u{2060}');
        rest = &rest[at + first..];
    }
    out.push_str(rest);
}

fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How a value in an XML-ish parameter element is written.
#[derive(Clone, Copy)]
struct XmlValue<'m> {
    /// A line feed after the opener and before the closer always (qwen3-coder's template);
    /// otherwise only around a string that starts or ends with one (the parser drops one at
    /// each end of a string value).
    framing: bool,
    /// Sequences that would end the value early.
    closers: &'m [&'m str],
    /// A string that cannot be written raw goes in CDATA sections (anthropic-xml: a value
    /// that is only CDATA is its payload, verbatim; `]]>` splits two sections).
    cdata: bool,
    /// Entity-escape `&`, `<`, `>` (morph-xml decodes the five named entities; its string
    /// values keep every line feed).
    entities: bool,
}

/// Whether the untyped guess reads `s`, written raw, back as the string `s`.
fn guessed_as_string(s: &str) -> bool {
    let t = s.trim_matches([' ', '\t', '\n', '\r']);
    t.len() == s.len()
        && (strict::validate(t.as_bytes()).is_err()
            || (t.len() >= 16 && t.bytes().all(|b| b.is_ascii_digit())))
}

fn push_entities(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// Writes a parameter value: a string raw when the parser reads it back as that string
/// (schema `string`, or the untyped guess), else as JSON.
fn push_xml_value(out: &mut String, v: &J<'_>, ty: ValueType, x: XmlValue<'_>) {
    let json = |out: &mut String, v: &J<'_>| {
        let mut s = String::new();
        push_json(
            &mut s,
            v,
            JsonStyle {
                spaced: true,
                markers: &["<"],
            },
        );
        if x.entities {
            push_entities(out, &s);
        } else {
            out.push_str(&s);
        }
    };
    if let (true, J::Str(s)) = (x.cdata, v) {
        let raw = match ty {
            ValueType::String => true,
            ValueType::Any => guessed_as_string(s),
            _ => false,
        };
        if !raw || x.closers.iter().any(|c| s.contains(c)) {
            out.push_str("<![CDATA[");
            out.push_str(&s.replace("]]>", "]]]]><![CDATA[>"));
            out.push_str("]]>");
            return;
        }
    }
    let (open_nl, close_nl) = match v {
        J::Str(_) if x.entities => ("", ""),
        J::Str(s) if x.framing || s.starts_with('\n') || s.ends_with('\n') => ("\n", "\n"),
        _ if x.framing => ("\n", "\n"),
        _ => ("", ""),
    };
    out.push_str(open_nl);
    match v {
        J::Str(s) if ty == ValueType::String => {
            if x.entities {
                push_entities(out, s);
            } else {
                push_unmarked(out, s, x.closers);
            }
        }
        J::Str(s)
            if ty == ValueType::Any
                && guessed_as_string(s)
                && (x.entities || !x.closers.iter().any(|c| s.contains(c))) =>
        {
            if x.entities {
                push_entities(out, s);
            } else {
                out.push_str(s);
            }
        }
        other => json(out, other),
    }
    out.push_str(close_nl);
}

// --- checks ----------------------------------------------------------------------------------

/// Checks a name or key: not empty, at most 127 bytes, no control characters, none of the
/// characters `bad` rejects.
fn check(s: &str, bad: impl Fn(char) -> bool) -> Result<(), &'static str> {
    if s.is_empty() {
        return Err("empty");
    }
    if s.len() > 127 {
        return Err("longer than 127 bytes");
    }
    if s.chars().any(|c| c.is_control()) {
        return Err("holds a control character");
    }
    if s.chars().any(bad) {
        return Err("holds a character the format cannot carry there");
    }
    Ok(())
}

fn xml_attr_bad(c: char) -> bool {
    matches!(c, '"' | '<' | '>' | '&')
}

fn ws_or(c: char, chars: &str) -> bool {
    c.is_whitespace() || chars.contains(c)
}

fn pythonic_name(s: &str) -> Result<(), &'static str> {
    check(s, |_| false)?;
    let mut cs = s.chars();
    let first_ok = matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_');
    if first_ok && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')) {
        Ok(())
    } else {
        Err("not a Python-style name (a letter or `_`, then letters, digits, `_`, `.`, `-`)")
    }
}

fn xml_element_name(s: &str) -> Result<(), &'static str> {
    check(s, |_| false)?;
    let mut cs = s.chars();
    let first_ok = matches!(cs.next(), Some(c) if c.is_alphabetic() || c == '_');
    if first_ok && cs.all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-')) {
        Ok(())
    } else {
        Err("not an XML element name")
    }
}

// --- the formats -------------------------------------------------------------------------------

/// Markers of the special-token formats that a JSON string must not spell.
const HARMONY_MARKERS: &[&str] = &["<|"];
const KIMI_MARKERS: &[&str] = &["<|"];
const DEEPSEEK_MARKERS: &[&str] = &["<｜"];
const MISTRAL_MARKERS: &[&str] = &["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[/", "[INST]"];
const LLAMA3_MARKERS: &[&str] = &["<|"];

/// Writes the assistant's tool calls as the model writes them (what the family's chat
/// template renders for an assistant message with `tool_calls`), so a host that builds the
/// prompt itself replays a conversation in the form the model was trained on — and that the
/// parser reads back as the same calls.
///
/// The configuration gives the format: its description when the host wrote one (the shapes
/// json-call, xml-params, invoke and pythonic are written from the description's markers),
/// else the preset; and its `tools`, whose parameter types decide how the XML-parameter
/// formats write values (as the parser types them).
///
/// | dialect | the calls |
/// | --- | --- |
/// | anthropic-xml | `<function_calls>\n<invoke name="N">\n<parameter name="K">V</parameter>\n…</invoke>\n</function_calls>` |
/// | minimax-m2 | the same in `<minimax:tool_call>` (its template's layout) |
/// | deepseek-v3.2, deepseek-v4 | DSML: `<｜DSML｜function_calls>` / `<｜DSML｜tool_calls>`, `<｜DSML｜parameter name="K" string="true">` for a string written raw, `string="false"` and JSON otherwise |
/// | qwen3-coder | `<tool_call>\n<function=N>\n<parameter=K>\nV\n</parameter>\n</function>\n</tool_call>` per call, a line between calls |
/// | seed-oss | the same in `<seed:tool_call>`, values without the framing line feeds |
/// | glm-4.5 | `<tool_call>N\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n</tool_call>` per call, a line between |
/// | morph-xml | `<N><K>V</K></N>` (entities escaped); the tool must be configured |
/// | hermes | `<tool_call>\n{"name": "N", "arguments": {…}}\n</tool_call>` per call, a line between |
/// | cohere-command | `<\|START_ACTION\|>[\n    {"tool_call_id": "0", "tool_name": "N", "parameters": {…}}\n]<\|END_ACTION\|>` |
/// | granite | `<\|tool_call\|>[{"name": "N", "arguments": {…}}]` |
/// | phi-4-mini | `functools[{"name": "N", "arguments": {…}}]` |
/// | apertus | `<\|tools_prefix\|>[{"N": {…}}]<\|tools_suffix\|>` |
/// | xlam | `[{"name": "N", "arguments": {…}}]` |
/// | minicpm5 | `<function name="N">` holding `<param name="K">V</param>`, calls a line apart, no region (strings holding a closer in CDATA) |
/// | hunyuan | `<tool_calls>` then per call `<tool_call>N<tool_sep>` and `<arg_key>K</arg_key>\n<arg_value>V</arg_value>` lines, `</tool_call>`, then `</tool_calls>` |
/// | step-3 | `<｜tool_calls_begin｜>` then per call `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="N">…</steptml:invoke><｜tool_call_end｜>`, then `<｜tool_calls_end｜>` |
/// | harmony | `<\|start\|>assistant to=functions.N<\|channel\|>commentary json<\|message\|>{…}<\|call\|>` per call |
/// | kimi-k2 | `<\|tool_calls_section_begin\|><\|tool_call_begin\|>functions.N:I<\|tool_call_argument_begin\|>{…}<\|tool_call_end\|>…<\|tool_calls_section_end\|>` |
/// | deepseek-v3.1 | `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>N<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>` |
/// | deepseek-v3 | `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>N\n```json\n{…}\n```<｜tool▁call▁end｜>` (a line between calls) `<｜tool▁calls▁end｜>` |
/// | mistral | `[TOOL_CALLS]N[CALL_ID]ID[ARGS]{…}` per call (`[CALL_ID]ID` only with an id) |
/// | llama3-json | `{"name": "N", "parameters": {…}}`, several joined by `; ` |
/// | pythonic | `[N(k="v", n=1, ok=True, x=None)]` |
/// | lfm2 | the list in `<\|tool_call_start\|>…<\|tool_call_end\|>` |
/// | olmo-3 | `<function_calls>\nN(k="v")\n…\n</function_calls>` |
/// | gemma-4 | `<\|tool_call>call:N{k:<\|"\|>v<\|"\|>,n:1}<tool_call\|>` per call |
/// | functiongemma | `<start_function_call>call:N{k:<escape>v<escape>}<end_function_call>` per call |
/// | passthrough | no calls: an error (an empty list writes nothing) |
///
/// JSON is written as Jinja's `tojson` does (`", "`, `": "`), numbers as given. Ids are
/// written only where the format carries them: mistral (`[CALL_ID]`), kimi-k2 (the header:
/// an id that names the tool, `functions.N:I`, is kept, any other is replaced by
/// `functions.N:I` with `I` the call's index), cohere-command (`tool_call_id`, ignored by the
/// parser).
///
/// XML-parameter formats (anthropic-xml, qwen3-coder, seed-oss, glm-4.5, minimax-m2,
/// morph-xml, DSML) write a string value raw when the parser reads it back as that string —
/// the tool's schema declares it `string`, or the untyped guess keeps it a string — and every
/// other value as JSON; a string with a line feed at either end gets one more at each end
/// (one framing line feed is dropped there). Without a schema a value is guessed back: a
/// string that would be read as something else (`"42"`, `"true"`, `" padded "`) is written
/// as a JSON string; an integer of 16 or more digits is read back as a string (declare it
/// `integer` or `number`).
///
/// Guards: content cannot end a call early. In JSON (and Python) strings the first character
/// of any of the format's markers is written as an escape (`\u003c|call|>`): the same value.
/// A JSON value inside an XML parameter writes every `<` in its strings as `\u003c`.
/// anthropic-xml writes a string that cannot stand raw in CDATA (`]]>` split across two
/// sections): exact. A raw string value that holds its element's closer (`</parameter>`,
/// `</arg_value>`, for xml-params also `</function>` and the wrapper's closer) cannot be
/// written exactly in the other XML formats where the schema types it `string` (no escaping
/// is decoded there): a U+2060 WORD JOINER is written after its `<` — untyped, it is written
/// as a JSON string instead (exact), and DSML writes it `string="false"` (exact); morph-xml
/// escapes entities (exact).
/// Gemma's strings have no escapes either: a string delimiter or call closer inside one
/// gets the U+2060 after its first character.
///
/// ```
/// use tokensieve::{Config, Dialect};
/// use tokensieve::format::{format_tool_calls, parse_tool_calls, ToolCallIn};
/// let calls = [ToolCallIn { name: "get_weather", id: None, arguments: r#"{"city": "Paris", "days": 3}"# }];
/// let text = format_tool_calls(&Config::new(Dialect::Hermes), &calls).unwrap();
/// assert_eq!(text, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>");
/// let back = parse_tool_calls(&Config::new(Dialect::Hermes), text.as_bytes()).unwrap();
/// assert_eq!(back[0].input, r#"{"city":"Paris","days":3}"#);
///
/// let qwen = format_tool_calls(&Config::new(Dialect::Qwen3Coder), &calls).unwrap();
/// assert_eq!(qwen, "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n\
///                   <parameter=days>\n3\n</parameter>\n</function>\n</tool_call>");
///
/// let py = format_tool_calls(&Config::new(Dialect::Pythonic),
///     &[ToolCallIn { name: "f", id: None, arguments: r#"{"ok": true, "x": null}"# }]).unwrap();
/// assert_eq!(py, "[f(ok=True, x=None)]");
/// ```
pub fn format_tool_calls(
    config: &Config<'_>,
    calls: &[ToolCallIn<'_>],
) -> Result<String, FormatError> {
    let mut parsed = Vec::with_capacity(calls.len());
    for (i, c) in calls.iter().enumerate() {
        parsed.push(read_arguments(i, c.arguments)?);
    }
    let mut w = Writer {
        config,
        out: String::new(),
    };
    if calls.is_empty() {
        return Ok(String::new());
    }
    let (description, preset) = match config.description {
        Some(d) => (Some(d), None),
        None => (Description::preset(config.dialect), Some(config.dialect)),
    };
    match description {
        Some(mut d) => {
            // The `tool_call_markers` override replaces the wrapper, as the parser reads it.
            if let Some(m) = config.tool_call_markers
                && matches!(d.shape, Shape::JsonCall | Shape::XmlParams)
            {
                d.wrapper = m;
            }
            w.shape(&d, preset, calls, &parsed)?
        }
        None => w.machine(config.dialect, calls, &parsed)?,
    }
    Ok(w.out)
}

type Args<'a> = Vec<(String, J<'a>)>;

struct Writer<'c, 'a> {
    config: &'c Config<'a>,
    out: String,
}

fn name_err(call: usize, why: &'static str) -> FormatError {
    FormatError {
        call,
        kind: FormatErrorKind::BadName(why),
    }
}

fn key_err(call: usize, key: &str, why: &'static str) -> FormatError {
    FormatError {
        call,
        kind: FormatErrorKind::BadKey(key.to_string(), why),
    }
}

impl Writer<'_, '_> {
    /// The declared type of parameter `key` of tool `name`.
    fn param_type(&self, name: &str, key: &str) -> ValueType {
        self.config
            .tools
            .find(name.as_bytes())
            .and_then(|t| self.config.tools.param_type(t, key.as_bytes()))
            .map_or(ValueType::Any, |(t, _)| t)
    }

    fn shape(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        match d.shape {
            Shape::JsonCall => self.json_call(d, preset, calls, args),
            Shape::XmlParams => self.xml_params(d, preset, calls, args),
            Shape::Invoke => self.invoke(d, calls, args),
            Shape::Pythonic => self.pythonic(d, preset, calls, args),
            // The presets with a writer of their own keep their template's layout.
            Shape::KeyValue | Shape::Sectioned
                if matches!(
                    preset,
                    Some(
                        Dialect::Glm45
                            | Dialect::KimiK2
                            | Dialect::DeepSeekV3
                            | Dialect::DeepSeekV31
                    )
                ) =>
            {
                self.machine(preset.unwrap_or(Dialect::Glm45), calls, args)
            }
            Shape::KeyValue => self.key_value(d, calls, args),
            Shape::Sectioned => self.sectioned(d, calls, args),
        }
    }

    /// The key-value shape from its description: the call element holding the name (then
    /// the separator element, if any) and `<key>K</key><value>V</value>` pairs, a line
    /// apart; the calls inside the markup pair when there is one (Hunyuan's
    /// `<tool_calls>`).
    fn key_value(
        &mut self,
        d: &Description<'_>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let key = d.elements.get(0).unwrap_or("arg_key");
        let value = d.elements.get(1).unwrap_or("arg_value");
        let sep = d.elements.get(2);
        let closer = alloc::format!("</{value}");
        let closers = [closer.as_str()];
        let x = XmlValue {
            framing: false,
            closers: &closers,
            cdata: false,
            entities: false,
        };
        let out = &mut self.out;
        if let Some((open, _)) = d.markup {
            out.push_str(open);
        }
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |ch| ws_or(ch, "<>")).map_err(|e| name_err(i, e))?;
            if i > 0 {
                out.push('\n');
            }
            out.push_str(d.wrapper.0);
            out.push_str(c.name);
            if let Some(sep) = sep {
                out.push('<');
                out.push_str(sep);
                out.push('>');
            }
            out.push('\n');
            for (k, v) in &args[i] {
                check(k, |ch| ch == '<')
                    .and_then(|()| trimmed(k))
                    .map_err(|e| key_err(i, k, e))?;
                let ty = self
                    .config
                    .tools
                    .find(c.name.as_bytes())
                    .and_then(|t| self.config.tools.param_type(t, k.as_bytes()))
                    .map_or(ValueType::Any, |(t, _)| t);
                let _ = fmt::Write::write_fmt(out, format_args!("<{key}>{k}</{key}>\n<{value}>"));
                push_xml_value(out, v, ty, x);
                let _ = fmt::Write::write_fmt(out, format_args!("</{value}>\n"));
            }
            out.push_str(d.wrapper.1);
        }
        if let Some((_, close)) = d.markup {
            out.push_str(close);
        }
        Ok(())
    }

    /// The sectioned shape from its description: the section's markers around the calls,
    /// each `call_markers` around its header (a `function` type first when the header has
    /// two parts; Kimi's `functions.NAME:I` id with `wire_id`) and its JSON body (in the
    /// fence, if any).
    fn sectioned(
        &mut self,
        d: &Description<'_>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let markers: Vec<&str> = [d.wrapper.0, d.call_markers.0, d.call_markers.1]
            .into_iter()
            .filter(|m| !m.is_empty())
            .collect();
        let out = &mut self.out;
        out.push_str(d.wrapper.0);
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |ch| ch == '\n' || ch == '\r')
                .and_then(|()| trimmed(c.name))
                .map_err(|e| name_err(i, e))?;
            if markers.iter().any(|m| c.name.contains(m)) {
                return Err(name_err(i, "holds a marker"));
            }
            out.push_str(d.call_markers.0);
            let ends: Vec<&str> = d.header_ends.iter().collect();
            if let [first, _] = ends[..] {
                out.push_str("function");
                out.push_str(first);
            }
            if d.wire_id {
                let _ = fmt::Write::write_fmt(out, format_args!("functions.{}:{i}", c.name));
            } else {
                out.push_str(c.name);
            }
            if let Some(last) = ends.last() {
                out.push_str(last);
            }
            if let Some((open, _)) = d.fence {
                out.push_str(open);
                out.push('\n');
            }
            push_json_obj(
                out,
                &args[i],
                JsonStyle {
                    spaced: true,
                    markers: &markers,
                },
            );
            if let Some((_, close)) = d.fence {
                out.push('\n');
                out.push_str(close);
            }
            out.push_str(d.call_markers.1);
        }
        out.push_str(d.wrapper.1);
        Ok(())
    }

    fn json_call(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let (open, close) = d.wrapper;
        let mut markers: Vec<&str> = Vec::new();
        for m in [open, close] {
            if !m.is_empty() {
                markers.push(m);
            }
        }
        if let Some((a, b)) = d.result_wrapper {
            markers.push(a);
            markers.push(b);
        }
        if let Some((a, b)) = d.markup {
            markers.push(a);
            markers.push(b);
        }
        markers.extend(d.more_markup.iter());
        markers.retain(|m| !m.is_empty());
        let st = JsonStyle {
            spaced: true,
            markers: &markers,
        };
        let name_key = d.name_keys.get(0).unwrap_or("name");
        let args_key = d.argument_keys.get(0).unwrap_or("arguments");
        let cohere = preset == Some(Dialect::CohereCommand);
        let write_call = |out: &mut String, i: usize, c: &ToolCallIn<'_>| {
            if d.name_as_key {
                out.push('{');
                push_json_str(out, c.name, st.markers);
                out.push_str(": ");
                push_json_obj(out, &args[i], st);
                out.push('}');
                return;
            }
            out.push('{');
            if cohere {
                out.push_str("\"tool_call_id\": ");
                let idx = i.to_string();
                push_json_str(out, c.id.unwrap_or(&idx), st.markers);
                out.push_str(", ");
            }
            push_json_str(out, name_key, &[]);
            out.push_str(": ");
            push_json_str(out, c.name, st.markers);
            out.push_str(", ");
            push_json_str(out, args_key, &[]);
            out.push_str(": ");
            push_json_obj(out, &args[i], st);
            out.push('}');
        };
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |_| false).map_err(|e| name_err(i, e))?;
        }
        let out = &mut self.out;
        let one_per_wrapper = !close.is_empty() && !d.bare_array && !d.name_as_key && !cohere;
        if one_per_wrapper {
            // hermes: one call per wrapper, a line between (Qwen's and Hermes' templates).
            for (i, c) in calls.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(open);
                out.push('\n');
                write_call(out, i, c);
                out.push('\n');
                out.push_str(close);
            }
            return Ok(());
        }
        // A list of calls: in the wrapper (cohere, apertus, granite, phi), or bare (xlam).
        if !d.bare_array {
            out.push_str(open);
        }
        out.push('[');
        for (i, c) in calls.iter().enumerate() {
            if cohere {
                out.push_str(if i > 0 { ",\n    " } else { "\n    " });
            } else if i > 0 {
                out.push_str(", ");
            }
            write_call(out, i, c);
        }
        if cohere {
            out.push('\n');
        }
        out.push(']');
        if !d.bare_array {
            out.push_str(close);
        }
        Ok(())
    }

    fn xml_params(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let seed = preset == Some(Dialect::SeedOss);
        // `</parameter` ends a value; `</function` and the wrapper's closer are kept out of
        // raw values too (a value cut off before `</parameter>` ends there).
        let closers = ["</parameter", "</function", d.wrapper.1];
        let x = XmlValue {
            framing: !seed,
            closers: &closers,
            cdata: false,
            entities: false,
        };
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |ch| ch == '<' || ch == '>')
                .and_then(|()| trimmed(c.name))
                .map_err(|e| name_err(i, e))?;
            if i > 0 {
                self.out.push('\n');
            }
            self.out.push_str(d.wrapper.0);
            self.out.push_str("\n<function=");
            self.out.push_str(c.name);
            self.out.push_str(">\n");
            for (k, v) in &args[i] {
                check(k, |ch| ch == '<' || ch == '>')
                    .and_then(|()| trimmed(k))
                    .map_err(|e| key_err(i, k, e))?;
                self.out.push_str("<parameter=");
                self.out.push_str(k);
                self.out.push('>');
                let ty = self.param_type(c.name, k);
                push_xml_value(&mut self.out, v, ty, x);
                self.out.push_str("</parameter>\n");
            }
            self.out.push_str("</function>\n");
            self.out.push_str(d.wrapper.1);
        }
        Ok(())
    }

    fn invoke(
        &mut self,
        d: &Description<'_>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let prefix = d.tag_prefixes.get(0).unwrap_or("");
        let region = d.elements.get(0).unwrap_or("minimax:tool_call");
        let call_el = d.elements.get(1).unwrap_or("invoke");
        let param_el = d.elements.get(2).unwrap_or("parameter");
        let mut closers: Vec<String> = Vec::new();
        for p in d.tag_prefixes.iter().chain(core::iter::once("")) {
            closers.push(alloc::format!("</{p}{param_el}"));
        }
        if d.cdata {
            // A string that spells a CDATA opener goes in CDATA itself (there it is data).
            closers.push("<![CDATA[".into());
        }
        let closers: Vec<&str> = closers.iter().map(String::as_str).collect();
        let x = XmlValue {
            framing: false,
            closers: &closers,
            cdata: d.cdata,
            entities: false,
        };
        // The region: an element, or (unnamed) the wrapper's markers with the markup pair
        // around each call (Step-3), or nothing (MiniCPM5: the calls stand in text).
        let markers = region.is_empty() && !d.wrapper.0.is_empty();
        let out = &mut self.out;
        if !region.is_empty() {
            out.push('<');
            out.push_str(prefix);
            out.push_str(region);
            out.push_str(">\n");
        } else if markers {
            out.push_str(d.wrapper.0);
        }
        for (i, c) in calls.iter().enumerate() {
            check(c.name, xml_attr_bad).map_err(|e| name_err(i, e))?;
            if region.is_empty() && !markers && i > 0 {
                out.push('\n');
            }
            if let (true, Some((open, _))) = (markers, d.markup) {
                out.push_str(open);
            }
            out.push('<');
            out.push_str(prefix);
            out.push_str(call_el);
            out.push_str(" name=\"");
            out.push_str(c.name);
            out.push_str("\">\n");
            for (k, v) in &args[i] {
                check(k, xml_attr_bad).map_err(|e| key_err(i, k, e))?;
                out.push('<');
                out.push_str(prefix);
                out.push_str(param_el);
                out.push_str(" name=\"");
                out.push_str(k);
                out.push('"');
                let ty = self
                    .config
                    .tools
                    .find(c.name.as_bytes())
                    .and_then(|t| self.config.tools.param_type(t, k.as_bytes()))
                    .map_or(ValueType::Any, |(t, _)| t);
                match d.string_attribute {
                    Some(attr) => {
                        // DSML: `string="true"` is a string as written, `"false"` JSON.
                        let raw = matches!(v, J::Str(s) if !closers.iter().any(|c| s.contains(c)));
                        out.push(' ');
                        out.push_str(attr);
                        out.push_str(if raw { "=\"true\">" } else { "=\"false\">" });
                        let ty = if raw {
                            ValueType::String
                        } else {
                            ValueType::Object
                        };
                        push_xml_value(out, v, ty, x);
                    }
                    None => {
                        out.push('>');
                        push_xml_value(out, v, ty, x);
                    }
                }
                out.push_str("</");
                out.push_str(prefix);
                out.push_str(param_el);
                out.push_str(">\n");
            }
            out.push_str("</");
            out.push_str(prefix);
            out.push_str(call_el);
            out.push('>');
            if let (true, Some((_, close))) = (markers, d.markup) {
                out.push_str(close);
            }
            if !region.is_empty() {
                out.push('\n');
            }
        }
        if !region.is_empty() {
            out.push_str("</");
            out.push_str(prefix);
            out.push_str(region);
            out.push('>');
        } else if markers {
            out.push_str(d.wrapper.1);
        }
        Ok(())
    }

    fn pythonic(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let markers: Vec<&str> = [d.wrapper.0, d.wrapper.1]
            .into_iter()
            .filter(|m| !m.is_empty())
            .collect();
        let mut body = String::new();
        for (i, c) in calls.iter().enumerate() {
            pythonic_name(c.name).map_err(|e| name_err(i, e))?;
            if i > 0 {
                body.push_str(if d.bare_calls { "\n" } else { ", " });
            }
            body.push_str(c.name);
            body.push('(');
            for (j, (k, v)) in args[i].iter().enumerate() {
                if !is_identifier(k) {
                    return Err(key_err(i, k, "not a Python identifier"));
                }
                if j > 0 {
                    body.push_str(", ");
                }
                body.push_str(k);
                body.push('=');
                push_python(&mut body, v, &markers);
            }
            body.push(')');
        }
        let out = &mut self.out;
        if d.bare_calls {
            // Olmo 3: the calls one per line inside the wrapper.
            out.push_str(d.wrapper.0);
            out.push('\n');
            out.push_str(&body);
            out.push('\n');
            out.push_str(d.wrapper.1);
        } else if preset == Some(Dialect::Pythonic) {
            // Llama 3.2's template (vLLM's pythonic examples): the bare list.
            out.push('[');
            out.push_str(&body);
            out.push(']');
        } else {
            out.push_str(d.wrapper.0);
            out.push('[');
            out.push_str(&body);
            out.push(']');
            out.push_str(d.wrapper.1);
        }
        Ok(())
    }

    fn machine(
        &mut self,
        dialect: Dialect,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let spaced = |markers| JsonStyle {
            spaced: true,
            markers,
        };
        match dialect {
            Dialect::AnthropicXml => {
                let x = XmlValue {
                    framing: false,
                    closers: &["</parameter", "</antml:parameter", "<![CDATA[", "]]>"],
                    cdata: true,
                    entities: false,
                };
                let out = &mut self.out;
                out.push_str("<function_calls>\n");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, xml_attr_bad).map_err(|e| name_err(i, e))?;
                    out.push_str("<invoke name=\"");
                    out.push_str(c.name);
                    out.push_str("\">\n");
                    for (k, v) in &args[i] {
                        check(k, xml_attr_bad).map_err(|e| key_err(i, k, e))?;
                        out.push_str("<parameter name=\"");
                        out.push_str(k);
                        out.push_str("\">");
                        let ty = self
                            .config
                            .tools
                            .find(c.name.as_bytes())
                            .and_then(|t| self.config.tools.param_type(t, k.as_bytes()))
                            .map_or(ValueType::Any, |(t, _)| t);
                        push_xml_value(out, v, ty, x);
                        out.push_str("</parameter>\n");
                    }
                    out.push_str("</invoke>\n");
                }
                out.push_str("</function_calls>");
            }
            Dialect::Glm45 => {
                let x = XmlValue {
                    framing: false,
                    closers: &["</arg_value"],
                    cdata: false,
                    entities: false,
                };
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "<>")).map_err(|e| name_err(i, e))?;
                    if i > 0 {
                        self.out.push('\n');
                    }
                    self.out.push_str("<tool_call>");
                    self.out.push_str(c.name);
                    self.out.push('\n');
                    for (k, v) in &args[i] {
                        check(k, |ch| ch == '<')
                            .and_then(|()| trimmed(k))
                            .map_err(|e| key_err(i, k, e))?;
                        self.out.push_str("<arg_key>");
                        self.out.push_str(k);
                        self.out.push_str("</arg_key>\n<arg_value>");
                        let ty = self.param_type(c.name, k);
                        push_xml_value(&mut self.out, v, ty, x);
                        self.out.push_str("</arg_value>\n");
                    }
                    self.out.push_str("</tool_call>");
                }
            }
            Dialect::MorphXml => {
                let x = XmlValue {
                    framing: false,
                    closers: &[],
                    cdata: false,
                    entities: true,
                };
                for (i, c) in calls.iter().enumerate() {
                    xml_element_name(c.name).map_err(|e| name_err(i, e))?;
                    if self.config.tools.find(c.name.as_bytes()).is_none() {
                        return Err(name_err(
                            i,
                            "not a configured tool (morph-xml reads only those)",
                        ));
                    }
                    self.out.push('<');
                    self.out.push_str(c.name);
                    self.out.push('>');
                    for (k, v) in &args[i] {
                        xml_element_name(k).map_err(|e| key_err(i, k, e))?;
                        self.out.push('<');
                        self.out.push_str(k);
                        self.out.push('>');
                        let ty = self.param_type(c.name, k);
                        push_xml_value(&mut self.out, v, ty, x);
                        self.out.push_str("</");
                        self.out.push_str(k);
                        self.out.push('>');
                    }
                    self.out.push_str("</");
                    self.out.push_str(c.name);
                    self.out.push('>');
                }
            }
            Dialect::Harmony => {
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "<")).map_err(|e| name_err(i, e))?;
                    self.out.push_str("<|start|>assistant to=functions.");
                    self.out.push_str(c.name);
                    self.out.push_str("<|channel|>commentary json<|message|>");
                    push_json_obj(&mut self.out, &args[i], spaced(HARMONY_MARKERS));
                    self.out.push_str("<|call|>");
                }
            }
            Dialect::KimiK2 => {
                self.out.push_str("<|tool_calls_section_begin|>");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "<|")).map_err(|e| name_err(i, e))?;
                    if kimi_name(c.name) != c.name {
                        return Err(name_err(
                            i,
                            "reads back as another name (`:digits` at its end)",
                        ));
                    }
                    self.out.push_str("<|tool_call_begin|>");
                    match c.id.filter(|id| {
                        check(id, |ch| ws_or(ch, "<|")).is_ok() && kimi_name(id) == c.name
                    }) {
                        Some(id) => self.out.push_str(id),
                        None => {
                            let _ = fmt::Write::write_fmt(
                                &mut self.out,
                                format_args!("functions.{}:{i}", c.name),
                            );
                        }
                    }
                    self.out.push_str("<|tool_call_argument_begin|>");
                    push_json_obj(&mut self.out, &args[i], spaced(KIMI_MARKERS));
                    self.out.push_str("<|tool_call_end|>");
                }
                self.out.push_str("<|tool_calls_section_end|>");
            }
            Dialect::DeepSeekV31 | Dialect::DeepSeekV3 => {
                let v3 = dialect == Dialect::DeepSeekV3;
                self.out.push_str("<｜tool▁calls▁begin｜>");
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ch == '\n' || ch == '\r')
                        .and_then(|()| trimmed(c.name))
                        .map_err(|e| name_err(i, e))?;
                    if c.name.contains("<｜") || c.name.contains('`') {
                        return Err(name_err(i, "holds a marker"));
                    }
                    if v3 && i > 0 {
                        self.out.push('\n');
                    }
                    self.out.push_str("<｜tool▁call▁begin｜>");
                    if v3 {
                        self.out.push_str("function<｜tool▁sep｜>");
                        self.out.push_str(c.name);
                        self.out.push_str("\n```json\n");
                    } else {
                        self.out.push_str(c.name);
                        self.out.push_str("<｜tool▁sep｜>");
                    }
                    let markers: &[&str] = if v3 {
                        &["<｜", "```"]
                    } else {
                        DEEPSEEK_MARKERS
                    };
                    push_json_obj(&mut self.out, &args[i], spaced(markers));
                    if v3 {
                        self.out.push_str("\n```");
                    }
                    self.out.push_str("<｜tool▁call▁end｜>");
                }
                self.out.push_str("<｜tool▁calls▁end｜>");
            }
            Dialect::Mistral => {
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "[]{}\"")).map_err(|e| name_err(i, e))?;
                    self.out.push_str("[TOOL_CALLS]");
                    self.out.push_str(c.name);
                    if let Some(id) = c.id {
                        check(id, |ch| ws_or(ch, "[]{}\"")).map_err(|_| FormatError {
                            call: i,
                            kind: FormatErrorKind::BadName("the id holds whitespace or brackets"),
                        })?;
                        self.out.push_str("[CALL_ID]");
                        self.out.push_str(id);
                    }
                    self.out.push_str("[ARGS]");
                    push_json_obj(&mut self.out, &args[i], spaced(MISTRAL_MARKERS));
                }
            }
            Dialect::Llama3Json => {
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |_| false).map_err(|e| name_err(i, e))?;
                    if i > 0 {
                        self.out.push_str("; ");
                    }
                    self.out.push_str("{\"name\": ");
                    push_json_str(&mut self.out, c.name, LLAMA3_MARKERS);
                    self.out.push_str(", \"parameters\": ");
                    push_json_obj(&mut self.out, &args[i], spaced(LLAMA3_MARKERS));
                    self.out.push('}');
                }
            }
            Dialect::Gemma4 | Dialect::FunctionGemma => {
                let (open, quote, close, markers): (&str, &str, &str, &[&str]) =
                    if dialect == Dialect::Gemma4 {
                        (
                            "<|tool_call>",
                            "<|\"|>",
                            "<tool_call|>",
                            &["<|\"|>", "<tool_call|>", "<|tool_call>"],
                        )
                    } else {
                        (
                            "<start_function_call>",
                            "<escape>",
                            "<end_function_call>",
                            &["<escape>", "<end_function_call>", "<start_function_call>"],
                        )
                    };
                for (i, c) in calls.iter().enumerate() {
                    check(c.name, |ch| ws_or(ch, "{<")).map_err(|e| name_err(i, e))?;
                    self.out.push_str(open);
                    self.out.push_str("call:");
                    self.out.push_str(c.name);
                    push_gemma_obj(&mut self.out, &args[i], quote, markers);
                    self.out.push_str(close);
                }
            }
            _ => {
                return Err(FormatError {
                    call: 0,
                    kind: FormatErrorKind::NoToolCalls,
                });
            }
        }
        Ok(())
    }
}

fn trimmed(s: &str) -> Result<(), &'static str> {
    if s.trim() == s {
        Ok(())
    } else {
        Err("starts or ends with whitespace")
    }
}

/// The name kimi-k2's parser reads from a call header.
fn kimi_name(id: &str) -> &str {
    let s = id.strip_prefix("functions.").unwrap_or(id);
    match s.rfind(':') {
        Some(at) if at + 1 < s.len() && s[at + 1..].bytes().all(|b| b.is_ascii_digit()) => &s[..at],
        _ => s,
    }
}

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
/// | step-3 | none known (its template was not found here) |
/// | hunyuan | none known (its template was not found here) |
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
        Dialect::MinimaxM2 => &["[e~["],
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::parse_tool_calls;

    fn one(name: &'static str, args: &'static str) -> [ToolCallIn<'static>; 1] {
        [ToolCallIn {
            name,
            id: None,
            arguments: args,
        }]
    }

    #[test]
    fn errors_say_what_and_where() {
        let c = Config::new(Dialect::Hermes);
        let e = format_tool_calls(&c, &one("f", "{\"a\": tru}")).unwrap_err();
        assert!(
            matches!(e.kind, FormatErrorKind::InvalidJson { offset: 6, .. }),
            "{e:?}"
        );
        let e = format_tool_calls(&Config::new(Dialect::Pythonic), &one("a b", "{}")).unwrap_err();
        assert!(matches!(e.kind, FormatErrorKind::BadName(_)));
        let e = format_tool_calls(&Config::new(Dialect::Passthrough), &one("f", "{}")).unwrap_err();
        assert_eq!(e.kind, FormatErrorKind::NoToolCalls);
        assert_eq!(
            format_tool_calls(&Config::new(Dialect::Passthrough), &[]).unwrap(),
            ""
        );
    }

    #[test]
    fn a_closer_in_a_string_does_not_end_the_call() {
        let args = r#"{"s": "a</parameter>b</arg_value><|call|>[TOOL_CALLS]<tool_call|>"}"#;
        for d in Dialect::ALL {
            if matches!(d, Dialect::Passthrough | Dialect::MorphXml) {
                continue;
            }
            let config = Config::new(d);
            let text = format_tool_calls(&config, &one("f", args)).unwrap();
            let back = parse_tool_calls(&config, text.as_bytes()).unwrap();
            assert_eq!(back.len(), 1, "{d:?}: {text}");
            assert!(back[0].error.is_none(), "{d:?}: {text} {back:?}");
        }
    }

    /// Where the schema types a value `string`, a raw value is not decoded: its closer inside
    /// it gets a U+2060 after the `<` (the one inexact case, documented); untyped, the string
    /// is written as JSON (exact); DSML switches to `string="false"` (exact).
    #[test]
    fn closers_in_string_values() {
        use crate::config::{ConfigBuf, Dialect};
        let args = r#"{"s": "x</parameter>y"}"#;
        let mut typed = ConfigBuf::new(Dialect::Qwen3Coder);
        typed
            .add_tool(
                "f",
                r#"{"type":"object","properties":{"s":{"type":"string"}}}"#,
            )
            .unwrap();
        let text = format_tool_calls(&typed.config(), &one("f", args)).unwrap();
        assert!(
            text.contains("\nx<\u{2060}/parameter>y\n</parameter>"),
            "{text}"
        );
        let back = parse_tool_calls(&typed.config(), text.as_bytes()).unwrap();
        assert_eq!(back[0].input, "{\"s\":\"x<\u{2060}/parameter>y\"}");

        let untyped = Config::new(Dialect::Qwen3Coder);
        let text = format_tool_calls(&untyped, &one("f", args)).unwrap();
        assert!(text.contains("\n\"x\\u003c/parameter>y\"\n"), "{text}");
        let back = parse_tool_calls(&untyped, text.as_bytes()).unwrap();
        // The same value: the parser keeps the escape as written.
        assert_eq!(back[0].input, "{\"s\":\"x\\u003c/parameter>y\"}");

        let dsml = Config::new(Dialect::DeepSeekV32);
        let text = format_tool_calls(
            &dsml,
            &one("f", r#"{"s": "x</｜DSML｜parameter>y", "t": "ok"}"#),
        )
        .unwrap();
        assert!(
            text.contains("string=\"false\">\"x\\u003c/｜DSML｜parameter>y\"<"),
            "{text}"
        );
        assert!(text.contains("string=\"true\">ok<"), "{text}");
        let back = parse_tool_calls(&dsml, text.as_bytes()).unwrap();
        assert_eq!(
            back[0].input,
            "{\"s\":\"x\\u003c/｜DSML｜parameter>y\",\"t\":\"ok\"}"
        );
    }

    /// anthropic-xml: a string that cannot stand raw goes in CDATA, typed or not: exact.
    #[test]
    fn anthropic_strings_in_cdata() {
        use crate::config::{ConfigBuf, Dialect};
        let mut typed = ConfigBuf::new(Dialect::AnthropicXml);
        typed
            .add_tool(
                "f",
                r#"{"type":"object","properties":{"s":{"type":"string"}}}"#,
            )
            .unwrap();
        let args = r#"{"s": "a</parameter>]]>b"}"#;
        for c in [typed.config(), Config::new(Dialect::AnthropicXml)] {
            let text = format_tool_calls(&c, &one("f", args)).unwrap();
            assert!(
                text.contains("<![CDATA[a</parameter>]]]]><![CDATA[>b]]></parameter>"),
                "{text}"
            );
            let back = parse_tool_calls(&c, text.as_bytes()).unwrap();
            assert_eq!(back[0].input, r#"{"s":"a</parameter>]]>b"}"#);
        }
        // Untyped, `"42"` would be read as a number: CDATA keeps it a string.
        let c = Config::new(Dialect::AnthropicXml);
        let text = format_tool_calls(&c, &one("f", r#"{"s": "42", "n": 42}"#)).unwrap();
        let back = parse_tool_calls(&c, text.as_bytes()).unwrap();
        assert_eq!(back[0].input, r#"{"s":"42","n":42}"#, "{text}");
    }

    #[test]
    fn tool_call_markers_replace_the_wrapper() {
        let c = Config {
            tool_call_markers: Some(("<fn>", "</fn>")),
            ..Config::new(Dialect::Hermes)
        };
        let text = format_tool_calls(&c, &one("f", r#"{"a": "</fn>"}"#)).unwrap();
        assert_eq!(
            text,
            "<fn>\n{\"name\": \"f\", \"arguments\": {\"a\": \"\\u003c/fn>\"}}\n</fn>"
        );
        let back = parse_tool_calls(&c, text.as_bytes()).unwrap();
        assert_eq!(back[0].input, r#"{"a":"</fn>"}"#);
    }

    #[test]
    fn each_family_writes_its_templates_calls() {
        let args = r#"{"city": "Paris", "days": 3}"#;
        let cases: [(Dialect, &str); 8] = [
            (
                Dialect::AnthropicXml,
                "<function_calls>\n<invoke name=\"get\">\n<parameter name=\"city\">Paris</parameter>\n\
                 <parameter name=\"days\">3</parameter>\n</invoke>\n</function_calls>",
            ),
            (
                Dialect::Glm45,
                "<tool_call>get\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n\
                 <arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
            ),
            (
                Dialect::Harmony,
                "<|start|>assistant to=functions.get<|channel|>commentary json<|message|>\
                 {\"city\": \"Paris\", \"days\": 3}<|call|>",
            ),
            (
                Dialect::DeepSeekV31,
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get<｜tool▁sep｜>{\"city\": \"Paris\", \"days\": 3}\
                 <｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            ),
            (
                Dialect::Gemma4,
                "<|tool_call>call:get{city:<|\"|>Paris<|\"|>,days:3}<tool_call|>",
            ),
            (
                Dialect::Mistral,
                "[TOOL_CALLS]get[ARGS]{\"city\": \"Paris\", \"days\": 3}",
            ),
            (
                Dialect::Lfm2,
                "<|tool_call_start|>[get(city=\"Paris\", days=3)]<|tool_call_end|>",
            ),
            (
                Dialect::Olmo3,
                "<function_calls>\nget(city=\"Paris\", days=3)\n</function_calls>",
            ),
        ];
        for (d, want) in cases {
            assert_eq!(
                format_tool_calls(&Config::new(d), &one("get", args)).unwrap(),
                want,
                "{d:?}"
            );
        }
    }
}
