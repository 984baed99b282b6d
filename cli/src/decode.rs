//! `tokensieve decode`: a provider's streaming response body (the HTTP body of a streaming
//! API: SSE, a streamed JSON array, or AWS event-stream frames) into events.
//!
//! Not built yet: the arguments are defined and parsed, and [`decode`] is the one place to
//! wire the decoder in (docs/providers.md says what it decides). `main` calls it with the
//! parsed [`DecodeArgs`] and exits with what it returns.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Args, ValueEnum};
use tokensieve::Dialect;

/// The arguments of `tokensieve decode`:
/// `(--config FILE | --provider P [--text-dialect D]) [--chunk N] [--json] [FILE|-]`.
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

    /// One JSON event per line (the conformance-vector form)
    #[arg(long)]
    pub json: bool,

    /// The response body to read; standard input when absent or `-`
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
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
}

/// Runs `tokensieve decode`. For now it says so and fails (exit status 1).
pub fn decode(args: DecodeArgs) -> ExitCode {
    let _ = args; // read by the decoder once it is wired in
    eprintln!("decode: not built yet");
    ExitCode::FAILURE
}
