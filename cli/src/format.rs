//! `tokensieve format`: write what the model writes or reads, in a dialect's wire format —
//! the assistant's past tool calls (`calls`), the prompt's tool definitions (`tools`), tool
//! results (`results`) — and name the stop sequences a host sets for a dialect (`stops`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::Value;
use tokensieve::Dialect;
use tokensieve::format::{
    ToolDef, format_tool_calls_json, format_tool_definitions, format_tool_results_json,
    stop_sequences_for,
};

use crate::{ConfigSource, dialect_parser, read_text};

/// What `tokensieve format` writes.
#[derive(Subcommand, Debug)]
pub(crate) enum FormatCommand {
    /// Write the assistant's tool calls as the model writes them, from a JSON array of
    /// {"name", "id"?, "input": {…}}
    Calls(FormatArgs),
    /// Write the prompt's tool-definition section as the family's chat template renders it,
    /// from a JSON array in the config's tool-list form: {"name", "description"?, "schema"?}
    /// (the schema an object or its JSON text; keys and numbers kept as written)
    Tools(FormatArgs),
    /// Write tool results as the family's template gives them back, from a JSON array of
    /// {"tool_use_id"?, "name"?, "content", "is_error"?}
    Results(FormatArgs),
    /// Print the stop sequences a host sets for the dialect, as a JSON array
    Stops(StopsArgs),
}

/// The arguments of `tokensieve format calls` and `format results`.
#[derive(Args, Debug)]
pub(crate) struct FormatArgs {
    /// The dialect and tools to write for (the tools' parameter types decide how
    /// XML-parameter formats write values)
    #[command(flatten)]
    source: ConfigSource,

    /// The JSON array to write; standard input when absent or `-`
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

/// The arguments of `tokensieve format stops`.
#[derive(Args, Debug)]
pub(crate) struct StopsArgs {
    /// The dialect
    #[arg(long, value_name = "D", value_parser = dialect_parser(), required = true)]
    dialect: Option<Dialect>,
}

/// The input text and what names it in messages.
fn input(args: &FormatArgs) -> Result<(String, String), String> {
    let path = args.file.clone().unwrap_or_else(|| PathBuf::from("-"));
    let what = if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    Ok((read_text(&path)?, what))
}

fn opt_str<'v>(item: &'v Value, key: &str, at: &str) -> Result<Option<&'v str>, String> {
    match item.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("{at}: \"{key}\" is not a string")),
    }
}

/// Runs a `format` subcommand, writing its text to standard output.
pub(crate) fn run(command: &FormatCommand) -> Result<(), String> {
    let out = match command {
        FormatCommand::Stops(args) => {
            let d = args.dialect.ok_or("give --dialect")?;
            let mut s = serde_json::to_string(stop_sequences_for(d)).map_err(|e| e.to_string())?;
            s.push('\n');
            s
        }
        // The JSON forms are read by the core (one reader for the CLI and every binding).
        FormatCommand::Calls(args) => {
            let config = args.source.load()?;
            let (text, what) = input(args)?;
            format_tool_calls_json(&config.config(), &text).map_err(|e| format!("{what}: {e}"))?
        }
        FormatCommand::Tools(args) => {
            let config = args.source.load()?;
            let (text, what) = input(args)?;
            let items = match serde_json::from_str::<Value>(&text) {
                Ok(Value::Array(items)) => items,
                Ok(_) => return Err(format!("{what}: not a JSON array")),
                Err(e) => return Err(format!("{what}: {e}")),
            };
            let mut owned = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let at = format!("{what}: [{i}]");
                let Some(object) = item.as_object() else {
                    return Err(format!("{at}: not an object {{name, description, schema}}"));
                };
                if let Some(k) = object
                    .keys()
                    .find(|k| !matches!(k.as_str(), "name" | "description" | "schema"))
                {
                    return Err(format!(
                        "{at}: \"{k}\" is not a tool key (name, description, schema)"
                    ));
                }
                let name = opt_str(item, "name", &at)?.ok_or(format!("{at}: no \"name\""))?;
                let description = opt_str(item, "description", &at)?;
                // serde_json keeps the keys' order and the numbers' spelling here
                // (`preserve_order`, `arbitrary_precision`).
                let schema = match item.get("schema") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(text)) => Some(text.clone()),
                    Some(v @ Value::Object(_)) => Some(v.to_string()),
                    Some(_) => {
                        return Err(format!(
                            "{at}: \"schema\" is not an object or its JSON text"
                        ));
                    }
                };
                owned.push((name, description, schema));
            }
            let tools: Vec<ToolDef<'_>> = owned
                .iter()
                .map(|(name, description, schema)| ToolDef {
                    name,
                    description: *description,
                    schema: schema.as_deref(),
                })
                .collect();
            format_tool_definitions(&config.config(), &tools).map_err(|e| format!("{what}: {e}"))?
        }
        FormatCommand::Results(args) => {
            let config = args.source.load()?;
            let (text, what) = input(args)?;
            format_tool_results_json(config.dialect, &text).map_err(|e| format!("{what}: {e}"))?
        }
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing: {e}")),
        _ => Ok(()),
    }
}
