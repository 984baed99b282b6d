//! What a dialect is, as data: the preset names ([`Dialect`]), the grammar shapes
//! ([`Shape`]) and the descriptions that parameterise them ([`Description`]).
//!
//! This module is a leaf: it imports nothing of the crate. The configuration (`config`)
//! holds a [`Dialect`] and, optionally, a host-written [`Description`]; the dialect machines
//! (`dialect/`) read their markers from the description in force — the preset's, or the
//! host's — so a new model family that re-skins a known grammar needs a description of a
//! few lines, not a release (docs/design.md, "Dialect descriptions").
//!
//! ```
//! use tokensieve::{Description, Dialect, Shape};
//! let qwen = Description::preset(Dialect::Qwen3Coder).unwrap();
//! assert_eq!(qwen.shape, Shape::XmlParams);
//! // Seed-OSS is qwen3-coder inside other markers:
//! let seed = Description {
//!     wrapper: ("<seed:tool_call>", "</seed:tool_call>"),
//!     thinking_tags: ("<seed:think>", "</seed:think>"),
//!     ..qwen
//! };
//! assert_eq!(seed.shape, Shape::XmlParams);
//! ```

use core::fmt;

/// A list of strings, borrowed (`no_std`) or owned (with `alloc`): stop sequences, key names.
#[derive(Clone, Copy, Debug)]
pub enum StrList<'a> {
    /// Borrowed string slices (what a `no_std` host writes).
    Strs(&'a [&'a str]),
    /// Owned strings (what [`ConfigBuf`](crate::ConfigBuf) holds).
    #[cfg(feature = "alloc")]
    Owned(&'a [alloc::boxed::Box<str>]),
}

impl<'a> StrList<'a> {
    /// Number of strings.
    pub fn len(&self) -> usize {
        match self {
            StrList::Strs(s) => s.len(),
            #[cfg(feature = "alloc")]
            StrList::Owned(s) => s.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th string.
    pub fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            StrList::Strs(s) => s.get(i).copied(),
            #[cfg(feature = "alloc")]
            StrList::Owned(s) => s.get(i).map(|b| &**b),
        }
    }

    /// The strings in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Whether `bytes` is one of the strings.
    pub fn contains(&self, bytes: &[u8]) -> bool {
        self.iter().any(|s| s.as_bytes() == bytes)
    }
}

impl<'a> From<&'a [&'a str]> for StrList<'a> {
    fn from(s: &'a [&'a str]) -> Self {
        StrList::Strs(s)
    }
}

