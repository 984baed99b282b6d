//! The pythonic shape (`Shape::Pythonic`): `pythonic` (Llama 3.2/4, ToolACE, vLLM's and
//! SGLang's `pythonic` tool parsers): the model writes a Python list of calls with keyword
//! arguments, `[get_weather(city="Paris", days=3), get_time()]`, optionally inside the
//! description's wrapper, `<|python_start|>…<|python_end|>` (Llama 4); `lfm2` the same in
//! `<|tool_call_start|>…<|tool_call_end|>`; `olmo-3` (`bare_calls`) the calls one per line
//! without brackets inside `<function_calls>…</function_calls>`; thinking `<think>…</think>`.
//!
//! - With `bare_calls`, the wrapper's opener starts the calls and its closer ends them;
//!   between calls whitespace (line feeds) and `,` are formatting; anything that is not a
//!   call there is read as one and fails (`missing-name`, its text kept), the next line is
//!   read; a bracketed list there is read too.
//!
//! - A `[` in text opens a call list only when a call with keyword arguments follows it:
//!   optional whitespace, a name (an ASCII letter or `_`, then letters, digits, `_`, `.` or
//!   `-`), optional whitespace, `(`, optional whitespace, then `)` or a keyword (an
//!   identifier) followed by optional whitespace and `=`. Otherwise the `[` is text, so
//!   prose with brackets (`[1, 2]`, `[see above]`, `[f(x)]`) stays text. The decision is a
//!   pure function of the bytes after the `[` within 128 bytes of it
//!   ([`Vocab::with_literal_when`]); one that is still undecided at the end of input is text.
//! - Each call is one tool_call block at depth 1. Its name is streamed when its `(` is read:
//!   dotted names (`functions.get_weather`) are kept as written. Its keyword arguments are
//!   read by the relaxed-JSON lexer in its Python mode ([`Lexer::python_call`]: Python
//!   strings in `'…'` or `"…"` with Python escapes, numbers, `True`/`False`/`None`, lists,
//!   tuples (as arrays), dicts, nested) and written by its [`Writer`] as strict compact JSON
//!   (`{"city":"Paris","days":3}`) as the text streams. The call completes at its `)`.
//! - Between calls `,` and whitespace are wire formatting; `]` ends the list. Anything else
//!   after a call (or after a `,`) ends the list too: it is text (the whitespace before it
//!   was already dropped as formatting). The list's brackets and
//!   commas are markup (dropped). The wrapper's markers (`<|python_start|>`,
//!   `<|python_end|>`) are dropped as markup wherever they appear in text; a partial marker
//!   at the end of input is text, except the closer cut right after a list's `]` (or after
//!   bare calls), which is wire syntax, dropped.
//! - Failures (docs/design.md rule 10): a positional argument fails the call as
//!   `malformed-parameter` (vLLM silently drops positional arguments; a call run without
//!   one of its arguments is worse than a reported failure); any other syntax error in the arguments
//!   (an unclosed bracket, an unquoted expression, Python syntax the lexer does not read:
//!   triple quotes, string prefixes, implicit concatenation) as `malformed-body`;
//!   whitespace inside a name, or anything but `(` after it, as `missing-name`; nesting
//!   over 128 as `nesting-too-deep`; a call over `max_call_bytes` as `too-large`; a call
//!   open at the end of input as `unfinished`. A failed call's raw text runs from its name
//!   through the byte where the error was found (whitespace before it included), then to the
//!   end of that line (the line feed is not part of it), to `<|python_end|>` or to the end of
//!   input: the rest of a one-line list goes with it. It is re-emitted as a
//!   top-level text block with `on_malformed = "text"`.
//! - End of input: calls whose `)` was read are complete, whatever follows (a list cut off
//!   after them, a partial closer).
//! - Text between lists is top-level text; stop sequences apply there only.

use crate::config::Config;
use crate::config::Settings;
use crate::emit::{Act, Emitter, STR_CAP, Spool};
use crate::event::{BlockType, ErrorReason, Part};
use crate::json::relaxed::{ErrorKind, Lex, Lexer, Token, Writer};
use crate::scan::{Decision, Vocab};

