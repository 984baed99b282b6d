"""The writers (issue 27): what the model writes or reads, in its wire format.

:func:`format_tool_calls` writes the assistant's past tool calls as the model writes them
(what the family's chat template renders), :func:`format_tool_results` writes tool results
as the template gives them back, :func:`~tokensieve.stop_sequences` names the stops a host
sets. The lists are encoded as JSON here and read by the core (the reader every binding
shares). (``format_tool_definitions`` goes here once the core writes tool definitions.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from . import _tokensieve
from ._errors import ArgumentError, FormatError
from ._types import Dialect, ToolCallInput, ToolResultInput

__all__ = ["format_tool_calls", "format_tool_results"]


def _dumps(items: Iterable[Mapping[str, Any]], what: str) -> str:
    if isinstance(items, (str, bytes, Mapping)):
        raise ArgumentError(f"{what}: must be a list of dicts, not {type(items).__name__}")
    try:
        return json.dumps(list(items), ensure_ascii=False, allow_nan=False)
    except TypeError as e:
        raise ArgumentError(f"{what}: cannot be written as JSON: {e}") from e
    except ValueError as e:
        raise FormatError(f"{what}: cannot be written as JSON: {e}") from e


def format_tool_calls(
    dialect: Dialect | Mapping[str, Any],
    calls: Iterable[ToolCallInput],
    *,
    tools: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...] | None = None,
) -> str:
    """Writes the assistant's past tool calls as the model writes them, so that a host that
    builds the prompt itself replays the conversation in the form the model was trained on;
    a :class:`~tokensieve.Sieve` of the same dialect reads the text back as the same calls.

    ``dialect`` and ``tools`` are those of :class:`~tokensieve.Sieve` (a name or a
    description mapping; the tools' parameter types decide how the XML-parameter formats
    write values). Each call is ``{"name", "id"?, "input"?}``; ``id`` is written where the
    format carries it. Raises :class:`~tokensieve.ConfigError` for a bad dialect or tools,
    :class:`~tokensieve.FormatError` for a call that cannot be written.

    >>> import tokensieve
    >>> tokensieve.format_tool_calls("hermes", [{"name": "get_weather", "input": {"city": "Paris"}}])
    '<tool_call>\\n{"name": "get_weather", "arguments": {"city": "Paris"}}\\n</tool_call>'
    """
    return _tokensieve._format_tool_calls(dialect, _dumps(calls, "calls"), tools)


def format_tool_results(dialect: Dialect, results: Iterable[ToolResultInput]) -> str:
    """Writes tool results as the family's chat template gives them back to the model. Each
    result is ``{"content", "tool_use_id"?, "name"?, "is_error"?}``; ids, names and the
    error flag appear where the format has a place for them. Content that spells the
    format's markers cannot end a result early.

    >>> import tokensieve
    >>> tokensieve.format_tool_results("hermes", [{"tool_use_id": "call_0", "content": "18°C"}])
    '<tool_response>\\n18°C\\n</tool_response>'
    """
    return _tokensieve._format_tool_results(dialect, _dumps(results, "results"))