/// Generates the public [`Dialect`] enum and its table from one list:
/// `Variant = C code, "config-name", ("thinking open", "thinking close");`.
macro_rules! dialects {
    ($($(#[doc = $doc:literal])* $variant:ident = $code:literal, $name:literal, $think:expr;)*) => {
        /// A preset: a wire format by name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Dialect {
            $($(#[doc = $doc])* $variant = $code,)*
        }

        impl Dialect {
            /// Every dialect, in declaration order (their codes are 0, 1, 2, …).
            pub const ALL: [Dialect; [$($code),*].len()] = [$(Dialect::$variant),*];

            /// The dialect's name in configs (`anthropic-xml`, …).
            ///
            /// ```
            /// use tokensieve::Dialect;
            /// assert_eq!(Dialect::from_name("anthropic-xml"), Some(Dialect::AnthropicXml));
            /// assert_eq!(Dialect::AnthropicXml.name(), "anthropic-xml");
            /// ```
            pub const fn name(self) -> &'static str {
                match self {
                    $(Dialect::$variant => $name,)*
                }
            }

            /// The default `[open, close]` thinking markers.
            ///
            /// ```
            /// use tokensieve::Dialect;
            /// assert_eq!(Dialect::Hermes.default_thinking_tags(), ("<think>", "</think>"));
            /// ```
            // Inlined: read per vocabulary by the dialects whose config leaves the markers
            // to the preset (an out-of-line call here cost glm-4.5 0.4 %).
            #[inline]
            pub const fn default_thinking_tags(self) -> (&'static str, &'static str) {
                match self {
                    $(Dialect::$variant => $think,)*
                }
            }
        }
    };
}

const THINK: (&str, &str) = ("<think>", "</think>");
const THINKING: (&str, &str) = ("<thinking>", "</thinking>");

dialects! {
    /// All text, plus thinking markers and stop sequences.
    Passthrough = 0, "passthrough", THINKING;
    /// `<thinking>`, `<function_calls><invoke name=…>`, `<function_results>`.
    AnthropicXml = 1, "anthropic-xml", THINKING;
    /// `<tool_call>{json}</tool_call>` (JSON-mix): the json-call shape's preset.
    Hermes = 2, "hermes", THINK;
    /// `<tool_name><arg>…</arg></tool_name>`.
    MorphXml = 3, "morph-xml", THINK;
    /// `<tool_call><function=N><parameter=K>…`: the xml-params shape's preset.
    Qwen3Coder = 4, "qwen3-coder", THINK;
    /// `<minimax:tool_call><invoke name="N"><parameter name="K">…` (MiniMax M2).
    MinimaxM2 = 5, "minimax-m2", THINK;
    /// `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>` (GLM 4.5–4.7).
    Glm45 = 6, "glm-4.5", THINK;
    /// OpenAI gpt-oss: `<|channel|>analysis<|message|>…<|end|>`, calls
    /// `<|channel|>commentary to=functions.N <|constrain|>json<|message|>{…}<|call|>`.
    Harmony = 7, "harmony", ("<|channel|>analysis<|message|>", "<|end|>");
    /// `<|tool_calls_section_begin|><|tool_call_begin|>functions.N:0<|tool_call_argument_begin|>{json}…` (Kimi K2).
    KimiK2 = 8, "kimi-k2", THINK;
    /// `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>N<｜tool▁sep｜>{json}<｜tool▁call▁end｜>…` (DeepSeek V3.1).
    DeepSeekV31 = 9, "deepseek-v3.1", THINK;
    /// `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>N` + a ```` ```json ```` fenced body (DeepSeek V3, R1).
    DeepSeekV3 = 10, "deepseek-v3", THINK;
    /// `[TOOL_CALLS]NAME[ARGS]{…}` or `[TOOL_CALLS][{"name": N, "arguments": {…}}]`, `[THINK]`
    /// (Mistral, Magistral, Devstral).
    Mistral = 11, "mistral", ("[THINK]", "[/THINK]");
    /// `{"name": N, "parameters": {…}}` as the whole message or after `<|python_tag|>`, several
    /// separated by `;` (Llama 3.1–3.3).
    Llama3Json = 12, "llama3-json", THINK;
    /// `[get_weather(city="Paris"), get_time()]`, optionally in
    /// `<|python_start|>…<|python_end|>` (Llama 3.2/4, ToolACE).
    Pythonic = 13, "pythonic", THINK;
    /// DSML: `<｜DSML｜function_calls><｜DSML｜invoke name="N"><｜DSML｜parameter name="K"
    /// string="true|false">…` (DeepSeek V3.2): the invoke shape's preset with a prefix.
    DeepSeekV32 = 14, "deepseek-v3.2", THINK;
    /// DSML with `<｜DSML｜tool_calls>` as the region (DeepSeek V4).
    DeepSeekV4 = 15, "deepseek-v4", THINK;
    /// `<seed:tool_call><function=N><parameter=K>…` and `<seed:think>` (ByteDance Seed-OSS):
    /// the xml-params shape's preset with Seed's markers.
    SeedOss = 16, "seed-oss", ("<seed:think>", "</seed:think>");
    /// `<function_calls>f(a=1)\ng(b=true)</function_calls>` (AllenAI Olmo 3): pythonic calls
    /// one per line inside a wrapper.
    Olmo3 = 17, "olmo-3", THINK;
    /// `<|tool_call_start|>[f(a=1)]<|tool_call_end|>` (Liquid LFM2): the pythonic list in
    /// LFM2's markers.
    Lfm2 = 18, "lfm2", THINK;
    /// `<|tool_call>call:N{k:<|"|>v<|"|>,n:42}<tool_call|>`, thinking
    /// `<|channel>thought\n…<channel|>` (Google Gemma 4).
    Gemma4 = 19, "gemma-4", ("<|channel>", "<channel|>");
    /// `<start_function_call>call:N{k:<escape>v<escape>}<end_function_call>` (Google
    /// FunctionGemma).
    FunctionGemma = 20, "functiongemma", THINK;
    /// `<|START_ACTION|>[{"tool_name": N, "parameters": {…}}]<|END_ACTION|>`,
    /// `<|START_THINKING|>`, `<|START_RESPONSE|>`/`<|START_TEXT|>` wrappers as markup (Cohere
    /// Command R7B, Command A): the json-call shape's preset with Cohere's markers.
    CohereCommand = 22, "cohere-command", ("<|START_THINKING|>", "<|END_THINKING|>");
    /// `<|tools_prefix|>[{"N": {…}}]<|tools_suffix|>`: the object's key is the tool name;
    /// thinking `<|inner_prefix|>…<|inner_suffix|>` (Swiss AI Apertus).
    Apertus = 23, "apertus", ("<|inner_prefix|>", "<|inner_suffix|>");
    /// `<|tool_call|>[{"name": N, "arguments": {…}}]` with no closer: the array's end ends
    /// the calls (IBM Granite 3.x); `<think>`, a `<response>` wrapper as markup.
    Granite = 24, "granite", THINK;
    /// `functools[{"name": N, "arguments": {…}}]` with no closer (Microsoft Phi-4-mini).
    Phi4Mini = 25, "phi-4-mini", THINK;
    /// A bare JSON list `[{"name": N, "arguments": {…}}]` as the whole message, or in a
    /// ```` ```json ```` fence (Salesforce xLAM).
    Xlam = 26, "xlam", THINK;
    /// `<function name="N"><param name="K"><![CDATA[V]]></param></function>` standing in
    /// text (OpenBMB MiniCPM5): the invoke shape without a region.
    MiniCpm5 = 27, "minicpm5", THINK;
    /// `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke
    /// name="N"><steptml:parameter name="K">V</steptml:parameter></steptml:invoke>…`
    /// (StepFun Step-3, Step-3.5): the invoke shape in a region of special tokens.
    Step3 = 28, "step-3", THINK;
    /// `<tool_calls><tool_call>N<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value>…
    /// </tool_call></tool_calls>`, `<think>`, an `<answer>` wrapper as markup (Tencent
    /// Hunyuan HY3): the key-value shape's preset with a separator.
    Hunyuan = 29, "hunyuan", THINK;
    /// `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="N">]<]minimax[>[<k>V]<]minimax[>[</k>…`:
    /// every structural tag after the namespace token, arguments as elements named by
    /// their key (objects and arrays written by element), `<mm:think>` (MiniMax M3).
    MinimaxM3 = 30, "minimax-m3", ("<mm:think>", "</mm:think>");
    /// Typed content blocks `<|message_model|><|content_KIND|>…<|end_message|>`: text,
    /// thinking (`<|content_thinking|>`) and calls
    /// `<|content_invoke_tool_json|>{"name": N, "args": {…}}<|end_message|>` (Inkling): the
    /// json-call shape's preset with the block markers as markup.
    Inkling = 31, "inkling", ("<|content_thinking|>", "<|end_message|>");
    /// Kimi K3's XTML (Moonshot): channels of special tokens,
    /// `<|open|>tools<|sep|><|open|>call tool="N" index="I"<|sep|><|open|>argument key="K"
    /// type="T"<|sep|>V<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
    /// thinking in the `think` channel, text in the `response` channel.
    KimiK3 = 32, "kimi-k3", ("<|open|>think<|sep|>", "<|close|>think<|sep|>");
}

impl Dialect {
    /// Looks a dialect up by its config name, or by one of the [`ALIASES`](Dialect::ALIASES)
    /// of a family whose format is another's.
    ///
    /// ```
    /// use tokensieve::Dialect;
    /// assert_eq!(Dialect::from_name("hermes"), Some(Dialect::Hermes));
    /// assert_eq!(Dialect::from_name("Hermes"), None);
    /// assert_eq!(Dialect::from_name("glm-4.7"), Some(Dialect::Glm45));
    /// ```
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .or_else(|| Dialect::ALIASES.iter().find(|a| a.0 == name).map(|a| a.1))
    }

    /// Config names of families that write another preset's format: GLM-4.7 and GLM-5 write
    /// glm-4.5's calls (with or without the newlines, which glm-4.5 reads either way). A
    /// parser made from an alias reports the preset's name.
    pub const ALIASES: [(&'static str, Dialect); 2] =
        [("glm-4.7", Dialect::Glm45), ("glm-5", Dialect::Glm45)];

    /// Whether this build can parse the dialect (every dialect it names; kept so bindings can
    /// ask).
    pub const fn is_supported(self) -> bool {
        let _ = self;
        true
    }
}

/// A grammar shape: a family of wire formats that differ only in their markers and names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// One JSON object per call (or an array of them) between two markers, with the tool
    /// name and the arguments under configurable keys (hermes; Qwen 2.5/3, Hermes, …).
    JsonCall,
    /// A wrapper around `<function=N>` elements holding `<parameter=K>value</parameter>`
    /// (qwen3-coder; Seed-OSS, Nemotron 3, Qwen3.5/3.6, Step-3.5).
    XmlParams,
    /// A region element holding `<invoke name="N">` calls holding `<parameter name="K">`
    /// values, the element names and their prefix configurable (minimax-m2; DeepSeek's
    /// DSML).
    Invoke,
    /// Python-style calls with keyword arguments, `[f(a=1), g()]`, the list optionally
    /// inside a wrapper pair — or, with `bare_calls`, the calls one per line inside the
    /// wrapper without brackets (pythonic; LFM2, Olmo 3).
    Pythonic,
    /// A call element holding the tool name, an optional separator element, then
    /// `<key>K</key><value>V</value>` pairs (glm-4.5; Hunyuan HY3's `<tool_sep>`).
    ///
    /// ```
    /// use tokensieve::{Config, Description, Dialect, Shape, StrList};
    /// let hy3 = Description::preset(Dialect::Hunyuan).unwrap();
    /// assert_eq!(hy3.shape, Shape::KeyValue);
    /// assert_eq!(hy3.elements.get(2), Some("tool_sep"));
    /// // A family with other element names, described by a host:
    /// let mine = Description { elements: StrList::Strs(&["k", "v"]), ..hy3 };
    /// let config = Config { description: Some(mine), ..Config::new(Dialect::Glm45) };
    /// assert!(config.validate().is_ok());
    /// ```
    KeyValue,
    /// A section between special tokens holding calls, each a header (the name, or an id
    /// naming it, as Kimi's `functions.NAME:IDX`) and a JSON body between two more
    /// (kimi-k2, deepseek-v3.1, deepseek-v3).
    ///
    /// ```
    /// use tokensieve::{Config, Description, Dialect, Shape, StrList};
    /// let kimi = Description::preset(Dialect::KimiK2).unwrap();
    /// assert_eq!(kimi.shape, Shape::Sectioned);
    /// assert!(kimi.wire_id);
    /// // A family with its own special tokens, described by a host:
    /// let mine = Description {
    ///     wrapper: ("<|calls|>", "<|/calls|>"),
    ///     call_markers: ("<|call|>", "<|/call|>"),
    ///     header_ends: StrList::Strs(&["<|args|>"]),
    ///     wire_id: false,
    ///     ..kimi
    /// };
    /// let config = Config { description: Some(mine), ..Config::new(Dialect::KimiK2) };
    /// assert!(config.validate().is_ok());
    /// ```
    Sectioned,
}

impl Shape {
    /// Every shape a description can name.
    pub const ALL: [Shape; 6] = [
        Shape::JsonCall,
        Shape::XmlParams,
        Shape::Invoke,
        Shape::Pythonic,
        Shape::KeyValue,
        Shape::Sectioned,
    ];

    /// The shape's name in configs (`json-call`, `xml-params`, `invoke`, `pythonic`,
    /// `key-value`, `sectioned`).
    pub const fn name(self) -> &'static str {
        match self {
            Shape::JsonCall => "json-call",
            Shape::XmlParams => "xml-params",
            Shape::Invoke => "invoke",
            Shape::Pythonic => "pythonic",
            Shape::KeyValue => "key-value",
            Shape::Sectioned => "sectioned",
        }
    }

    /// Looks a shape up by its config name.
    ///
    /// ```
    /// use tokensieve::Shape;
    /// assert_eq!(Shape::from_name("xml-params"), Some(Shape::XmlParams));
    /// ```
    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The preset whose machine reads this shape (and whose description gives the defaults
    /// of a host's description).
    pub const fn preset(self) -> Dialect {
        match self {
            Shape::JsonCall => Dialect::Hermes,
            Shape::XmlParams => Dialect::Qwen3Coder,
            Shape::Invoke => Dialect::MinimaxM2,
            Shape::Pythonic => Dialect::Pythonic,
            Shape::KeyValue => Dialect::Glm45,
            Shape::Sectioned => Dialect::KimiK2,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect as data: a [`Shape`] and the markers and names that make a family's format.
///
/// The presets' descriptions come from [`Description::preset`]; a host describes a new
/// family by changing the fields that differ (see the module example) and puts it in
/// [`Config::description`](crate::Config::description) — or, in the JSON config, gives an
/// object as `"dialect"`. It is validated when the parser is made, with an error that names
/// the field. It lives in the configuration's memory, never in the parser state.
#[derive(Clone, Copy, Debug)]
pub struct Description<'a> {
    /// The grammar shape.
    pub shape: Shape,
    /// `[open, close]` around one call (json-call) or around the calls (the xml-params
    /// wrapper; pythonic: markers around the list, dropped, or with
    /// [`bare_calls`](Description::bare_calls) what opens and closes the calls). A json-call
    /// closer may be empty: no closer, the JSON value's end ends the call or the array of
    /// calls (granite, phi-4-mini). An xml-params closer is a closing tag, `</name>`. Not
    /// read by the invoke shape, whose region is an element of
    /// [`elements`](Description::elements). key-value: the call element's tags,
    /// `<name>`/`</name>` (`<tool_call>`/`</tool_call>`). sectioned: the section's markers
    /// (`<|tool_calls_section_begin|>`, `<|tool_calls_section_end|>`).
    pub wrapper: (&'a str, &'a str),
    /// json-call: `[open, close]` around a tool result the model writes (a `tool_result`
    /// block); `None`: none is recognised.
    pub result_wrapper: Option<(&'a str, &'a str)>,
    /// json-call and key-value: `[open, close]` tags that wrap the answer or the calls as
    /// markup, not content (Hunyuan's `<answer>…</answer>`, HY3's `<tool_calls>…</tool_calls>`
    /// around its calls): dropped wherever they stand in text; `None`: none. key-value: an
    /// opener of this pair at the start of a line inside thinking yields to the calls like
    /// the call opener (docs/design.md, "Thinking that yields to tool calls").
    pub markup: Option<(&'a str, &'a str)>,
    /// json-call: the keys that hold the tool name (the first present counts).
    pub name_keys: StrList<'a>,
    /// json-call: the keys that hold the arguments (the first present counts).
    pub argument_keys: StrList<'a>,
    /// The family's `[open, close]` thinking markers (`Config::thinking_tags` overrides).
    pub thinking_tags: (&'a str, &'a str),
    /// invoke: the element names `[region, call, parameter]`, without their prefix
    /// (`["minimax:tool_call", "invoke", "parameter"]`); the call and parameter elements
    /// take their name in a `name="…"` attribute. key-value: `[key, value]` or
    /// `[key, value, separator]` (`["arg_key", "arg_value", "tool_sep"]`): the key and value
    /// elements, and the element the model may write between the tool name and the first key
    /// (`<tool_sep>`).
    pub elements: StrList<'a>,
    /// invoke: the prefix every element name carries, in each spelling the model writes
    /// (`["｜DSML｜", "|DSML|"]`: `<｜DSML｜invoke name="N">`); empty: none.
    pub tag_prefixes: StrList<'a>,
    /// invoke: a parameter attribute that types the value: `"true"`, a string as written;
    /// `"false"`, JSON (DSML's `string`); the schema types values without it.
    pub string_attribute: Option<&'a str>,
    /// pythonic: the calls stand inside the wrapper one after another (a line each),
    /// without `[…]` (Olmo 3's `<function_calls>f(a=1)\ng()</function_calls>`).
    pub bare_calls: bool,
    /// json-call and key-value: more markup markers than [`markup`](Description::markup)'s pair, dropped
    /// likewise wherever they stand in text (Cohere writes `<|START_RESPONSE|>…<|END_RESPONSE|>`
    /// or `<|START_TEXT|>…<|END_TEXT|>`); at most two (one more pair), and none with a
    /// `result_wrapper` (the text context's vocabulary holds eight markers). Empty: none.
    pub more_markup: StrList<'a>,
    /// json-call: the call object's single key is the tool name and its value the arguments
    /// (`{"get_weather": {"city": "Paris"}}`, Apertus); `name_keys` and `argument_keys` are
    /// not read then.
    pub name_as_key: bool,
    /// json-call: a JSON list of calls at the start of the message (after whitespace and
    /// thinking only) is the calls without a wrapper, its end ending them (xLAM); the
    /// wrapper still opens calls anywhere.
    pub bare_array: bool,
    /// invoke: a parameter value may hold `<![CDATA[…]]>` sections, read as raw data (a
    /// value that is only CDATA is its payload, verbatim; MiniCPM5).
    pub cdata: bool,
    /// sectioned: `[open, close]` around one call (`<|tool_call_begin|>`,
    /// `<|tool_call_end|>`); unread by the other shapes.
    pub call_markers: (&'a str, &'a str),
    /// sectioned: what ends each part of a call's header, in order (one or two markers); the
    /// last part names the call (`["<|tool_call_argument_begin|>"]`; deepseek-v3's
    /// `["<｜tool▁sep｜>", "\n"]`: a type, then the name).
    pub header_ends: StrList<'a>,
    /// sectioned: a code fence `[open, close]` that may stand around the body (deepseek-v3's
    /// ```` ```json ````, ```` ``` ````); `None`: none.
    pub fence: Option<(&'a str, &'a str)>,
    /// sectioned: the header's last part is the call's id on the wire (Kimi's
    /// `functions.NAME:IDX`), the name being the id without a leading `functions.` and a
    /// trailing `:IDX`; otherwise it is the name, and ids are `{id_prefix}{n}`.
    pub wire_id: bool,
    /// sectioned: other spellings that open the section in text (at most four; DeepSeek's
    /// distilled models write `<｜tool_calls_begin｜>`); empty: none.
    pub alt_openers: StrList<'a>,
    /// json-call: `[opener, call opener]` of a call's header — the model names the call
    /// between a message opener and the call's opener (Inkling's
    /// `<|message_model|>NAME<|content_invoke_tool_json|>{…}`). The opener must be a
    /// [`markup`](Description::markup) marker and the second the wrapper's opener. What stands
    /// between them — at most 64 bytes without a newline or a `<` — is wire
    /// syntax, dropped, when the call opener follows and opens a call; the call's name is the
    /// JSON's (the header only repeats it). Otherwise (a newline, another marker, a longer
    /// run, the end of input first) those bytes are text, as without a header. `None`: none.
    ///
    /// ```
    /// use tokensieve::{Config, Description, Dialect};
    /// let ink = Description::preset(Dialect::Inkling).unwrap();
    /// assert_eq!(ink.call_header, Some(("<|message_model|>", "<|content_invoke_tool_json|>")));
    /// // A family of the same form, described by a host:
    /// let mine = Description {
    ///     wrapper: ("<|call|>", "<|end|>"),
    ///     result_wrapper: None,
    ///     markup: Some(("<|msg|>", "<|text|>")),
    ///     call_header: Some(("<|msg|>", "<|call|>")),
    ///     ..Description::preset(Dialect::Hermes).unwrap()
    /// };
    /// let config = Config { description: Some(mine), ..Config::new(Dialect::Hermes) };
    /// assert!(config.validate().is_ok());
    /// // The opener must be a markup marker, the second the wrapper's opener:
    /// let bad = Description { call_header: Some(("<|x|>", "<|call|>")), ..mine };
    /// let config = Config { description: Some(bad), ..Config::new(Dialect::Hermes) };
    /// assert_eq!(config.validate().unwrap_err().key(), "dialect.call_header");
    /// ```
    pub call_header: Option<(&'a str, &'a str)>,
}

/// Longest call header ([`Description::call_header`]) dropped as wire syntax, in bytes.
pub(crate) const MAX_HEADER_LEN: usize = 64;

/// Longest key name a json-call description may give, in bytes.
pub const MAX_KEY_LEN: usize = 10;

const HERMES: Description<'static> = Description {
    shape: Shape::JsonCall,
    wrapper: ("<tool_call>", "</tool_call>"),
    result_wrapper: Some(("<tool_response>", "</tool_response>")),
    markup: None,
    name_keys: StrList::Strs(&["name"]),
    argument_keys: StrList::Strs(&["arguments", "parameters"]),
    thinking_tags: THINK,
    elements: StrList::Strs(&[]),
    tag_prefixes: StrList::Strs(&[]),
    string_attribute: None,
    bare_calls: false,
    more_markup: StrList::Strs(&[]),
    name_as_key: false,
    bare_array: false,
    cdata: false,
    call_markers: ("", ""),
    header_ends: StrList::Strs(&[]),
    fence: None,
    wire_id: false,
    alt_openers: StrList::Strs(&[]),
    call_header: None,
};

const QWEN3_CODER: Description<'static> = Description {
    shape: Shape::XmlParams,
    wrapper: ("<tool_call>", "</tool_call>"),
    result_wrapper: None,
    markup: None,
    name_keys: StrList::Strs(&[]),
    argument_keys: StrList::Strs(&[]),
    thinking_tags: THINK,
    elements: StrList::Strs(&[]),
    tag_prefixes: StrList::Strs(&[]),
    string_attribute: None,
    bare_calls: false,
    more_markup: StrList::Strs(&[]),
    name_as_key: false,
    bare_array: false,
    cdata: false,
    call_markers: ("", ""),
    header_ends: StrList::Strs(&[]),
    fence: None,
    wire_id: false,
    alt_openers: StrList::Strs(&[]),
    call_header: None,
};

const GLM45: Description<'static> = Description {
    shape: Shape::KeyValue,
    wrapper: ("<tool_call>", "</tool_call>"),
    elements: StrList::Strs(&["arg_key", "arg_value"]),
    ..QWEN3_CODER
};

const HUNYUAN: Description<'static> = Description {
    elements: StrList::Strs(&["arg_key", "arg_value", "tool_sep"]),
    markup: Some(("<tool_calls>", "</tool_calls>")),
    more_markup: StrList::Strs(&["<answer>", "</answer>"]),
    ..GLM45
};

