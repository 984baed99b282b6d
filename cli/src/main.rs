//! `tokensieve`: parse model output into events from the command line.
//!
//! ```text
//! tokensieve parse (--config FILE | --dialect D [--tools FILE]) [--prefill FILE]
//!                  [--chunk N] [--json | --visible-only | --stats [--json]] [FILE|-]...
//! tokensieve demo [--fast]
//! tokensieve dialects [--names | --json]
//! tokensieve providers [--names | --json]
//! tokensieve decode (--config FILE | --provider P [--text-dialect D]) [--chunk N]
//!                   [--json | --visible-only | --stats [--json]] [FILE|-]...
//! tokensieve format calls|tools|results (--config FILE | --dialect D [--tools FILE]) [FILE|-]
//! tokensieve format stops --dialect D
//! ```
//!
//! `parse` and `decode` read their input as it arrives and print each read's events at once.
//! Exit status: 0 success (also when the reader of the output went away, `| head -1`);
//! 1 a failed run (an unreadable file, a bad config, a stream that ended in a provider or
//! framing error), printed as `tokensieve: …`; 2 a usage error (clap's message).

mod decode;
mod demo;
mod format;
mod output;
mod stats;
mod stream;

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Args, Parser, Subcommand};
use tokensieve::{ConfigBuf, Dialect, Sieve};

use decode::DecodeArgs;
use output::{Output, View};

/// Parse model output into events: visible text, thinking, tool calls and tool results.
#[derive(Parser, Debug)]
#[command(name = "tokensieve", version)]
#[command(arg_required_else_help = true, args_override_self = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Read model output (FILE, or standard input) and print its events
    #[command(long_about = PARSE_LONG_ABOUT)]
    Parse(ParseArgs),
    /// Stream a bundled transcript through the parser in token-sized chunks
    Demo(DemoArgs),
    /// List the dialects this build parses, one a line with a description
    Dialects(ListArgs),
    /// List the providers whose streams this build decodes, one a line with a description
    Providers(ListArgs),
    /// Decode a provider's streaming response body into events
    Decode(DecodeArgs),
    /// Write tool calls, tool definitions or tool results in a dialect's wire format, or name
    /// its stop sequences
    Format {
        #[command(subcommand)]
        what: format::FormatCommand,
    },
}

/// `tokensieve parse --help`'s description.
const PARSE_LONG_ABOUT: &str = "\
Read model output (FILE, or standard input) and print its events.

The default view is for people: text; thinking dimmed (after `[thinking]` when the output
is not a terminal); tool calls as `→ name(args)`; tool results as `← name: summary`.
--json prints one JSON event per line; --visible-only prints only the text a text-to-speech
engine should speak.

--stats prints no events, only counts at the end (events by kind, completed blocks by type,
chunk bytes by block type, tool calls by name, failed calls by reason): an aligned table, or
with --json one JSON object (keys in the README). With --stats several FILEs may be given:
each goes through a fresh parser and the counts are summed.";

/// Where a command's parser config comes from: a `--config` file, or `--dialect` with its
/// `--tools` (one or the other; `parse` and `format calls|tools|results` share it).
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("source").required(true).args(["config", "dialect"])))]
pub(crate) struct ConfigSource {
    /// A JSON config object ({"dialect": …, "tools": […], …}), host descriptions included
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// The dialect the model writes
    #[arg(long, value_name = "D", value_parser = dialect_parser())]
    dialect: Option<Dialect>,

    /// A JSON list of {name, schema}: the tools the model may call (with --dialect)
    #[arg(long, value_name = "FILE", conflicts_with = "config")]
    tools: Option<PathBuf>,
}

/// The arguments of `tokensieve parse`.
#[derive(Args, Debug)]
struct ParseArgs {
    #[command(flatten)]
    source: ConfigSource,

    /// Text that advances the parser silently first
    #[arg(long, value_name = "FILE")]
    prefill: Option<PathBuf>,

    /// Feed the input N bytes at a time (0: all at once)
    #[arg(long, value_name = "N", default_value_t = 0)]
    chunk: usize,

    /// One JSON event per line (the conformance-vector form); with --stats, the summary as
    /// one JSON object
    #[arg(long, overrides_with = "visible_only")]
    json: bool,

