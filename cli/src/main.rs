//! `tokensieve`: parse model output into events from the command line.
//!
//! ```text
//! tokensieve parse (--config FILE | --dialect D [--tools FILE]) [--prefill FILE]
//!                  [--chunk N] [--json | --visible-only] [FILE|-]
//! tokensieve demo [--fast]
//! tokensieve dialects
//! tokensieve providers
//! tokensieve decode (--config FILE | --provider P [--text-dialect D]) [--chunk N] [--json]
//!                   [FILE|-]
//! ```
//!
//! Usage errors exit with status 2 (clap's messages); so do the errors of a run (an
//! unreadable file, a bad config, a failed write), printed as `tokensieve: …`.

mod decode;
mod demo;
mod output;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::{PossibleValuesParser, TypedValueParser};
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
    /// List the dialects this build parses
    Dialects,
    /// List the providers whose streams this build decodes
    Providers,
    /// Decode a provider's streaming response body into events
    Decode(DecodeArgs),
}

/// `tokensieve parse --help`'s description.
const PARSE_LONG_ABOUT: &str = "\
Read model output (FILE, or standard input) and print its events.

The default view is for people: text; thinking dimmed (after `[thinking]` when the output
is not a terminal); tool calls as `→ name(args)`; tool results as `← name: summary`.
--json prints one JSON event per line; --visible-only prints only the text a text-to-speech
engine should speak.";

/// The arguments of `tokensieve parse`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("source").required(true).args(["config", "dialect"])))]
struct ParseArgs {
    /// A JSON config object ({"dialect": …, "tools": […], …})
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// The dialect the model writes
    #[arg(long, value_name = "D", value_parser = dialect_parser())]
    dialect: Option<Dialect>,

    /// A JSON list of {name, schema}: the tools the model may call (with --dialect)
    #[arg(long, value_name = "FILE", conflicts_with = "config")]
    tools: Option<PathBuf>,

    /// Text that advances the parser silently first
    #[arg(long, value_name = "FILE")]
    prefill: Option<PathBuf>,

    /// Feed the input N bytes at a time (0: all at once)
    #[arg(long, value_name = "N", default_value_t = 0)]
    chunk: usize,

    /// One JSON event per line (the conformance-vector form)
    #[arg(long, overrides_with = "visible_only")]
    json: bool,

    /// Only the text a text-to-speech engine should speak
    #[arg(long, overrides_with = "json")]
    visible_only: bool,

    /// The model output to read; standard input when absent or `-`
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
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
    let names = Dialect::ALL
        .into_iter()
        .filter(|d| d.is_supported())
        .map(Dialect::name);
    PossibleValuesParser::new(names).map(|name| {
        Dialect::from_name(&name).expect("the parser admits only the names of Dialect::ALL")
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Parse(args) => parse(args),
        Command::Demo(args) => demo::demo(args.fast),
        Command::Dialects => {
            dialects();
            Ok(())
        }
        Command::Providers => {
            for p in tokensieve::provider::Provider::ALL {
                if p.is_supported() {
                    println!("{}", p.name());
                }
            }
            Ok(())
        }
        Command::Decode(args) => return decode::decode(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tokensieve: {e}");
            ExitCode::from(2)
        }
    }
}

/// `tokensieve dialects`: one name a line.
fn dialects() {
    for d in Dialect::ALL.into_iter().filter(|d| d.is_supported()) {
        println!("{}", d.name());
    }
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
fn read_text(path: &Path) -> Result<String, String> {
    String::from_utf8(read_file(path)?).map_err(|_| format!("{}: not UTF-8", path.display()))
}

/// `tokensieve parse`: the input through a parser, its events in the chosen view.
fn parse(args: ParseArgs) -> Result<(), String> {
    let view = match (args.json, args.visible_only) {
        (true, _) => View::Json,
        (_, true) => View::Visible,
        _ => View::Human,
    };
    let config = parse_config(&args)?;
    let prefill = args.prefill.as_deref().map(read_file).transpose()?;
    let input = read_file(args.file.as_deref().unwrap_or(Path::new("-")))?;
    let mut sieve = Sieve::from_config_buf(config).map_err(|e| e.to_string())?;
    if let Some(p) = prefill {
        sieve.prefill(&p).map_err(|e| e.to_string())?;
    }
    let stdout = std::io::stdout();
    let mut out = Output::new(view, stdout.lock(), std::io::stdout().is_terminal());
    feed(&mut sieve, &input, args.chunk, &mut out)?;
    out.end()
}

/// The parser config `parse` was given: the `--config` file, or `--dialect` with its
/// `--tools` (clap has made sure it is one or the other).
fn parse_config(args: &ParseArgs) -> Result<ConfigBuf, String> {
    if let Some(path) = &args.config {
        return ConfigBuf::from_json(&read_text(path)?)
            .map_err(|e| format!("{}: {e}", path.display()));
    }
    let d = args.dialect.ok_or("give --config or --dialect")?;
    let mut c = ConfigBuf::new(d);
    if let Some(path) = &args.tools {
        let text = read_text(path)?;
        let wrapped = format!("{{\"dialect\":\"{}\",\"tools\":{}}}", d.name(), text);
        c.tools = ConfigBuf::from_json(&wrapped)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .tools;
    }
    Ok(c)
}

/// Feeds `input` to `sieve` `chunk` bytes at a time (0: all at once), then finishes it,
/// writing every event to `out`.
fn feed<W: std::io::Write>(
    sieve: &mut Sieve,
    input: &[u8],
    chunk: usize,
    out: &mut Output<W>,
) -> Result<(), String> {
    let size = if chunk == 0 {
        input.len().max(1)
    } else {
        chunk
    };
    for piece in input.chunks(size) {
        let mut rest = piece;
        while let Some(ev) = sieve.next(&mut rest) {
            out.event(&ev)?;
        }
    }
    sieve.finish();
    while let Some(ev) = sieve.next(&mut &b""[..]) {
        out.event(&ev)?;
    }
    Ok(())
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