/// A key-value preset's call tags, element names and markup (field reads of the constants,
/// for the per-decision path).
#[inline]
pub(crate) const fn preset_key_value(dialect: Dialect) -> &'static Description<'static> {
    // A direct match (not the table): read per decision; the test below keeps it in step.
    match dialect {
        Dialect::Hunyuan => &HUNYUAN,
        _ => &GLM45,
    }
}

const KIMI_K2: Description<'static> = Description {
    shape: Shape::Sectioned,
    wrapper: ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
    call_markers: ("<|tool_call_begin|>", "<|tool_call_end|>"),
    header_ends: StrList::Strs(&["<|tool_call_argument_begin|>"]),
    wire_id: true,
    ..QWEN3_CODER
};

/// The section openers DeepSeek's distilled models write as text instead of the special
/// token (llama.cpp accepts the same four); the calls inside keep the special tokens.
const DEEPSEEK_OPEN_ALT: StrList<'static> = StrList::Strs(&[
    "<｜tool_calls_begin｜>",
    "<｜tool calls begin｜>",
    "<｜tool\\_calls\\_begin｜>",
    "<｜tool▁calls｜>",
]);

const DEEPSEEK_V31: Description<'static> = Description {
    wrapper: ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
    call_markers: ("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),
    header_ends: StrList::Strs(&["<｜tool▁sep｜>"]),
    wire_id: false,
    alt_openers: DEEPSEEK_OPEN_ALT,
    call_header: None,
    ..KIMI_K2
};