use super::json_body::piece_act;
use super::value::leading_ws;
use super::{Cut, Machine};

/// Literal indices in the text context.
const LIT_THINK: usize = 0;
const LIT_WRAP_OPEN: usize = 1;
const LIT_LIST: usize = 3;
/// What ends a failed call's skip (with `<|python_end|>`): the end of its line.
const SKIP_ENDS: &[u8] = b"\n";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Text,
    Thinking,
    /// After `[` or `,`: a call's name, or `]`.
    Gap,
    /// Reading a call's name (held in the value buffer) up to its `(`.
    Name,
    /// After a name and whitespace: only `(` may follow.
    NameDone,
    /// Reading the keyword arguments with the lexer.
    Args,
    /// After a call's `)`: `,` or `]`.
    After,
    /// Right after a list's `]`: the wrapper's closer, if it comes, is markup (and cut off
    /// by the end of input, wire syntax); anything else is decided again as text.
    AfterList,
    /// A failed call, skipped to the end of its line.
    Skip,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    ctx: Ctx,
    /// The description's calls stand bare inside the wrapper (no `[…]`: Olmo 3).
    bare: bool,
    /// Inside a bare wrapper: its closer ends the calls.
    wrapped: bool,
    lexer: Lexer,
    writer: Writer,
    /// Why the current call failed (in `Skip`).
    reason: ErrorReason,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The look-ahead after `[` (module docs): `NAME(` then `)` or `KEYWORD=`.
fn list_follows(rest: &[u8], _: &Vocab<'_>, eof: bool) -> Option<bool> {
    // Undecided at the end of what is known: text at the end of input.
    let undecided = if eof { Some(false) } else { None };
    let skip_ws = |i: usize| i + rest[i..].iter().take_while(|&&b| is_ws(b)).count();
    let mut i = skip_ws(0);
    match rest.get(i) {
        None => return undecided,
        Some(&b) if !name_start(b) => return Some(false),
        _ => {}
    }
    i += rest[i..].iter().take_while(|&&b| name_byte(b)).count();
    i = skip_ws(i);
    match rest.get(i) {
        None => return undecided,
        Some(b'(') => {}
        Some(_) => return Some(false),
    }
    i = skip_ws(i + 1);
    match rest.get(i) {
        None => return undecided,
        Some(b')') => return Some(true),
        Some(&b) if !name_start(b) => return Some(false),
        _ => {}
    }
    i += rest[i..].iter().take_while(|&&b| ident_byte(b)).count();
    i = skip_ws(i);
    match rest.get(i) {
        None => undecided,
        Some(&b) => Some(b == b'='),
    }
}

impl Machine for State {
    const CALL_DEPTH: u8 = 0;

    fn new(cfg: &Config<'_>) -> State {
        State {
            ctx: cfg.start_in.pick(Ctx::Text, Ctx::Thinking),
            bare: cfg.description().is_some_and(|d| d.bare_calls),
            wrapped: false,
            lexer: Lexer::python_call(),
            writer: Writer::new(),
            reason: ErrorReason::MalformedBody,
        }
    }

    fn vocab_key(&self) -> u32 {
        self.ctx as u32 | (self.wrapped as u32) << 8
    }

    fn vocab<'m>(&self, cfg: &'m Settings<'_>, _out: &'m Emitter<'_>) -> Vocab<'m> {
        let (open, close) = cfg.thinking_tags();
        let (wrap_open, wrap_close) = cfg.call_markers();
        match self.ctx {
            Ctx::Text => Vocab {
                stops: cfg.stops(),
                ..Vocab::EMPTY
            }
            .with_literal(open.as_bytes())
            .with_literal(wrap_open.as_bytes())
            .with_literal(wrap_close.as_bytes())
            .with_literal_when(b"[", list_follows),
            Ctx::Thinking => Vocab::EMPTY.with_literal(close.as_bytes()),
            Ctx::Skip => Vocab::EMPTY
                .with_literal(SKIP_ENDS)
                .with_literal(wrap_close.as_bytes()),
            Ctx::Gap | Ctx::After if self.wrapped => {
                Vocab::EMPTY.with_literal(wrap_close.as_bytes())
            }
            Ctx::AfterList => Vocab::EMPTY.with_literal(wrap_close.as_bytes()),
            _ => Vocab::EMPTY,
        }
    }

