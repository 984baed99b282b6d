//! Streaming relaxed-JSON → strict compact JSON, with fixed-size state.
//!
//! Models write JSON loosely. This module reads what they write, in chunks of any size (one
//! byte at a time works), and produces strict, compact RFC 8259 JSON as soon as each byte of
//! it is decidable — without allocating and with a state of fixed size.
//!
//! # What is accepted
//!
//! | input | output |
//! | --- | --- |
//! | unquoted keys `{city: 1}` | `{"city":1}` |
//! | single-quoted strings `'it\'s "x"'` | `"it's \"x\""` |
//! | `// line` and `/* block */` comments wherever whitespace may be | dropped |
//! | trailing commas `[1,2,]`, `{a:1,}` | dropped |
//! | bare words `{city: Paris}`, `[hello world]` | `"Paris"`, `"hello world"` |
//! | bare `true` / `false` / `null` | the literal |
//! | a bare word that is an RFC 8259 number (`1.50`, `-0`, `12345678901234567890`) | the number, exactly as written |
//! | raw control characters inside strings | `\n`, `\t`, `\u0001`, … |
//! | `\uD83D\uDE00`, split anywhere across chunks | the paired character (`😀`) |
//! | a lone surrogate escape `\uD800` | U+FFFD (strict readers reject the escape; as for invalid UTF-8) |
//! | invalid UTF-8 inside strings | U+FFFD, one per maximal invalid sequence (as `String::from_utf8_lossy`) |
//! | an unknown escape `\d` | kept literally: `\\d` |
//!
//! String contents are decoded and re-escaped the way `serde_json` writes them (`"`, `\`,
//! and control characters escaped, everything else as UTF-8), so the output of a strict
//! input equals `serde_json`'s compact serialisation, except that numbers keep their
//! spelling.
//!
//! Bare words run to the next `,`, `}`, `]`, line feed or carriage return, and are trimmed
//! (interior spaces and tabs are kept). Inside a bare word `//` and `/*` start a comment
//! (which ends the word) only after whitespace or right after a number or literal, so
//! `http://x` stays one word and `1/*x*/` is the number 1. While a bare word
//! may still turn out to be a number or a literal its bytes are held (at most
//! [`HOLD`] bytes): a number-like word longer than that is committed as a number, and fails
//! if it later turns out not to be one. At most 32 pending whitespace characters inside a
//! bare word are kept; further ones are dropped.
//!
//! # Layers
//!
//! * [`Lexer`] is the tokenizer. It yields one [`Token`] per call: container starts and ends,
//!   key and string boundaries, [`Text`] pieces of key and string contents, number pieces and
//!   literals. Separators (`,` `:`) are not tokens: structure is implied by the token order,
//!   so a consumer never sees a trailing comma. [`Lexer::depth`] tells how many containers
//!   are open, [`Token::starts_value`] / [`Token::ends_value`] mark value boundaries. A
//!   [`Text`] piece carries the *decoded* content in a form that is also cheap to re-escape:
//!   runs of input that need no escaping are borrowed, decoded characters come by value.
//! * [`Writer`] renders tokens as strict compact JSON [`Piece`]s (one piece per token at
//!   most), inserting `,` and `:` itself. It can be started on any value, which is how a
//!   dialect streams only the value of one member.
//! * [`Transcoder`] is `Lexer` + `Writer`: relaxed JSON in, strict JSON out.
//!
//! All three use a pull API like `httparse` or zlib: `next(&mut input)` consumes bytes from
//! the front of the slice and returns one result; [`Step::NeedMore`] asks for the next chunk;
//! `finish()` says the input ended (a top-level bare word or number completes only at a
//! delimiter or there).
//!
//! Inside the crate the lexer also has a Python mode (`Lexer::python_call`, for the
//! `pythonic` dialect): it reads a call's keyword arguments `city='Paris', days=3)` as the
//! members of an already open object that `)` closes, with `=` after keys, `True`/`False`/
//! `None`, tuples as arrays, Python's `\xHH`, `\a`, `\v` escapes and line continuations, and
//! no bare words.
//!
//! ## The hermes dialect on top
//!
//! For `{"name": "get_weather", "arguments": {"city": "Paris"}}` a dialect runs a [`Lexer`]
//! over the body and watches the keys at depth 1 (decoding them with [`Text::decoded`]).
//! The `name` string's [`Text`] pieces are the tool name. After the `arguments` (or
//! `parameters`) key, it feeds every token of the value to a fresh [`Writer`] until a token
//! that [ends a value](Token::ends_value) brings [`Lexer::depth`] back to 1. When that value
//! is a string (`"arguments": "{\"a\":1}"`), it instead feeds the string's decoded text to an
//! inner [`Transcoder`]. The example below does all three in one pass over a single chunk;
//! `tests/hermes.rs` does the same over every chunking.
//!
//! ```
//! use tokensieve::json::relaxed::{Lex, Lexer, Step, Token, Transcoder, Writer};
//!
//! fn extract(body: &[u8]) -> (Vec<u8>, Vec<u8>) {
//!     let (mut name, mut args) = (Vec::new(), Vec::new());
//!     let mut lexer = Lexer::new();
//!     let mut key = Vec::new(); // the current depth-1 key, decoded
//!     let mut writer: Option<Writer> = None; // streaming an object/array/number argument
//!     let mut inner: Option<Transcoder> = None; // a JSON-encoded string argument
//!     let mut in_key = false;
//!     let mut input = body;
//!     loop {
//!         let tok = match lexer.next(&mut input) {
//!             Lex::Token(t) => t,
//!             _ => break, // Done (or NeedMore / Error in this one-chunk example)
//!         };
//!         let depth = lexer.depth();
//!         if let Some(w) = writer.as_mut() {
//!             if let Some(p) = w.render(tok) {
//!                 args.extend_from_slice(p.as_bytes());
//!             }
//!             if tok.ends_value() && depth == 1 {
//!                 writer = None;
//!             }
//!             continue;
//!         }
//!         let mut scratch = [0u8; 4];
//!         match tok {
//!             Token::KeyStart if depth == 1 => { key.clear(); in_key = true; }
//!             Token::KeyEnd => in_key = false,
//!             Token::Text(t) if in_key => key.extend_from_slice(t.decoded(&mut scratch)),
//!             Token::Text(t) if key == b"name" => name.extend_from_slice(t.decoded(&mut scratch)),
//!             Token::Text(t) if inner.is_some() => {
//!                 let tc = inner.as_mut().unwrap();
//!                 let mut bytes = t.decoded(&mut scratch);
//!                 while let Step::Out(p) = tc.next(&mut bytes) {
//!                     args.extend_from_slice(p.as_bytes());
//!                 }
//!             }
//!             Token::StringStart if depth == 1 && key == b"arguments" => {
//!                 inner = Some(Transcoder::new());
//!             }
//!             Token::StringEnd if inner.is_some() => {
//!                 let tc = inner.as_mut().unwrap();
//!                 while let Step::Out(p) = tc.finish() {
//!                     args.extend_from_slice(p.as_bytes());
//!                 }
//!                 inner = None;
//!             }
//!             t if depth >= 1 && t.starts_value() && key == b"arguments" => {
//!                 let mut w = Writer::new();
//!                 if let Some(p) = w.render(t) {
//!                     args.extend_from_slice(p.as_bytes());
//!                 }
//!                 // A scalar ends where it starts; a container continues.
//!                 if !(t.ends_value() && depth == 1) {
//!                     writer = Some(w);
//!                 }
//!             }
//!             _ => {}
//!         }
//!     }
//!     (name, args)
//! }
//!
//! let (name, args) = extract(br#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#);
//! assert_eq!((&name[..], &args[..]), (&b"get_weather"[..], &br#"{"city":"Paris"}"#[..]));
//!
//! let (name, args) = extract(br#"{name: 'get_weather', arguments: {city: Paris, days: 3,},}"#);
//! assert_eq!((&name[..], &args[..]), (&b"get_weather"[..], &br#"{"city":"Paris","days":3}"#[..]));
//!
//! let (name, args) = extract(br#"{"arguments": "{\"a\": 1}", "name": "f"}"#);
//! assert_eq!((&name[..], &args[..]), (&b"f"[..], &br#"{"a":1}"#[..]));
//! ```
//!
//! # Files
//!
//! `piece.rs` (output [`Piece`]s), `token.rs` ([`Token`]s and their [`Text`]), `error.rs`
//! ([`Error`]), `lexer/` (the [`Lexer`]: structure and comments in `mod.rs`, quoted and bare
//! keys and strings in `string.rs`, bare words in `word.rs`, [`Lexer::verbatim`]'s runs of
//! input that is already strict compact JSON in `verbatim.rs`), `writer.rs` ([`Writer`]) and
//! `transcoder.rs` ([`Transcoder`]).