const DEEPSEEK_V3: Description<'static> = Description {
    header_ends: StrList::Strs(&["<｜tool▁sep｜>", "\n"]),
    fence: Some(("```json", "```")),
    ..DEEPSEEK_V31
};

/// A sectioned preset's description (field reads of the constants, for the per-decision
/// path).
#[inline]
pub(crate) const fn preset_sectioned(dialect: Dialect) -> &'static Description<'static> {
    // A direct match (not the table): read per decision; the test below keeps it in step.
    match dialect {
        Dialect::DeepSeekV31 => &DEEPSEEK_V31,
        Dialect::DeepSeekV3 => &DEEPSEEK_V3,
        _ => &KIMI_K2,
    }
}

const PYTHONIC: Description<'static> = Description {
    shape: Shape::Pythonic,
    wrapper: ("<|python_start|>", "<|python_end|>"),
    ..QWEN3_CODER
};

const LFM2: Description<'static> = Description {
    wrapper: ("<|tool_call_start|>", "<|tool_call_end|>"),
    ..PYTHONIC
};

const OLMO3: Description<'static> = Description {
    wrapper: ("<function_calls>", "</function_calls>"),
    bare_calls: true,
    ..PYTHONIC
};

const SEED_OSS: Description<'static> = Description {
    wrapper: ("<seed:tool_call>", "</seed:tool_call>"),
    thinking_tags: ("<seed:think>", "</seed:think>"),
    ..QWEN3_CODER
};

