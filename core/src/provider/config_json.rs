//! The decoder's JSON config (`tokensieve decode --config`, the npm package's `new Decoder`):
//! `provider`, `max_frame_bytes`, `invoke_format` and `text_dialect` (→ the options'
//! `dialect`); every other key is the dialect config's (docs/providers.md).

use super::{DecoderConfig, Provider};
use crate::config::ConfigBuf;
#[cfg(test)]
use crate::config::Dialect;
use crate::json::value::{self, Value};
use alloc::format;
use alloc::string::String;

/// A decoder config read from JSON, owning its options ([`DecoderConfigBuf::config`] borrows
/// a [`DecoderConfig`] from it).
///
/// ```
/// use tokensieve::provider::{DecoderConfigBuf, Provider};
/// let c = DecoderConfigBuf::from_json(r#"{"provider":"openai-chat","text_dialect":"hermes"}"#).unwrap();
/// assert_eq!(c.config().provider, Provider::OpenAiChat);
/// let e = DecoderConfigBuf::from_json(r#"{"provider":"openai-chat","max_frame_bytes":"x"}"#);
/// assert_eq!(e.unwrap_err().key(), "max_frame_bytes");
/// ```
#[derive(Debug, Clone)]
pub struct DecoderConfigBuf {
    /// The body's format.
    pub provider: Provider,
    /// The text dialect and the shared options (`dialect` is `text_dialect`, default passthrough).
    pub options: ConfigBuf,
    /// `max_frame_bytes` when given.
    pub max_frame_bytes: Option<u32>,
    /// `invoke_format` when given.
    pub invoke_format: Option<Provider>,
}

/// What was wrong with a decoder's JSON config: the key (`(config)` for the document
/// itself) and what is wrong with it. Displays as `` `key` message ``.
///
/// ```
/// use tokensieve::provider::DecoderConfigBuf;
/// let e = DecoderConfigBuf::from_json(r#"{"provider":"openai-chat","max_frame_bytes":"x"}"#).unwrap_err();
/// assert_eq!(e.key(), "max_frame_bytes");
/// assert_eq!(e.to_string(), "`max_frame_bytes` must be a non-negative integer");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecoderConfigError {
    key: String,
    message: String,
}

impl DecoderConfigError {
    fn new(key: &str, message: impl Into<String>) -> DecoderConfigError {
        DecoderConfigError {
            key: key.into(),
            message: message.into(),
        }
    }

    /// The key that was wrong (`(config)`: the document is not a JSON object).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// What was wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl core::fmt::Display for DecoderConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "`{}` {}", self.key, self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for DecoderConfigError {}

impl DecoderConfigBuf {
    /// Reads a decoder config from JSON text: `provider` (required), `text_dialect`,
    /// `max_frame_bytes`, `invoke_format`, then every dialect key (`tools`, `id_prefix`,
    /// `on_malformed`, …) by the dialect config's reader. The error names the bad key. The
    /// one reader of this form: the CLI's `decode --config`, the C ABI's JSON decoder config
    /// and the npm package call it.
    pub fn from_json(text: &str) -> Result<DecoderConfigBuf, DecoderConfigError> {
        let v =
            value::parse(text).map_err(|e| err("(config)", format!("is not valid JSON: {e}")))?;
        let Value::Object(mut obj) = v else {
            return Err(err("(config)", "must be a JSON object"));
        };
        if obj.contains_key("dialect") {
            return Err(err(
                "dialect",
                "is not a decoder key (the text dialect is `text_dialect`)",
            ));
        }
        let provider = match obj.remove("provider") {
            None => return Err(err("provider", "is required")),
            Some(Value::String(name)) => Provider::from_name(&name)
                .filter(|p| p.is_supported())
                .ok_or_else(|| {
                    err(
                        "provider",
                        format!("must be one of {} (not {name:?})", provider_names()),
                    )
                })?,
            Some(_) => return Err(err("provider", "must be a string")),
        };
        let max_frame_bytes = match obj.remove("max_frame_bytes") {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| err("max_frame_bytes", "must be a non-negative integer"))?
                    .min(u32::MAX.into()) as u32,
            ),
        };
        let invoke_format = match obj.remove("invoke_format") {
            None => None,
            // The formats Bedrock's InvokeModel `chunk` frames wrap.
            Some(v) => match v.as_str().and_then(Provider::from_name) {
                Some(p @ (Provider::Anthropic | Provider::OpenAiChat)) => Some(p),
                _ => {
                    return Err(err(
                        "invoke_format",
                        "must be \"anthropic\" or \"openai-chat\"",
                    ));
                }
            },
        };
        let dialect = match obj.remove("text_dialect") {
            None => String::from("passthrough"),
            Some(Value::String(name)) => name,
            Some(_) => return Err(err("text_dialect", "must be a string")),
        };
        obj.insert("dialect", Value::String(dialect.clone()));
        let options = ConfigBuf::from_tree(&Value::Object(obj)).map_err(|e| {
            // The dialect reader names `dialect`: for a decoder that key is `text_dialect`.
            match e.key() {
                "dialect" => err("text_dialect", format!("{} (not {dialect:?})", e.message())),
                key => err(key, e.message()),
            }
        })?;
        Ok(DecoderConfigBuf {
            provider,
            options,
            max_frame_bytes,
            invoke_format,
        })
    }

    /// The [`DecoderConfig`] to build a decoder from (defaults where a key was absent).
    pub fn config(&self) -> DecoderConfig<'_> {
        let mut config = DecoderConfig::new(self.provider);
        config.options = self.options.config();
        if let Some(n) = self.max_frame_bytes {
            config.max_frame_bytes = n;
        }
        if let Some(f) = self.invoke_format {
            config.invoke_format = f;
        }
        config
    }
}