mod error;
mod lexer;
mod piece;
mod token;
mod transcoder;
mod writer;

pub use error::{Error, ErrorKind};
pub(crate) use lexer::Quick;
pub use lexer::{Lex, Lexer, Verbatim};
pub use piece::{InlineBuf, Piece};
pub use token::{Literal, Text, Token};
pub use transcoder::{Step, Transcoder};
pub use writer::Writer;

/// The deepest nesting of arrays and objects accepted (128, as in [`super::strict`]).
///
/// ```
/// use tokensieve::json::relaxed::{Step, Transcoder, MAX_DEPTH};
///
/// let mut t = Transcoder::new();
/// let deep = [b'['; MAX_DEPTH + 1];
/// let mut input = &deep[..];
/// loop {
///     match t.next(&mut input) {
///         Step::Out(_) => continue,
///         Step::Error(e) => { assert_eq!(e.offset, MAX_DEPTH as u64); break }
///         other => panic!("{other:?}"),
///     }
/// }
/// ```
pub const MAX_DEPTH: usize = super::strict::MAX_DEPTH;

/// How many bytes of a bare word are held while it may still be a number or a literal.
///
/// ```
/// assert_eq!(tokensieve::json::relaxed::HOLD, 24);
/// ```
pub const HOLD: usize = 24;