const MINIMAX_M2: Description<'static> = Description {
    shape: Shape::Invoke,
    // The region is an element: no marker pair.
    wrapper: ("", ""),
    result_wrapper: None,
    markup: None,
    name_keys: StrList::Strs(&[]),
    argument_keys: StrList::Strs(&[]),
    thinking_tags: THINK,
    elements: StrList::Strs(&["minimax:tool_call", "invoke", "parameter"]),
    tag_prefixes: StrList::Strs(&[]),
    string_attribute: None,
    bare_calls: false,
    more_markup: StrList::Strs(&[]),
    name_as_key: false,
    bare_array: false,
    cdata: false,
    call_markers: ("", ""),
    header_ends: StrList::Strs(&[]),
    fence: None,
    wire_id: false,
    alt_openers: StrList::Strs(&[]),
    call_header: None,
};

/// The description of a preset of the invoke shape (minimax-m2's for any other dialect),
/// from the table: field reads of a constant, for the per-decision path.
#[inline]
pub(crate) const fn preset_invoke(dialect: Dialect) -> &'static Description<'static> {
    preset_of(dialect, Shape::Invoke)
}

/// MiniCPM5: invoke elements with no region around them (`<function name="N">` stands in
/// text), `<param name="K">` values in CDATA.
const MINICPM5: Description<'static> = Description {
    wrapper: ("", ""),
    elements: StrList::Strs(&["", "function", "param"]),
    cdata: true,
    ..MINIMAX_M2
};

