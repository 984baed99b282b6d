"""tokensieve: split a language model's output, as it streams, into visible text, thinking,
tool calls and tool results — without leaking half a tag, losing a byte, or caring how the
stream was chunked.

    >>> import tokensieve
    >>> sieve = tokensieve.Sieve("hermes")
    >>> [e.text for e in sieve.feed("Hi <thi") + sieve.feed("nk>hmm</think>!") if e.visible]
    ['Hi ', '!']

:class:`Sieve` is the streaming parser of model text (``feed`` → events, ``finish``,
``reset``); :class:`Decoder` is its twin for a provider's streaming response body (an
OpenAI SSE body, …), whose events add ``finish`` and ``error``. :func:`parse` parses a whole
text (or body, with ``provider=``); :func:`stream` and :func:`astream` drive a parser over
an iterable or async iterable of chunks; :class:`Collector` gathers complete blocks, tool
calls and the finish. Events are :class:`Event` objects with the attributes of the JSON form.

The writers go the other way: :func:`format_tool_calls` and :func:`format_tool_results`
write the assistant's tool calls and the tool results in a dialect's wire format (for a
host that builds the prompt itself), :func:`stop_sequences` names the stops to set.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING
from typing import Any as _Any
from typing import overload as _overload

from ._collect import Collector
from ._errors import ArgumentError, ConfigError, Error, FormatError, StateError
from ._format import format_tool_calls, format_tool_results
from ._tokensieve import (
    DIALECTS,
    PROVIDERS,
    BlockCompleteEvent,
    BlockStartEvent,
    ChunkEvent,
    Decoder,
    ErrorEvent,
    Event,
    FinishEvent,
    Sieve,
    StopEvent,
    __version__,
    stop_sequences,
)
from ._types import (
    BlockType,
    DecoderOptions,
    Dialect,
    ErrorReason,
    ErrorSource,
    EventKind,
    FinishReason,
    Parser,
    Part,
    Provider,
    SieveOptions,
    ToolCall,
    ToolCallInput,
    ToolResultInput,
    Usage,
)

if TYPE_CHECKING:
    from typing_extensions import Buffer, Unpack

__all__ = [
    "DIALECTS",
    "PROVIDERS",
    "ArgumentError",
    "BlockCompleteEvent",
    "BlockStartEvent",
    "BlockType",
    "ChunkEvent",
    "Collector",
    "ConfigError",
    "Decoder",
    "DecoderOptions",
    "Dialect",
    "Error",
    "ErrorEvent",
    "ErrorReason",
    "ErrorSource",
    "Event",
    "EventKind",
    "FinishEvent",
    "FinishReason",
    "FormatError",
    "Parser",
    "Part",
    "Provider",
    "Sieve",
    "SieveOptions",
    "StateError",
    "StopEvent",
    "ToolCall",
    "ToolCallInput",
    "ToolResultInput",
    "Usage",
    "__version__",
    "astream",
    "format_tool_calls",
    "format_tool_results",
    "parse",
    "stop_sequences",
    "stream",
]


def __dir__() -> list[str]:
    return sorted(__all__)


@_overload
def parse(
    text: str | Buffer,
    dialect: Dialect,
    *,
    prefill: str | Buffer | None = None,
    **config: Unpack[SieveOptions],
) -> list[Event]: ...
@_overload
def parse(
    text: str | Buffer, *, provider: Provider, **config: Unpack[DecoderOptions]
) -> list[Event]: ...
def parse(
    text: str | Buffer,
    dialect: Dialect | None = None,
    *,
    provider: Provider | None = None,
    prefill: str | Buffer | None = None,
    **config: _Any,
) -> list[Event]:
    """Parses a whole text: the events of ``Sieve(dialect, **config)`` fed ``text`` at once
    (after a silent ``prefill``), then finished. With ``provider=``, a whole response body:
    the events of ``Decoder(provider, **config)``."""
    parser = _parser(dialect, provider, prefill, config)
    events = parser.feed(text)
    events += parser.finish()
    return events


def _parser(
    dialect: Dialect | Parser | None,
    provider: Provider | None,
    prefill: str | Buffer | None,
    config: dict[str, _Any],
) -> Parser:
    if provider is not None:
        if dialect is not None:
            raise ArgumentError(
                "give a dialect or provider=, not both (a provider's text runs through "
                "the dialect given as text_dialect=)"
            )
        if prefill is not None:
            raise ArgumentError("prefill is for model text (a Sieve), not for a provider stream")
        return Decoder(provider, **config)
    if dialect is None:
        raise ConfigError(
            "give the dialect the model writes (or provider= for a provider stream), one of: "
            + ", ".join(DIALECTS)
        )
    if isinstance(dialect, str):
        sieve = Sieve(dialect, **config)
        if prefill is not None:
            sieve.prefill(prefill)
        return sieve
    if config or prefill is not None:
        raise ArgumentError("give config keywords and prefill with a dialect name, not with a parser")
    if not (hasattr(dialect, "feed") and hasattr(dialect, "finish")):
        raise ArgumentError(
            "dialect must be a dialect name or a parser (a Sieve or a Decoder), not %s"
            % type(dialect).__name__
        )
    return dialect


@_overload
def stream(
    chunks: Iterable[str | Buffer],
    dialect: Dialect | Parser,
    *,
    prefill: str | Buffer | None = None,
    **config: Unpack[SieveOptions],
) -> Iterator[Event]: ...
@_overload
def stream(
    chunks: Iterable[str | Buffer], *, provider: Provider, **config: Unpack[DecoderOptions]
) -> Iterator[Event]: ...
def stream(
    chunks: Iterable[str | Buffer],
    dialect: Dialect | Parser | None = None,
    *,
    provider: Provider | None = None,
    prefill: str | Buffer | None = None,
    **config: _Any,
) -> Iterator[Event]:
    """Yields the events of a stream given as an iterable of chunks (``str`` or bytes-like,
    split anywhere), then those of ``finish()``. The parser is made (and the config checked)
    at the call, before the first chunk is read. ``dialect`` is a dialect name (a new
    ``Sieve(dialect, **config)``) or a parser to drive, such as a configured :class:`Sieve`
    or :class:`Decoder`; ``provider=`` (instead of a dialect) decodes a provider's response
    body with a new ``Decoder(provider, **config)``."""
    return _drive(_parser(dialect, provider, prefill, config), chunks)


def _drive(parser: Parser, chunks: Iterable[str | Buffer]) -> Iterator[Event]:
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.finish()


@_overload
def astream(
    chunks: AsyncIterable[str | Buffer],
    dialect: Dialect | Parser,
    *,
    prefill: str | Buffer | None = None,
    **config: Unpack[SieveOptions],
) -> AsyncIterator[Event]: ...
@_overload
def astream(
    chunks: AsyncIterable[str | Buffer], *, provider: Provider, **config: Unpack[DecoderOptions]
) -> AsyncIterator[Event]: ...
def astream(
    chunks: AsyncIterable[str | Buffer],
    dialect: Dialect | Parser | None = None,
    *,
    provider: Provider | None = None,
    prefill: str | Buffer | None = None,
    **config: _Any,
) -> AsyncIterator[Event]:
    """:func:`stream` over an async iterable (an HTTP client's ``aiter_bytes()``, an SDK's
    text deltas, …): ``astream(response.aiter_bytes(), provider="openai-chat")``."""
    return _adrive(_parser(dialect, provider, prefill, config), chunks)


async def _adrive(parser: Parser, chunks: AsyncIterable[str | Buffer]) -> AsyncIterator[Event]:
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
    for event in parser.finish():
        yield event
