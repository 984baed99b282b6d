//! The configuration a parser runs with, and the emitter's readers of it: thinking tags,
//! the dialect description (preset or host-written), markers, tools and their options. Each
//! reader answers from the borrowed or the owned config without copying it.

use super::*;

/// The configuration a parser runs with: borrowed, or owned (with `alloc`).
pub(crate) enum Cfg<'a> {
    Borrowed(&'a Config<'a>),
    #[cfg(feature = "alloc")]
    Owned(alloc::boxed::Box<crate::config::ConfigBuf>),
}

impl Cfg<'_> {
    pub(crate) fn config(&self) -> Config<'_> {
        match self {
            Cfg::Borrowed(c) => **c,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => c.config(),
        }
    }
}

/// Yes/no facts of the configuration that the per-decision path asks for, resolved when the
/// emitter is made: each would otherwise be a match over the borrowed or owned config, the
/// host's description or the preset's (measured: a few percent of hermes's instructions).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Facts(u8);

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

impl<'a> Emitter<'a> {
    pub(crate) fn config(&self) -> Config<'_> {
        self.cfg.config()
    }

    #[inline]
    pub(crate) fn thinking_tags(&self) -> (&str, &str) {
        match &self.cfg {
            Cfg::Borrowed(c) => c.thinking_tags(),
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => match (&c.thinking_tags, &c.description) {
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
        let (own, dialect) = match &self.cfg {
            Cfg::Borrowed(c) => (c.description, c.dialect),
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => (c.description.as_ref().map(|d| d.description()), c.dialect),
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
        match &self.cfg {
            Cfg::Borrowed(c) => match &c.description {
                Some(d) => f(d),
                None => f(preset(c.dialect)),
            },
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => match &c.description {
                Some(d) => f(&d.description()),
                None => f(preset(c.dialect)),
            },
        }
    }

    /// [`with_description`](Emitter::with_description) for the invoke shape.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn with_invoke_description<'s, R>(
        &'s self,
        f: impl FnOnce(&Description<'s>) -> R,
    ) -> R {
        self.with_description(spec::preset_invoke, f)
    }

    /// The `[open, close]` markers around a call (json-call) or the calls (xml-params): the
    /// hermes `tool_call_markers` override, else the description's. (Read per vocabulary:
    /// field reads only, no description built.)
    #[inline]
    pub(crate) fn call_markers(&self) -> (&str, &str) {
        match &self.cfg {
            Cfg::Borrowed(c) => match (c.tool_call_markers, &c.description) {
                (Some(m), _) => m,
                (None, Some(d)) => d.wrapper,
                (None, None) => spec::preset_or_hermes(c.dialect).wrapper,
            },
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => match (&c.tool_call_markers, &c.description) {
                (Some((a, b)), _) => (a, b),
                (None, Some(d)) => (&d.wrapper.0, &d.wrapper.1),
                (None, None) => spec::preset_or_hermes(c.dialect).wrapper,
            },
        }
    }

    /// The element name of an xml-params wrapper's closer (`tool_call` for qwen3-coder).
    #[inline]
    pub(crate) fn wrapper_element(&self) -> &[u8] {
        let custom = match &self.cfg {
            Cfg::Borrowed(c) => {
                c.description.is_some()
                    || c.tool_call_markers.is_some()
                    || c.dialect != Dialect::Qwen3Coder
            }
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => {
                c.description.is_some()
                    || c.tool_call_markers.is_some()
                    || c.dialect != Dialect::Qwen3Coder
            }
        };
        if custom {
            crate::config::closing_tag_name(self.call_markers().1).map_or(b"", str::as_bytes)
        } else {
            b"tool_call"
        }
    }

    /// The `[open, close]` markup tags of a json-call description: its `markup` pair and
    /// its `more_markup` pair, if any (the host's, else the preset's).
    #[inline]
    pub(crate) fn markup(&self) -> [Option<(&str, &str)>; 2] {
        self.with_description(spec::preset_or_hermes, |d| {
            [d.markup, super::pair_of(d.more_markup)]
        })
    }

    /// Whether a bare JSON list at the message start is calls (`bare_array`).
    #[inline]
    pub(crate) fn bare_array(&self) -> bool {
        self.facts.has(Facts::BARE_ARRAY)
    }

    /// Whether a json-call object's key is the tool name (`name_as_key`).
    #[inline]
    pub(crate) fn name_as_key(&self) -> bool {
        self.facts.has(Facts::NAME_AS_KEY)
    }

    /// Whether the description has `markup` (a pair, or two) to drop.
    #[inline]
    pub(crate) fn has_markup(&self) -> bool {
        self.facts.has(Facts::MARKUP)
    }

    /// Whether the call markers' closer is empty (the JSON value's end ends the calls).
    #[inline]
    pub(crate) fn closer_is_empty(&self) -> bool {
        self.facts.has(Facts::NO_CLOSER)
    }

    /// The invoke shape's region: `(markers, none)` — a marker pair instead of an element,
    /// or no region at all (both false: an element).
    #[inline]
    pub(crate) fn invoke_region(&self) -> (bool, bool) {
        (
            self.facts.has(Facts::INVOKE_MARKERS),
            self.facts.has(Facts::INVOKE_NO_REGION),
        )
    }

    /// Other spellings of the thinking markers (`[open, close, …]`).
    #[inline]
    pub(crate) fn thinking_alternates(&self) -> StrList<'_> {
        match &self.cfg {
            Cfg::Borrowed(c) => c.thinking_alternates,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => StrList::Owned(&c.thinking_alternates),
        }
    }

    /// The other spellings of the thinking markers, as the scanner matches them beside a
    /// context's vocabulary (reported as the marker in force they spell otherwise); `None`
    /// without any (the common case: the scanner's plain entry points are used).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(crate) fn thinking_alt(&self) -> Option<crate::scan::Alt<'_>> {
        if !self.facts.has(Facts::THINKING_ALTERNATES) {
            return None;
        }
        let (open, close) = self.thinking_tags();
        Some(crate::scan::Alt {
            spellings: self.thinking_alternates(),
            open: open.as_bytes(),
            close: close.as_bytes(),
        })
    }

    /// Reads the facts the per-decision path asks for (once, at construction).
    pub(super) fn resolve_facts(&self) -> Facts {
        let mut bits = 0;
        if !self.thinking_alternates().is_empty() {
            bits |= Facts::THINKING_ALTERNATES;
        }
        if self.bare_array_lookup() {
            bits |= Facts::BARE_ARRAY;
        }
        if self.name_as_key_lookup() {
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

    fn bare_array_lookup(&self) -> bool {
        self.with_description(spec::preset_or_hermes, |d| d.bare_array)
    }

    fn name_as_key_lookup(&self) -> bool {
        self.with_description(spec::preset_or_hermes, |d| d.name_as_key)
    }

    /// The `[open, close]` markers of a tool result (json-call), if the format has them.
    #[inline]
    pub(crate) fn result_markers(&self) -> Option<(&str, &str)> {
        self.with_description(spec::preset_or_hermes, |d| d.result_wrapper)
    }

    /// With `unknown_tools: "fail"`: the open call's name is not a configured tool.
    pub(crate) fn unknown_tool(&self) -> bool {
        let fail = match &self.cfg {
            Cfg::Borrowed(c) => c.unknown_tools == UnknownTools::Fail,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => c.unknown_tools == UnknownTools::Fail,
        };
        let name = self
            .strs
            .bytes()
            .get(..self.name_len as usize)
            .unwrap_or(&[]);
        fail && self.tools().find(name).is_none()
    }

    pub(crate) fn tools(&self) -> ToolList<'_> {
        match &self.cfg {
            Cfg::Borrowed(c) => c.tools,
            #[cfg(feature = "alloc")]
            Cfg::Owned(c) => ToolList::Owned(&c.tools),
        }
    }
}
