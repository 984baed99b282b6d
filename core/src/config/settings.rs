//! The configuration a parser runs with, as the driver holds it and hands it to the dialect
//! machines and the emitter: borrowed or owned, yes/no facts of it resolved once, and the
//! readers of it (thinking tags, the dialect description — preset or host-written — markers,
//! tools, stop sequences). Each reader answers from the borrowed or the owned config without
//! copying it.
//!
//! The driver (`sieve::driver`) owns the [`Settings`] beside the emitter and passes them by
//! reference to every call into a machine (`vocab`, `act`, `end_of_input`, `cut_closer`);
//! the emitter holds no configuration and is given what it needs (the id prefix, the tools,
//! the stop sequences) by the calls that need it. This module reads the configuration only:
//! it imports `config` and `spec`, never `emit`, `dialect` or `scan`.

use super::{Config, OnMalformed, StrList, ToolList, UnknownTools};
use crate::spec::{self, Description, Dialect};

/// The configuration a parser runs with: borrowed, or owned (with `alloc`).
pub(crate) enum Cfg<'a> {
    Borrowed(&'a Config<'a>),
    #[cfg(feature = "alloc")]
    Owned(alloc::boxed::Box<super::ConfigBuf>),
}

/// Yes/no facts of the configuration that the per-decision path asks for, resolved when the
/// settings are made: each would otherwise be a match over the borrowed or owned config, the
/// host's description or the preset's (measured: a few percent of hermes's instructions).
#[derive(Clone, Copy, Debug, Default)]
struct Facts(u8);

impl Facts {
    const BARE_ARRAY: u8 = 1;
    const NAME_AS_KEY: u8 = 2;
    const MARKUP: u8 = 4;
    const NO_CLOSER: u8 = 8;
    const INVOKE_MARKERS: u8 = 16;
    const INVOKE_NO_REGION: u8 = 32;
    const THINKING_ALTERNATES: u8 = 64;

    #[inline]
    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// The configuration in force, as the driver hands it to the dialects (see the module docs).
///
/// The facts and the prefill flag sit inside the variants, beside the enum's tag: a field
/// beside the enum would cost the parser state 8 bytes of padding (over its 512).
pub(crate) struct Settings<'a> {
    held: Held<'a>,
}

enum Held<'a> {
    Borrowed(&'a Config<'a>, Flags),
    #[cfg(feature = "alloc")]
    Owned(alloc::boxed::Box<super::ConfigBuf>, Flags),
}

#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    /// What the per-decision path asks of the config, read once.
    facts: Facts,
    /// The driver is replaying a prefill: stop sequences do not apply.
    prefilling: bool,
}

impl<'a> Settings<'a> {
    /// The settings of `cfg`, its facts resolved.
    pub(crate) fn new(cfg: Cfg<'a>) -> Settings<'a> {
        let flags = Flags::default();
        let mut settings = Settings {
            held: match cfg {
                Cfg::Borrowed(c) => Held::Borrowed(c, flags),
                #[cfg(feature = "alloc")]
                Cfg::Owned(c) => Held::Owned(c, flags),
            },
        };
        let facts = settings.resolve_facts();
        settings.flags_mut().facts = facts;
        settings
    }

    #[inline(always)]
    fn flags(&self) -> Flags {
        match &self.held {
            Held::Borrowed(_, f) => *f,
            #[cfg(feature = "alloc")]
            Held::Owned(_, f) => *f,
        }
    }

    fn flags_mut(&mut self) -> &mut Flags {
        match &mut self.held {
            Held::Borrowed(_, f) => f,
            #[cfg(feature = "alloc")]
            Held::Owned(_, f) => f,
        }
    }

    /// Whether a prefill is being replayed (then [`stops`](Settings::stops) is empty).
    #[inline]
    pub(crate) fn prefilling(&self) -> bool {
        self.flags().prefilling
    }

    /// The driver starts (`true`) or ends replaying a prefill.
    pub(crate) fn set_prefilling(&mut self, on: bool) {
        self.flags_mut().prefilling = on;
    }

    pub(crate) fn config(&self) -> Config<'_> {
        match &self.held {
            Held::Borrowed(c, _) => **c,
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => c.config(),
        }
    }

    #[inline]
    pub(crate) fn thinking_tags(&self) -> (&str, &str) {
        match &self.held {
            Held::Borrowed(c, _) => c.thinking_tags(),
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => match (&c.thinking_tags, &c.description) {
                (Some((a, b)), _) => (a, b),
                (None, Some(d)) => (&d.thinking_tags.0, &d.thinking_tags.1),
                (None, None) => c.dialect.default_thinking_tags(),
            },
        }
    }

