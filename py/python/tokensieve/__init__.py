"""tokensieve: split a language model's output, as it streams, into visible text, thinking,
tool calls and tool results — without leaking half a tag, losing a byte, or caring how the
stream was chunked.

    >>> import tokensieve
    >>> sieve = tokensieve.Sieve("hermes")
    >>> [e.text for e in sieve.feed("Hi <thi") + sieve.feed("nk>hmm</think>!") if e.visible]
    ['Hi ', '!']

:class:`Sieve` is the streaming parser (``feed`` → events, ``finish``, ``reset``);
:func:`parse` parses a whole text; :func:`stream` and :func:`astream` drive a parser over an
iterable or async iterable of chunks; :class:`Collector` gathers complete blocks and tool
calls. Events are :class:`Event` objects with the attributes of the JSON form.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING

from ._collect import Collector
from ._tokensieve import DIALECTS, Event, Sieve, __version__
from ._types import (
    BlockType,
    Dialect,
    ErrorReason,
    EventKind,
    Parser,
    Part,
    SieveOptions,
    ToolCall,
)

if TYPE_CHECKING:
    from typing_extensions import Buffer, Unpack

__all__ = [
    "DIALECTS",
    "BlockType",
    "Collector",
    "Dialect",
    "ErrorReason",
    "Event",
    "EventKind",
    "Parser",
    "Part",
    "Sieve",
    "SieveOptions",
    "ToolCall",
    "__version__",
    "astream",
    "parse",
    "stream",
]


def parse(
    text: str | Buffer,
    dialect: Dialect = "hermes",
    *,
    prefill: str | Buffer | None = None,
    **config: Unpack[SieveOptions],
) -> list[Event]:
    """Parses a whole text: the events of ``Sieve(dialect, **config)`` fed ``text`` at once
    (after a silent ``prefill``), then finished."""
    sieve = Sieve(dialect, **config)
    if prefill is not None:
        sieve.prefill(prefill)
    events = sieve.feed(text)
    events += sieve.finish()
    return events


def _parser(
    dialect: Dialect | Parser,
    prefill: str | Buffer | None,
    config: SieveOptions,
) -> Parser:
    if isinstance(dialect, str):
        sieve = Sieve(dialect, **config)
        if prefill is not None:
            sieve.prefill(prefill)
        return sieve
    if config or prefill is not None:
        raise TypeError("give config keywords and prefill with a dialect name, not with a parser")
    if not (hasattr(dialect, "feed") and hasattr(dialect, "finish")):
        raise TypeError(
            "dialect must be a dialect name or a parser (a Sieve), not %s" % type(dialect).__name__
        )
    return dialect


def stream(
    chunks: Iterable[str | Buffer],
    dialect: Dialect | Parser = "hermes",
    *,
    prefill: str | Buffer | None = None,
    **config: Unpack[SieveOptions],
) -> Iterator[Event]:
    """Yields the events of a stream given as an iterable of chunks (``str`` or bytes-like,
    split anywhere), then those of ``finish()``. The parser is made (and the config checked)
    at the call, before the first chunk is read. ``dialect`` is a dialect name (a new
    ``Sieve(dialect, **config)``) or a parser to drive, such as a configured :class:`Sieve`."""
    return _drive(_parser(dialect, prefill, config), chunks)


def _drive(parser: Parser, chunks: Iterable[str | Buffer]) -> Iterator[Event]:
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.finish()


def astream(
    chunks: AsyncIterable[str | Buffer],
    dialect: Dialect | Parser = "hermes",
    *,
    prefill: str | Buffer | None = None,
    **config: Unpack[SieveOptions],
) -> AsyncIterator[Event]:
    """:func:`stream` over an async iterable (an HTTP client's ``aiter_text()``,
    ``aiter_bytes()``, an SDK's text deltas, …)."""
    return _adrive(_parser(dialect, prefill, config), chunks)


async def _adrive(parser: Parser, chunks: AsyncIterable[str | Buffer]) -> AsyncIterator[Event]:
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
    for event in parser.finish():
        yield event
