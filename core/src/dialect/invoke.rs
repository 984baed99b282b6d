//! The inside of an `<invoke>` tool region, shared by anthropic-xml (`<function_calls>`) and
//! minimax-m2 (`<minimax:tool_call>`): the region holds `<invoke name="N">` calls (one
//! tool_call block each, depth 1), which hold `<parameter name="K">V</parameter>` values.
//!
//! - Values are typed by [`super::value`]: a schema-typed `string` streams per token (minus
//!   one framing newline at each end); every other value is held until `</parameter>`, then
//!   trimmed and typed by the schema, or by the untyped guess. Where the [`Syntax`] has
//!   CDATA, a value that is only CDATA is its payload, verbatim.
//! - Whitespace between elements is wire formatting; other stray text directly inside the
//!   region is a depth-1 text block; stray text inside an invoke fails it
//!   (`unexpected-content`).
//! - Failures: an `<invoke>` without a non-empty `name` (`missing-name`), a `<parameter>`
//!   without one (`malformed-parameter`), stray text in an invoke, a parameter open at end of
//!   input (`unfinished`), a call over `max_call_bytes` (`too-large`). The call is skipped to
//!   `</invoke>` (part of its raw text) or the region's closer (not part of it).
//! - The region's closer inside an invoke ends the invoke normally, then the region; an
//!   invoke open at end of input completes normally.
//! - A marker cut off by the end of input after complete children ends what it would close
//!   ([`Region::cut_closer`], docs/design.md "Tool calls"): the cut bytes are wire syntax.

use crate::config::Settings;
use crate::config::ValueType;
use crate::emit::{Act, Emit, Emitter};
use crate::event::{BlockType, ErrorReason, Part};
use crate::scan::tag::attr;
use crate::scan::{Decision, Tag, Vocab};
use crate::spec::StrList;

use super::Cut;
use super::value::{self, NO_CDATA, Value, leading_ws};

const CDATA_OPEN: &[u8] = b"<![CDATA[";
const CDATA_CLOSE: &[u8] = b"]]>";

const fn bit(e: u8) -> u32 {
    1 << e
}

/// How a dialect spells its element names: static, or read from the description in force.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spelling<'s> {
    /// The dialect's element names; [`Syntax`]'s `region`, `invoke` and `param` index into
    /// them.
    pub(crate) names: StrList<'s>,
    /// Prefixes the element names carry (`antml:`, `｜DSML｜`).
    pub(crate) prefixes: StrList<'s>,
    /// The element names must carry one of `prefixes`.
    pub(crate) prefix_required: bool,
    /// A parameter attribute that types its value: `true`, a string as written; `false`,
    /// JSON (DSML's `string="true|false"`).
    pub(crate) string_attr: Option<&'s str>,
    /// `<![CDATA[…]]>` inside a value is raw data.
    pub(crate) cdata: bool,
    /// What the calls stand in (resolved with the configuration, not per read).
    pub(crate) kind: RegionKind,
    /// The region as a pair of markers instead of an element (Step-3's special tokens),
    /// when the region element has no name.
    pub(crate) region_markers: Option<(&'s str, &'s str)>,
    /// Markers between the calls of a region, wire syntax dropped (Step-3's call header
    /// `<｜tool_call_begin｜>function<｜tool_sep｜>` and `<｜tool_call_end｜>`).
    pub(crate) inner_markup: Option<(&'s str, &'s str)>,
}

/// What a dialect's calls stand in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegionKind {
    /// A region element (`<function_calls>`, `<minimax:tool_call>`).
    Element,
    /// A region between two markers ([`Spelling::region_markers`]).
    Markers,
    /// No region: the calls stand in text (MiniCPM5).
    None,
}

impl<'s> Spelling<'s> {
    /// What the calls stand in.
    #[inline]
    pub(crate) fn region(&self) -> RegionKind {
        self.kind
    }