    fn act(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> Act {
        if out.call_too_large() && matches!(self.ctx, Ctx::Name | Ctx::NameDone | Ctx::Args) {
            self.fail(ErrorReason::TooLarge);
            return Act::WAIT;
        }
        match d {
            Decision::Literal { index, len } => match self.ctx {
                Ctx::Text => {
                    out.close_content();
                    match index {
                        LIT_THINK => self.ctx = Ctx::Thinking,
                        LIT_LIST => self.ctx = Ctx::Gap,
                        // Bare calls follow the wrapper's opener.
                        LIT_WRAP_OPEN if self.bare => {
                            self.ctx = Ctx::Gap;
                            self.wrapped = true;
                        }
                        // The wrapper around a list (Llama 4's, LFM2's): markup, dropped.
                        _ => {}
                    }
                    Act::skip(len)
                }
                Ctx::Gap | Ctx::After | Ctx::AfterList => {
                    // The wrapper's closer (after bare calls, or right after a list).
                    self.ctx = Ctx::Text;
                    self.wrapped = false;
                    Act::skip(len)
                }
                Ctx::Thinking => {
                    out.close_content();
                    self.ctx = Ctx::Text;
                    Act::skip(len)
                }
                Ctx::Skip => {
                    // The end of the failed call's line (or the wrapper's closer): not part
                    // of its raw text; decided again (in a bare wrapper, between calls).
                    self.ctx = if self.wrapped { Ctx::Gap } else { Ctx::Text };
                    out.close_skipped(self.reason, 0, false)
                }
                _ => Act::WAIT,
            },
            Decision::Text(n) | Decision::Invalid(n) => match self.ctx {
                Ctx::Text => out.content(BlockType::Text, 0, d),
                Ctx::Thinking => out.content(BlockType::Thinking, 0, d),
                Ctx::Skip => out.skip(d, self.reason),
                Ctx::Gap | Ctx::After => self.between(out, d, window),
                Ctx::AfterList => {
                    self.ctx = Ctx::Text;
                    Act::WAIT
                }
                Ctx::Name | Ctx::NameDone => self.name(cfg, out, d, window, n),
                Ctx::Args => self.args(cfg, out, window, n),
            },
            Decision::Element(_) | Decision::NeedMore | Decision::Stop { .. } => Act::WAIT,
        }
    }

    fn end_of_input(&mut self, _cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.ctx {
            Ctx::Name | Ctx::NameDone => {
                out.calls += 1;
                out.fail_call(ErrorReason::Unfinished, false);
            }
            Ctx::Args => out.fail_call(ErrorReason::Unfinished, false),
            Ctx::Skip => out.fail_call(self.reason, false),
            Ctx::Text | Ctx::Thinking | Ctx::Gap | Ctx::After | Ctx::AfterList => {}
        }
        self.ctx = Ctx::Text;
    }

    /// Between bare calls and right after a list's `]`, a cut wrapper closer is wire syntax
    /// (docs/design.md, "Tool calls").
    fn cut_closer(&mut self, _cfg: &Settings<'_>, _out: &mut Emitter<'_>, _cut: &[u8]) -> Cut {
        if self.ctx == Ctx::AfterList || self.wrapped && matches!(self.ctx, Ctx::Gap | Ctx::After) {
            self.ctx = Ctx::Text;
            self.wrapped = false;
            Cut::Done
        } else {
            Cut::No
        }
    }

    fn plain_block(&self) -> Option<(BlockType, u8)> {
        match self.ctx {
            Ctx::Text => Some((BlockType::Text, 0)),
            Ctx::Thinking => Some((BlockType::Thinking, 0)),
            _ => None,
        }
    }
}

impl State {
    /// The current call fails: the rest of its line is skipped.
    fn fail(&mut self, reason: ErrorReason) {
        self.ctx = Ctx::Skip;
        self.reason = reason;
    }

