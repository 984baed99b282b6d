//! `tokensieve decode`: a provider's streaming response body (the HTTP body of a streaming
//! API: SSE, a streamed JSON array, or AWS event-stream frames) into events.
//!
//! The config (`--config`) is the JSON object of docs/providers.md; `--json` prints the
//! conformance-vector form, one event per line.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{ArgGroup, Args, ValueEnum};
use tokensieve::provider::{Decoder, DecoderConfigBuf};
use tokensieve::{ConfigBuf, Dialect};

use crate::output::{Output, View};
use crate::stream::Fail;

/// The arguments of `tokensieve decode`:
/// `(--config FILE | --provider P [--text-dialect D]) [--chunk N]
/// [--json | --visible-only | --stats [--json]] [FILE|-]...`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("source").required(true).args(["config", "provider"])))]
pub struct DecodeArgs {
    /// The API that wrote the body
    #[arg(long, value_enum, value_name = "P")]
    pub provider: Option<Provider>,

    /// Run text deltas through dialect D (tool calls the model wrote as text)
    #[arg(
        long,
        value_name = "D",
        value_parser = crate::dialect_parser(),
        conflicts_with = "config"
    )]
    pub text_dialect: Option<Dialect>,

    /// A JSON config object ({"provider": …, "text_dialect": …, …})
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Feed the input N bytes at a time (0: all at once)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub chunk: usize,

    /// One JSON event per line (the conformance-vector form); with --stats, the summary as
    /// one JSON object
    #[arg(long, overrides_with = "visible_only")]
    pub json: bool,

    /// Only the text a text-to-speech engine should speak (with a last newline)
    #[arg(long, overrides_with = "json", conflicts_with = "stats")]
    pub visible_only: bool,

    /// Print only counts: events by kind, bytes by block type, calls by name, errors, finish
    /// reasons and usage totals
    #[arg(long)]
    pub stats: bool,

    /// The response body to read; standard input when absent or `-` (several: --stats only,
    /// each through a fresh decoder, the counts summed)
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// The streaming APIs `decode` reads (the config's `provider` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Provider {
    /// OpenAI Chat Completions
    OpenaiChat,
    /// OpenAI Responses
    OpenaiResponses,
    /// Anthropic Messages
    Anthropic,
    /// Google Gemini (SSE or a streamed JSON array)
    Gemini,
    /// Amazon Bedrock ConverseStream (AWS event stream)
    Bedrock,
    /// Ollama native /api/chat and /api/generate (newline-delimited JSON)
    Ollama,
}

impl Provider {
    fn core(self) -> tokensieve::provider::Provider {
        use tokensieve::provider::Provider as P;
        match self {
            Provider::OpenaiChat => P::OpenAiChat,
            Provider::OpenaiResponses => P::OpenAiResponses,
            Provider::Anthropic => P::Anthropic,
            Provider::Gemini => P::Gemini,
            Provider::Bedrock => P::Bedrock,
            Provider::Ollama => P::Ollama,
        }
    }
}

/// The config file's keys: `provider`, `max_frame_bytes`, `invoke_format`, `text_dialect`
/// and every key of a
/// dialect config (`id_prefix`, `on_malformed`, `max_call_bytes`, `tools`, …) for the text
/// dialect.
fn settings_of(args: &DecodeArgs) -> Result<DecoderConfigBuf, String> {
    let mut settings = match (&args.config, args.provider) {
        (Some(path), _) => {
            let text = crate::read_file(path)?;
            let text =
                std::str::from_utf8(&text).map_err(|_| format!("{}: not UTF-8", path.display()))?;
            DecoderConfigBuf::from_json(text).map_err(|e| format!("config: {e}"))?
        }
        (None, Some(p)) => DecoderConfigBuf {
            provider: p.core(),
            options: ConfigBuf::new(Dialect::Passthrough),
            max_frame_bytes: None,
            invoke_format: None,
        },
        (None, None) => return Err("--provider or --config is required".into()),
    };
    if let Some(d) = args.text_dialect {
        settings.options.dialect = d;
    }
    Ok(settings)
}

/// Runs `tokensieve decode`: the body through a decoder as it arrives, its events in the
/// chosen view, written out after each read. `Ok(true)`: the stream carried a provider or
/// framing error, or finished with reason `error` (exit status 1).
pub fn run(args: &DecodeArgs) -> Result<bool, Fail> {
    let settings = settings_of(args)?;
    let config = settings.config();
    let mut decoder = Decoder::new(&config).map_err(|e| format!("config: {e}"))?;
    if args.stats {
        // Each file is a response body of its own: a fresh decoder for each.
        let mut stats = crate::stats::Stats::default();
        for (i, file) in crate::stats_inputs(&args.files).into_iter().enumerate() {
            if i > 0 {
                decoder = Decoder::new(&config).map_err(|e| format!("config: {e}"))?;
            }
            crate::stream::drive(&mut decoder, file, args.chunk, &mut stats)?;
        }
        stats.print(args.json)?;
        return Ok(stats.failed);
    }
    let file = crate::one_file(&args.files, "decode");
    let view = match (args.json, args.visible_only) {
        (true, _) => View::Json,
        (_, true) => View::Visible,
        _ => View::Human,
    };
    let color = std::io::stdout().is_terminal();
    let mut out = Output::new(
        view,
        std::io::BufWriter::new(std::io::stdout().lock()),
        color,
    );
    crate::stream::drive(&mut decoder, file.as_deref(), args.chunk, &mut out)?;
    out.end()?;
    Ok(out.failed)
}