    /// Only the text a text-to-speech engine should speak (with a last newline)
    #[arg(long, overrides_with = "json", conflicts_with = "stats")]
    visible_only: bool,

    /// Print only counts: events by kind, bytes by block type, calls by name, errors by reason
    #[arg(long)]
    stats: bool,

    /// The model output to read; standard input when absent or `-` (several: --stats only,
    /// each through a fresh parser, the counts summed)
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// The one FILE a run that prints events reads (`None`: standard input); several FILEs are
/// for --stats only, a usage error (status 2) otherwise.
pub(crate) fn one_file(files: &[PathBuf], sub: &str) -> Option<PathBuf> {
    if files.len() > 1 {
        use clap::CommandFactory;
        let mut cmd = Cli::command();
        cmd.build(); // names the subcommand's usage `tokensieve SUB`
        let cmd = cmd
            .find_subcommand_mut(sub)
            .expect("a subcommand of the CLI");
        cmd.error(
            clap::error::ErrorKind::TooManyValues,
            "several FILEs are read only with --stats",
        )
        .exit();
    }
    files.first().cloned()
}

/// The inputs a --stats run reads: each FILE, or standard input when none is given.
pub(crate) fn stats_inputs(files: &[PathBuf]) -> Vec<Option<&Path>> {
    if files.is_empty() {
        vec![None]
    } else {
        files.iter().map(|f| Some(f.as_path())).collect()
    }
}

/// The arguments of `tokensieve dialects` and `tokensieve providers`.
#[derive(Args, Debug)]
struct ListArgs {
    /// Only the names, one a line (for shell loops)
    #[arg(long, conflicts_with = "json")]
    names: bool,