    /// The region's closer as a marker, if it is one.
    #[inline]
    fn region_closer(&self) -> Option<&'s [u8]> {
        self.region_markers.map(|m| m.1.as_bytes())
    }
}
/// How a dialect's invoke region is made.
#[derive(Debug)]
pub(crate) struct Syntax {
    /// The element names, from the emitter's configuration (a function, so that the
    /// spelling is borrowed only while a vocabulary is built or a tag read).
    pub(crate) spelling: for<'e> fn(&'e Settings<'_>) -> Spelling<'e>,
    /// The region's element (`function_calls`, `minimax:tool_call`).
    pub(crate) region: u8,
    /// `invoke`.
    pub(crate) invoke: u8,
    /// `parameter`.
    pub(crate) param: u8,
}

/// Where in the region the stream is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum At {
    /// Between invokes.
    Calls,
    /// Inside `<invoke>`.
    Invoke,
    /// Inside `<parameter>`.
    Param,
    /// Inside a CDATA section of a parameter.
    Cdata,
    /// A failed invoke, skipped to its closer.
    Skip,
}

/// The state of an invoke region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    pub(crate) at: At,
    /// Parameters read in the current invoke.
    params: u16,
    /// The configured tool of the current invoke.
    tool: Option<u16>,
    /// Why the current invoke failed (in `Skip`).
    reason: ErrorReason,
    value: Value,
}

/// Whether the region is still open after an act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Open {
    Yes,
    /// The region's closer was read.
    No,
}

/// The vocabulary of element tags spelled `sp` (attributes allowed).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn elements<'s>(sp: &Spelling<'s>, open: u32, close: u32) -> Vocab<'s> {
    Vocab {
        names: sp.names,
        attrs: true,
        prefixes: sp.prefixes,
        prefix_required: sp.prefix_required,
        open,
        close,
        ..Vocab::EMPTY
    }
}

/// Stray text directly inside a region: its leading whitespace is wire formatting, unless a
/// stray text block is open already; the rest is a depth-1 text block.
pub(crate) fn stray_text(out: &mut Emitter<'_>, d: Decision, window: &[u8]) -> Act {
    let ws = leading_ws(d, window);
    let stray_open = matches!(out.open, Some(o) if o.ty == BlockType::Text && o.depth == 1);
    if !stray_open && ws > 0 {
        Act::skip(ws)
    } else {
        out.content(BlockType::Text, 1, d)
    }
}

impl Region {
    /// A region just opened (nothing read yet).
    pub(crate) const fn new() -> Region {
        Region {
            at: At::Calls,
            params: 0,
            tool: None,
            reason: ErrorReason::MalformedBody,
            value: Value::new(ValueType::Any),
        }
    }