    /// Between calls (`Gap`: after `[` or `,`; `After`: after a call's `)`).
    fn between(&mut self, out: &mut Emitter<'_>, d: Decision, window: &[u8]) -> Act {
        let ws = leading_ws(d, window);
        if ws > 0 {
            return Act::skip(ws);
        }
        let b = match d {
            Decision::Text(_) => window[0],
            _ => 0,
        };
        match (self.ctx, b) {
            (_, b']') if !self.wrapped => {
                self.ctx = Ctx::AfterList;
                Act::skip(1)
            }
            (Ctx::After, b',') => {
                self.ctx = Ctx::Gap;
                Act::skip(1)
            }
            (Ctx::Gap, b) | (Ctx::After, b)
                if name_start(b) && (self.ctx == Ctx::Gap || self.wrapped) =>
            {
                out.open_call(1);
                out.value.clear();
                self.ctx = Ctx::Name;
                Act::WAIT
            }
            _ => {
                // Not a call: the list ends, what follows is text (in a bare wrapper, until
                // its closer, which is dropped there).
                self.ctx = Ctx::Text;
                self.wrapped = false;
                Act::WAIT
            }
        }
    }

    /// A call's name, up to its `(`.
    fn name(
        &mut self,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
        n: usize,
    ) -> Act {
        let bytes: &[u8] = match d {
            Decision::Text(_) => &window[..n],
            _ => &[],
        };
        if self.ctx == Ctx::Name {
            let k = bytes.iter().take_while(|&&b| name_byte(b)).count();
            if k > 0 {
                if !out.value.push(&bytes[..k]) || out.value.len() >= STR_CAP {
                    out.calls += 1;
                    self.fail(ErrorReason::TooLarge);
                    return Act::WAIT;
                }
                return Act::skip(k);
            }
        }
        let ws = leading_ws(d, window);
        if ws > 0 {
            self.ctx = Ctx::NameDone;
            return Act::skip(ws);
        }
        if bytes.first() != Some(&b'(') {
            out.calls += 1;
            self.fail(ErrorReason::MissingName);
            return Act::WAIT;
        }
        let mut name = [0u8; STR_CAP];
        let held = out.value.bytes();
        let len = held.len().min(STR_CAP);
        name[..len].copy_from_slice(&held[..len]);
        out.announce_call(cfg, &name[..len]);
        self.lexer = Lexer::python_call();
        self.writer = Writer::new();
        self.ctx = Ctx::Args;
        // The writer is inside the arguments object from here on; its `{` streams after
        // the name and id (queued, like them).
        let _ = self.writer.render(Token::ObjectStart);
        out.queue_chunk(Some(Part::Input), Spool::Static("{"));
        Act::skip(1)
    }