/// Step-3 / Step-3.5: steptml invokes in a region of special tokens, each call behind a
/// `function` header token pair.
const STEP3: Description<'static> = Description {
    wrapper: ("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"),
    markup: Some((
        "<｜tool_call_begin｜>function<｜tool_sep｜>",
        "<｜tool_call_end｜>",
    )),
    elements: StrList::Strs(&["", "invoke", "parameter"]),
    tag_prefixes: StrList::Strs(&["steptml:"]),
    ..MINIMAX_M2
};

/// DeepSeek's DSML prefix, full-width bars as the tokenizer writes it, then the ASCII
/// spelling models also produce.
const DSML: StrList<'static> = StrList::Strs(&["｜DSML｜", "|DSML|"]);

const DEEPSEEK_V32: Description<'static> = Description {
    elements: StrList::Strs(&["function_calls", "invoke", "parameter"]),
    tag_prefixes: DSML,
    string_attribute: Some("string"),
    ..MINIMAX_M2
};

const DEEPSEEK_V4: Description<'static> = Description {
    elements: StrList::Strs(&["tool_calls", "invoke", "parameter"]),
    ..DEEPSEEK_V32
};

const COHERE_COMMAND: Description<'static> = Description {
    wrapper: ("<|START_ACTION|>", "<|END_ACTION|>"),
    result_wrapper: None,
    markup: Some(("<|START_RESPONSE|>", "<|END_RESPONSE|>")),
    name_keys: StrList::Strs(&["tool_name", "name"]),
    argument_keys: StrList::Strs(&["parameters", "arguments"]),
    thinking_tags: ("<|START_THINKING|>", "<|END_THINKING|>"),
    more_markup: StrList::Strs(&["<|START_TEXT|>", "<|END_TEXT|>"]),
    ..HERMES
};

