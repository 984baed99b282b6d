//! The decoder's JSON config (`tokensieve decode --config`, the npm package's `new Decoder`):
//! `provider`, `max_frame_bytes`, `invoke_format` and `text_dialect` (→ the options'
//! `dialect`); every other key is the dialect config's (docs/providers.md).

use super::{DecoderConfig, Provider};
use crate::config::{ConfigBuf, Dialect};
use alloc::format;
use alloc::string::{String, ToString};
use serde_json::Value;

/// A decoder config read from JSON, owning its options ([`DecoderConfigBuf::config`] borrows
/// a [`DecoderConfig`] from it).
///
/// ```
/// use tokensieve::provider::{DecoderConfigBuf, Provider};
/// let c = DecoderConfigBuf::from_json(r#"{"provider":"openai-chat","text_dialect":"hermes"}"#).unwrap();
/// assert_eq!(c.config().provider, Provider::OpenAiChat);
/// let e = DecoderConfigBuf::from_json(r#"{"provider":"openai-chat","max_frame_bytes":"x"}"#);
/// assert!(e.unwrap_err().contains("max_frame_bytes"));
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

impl DecoderConfigBuf {
    /// Reads a decoder config from JSON text. The error names the bad key (e.g.
    /// `` `max_frame_bytes` must be a non-negative integer ``).
    pub fn from_json(text: &str) -> Result<DecoderConfigBuf, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let Value::Object(mut obj) = v else {
            return Err("must be a JSON object".into());
        };
        let name = match obj.remove("provider") {
            Some(Value::String(s)) => s,
            _ => return Err("`provider` (a string) is required".into()),
        };
        let provider = Provider::from_name(&name)
            .filter(|p| p.is_supported())
            .ok_or_else(|| format!("unknown provider {name:?}"))?;
        let max_frame_bytes = match obj.remove("max_frame_bytes") {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or("`max_frame_bytes` must be a non-negative integer")?
                    .min(u32::MAX.into()) as u32,
            ),
        };
        let invoke_format = match obj.remove("invoke_format") {
            None => None,
            Some(Value::String(name)) => Some(
                Provider::from_name(&name)
                    .ok_or_else(|| format!("unknown invoke_format {name:?}"))?,
            ),
            Some(_) => return Err("`invoke_format` must be a string".into()),
        };
        if obj.contains_key("dialect") {
            return Err("unknown key \"dialect\" (the decoder's is `text_dialect`)".into());
        }
        let dialect = match obj.remove("text_dialect") {
            None => Value::from("passthrough"),
            Some(Value::String(name)) => {
                if !Dialect::from_name(&name).is_some_and(Dialect::is_supported) {
                    return Err(format!(
                        "unknown text_dialect {name:?} ({})",
                        crate::config::DIALECT_NAMES_MESSAGE
                    ));
                }
                Value::String(name)
            }
            Some(_) => return Err("`text_dialect` must be a string".into()),
        };
        obj.insert("dialect".to_string(), dialect);
        let options = ConfigBuf::from_value(&Value::Object(obj)).map_err(|e| e.to_string())?;
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
                "text_dialect",
            ),
            (r#"{"provider":"openai-chat","id_prefix":3}"#, "id_prefix"),
        ] {
            let e = DecoderConfigBuf::from_json(text).unwrap_err();
            assert!(e.contains(key), "{text}: {e}");
        }
        assert!(
            DecoderConfigBuf::from_json("[")
                .unwrap_err()
                .contains("JSON")
        );
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