    /// What may appear here (inlined: the caller's constant [`Syntax`] then folds its
    /// spelling function away).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn vocab<'m>(&self, syn: &Syntax, cfg: &'m Settings<'_>) -> Vocab<'m> {
        self.spelled_vocab(syn, &(syn.spelling)(cfg))
    }

    /// [`vocab`](Region::vocab) with the spelling read already (a dialect that reads it
    /// from the description builds the vocabulary inside the description's reader, so the
    /// spelling never goes through memory).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn spelled_vocab<'m>(&self, syn: &Syntax, sp: &Spelling<'m>) -> Vocab<'m> {
        // Without a region element, no element closes one (a marker region's closer is a
        // literal).
        let region = if sp.region() == RegionKind::Element {
            bit(syn.region)
        } else {
            0
        };
        let (invoke, param) = (bit(syn.invoke), bit(syn.param));
        let mut v = match self.at {
            At::Calls => elements(sp, invoke, region),
            At::Invoke => elements(sp, param, invoke | region),
            At::Param if sp.cdata => return elements(sp, 0, param).with_literal(CDATA_OPEN),
            At::Param => return elements(sp, 0, param),
            At::Cdata => return Vocab::EMPTY.with_literal(CDATA_CLOSE),
            At::Skip => elements(sp, 0, invoke | region),
        };
        if let Some(closer) = sp.region_closer() {
            v.add_literal(closer);
        }
        if let (At::Calls, Some((a, b))) = (self.at, sp.inner_markup) {
            v.add_literal(a.as_bytes());
            v.add_literal(b.as_bytes());
        }
        v
    }

    /// Fails the current call as too large: the rest is skipped to its closer.
    pub(crate) fn too_large(&mut self) {
        self.at = At::Skip;
        self.reason = ErrorReason::TooLarge;
    }

    /// What to do with the scanner's decision `d` about the head of `window`.
    pub(crate) fn act(
        &mut self,
        syn: &Syntax,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        d: Decision,
        window: &[u8],
    ) -> (Act, Open) {
        match d {
            Decision::Element(tag) => self.on_tag(syn, cfg, out, tag, &window[..tag.len]),
            Decision::Literal { len, .. } => self.on_literal(syn, cfg, out, &window[..len]),
            Decision::Text(_) | Decision::Invalid(_) => (self.on_text(out, d, window), Open::Yes),
            Decision::NeedMore | Decision::Stop { .. } => (Act::WAIT, Open::Yes),
        }
    }

    /// End of input inside the region: an open invoke completes, an open parameter fails it.
    pub(crate) fn end_of_input(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>) {
        match self.at {
            At::Invoke => self.finish_invoke(cfg, out, At::Calls),
            At::Param | At::Cdata => out.fail_call(ErrorReason::Unfinished, false),
            At::Skip => out.fail_call(self.reason, false),
            At::Calls => {}
        }
        self.at = At::Calls;
    }

    /// A marker cut off by the end of input ([`super::Machine::cut_closer`]): a cut
    /// `</parameter>` (any cut marker but a CDATA opener's prefix) ends the value as the whole
    /// closer would; a cut marker inside an invoke after its complete children completes it,
    /// and one between invokes ends the region; the cut bytes are wire syntax, dropped.
    /// `None`: read the bytes as usual.
    pub(crate) fn cut_closer(
        &mut self,
        syn: &Syntax,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        cut: &[u8],
    ) -> Option<Cut> {
        match self.at {
            At::Param
                if cut == b"<" || !((syn.spelling)(cfg).cdata && CDATA_OPEN.starts_with(cut)) =>
            {
                self.close_param(out);
                Some(Cut::Again)
            }
            At::Invoke | At::Calls => {
                self.end_of_input(cfg, out);
                Some(Cut::Done)
            }
            _ => None,
        }
    }

    fn on_text(&mut self, out: &mut Emitter<'_>, d: Decision, window: &[u8]) -> Act {
        match self.at {
            At::Calls => stray_text(out, d, window),
            At::Invoke => {
                let ws = leading_ws(d, window);
                if ws > 0 {
                    Act::skip(ws)
                } else {
                    self.at = At::Skip;
                    self.reason = ErrorReason::UnexpectedContent;
                    Act::WAIT
                }
            }
            At::Skip => out.skip(d, self.reason),
            At::Param | At::Cdata => {
                value::text(out, &mut self.value, self.at == At::Cdata, d, window)
            }
        }
    }

    fn on_literal(
        &mut self,
        syn: &Syntax,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        lit: &[u8],
    ) -> (Act, Open) {
        let len = lit.len();
        if matches!(self.at, At::Calls | At::Invoke | At::Skip)
            && (syn.spelling)(cfg).region_closer() == Some(lit)
        {
            // A marker region's closer: it ends an open call as `</invoke>` would, and the
            // region.
            match self.at {
                At::Invoke => self.finish_invoke(cfg, out, At::Calls),
                At::Skip => {
                    self.at = At::Calls;
                    return (out.close_skipped(self.reason, len, false), Open::No);
                }
                _ => out.close_content(),
            }
            return (Act::skip(len), Open::No);
        }
        (self.on_value_literal(out, len), Open::Yes)
    }

    /// A literal inside a value (CDATA), or markup between calls (dropped).
    fn on_value_literal(&mut self, out: &mut Emitter<'_>, len: usize) -> Act {
        match self.at {
            At::Param => {
                let v = &mut self.value;
                if v.streaming && v.pending_nl {
                    v.pending_nl = false;
                    let meta = out.meta(Some(Part::Input));
                    return Act {
                        consume: 0,
                        emit: Some((meta, Emit::Static("\\n"))),
                    };
                }
                v.at_start = false;
                if v.cdata_start == NO_CDATA {
                    v.cdata_start = out.value.len() as u32;
                }
                self.at = At::Cdata;
            }
            At::Cdata => {
                self.value.cdata_end = out.value.len() as u32;
                self.at = At::Param;
            }
            _ => {}
        }
        Act::skip(len)
    }

    fn on_tag(
        &mut self,
        syn: &Syntax,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        tag: Tag,
        bytes: &[u8],
    ) -> (Act, Open) {
        let len = tag.len;
        let e = tag.element;
        let opening = !tag.closing;
        match self.at {
            At::Calls if e == syn.region && !opening => {
                out.close_content();
                return (Act::skip(len), Open::No);
            }
            At::Calls if e == syn.invoke && opening => self.open_invoke(cfg, out, tag, bytes),
            At::Invoke if e == syn.param && opening => {
                return (self.open_param(syn, cfg, out, tag, bytes), Open::Yes);
            }
            At::Invoke if e == syn.invoke && !opening => self.finish_invoke(cfg, out, At::Calls),
            At::Invoke if e == syn.region && !opening => {
                self.finish_invoke(cfg, out, At::Calls);
                return (Act::skip(len), Open::No);
            }
            At::Param if e == syn.param && !opening => self.close_param(out),
            At::Skip if e == syn.invoke && !opening => {
                self.at = At::Calls;
                return (out.close_skipped(self.reason, len, true), Open::Yes);
            }
            At::Skip if e == syn.region && !opening => {
                self.at = At::Calls;
                return (out.close_skipped(self.reason, len, false), Open::No);
            }
            // The vocabulary admits no other tag in each context.
            _ => {}
        }
        (Act::skip(len), Open::Yes)
    }

    fn open_invoke(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, tag: Tag, bytes: &[u8]) {
        out.close_content();
        out.open_call(1);
        self.params = 0;
        let name = attr(bytes, tag.name_end, b"name").filter(|n| !n.is_empty());
        let Some(name) = name else {
            // Counted like every call, but it has no name to stream.
            out.calls += 1;
            self.reason = ErrorReason::MissingName;
            if tag.self_closing {
                out.fail_call(self.reason, true);
            } else {
                self.at = At::Skip;
            }
            return;
        };
        out.announce_call(cfg, name);
        self.tool = cfg.tools().find(name).map(|i| i as u16);
        if tag.self_closing {
            self.finish_invoke(cfg, out, At::Calls);
        } else {
            self.at = At::Invoke;
        }
    }

    fn open_param(
        &mut self,
        syn: &Syntax,
        cfg: &Settings<'_>,
        out: &mut Emitter<'_>,
        tag: Tag,
        bytes: &[u8],
    ) -> Act {
        let Some(key) = attr(bytes, tag.name_end, b"name").filter(|k| !k.is_empty()) else {
            // Skipped with the rest of the call (the tag is read again as skipped text).
            self.at = At::Skip;
            self.reason = ErrorReason::MalformedParameter;
            return Act::WAIT;
        };
        // The model's own typing attribute wins over the schema: it says how it wrote the
        // value (a string as is, or JSON).
        let written = (syn.spelling)(cfg)
            .string_attr
            .and_then(|a| attr(bytes, tag.name_end, a.as_bytes()));
        let ty = match (written, value::param_type(cfg, self.tool, key)) {
            (Some(b"true"), _) => ValueType::String,
            (Some(b"false"), ValueType::String) => ValueType::Any,
            (_, declared) => declared,
        };
        self.value = value::open(out, self.params == 0, key, ty);
        self.params += 1;
        self.at = At::Param;
        if tag.self_closing {
            self.close_param(out);
        }
        Act::skip(tag.len)
    }

    fn close_param(&mut self, out: &mut Emitter<'_>) {
        self.at = At::Invoke;
        value::close(out, self.value);
    }

    fn finish_invoke(&mut self, cfg: &Settings<'_>, out: &mut Emitter<'_>, next: At) {
        out.finish_call(cfg, self.params > 0);
        self.at = next;
    }
}