const GRANITE: Description<'static> = Description {
    wrapper: ("<|tool_call|>", ""),
    result_wrapper: None,
    markup: Some(("<response>", "</response>")),
    ..HERMES
};

const PHI4_MINI: Description<'static> = Description {
    wrapper: ("functools", ""),
    result_wrapper: None,
    ..HERMES
};

const APERTUS: Description<'static> = Description {
    wrapper: ("<|tools_prefix|>", "<|tools_suffix|>"),
    result_wrapper: None,
    thinking_tags: ("<|inner_prefix|>", "<|inner_suffix|>"),
    name_as_key: true,
    ..HERMES
};

/// Inkling: a call is a content block of its own; the other block markers are markup (the
/// message opener, the text block's opener, the block closer, the end of sampling).
const INKLING: Description<'static> = Description {
    wrapper: ("<|content_invoke_tool_json|>", "<|end_message|>"),
    result_wrapper: None,
    markup: Some(("<|message_model|>", "<|content_text|>")),
    name_keys: StrList::Strs(&["name"]),
    argument_keys: StrList::Strs(&["args"]),
    thinking_tags: ("<|content_thinking|>", "<|end_message|>"),
    more_markup: StrList::Strs(&["<|end_message|>", "<|content_model_end_sampling|>"]),
    call_header: Some(("<|message_model|>", "<|content_invoke_tool_json|>")),
    ..HERMES
};

const XLAM: Description<'static> = Description {
    wrapper: ("```json", "```"),
    result_wrapper: None,
    bare_array: true,
    ..HERMES
};