    /// A JSON array of {"name", "description"}
    #[arg(long)]
    json: bool,
}

/// The arguments of `tokensieve demo`.
#[derive(Args, Debug)]
struct DemoArgs {
    /// Stream without pausing between pieces
    #[arg(long)]
    fast: bool,
}

/// Parses a dialect name (one this build parses) into a [`Dialect`]; `--help` lists them.
pub(crate) fn dialect_parser() -> impl TypedValueParser<Value = Dialect> {
    // Aliases (`glm-4.7`) are accepted but not listed.
    let names = Dialect::ALL
        .into_iter()
        .filter(|d| d.is_supported())
        .map(|d| PossibleValue::new(d.name()))
        .chain(
            Dialect::ALIASES
                .iter()
                .map(|(alias, _)| PossibleValue::new(*alias).hide(true)),
        );
    PossibleValuesParser::new(names).map(|name| {
        Dialect::from_name(&name).expect("the parser admits only names Dialect::from_name knows")
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Parse(args) => parse(args).map(|()| false),
        Command::Demo(args) => demo::demo(args.fast).map(|()| false),
        Command::Dialects(args) => {
            let rows = Dialect::ALL
                .into_iter()
                .filter(|d| d.is_supported())
                .map(|d| (d.name(), dialect_description(d.name())));
            list(&args, rows).map(|()| false)
        }
        Command::Providers(args) => {
            let rows = tokensieve::provider::Provider::ALL
                .into_iter()
                .filter(|p| p.is_supported())
                .map(|p| (p.name(), provider_description(p.name())));
            list(&args, rows).map(|()| false)
        }
        Command::Decode(args) => decode::run(&args),
        Command::Format { what } => format::run(&what)
            .map(|()| false)
            .map_err(stream::Fail::from),
    };
    stream::exit(result)
}

/// The names of the dialects this build parses.
pub(crate) fn dialect_names() -> Vec<&'static str> {
    Dialect::ALL
        .into_iter()
        .filter(|d| d.is_supported())
        .map(Dialect::name)
        .collect()
}

/// One line per dialect for `tokensieve dialects`.
fn dialect_description(name: &str) -> &'static str {
    match name {
        "passthrough" => "all text; thinking markers and stop sequences only",
        "anthropic-xml" => "Claude's <thinking>, <function_calls><invoke>, <function_results>",
        "hermes" => "<tool_call>{json}</tool_call> (Hermes, Qwen 2.5/3, many fine-tunes)",
        "morph-xml" => "<tool_name><param>value</param></tool_name> (XML calls by tool name)",
        "qwen3-coder" => "<tool_call><function=name><parameter=p>value</parameter> (Qwen3-Coder)",
        "minimax-m2" => "<minimax:tool_call><invoke name=…><parameter …> (MiniMax-M2)",
        "glm-4.5" => "<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value> (GLM-4.5/4.7)",
        "harmony" => "gpt-oss's channels: analysis, commentary to=functions.name, final",
        "kimi-k2" => "<|tool_calls_section_begin|> special-token calls (Kimi K2)",
        "deepseek-v3.1" => "<｜tool▁call▁begin｜>name<｜tool▁sep｜>{json} (DeepSeek V3.1)",
        "deepseek-v3" => "<｜tool▁call▁begin｜>function<｜tool▁sep｜>name ```json``` (DeepSeek V3)",
        "mistral" => "[TOOL_CALLS] followed by JSON calls (Mistral)",
        "llama3-json" => "{\"name\": …, \"parameters\": …} JSON calls (Llama 3.x)",
        "pythonic" => "[name(arg=value), …] Python-style calls (Llama 4, pythonic templates)",
        "deepseek-v3.2" => "DSML: <｜DSML｜function_calls><｜DSML｜invoke name=…> (DeepSeek V3.2)",
        "deepseek-v4" => "DSML: <｜DSML｜tool_calls><｜DSML｜invoke name=…> (DeepSeek V4)",
        "seed-oss" => {
            "<seed:tool_call><function=name><parameter=p>value</parameter> (ByteDance Seed-OSS)"
        }
        "olmo-3" => {
            "<function_calls>name(arg=value) one per line</function_calls> (AllenAI Olmo 3)"
        }
        "lfm2" => "<|tool_call_start|>[name(arg=value), …]<|tool_call_end|> (Liquid LFM2)",
        "cohere-command" => {
            "<|START_ACTION|>[{\"tool_name\": N, \"parameters\": {…}}]<|END_ACTION|> (Cohere Command R7B, A)"
        }
        "granite" => {
            "<|tool_call|>[{\"name\": N, \"arguments\": {…}}], no closer (IBM Granite 3.x)"
        }
        "phi-4-mini" => "functools[{\"name\": N, \"arguments\": {…}}], no closer (Phi-4-mini)",
        "apertus" => "<|tools_prefix|>[{\"N\": {…}}]<|tools_suffix|> (Swiss AI Apertus)",
        "xlam" => {
            "a bare JSON list [{\"name\", \"arguments\"}] as the message, or in a ```json fence (Salesforce xLAM)"
        }
        "gemma-4" => "Gemma 4: <|tool_call>call:N{k:<|\"|>v<|\"|>}<tool_call|>, <|channel>thought",
        "hunyuan" => {
            "<tool_calls><tool_call>name<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value> (Tencent Hunyuan HY3)"
        }
        "functiongemma" => {
            "FunctionGemma: <start_function_call>call:N{k:<escape>v<escape>}<end_function_call>"
        }
        "minicpm5" => {
            "OpenBMB MiniCPM5: <function name=\"N\"><param name=\"K\">…</param></function> in text, CDATA values"
        }
        "minimax-m3" => {
            "MiniMax M3: ]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"N\">]<]minimax[>[<k>v]<]minimax[>[</k>…, <mm:think>"
        }
        "inkling" => {
            "Inkling: <|message_model|>N<|content_invoke_tool_json|>{\"name\": N, \"args\": {…}}<|end_message|>, <|content_thinking|>"
        }
        "step-3" => {
            "StepFun Step-3/3.5: <｜tool_calls_begin｜>… <steptml:invoke name=N><steptml:parameter name=K>…"
        }
        "kimi-k3" => {
            "Kimi K3 XTML: <|open|>tools<|sep|><|open|>call tool=\"N\"<|sep|><|open|>argument key=\"K\" type=\"T\"<|sep|>…, think/response channels"
        }
        _ => "",
    }
}

