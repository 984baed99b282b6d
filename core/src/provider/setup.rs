//! What a decoder is set up with: the provider format and the configuration.

use super::*;

/// The provider formats a [`Decoder`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Provider {
    /// OpenAI Chat Completions and every compatible server (vLLM, SGLang, llama.cpp, …).
    OpenAiChat = 0,
    /// OpenAI Responses.
    OpenAiResponses = 1,
    /// Anthropic Messages.
    Anthropic = 2,
    /// Google Gemini (`alt=sse` or the streamed JSON array).
    Gemini = 3,
    /// AWS Bedrock (the AWS event stream).
    Bedrock = 4,
    /// Ollama's native API (`/api/chat`, `/api/generate`: newline-delimited JSON).
    Ollama = 5,
}

impl Provider {
    /// Every provider, in the order of their numbers.
    pub const ALL: [Provider; 6] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Bedrock,
        Provider::Ollama,
    ];

    /// The config name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`, `bedrock`,
    /// `ollama`).
    ///
    /// ```
    /// use tokensieve::provider::Provider;
    /// assert_eq!(Provider::from_name("anthropic"), Some(Provider::Anthropic));
    /// assert_eq!(Provider::from_name("ollama"), Some(Provider::Ollama));
    /// assert_eq!(Provider::OpenAiChat.name(), "openai-chat");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai-chat",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
            Provider::Ollama => "ollama",
        }
    }

    /// Whether this build decodes the provider (the others are refused by
    /// [`Decoder::new`] with a [`ConfigError`] naming `provider`).
    ///
    /// ```
    /// use tokensieve::provider::Provider;
    /// assert!(Provider::OpenAiChat.is_supported());
    /// ```
    pub fn is_supported(self) -> bool {
        Mapper::new(self, Provider::Anthropic).is_some()
    }

    /// The provider with this config name.
    pub fn from_name(name: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// How a [`Decoder`] is set up (docs/providers.md, "Input and configuration").
#[derive(Clone, Copy, Debug)]
pub struct DecoderConfig<'a> {
    /// The body's format.
    pub provider: Provider,
    /// Options shared with the dialects (`id_prefix`, `on_malformed`, `max_call_bytes`), and
    /// the *text dialect*: the provider's text deltas run through `options.dialect` (with its
    /// `tools`, `thinking_tags`, …), its blocks in the decoder's index space — for a server
    /// that passes `<tool_call>…` or `<think>` through as content (docs/providers.md, "Text
    /// dialect"). [`Dialect::Passthrough`], the default, leaves text as it is.
    pub options: Config<'a>,
    /// AWS event stream: the largest frame accepted; 0 means the default (16 MiB), as in
    /// every binding's config, and anything else must be at least 16 (a frame's prelude and
    /// CRC).
    pub max_frame_bytes: u32,
    /// Bedrock InvokeModelWithResponseStream: the format of the event each `chunk` frame
    /// wraps ([`Provider::Anthropic`], the default, or [`Provider::OpenAiChat`]).
    pub invoke_format: Provider,
}

impl DecoderConfig<'_> {
    /// The defaults for a provider.
    pub const fn new(provider: Provider) -> DecoderConfig<'static> {
        DecoderConfig {
            provider,
            options: Config::new(Dialect::Passthrough),
            max_frame_bytes: frame::event_stream::DEFAULT_MAX_FRAME_BYTES,
            invoke_format: Provider::Anthropic,
        }
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        self.options.validate()?;
        if (1..16).contains(&self.max_frame_bytes) {
            return Err(ConfigError::new(
                "max_frame_bytes",
                "must be 0 (the default, 16 MiB) or at least 16",
            ));
        }
        if !self.provider.is_supported() {
            return Err(ConfigError::new("provider", "is not decoded yet"));
        }
        if !matches!(
            self.invoke_format,
            Provider::Anthropic | Provider::OpenAiChat
        ) {
            return Err(ConfigError::new(
                "invoke_format",
                "must be \"anthropic\" or \"openai-chat\"",
            ));
        }
        Ok(())
    }
}