/// The presets' descriptions by C code (a table: reading one field of a preset copies
/// nothing, where `Description::preset` builds the whole description).
const PRESETS: [Option<Description<'static>>; 33] = {
    let mut table = [None; 33];
    let mut i = 0;
    while i < Dialect::ALL.len() {
        let d = Dialect::ALL[i];
        table[d as usize] = Description::preset(d);
        i += 1;
    }
    table
};

/// A preset's description, borrowed from the table.
#[inline]
const fn preset_ref(dialect: Dialect) -> Option<&'static Description<'static>> {
    PRESETS[dialect as usize].as_ref()
}

/// A preset's description, hermes's for a dialect that has none (the machines of their own
/// that read JSON call bodies): what the emitter's readers fall back on without a host
/// description (field reads of a constant, for the per-decision path).
#[inline]
pub(crate) const fn preset_or_hermes(dialect: Dialect) -> &'static Description<'static> {
    match preset_ref(dialect) {
        Some(d) => d,
        None => &HERMES,
    }
}

/// The description a machine of `shape` runs with when the host gave none: the dialect's
/// preset when it is of that shape, else the shape's own preset.
#[inline]
const fn preset_of(dialect: Dialect, shape: Shape) -> &'static Description<'static> {
    match preset_ref(dialect) {
        Some(d) if d.shape as u8 == shape as u8 => d,
        _ => match preset_ref(shape.preset()) {
            Some(d) => d,
            None => &HERMES,
        },
    }
}

impl Description<'static> {
    /// The description of a preset that is one of the shapes (hermes, qwen3-coder); `None`
    /// for the dialects that are machines of their own.
    ///
    /// ```
    /// use tokensieve::{Description, Dialect};
    /// assert_eq!(Description::preset(Dialect::Hermes).unwrap().wrapper.0, "<tool_call>");
    /// assert!(Description::preset(Dialect::Harmony).is_none());
    /// ```
    pub const fn preset(dialect: Dialect) -> Option<Description<'static>> {
        match dialect {
            Dialect::Hermes => Some(HERMES),
            Dialect::Qwen3Coder => Some(QWEN3_CODER),
            Dialect::SeedOss => Some(SEED_OSS),
            Dialect::Pythonic => Some(PYTHONIC),
            Dialect::Olmo3 => Some(OLMO3),
            Dialect::Lfm2 => Some(LFM2),
            Dialect::MinimaxM2 => Some(MINIMAX_M2),
            Dialect::DeepSeekV32 => Some(DEEPSEEK_V32),
            Dialect::DeepSeekV4 => Some(DEEPSEEK_V4),
            Dialect::MiniCpm5 => Some(MINICPM5),
            Dialect::Step3 => Some(STEP3),
            Dialect::CohereCommand => Some(COHERE_COMMAND),
            Dialect::Granite => Some(GRANITE),
            Dialect::Phi4Mini => Some(PHI4_MINI),
            Dialect::Apertus => Some(APERTUS),
            Dialect::Xlam => Some(XLAM),
            Dialect::Inkling => Some(INKLING),
            Dialect::Glm45 => Some(GLM45),
            Dialect::Hunyuan => Some(HUNYUAN),
            Dialect::KimiK2 => Some(KIMI_K2),
            Dialect::DeepSeekV31 => Some(DEEPSEEK_V31),
            Dialect::DeepSeekV3 => Some(DEEPSEEK_V3),
            _ => None,
        }
    }

    /// The keys of the JSON call bodies a dialect reads (hermes's for the dialects that share
    /// its call reader: mistral, llama3-json).
    pub(crate) const fn json_keys() -> Description<'static> {
        HERMES
    }
}

/// `<name>` / `</name>` thinking markers as an element name; `None` for other markers.
pub(crate) fn element_name<'c>(open: &'c str, close: &str) -> Option<&'c [u8]> {
    let name = open.strip_prefix('<')?.strip_suffix('>')?;
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    let closes = close.strip_prefix("</")?.strip_suffix('>')? == name;
    (valid && closes).then_some(name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-decision field reads agree with the presets' descriptions.
    #[test]
    fn preset_field_reads_match_the_descriptions() {
        for d in Dialect::ALL {
            if let Some(p) = Description::preset(d) {
                assert_eq!(preset_or_hermes(d).wrapper, p.wrapper, "{d:?}");
                assert_eq!(
                    preset_or_hermes(d).result_wrapper,
                    p.result_wrapper,
                    "{d:?}"
                );
                let of_shape = match p.shape {
                    Shape::Invoke => Some(preset_invoke(d)),
                    Shape::KeyValue => Some(preset_key_value(d)),
                    Shape::Sectioned => Some(preset_sectioned(d)),
                    _ => None,
                };
                if let Some(i) = of_shape {
                    assert!(i.elements.iter().eq(p.elements.iter()), "{d:?}");
                    assert!(i.tag_prefixes.iter().eq(p.tag_prefixes.iter()), "{d:?}");
                    assert_eq!(i.string_attribute, p.string_attribute, "{d:?}");
                    assert_eq!(i.cdata, p.cdata, "{d:?}");
                }
            }
        }
    }
}