    /// The keyword arguments: one lexer token per act, rendered as strict JSON.
    fn args(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, window: &[u8], n: usize) -> Act {
        let mut input = &window[..n];
        let result = self.lexer.next(&mut input);
        let consumed = n - input.len();
        match result {
            Lex::NeedMore | Lex::Done => Act::skip(consumed),
            Lex::Error(e) => {
                self.fail(if e.kind == ErrorKind::TooDeep {
                    ErrorReason::NestingTooDeep
                } else if self.lexer.failed_after_key() {
                    // `f("Paris")`, `f(3)`: a positional argument.
                    ErrorReason::MalformedParameter
                } else {
                    ErrorReason::MalformedBody
                });
                // What the lexer read up to the error (whitespace before it included, as in
                // earlier acts) belongs to the raw text; the skip goes on from the error.
                Act::skip(consumed)
            }
            Lex::Token(t) => {
                let depth = self.lexer.depth();
                if t == Token::ObjectEnd && depth == 0 {
                    // The call's `)`.
                    out.finish_call(cfg, true);
                    self.ctx = Ctx::After;
                    return Act::skip(consumed);
                }
                let meta = out.meta(Some(Part::Input));
                match self.writer.render(t) {
                    Some(p) => piece_act(out, meta, p, window, consumed),
                    None => Act::skip(consumed),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::list_follows;
    use crate::scan::Vocab;

    #[test]
    fn a_call_must_follow_the_bracket() {
        assert_eq!(
            list_follows(b"get_weather(city=", &Vocab::EMPTY, false),
            Some(true)
        );
        assert_eq!(
            list_follows(b" get_time()]", &Vocab::EMPTY, false),
            Some(true)
        );
        assert_eq!(
            list_follows(
                b"\n  functions.get_weather (\n city =",
                &Vocab::EMPTY,
                false
            ),
            Some(true)
        );
        assert_eq!(list_follows(b"f( x = 1", &Vocab::EMPTY, false), Some(true));
        assert_eq!(list_follows(b"f(x", &Vocab::EMPTY, false), None);
        assert_eq!(list_follows(b"get_wea", &Vocab::EMPTY, false), None);
        assert_eq!(list_follows(b"", &Vocab::EMPTY, false), None);
        assert_eq!(list_follows(b"1, 2]", &Vocab::EMPTY, false), Some(false));
        assert_eq!(
            list_follows(b"see above]", &Vocab::EMPTY, false),
            Some(false)
        );
        assert_eq!(list_follows(b"f(x)]", &Vocab::EMPTY, false), Some(false));
        assert_eq!(
            list_follows(b"f(\"Paris\")]", &Vocab::EMPTY, false),
            Some(false)
        );
        assert_eq!(
            list_follows(b"link](http://x)", &Vocab::EMPTY, false),
            Some(false)
        );
        assert_eq!(list_follows(b"get_wea", &Vocab::EMPTY, true), Some(false));
        assert_eq!(list_follows(b"f(x", &Vocab::EMPTY, true), Some(false));
    }

    /// The lexer's Python mode with a writer, fed `input` one byte at a time: the JSON, or
    /// `None` on an error or an unfinished call.
    #[cfg(feature = "std")]
    fn transcode(input: &[u8]) -> Option<std::string::String> {
        use crate::json::relaxed::{Lex, Lexer, Token, Writer};
        let mut lexer = Lexer::python_call();
        let mut writer = Writer::new();
        let mut out = std::vec::Vec::new();
        out.extend_from_slice(writer.render(Token::ObjectStart)?.as_bytes());
        for i in 0..input.len() {
            let mut chunk = &input[i..i + 1];
            loop {
                match lexer.next(&mut chunk) {
                    Lex::Token(t) => {
                        if let Some(p) = writer.render(t) {
                            out.extend_from_slice(p.as_bytes());
                        }
                    }
                    Lex::NeedMore => break,
                    Lex::Done => return std::string::String::from_utf8(out).ok(),
                    Lex::Error(_) => return None,
                }
            }
        }
        None
    }

    #[test]
    #[cfg(feature = "std")]
    fn python_literals_become_json() {
        let ok = |i: &str, o: &str| assert_eq!(transcode(i.as_bytes()).as_deref(), Some(o), "{i}");
        ok(")", "{}");
        ok("city='Paris', days=3)", r#"{"city":"Paris","days":3}"#);
        ok(
            " a = True , b=False,c=None, )",
            r#"{"a":true,"b":false,"c":null}"#,
        );
        ok(
            "t=(1, (2,), []), d={'k': (None,)})",
            r#"{"t":[1,[2],[]],"d":{"k":[null]}}"#,
        );
        ok(
            r#"s='\x41\u00e9\'"\a\v', u="\d")"#,
            r#"{"s":"Aé'\"\u0007\u000b","u":"\\d"}"#,
        );
        ok("s='a\\\nb', n=-1.5e3)", r#"{"s":"ab","n":-1.5e3}"#);
        for bad in [
            "x=foo)", "x=1 + 2)", "'a')", "x=1, 2)", "x=[1)", "x=(1})", "x=1}",
        ] {
            assert_eq!(transcode(bad.as_bytes()), None, "{bad}");
        }
    }
}