/// One line per provider for `tokensieve providers`.
fn provider_description(name: &str) -> &'static str {
    match name {
        "openai-chat" => "OpenAI Chat Completions, SSE (and compatible servers)",
        "openai-responses" => "OpenAI Responses API, SSE",
        "anthropic" => "Anthropic Messages API, SSE",
        "gemini" => "Google Gemini streamGenerateContent, SSE or a streamed JSON array",
        "bedrock" => "Amazon Bedrock ConverseStream / InvokeModel, AWS event stream",
        "ollama" => "Ollama native /api/chat and /api/generate, newline-delimited JSON",
        _ => "",
    }
}

/// Prints `rows` (name, description): aligned lines, bare names (`--names`) or JSON.
fn list<'a>(
    args: &ListArgs,
    rows: impl Iterator<Item = (&'a str, &'static str)>,
) -> Result<(), stream::Fail> {
    let rows: Vec<_> = rows.collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let r = if args.json {
        let v: Vec<_> = rows
            .iter()
            .map(|(n, d)| serde_json::json!({"name": n, "description": d}))
            .collect();
        writeln!(out, "{}", serde_json::Value::from(v))
    } else {
        let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        rows.iter().try_for_each(|(n, d)| {
            if args.names {
                writeln!(out, "{n}")
            } else {
                writeln!(out, "{n:width$}  {d}")
            }
        })
    };
    r.and_then(|()| out.flush())
        .map_err(|e| stream::write_error(&e))
}

/// The bytes of `path`, or of standard input when it is `-`.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(|e| format!("reading standard input: {e}"))?;
        return Ok(v);
    }
    std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))
}

/// The UTF-8 text of `path` (or of standard input: `-`).
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    String::from_utf8(read_file(path)?).map_err(|_| format!("{}: not UTF-8", path.display()))
}

/// `tokensieve parse`: the input through a parser as it arrives, its events in the chosen
/// view, written out after each read.
fn parse(args: ParseArgs) -> Result<(), stream::Fail> {
    let view = match (args.json, args.visible_only) {
        (true, _) => View::Json,
        (_, true) => View::Visible,
        _ => View::Human,
    };
    let config = args.source.load()?;
    let prefill = args.prefill.as_deref().map(read_file).transpose()?;
    if args.stats {
        // Each file is a transcript of its own: a fresh parser (and prefill) for each.
        let mut stats = stats::Stats::default();
        for file in stats_inputs(&args.files) {
            let mut sieve = Sieve::from_config_buf(config.clone()).map_err(|e| e.to_string())?;
            if let Some(p) = &prefill {
                sieve.prefill(p).map_err(|e| e.to_string())?;
            }
            stream::drive(&mut sieve, file, args.chunk, &mut stats)?;
        }
        return stats.print(args.json);
    }
    let file = one_file(&args.files, "parse");
    let mut sieve = Sieve::from_config_buf(config).map_err(|e| e.to_string())?;
    if let Some(p) = prefill {
        sieve.prefill(&p).map_err(|e| e.to_string())?;
    }
    let color = std::io::stdout().is_terminal();
    let mut out = Output::new(
        view,
        std::io::BufWriter::new(std::io::stdout().lock()),
        color,
    );
    stream::drive(&mut sieve, file.as_deref(), args.chunk, &mut out)?;
    out.end()
}

impl ConfigSource {
    /// The config: the `--config` file, or `--dialect` with its `--tools` (clap has made
    /// sure it is one or the other).
    pub(crate) fn load(&self) -> Result<ConfigBuf, String> {
        if let Some(path) = &self.config {
            return ConfigBuf::from_json(&read_text(path)?).map_err(|e| {
                // No binding picks a dialect: a config without one is refused with the names.
                let names = if e.to_string().ends_with("is required") && e.key() == "dialect" {
                    format!(" (one of: {})", dialect_names().join(", "))
                } else {
                    String::new()
                };
                format!("{}: {e}{names}", path.display())
            });
        }
        let d = self.dialect.ok_or("give --config or --dialect")?;
        let mut c = ConfigBuf::new(d);
        if let Some(path) = &self.tools {
            let text = read_text(path)?;
            let wrapped = format!("{{\"dialect\":\"{}\",\"tools\":{}}}", d.name(), text);
            c.tools = ConfigBuf::from_json(&wrapped)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .tools;
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own consistency checks of the definition (names, groups, conflicts).
    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