/// A [`DecoderConfigError`] for `key`.
fn err(key: &str, message: impl Into<String>) -> DecoderConfigError {
    DecoderConfigError::new(key, message)
}

/// The supported providers' names, for an error.
fn provider_names() -> String {
    let mut names = String::new();
    for p in Provider::ALL.iter().filter(|p| p.is_supported()) {
        if !names.is_empty() {
            names.push_str(", ");
        }
        names.push_str(p.name());
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_bad_key() {
        for (text, key) in [
            (r#"{}"#, "provider"),
            (r#"{"provider":"nope"}"#, "provider"),
            (
                r#"{"provider":"bedrock","max_frame_bytes":-1}"#,
                "max_frame_bytes",
            ),
            (
                r#"{"provider":"bedrock","invoke_format":3}"#,
                "invoke_format",
            ),
            (
                r#"{"provider":"bedrock","invoke_format":"x"}"#,
                "invoke_format",
            ),
            (
                r#"{"provider":"openai-chat","text_dialect":"x"}"#,
                "text_dialect",
            ),
            (
                r#"{"provider":"openai-chat","dialect":"hermes"}"#,
                "dialect",
            ),
            (r#"{"provider":"openai-chat","id_prefix":3}"#, "id_prefix"),
        ] {
            let e = DecoderConfigBuf::from_json(text).unwrap_err();
            assert_eq!(e.key(), key, "{text}: {e}");
        }
        let e = DecoderConfigBuf::from_json("[").unwrap_err();
        assert!(e.key() == "(config)" && e.message().contains("JSON"), "{e}");
        let e = DecoderConfigBuf::from_json(r#"{"provider":"bedrock","invoke_format":"gemini"}"#);
        assert_eq!(e.unwrap_err().key(), "invoke_format");
    }

    #[test]
    fn keys_reach_the_config() {
        let c = DecoderConfigBuf::from_json(
            r#"{"provider":"bedrock","max_frame_bytes":64,"invoke_format":"openai-chat","text_dialect":"hermes"}"#,
        )
        .unwrap();
        let d = c.config();
        assert_eq!(d.max_frame_bytes, 64);
        assert_eq!(d.invoke_format, Provider::OpenAiChat);
        assert_eq!(d.options.dialect, Dialect::Hermes);
        let p = DecoderConfigBuf::from_json(r#"{"provider":"openai-chat"}"#).unwrap();
        assert_eq!(p.config().options.dialect, Dialect::Passthrough);
        assert_eq!(
            p.config().max_frame_bytes,
            DecoderConfig::new(Provider::OpenAiChat).max_frame_bytes
        );
    }
}