    /// The description in force: the host's, else the preset's; for the machines of their
    /// own that read JSON call bodies (mistral, llama3-json), hermes's keys.
    #[inline]
    pub(crate) fn description(&self) -> Description<'_> {
        let (own, dialect) = match &self.held {
            Held::Borrowed(c, _) => (c.description, c.dialect),
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => (c.description.as_ref().map(|d| d.description()), c.dialect),
        };
        own.or(Description::preset(dialect))
            .unwrap_or(Description::json_keys())
    }

    /// Calls `f` with the description in force — the host's, else the preset's (`preset`
    /// gives the constant, for a dialect of the shape or any other) — by reference: no copy
    /// of the description on the per-decision path (borrowed configs and presets).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn with_description<'s, R>(
        &'s self,
        preset: fn(Dialect) -> &'static Description<'static>,
        f: impl FnOnce(&Description<'s>) -> R,
    ) -> R {
        match &self.held {
            Held::Borrowed(c, _) => match &c.description {
                Some(d) => f(d),
                None => f(preset(c.dialect)),
            },
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => match &c.description {
                Some(d) => f(&d.description()),
                None => f(preset(c.dialect)),
            },
        }
    }

    /// [`with_description`](Settings::with_description) with an owned config's description
    /// read out of line: it is assembled on the stack, and inlined it costs a reader that
    /// builds a vocabulary per decision (glm's, minimax's) a large frame and saved
    /// registers on the borrowed path (measured: −0.7 M instructions on minimax-m2 at 4 B;
    /// the sectioned machine is cheaper with the inlined reader).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn with_description_outlined<'s, R>(
        &'s self,
        preset: fn(Dialect) -> &'static Description<'static>,
        f: impl FnOnce(&Description<'s>) -> R,
    ) -> R {
        match &self.held {
            Held::Borrowed(c, _) => match &c.description {
                Some(d) => f(d),
                None => f(preset(c.dialect)),
            },
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => with_owned_description(c, preset, f),
        }
    }

    /// [`with_description`](Settings::with_description) for the invoke shape.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn with_invoke_description<'s, R>(
        &'s self,
        f: impl FnOnce(&Description<'s>) -> R,
    ) -> R {
        self.with_description_outlined(spec::preset_invoke, f)
    }

    /// The `[open, close]` markers around a call (json-call) or the calls (xml-params): the
    /// hermes `tool_call_markers` override, else the description's. (Read per vocabulary:
    /// field reads only, no description built.)
    #[inline]
    pub(crate) fn call_markers(&self) -> (&str, &str) {
        match &self.held {
            Held::Borrowed(c, _) => match (c.tool_call_markers, &c.description) {
                (Some(m), _) => m,
                (None, Some(d)) => d.wrapper,
                (None, None) => spec::preset_or_hermes(c.dialect).wrapper,
            },
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => match (&c.tool_call_markers, &c.description) {
                (Some((a, b)), _) => (a, b),
                (None, Some(d)) => (&d.wrapper.0, &d.wrapper.1),
                (None, None) => spec::preset_or_hermes(c.dialect).wrapper,
            },
        }
    }

    /// The element name of an xml-params wrapper's closer (`tool_call` for qwen3-coder).
    #[inline]
    pub(crate) fn wrapper_element(&self) -> &[u8] {
        let custom = match &self.held {
            Held::Borrowed(c, _) => {
                c.description.is_some()
                    || c.tool_call_markers.is_some()
                    || c.dialect != Dialect::Qwen3Coder
            }
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => {
                c.description.is_some()
                    || c.tool_call_markers.is_some()
                    || c.dialect != Dialect::Qwen3Coder
            }
        };
        if custom {
            super::closing_tag_name(self.call_markers().1).map_or(b"", str::as_bytes)
        } else {
            b"tool_call"
        }
    }

    /// The `[open, close]` markup tags of a json-call description: its `markup` pair and
    /// its `more_markup` pair, if any (the host's, else the preset's).
    #[inline]
    pub(crate) fn markup(&self) -> [Option<(&str, &str)>; 2] {
        self.with_description(spec::preset_or_hermes, |d| {
            [d.markup, pair_of(d.more_markup)]
        })
    }

    /// Whether a bare JSON list at the message start is calls (`bare_array`).
    #[inline]
    pub(crate) fn bare_array(&self) -> bool {
        self.flags().facts.has(Facts::BARE_ARRAY)
    }

    /// Whether a json-call object's key is the tool name (`name_as_key`).
    #[inline]
    pub(crate) fn name_as_key(&self) -> bool {
        self.flags().facts.has(Facts::NAME_AS_KEY)
    }

    /// Whether the description has `markup` (a pair, or two) to drop.
    #[inline]
    pub(crate) fn has_markup(&self) -> bool {
        self.flags().facts.has(Facts::MARKUP)
    }

    /// Whether the call markers' closer is empty (the JSON value's end ends the calls).
    #[inline]
    pub(crate) fn closer_is_empty(&self) -> bool {
        self.flags().facts.has(Facts::NO_CLOSER)
    }

    /// The invoke shape's region: `(markers, none)` — a marker pair instead of an element,
    /// or no region at all (both false: an element).
    #[inline]
    pub(crate) fn invoke_region(&self) -> (bool, bool) {
        (
            self.flags().facts.has(Facts::INVOKE_MARKERS),
            self.flags().facts.has(Facts::INVOKE_NO_REGION),
        )
    }

    /// Other spellings of the thinking markers (`[open, close, …]`).
    #[inline]
    pub(crate) fn thinking_alternates(&self) -> StrList<'_> {
        match &self.held {
            Held::Borrowed(c, _) => c.thinking_alternates,
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => StrList::Owned(&c.thinking_alternates),
        }
    }

    /// Whether the config has other spellings of the thinking markers (rarely: the scanner's
    /// plain entry points are used without).
    #[inline(always)]
    pub(crate) fn has_thinking_alternates(&self) -> bool {
        self.flags().facts.has(Facts::THINKING_ALTERNATES)
    }

    /// Reads the facts the per-decision path asks for (once, at construction).
    fn resolve_facts(&self) -> Facts {
        let mut bits = 0;
        if !self.thinking_alternates().is_empty() {
            bits |= Facts::THINKING_ALTERNATES;
        }
        if self.with_description(spec::preset_or_hermes, |d| d.bare_array) {
            bits |= Facts::BARE_ARRAY;
        }
        if self.with_description(spec::preset_or_hermes, |d| d.name_as_key) {
            bits |= Facts::NAME_AS_KEY;
        }
        if self.markup().iter().any(Option::is_some) {
            bits |= Facts::MARKUP;
        }
        if self.call_markers().1.is_empty() {
            bits |= Facts::NO_CLOSER;
        }
        // The invoke shape: an unnamed region element makes the wrapper pair the region, or
        // (no wrapper either) leaves the calls standing in text.
        bits |= self.with_invoke_description(|d| match d.elements.get(0) {
            Some("") if !d.wrapper.0.is_empty() => Facts::INVOKE_MARKERS,
            Some("") => Facts::INVOKE_NO_REGION,
            _ => 0,
        });
        Facts(bits)
    }

    /// The `[open, close]` markers of a tool result (json-call), if the format has them.
    #[inline]
    pub(crate) fn result_markers(&self) -> Option<(&str, &str)> {
        self.with_description(spec::preset_or_hermes, |d| d.result_wrapper)
    }

    /// With `unknown_tools: "fail"`: `name` (a completed call's) is not a configured tool.
    pub(crate) fn unknown_tool(&self, name: &[u8]) -> bool {
        let fail = match &self.held {
            Held::Borrowed(c, _) => c.unknown_tools == UnknownTools::Fail,
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => c.unknown_tools == UnknownTools::Fail,
        };
        fail && self.tools().find(name).is_none()
    }

    pub(crate) fn tools(&self) -> ToolList<'_> {
        match &self.held {
            Held::Borrowed(c, _) => c.tools,
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => ToolList::Owned(&c.tools),
        }
    }

    /// The stop sequences in force: none while a prefill is replayed.
    #[inline]
    pub(crate) fn stops(&self) -> StrList<'_> {
        if self.prefilling() {
            // A prefill is never scanned for stop sequences.
            return StrList::Strs(&[]);
        }
        match &self.held {
            Held::Borrowed(c, _) => c.stop_sequences,
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => StrList::Owned(&c.stop_sequences),
        }
    }

    /// The prefix of the call ids the parser makes (`{id_prefix}{n}`).
    pub(crate) fn id_prefix(&self) -> &[u8] {
        match &self.held {
            Held::Borrowed(c, _) => c.id_prefix.as_bytes(),
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => c.id_prefix.as_bytes(),
        }
    }

    /// What happens to a failed call's raw text.
    pub(crate) fn on_malformed(&self) -> OnMalformed {
        match &self.held {
            Held::Borrowed(c, _) => c.on_malformed,
            #[cfg(feature = "alloc")]
            Held::Owned(c, _) => c.on_malformed,
        }
    }
}

/// [`Settings::with_description_outlined`] for an owned config (see there).
#[cfg(feature = "alloc")]
#[inline(never)]
fn with_owned_description<'s, R>(
    c: &'s super::ConfigBuf,
    preset: fn(Dialect) -> &'static Description<'static>,
    f: impl FnOnce(&Description<'s>) -> R,
) -> R {
    match &c.description {
        Some(d) => f(&d.description()),
        None => f(preset(c.dialect)),
    }
}

/// The two markers of a `more_markup` list, as a pair.
fn pair_of(l: StrList<'_>) -> Option<(&str, &str)> {
    Some((l.get(0)?, l.get(1)?))
}
