"""Stubs of the extension module (Rust, pyo3): the parser, the provider-stream decoder and
their events."""

from collections.abc import Mapping
from typing import Any, ClassVar, Final, Literal, final

from typing_extensions import Buffer, Self, Unpack

from ._types import (
    BlockType,
    DecoderOptions,
    Dialect,
    ErrorSource,
    EventKind,
    FinishReason,
    Part,
    Provider,
    Usage,
)

__version__: Final[str]
#: The dialects this build parses.
DIALECTS: Final[tuple[Dialect, ...]]
#: The providers whose streams this build decodes.
PROVIDERS: Final[tuple[Provider, ...]]
#: Inputs at least this many bytes long are scanned with the GIL released.
RELEASE_GIL_AT: Final[int]

def stop_sequences(dialect: Dialect) -> list[str]:
    """The stop sequences (end-of-turn markers) a host sets when it runs a model of the
    dialect in completions mode (``[]`` where none is known). For anthropic-xml prefill, add
    ``"\\n" + name + ":"`` for each of the host's other participants.
    ``ConfigError`` for an unknown dialect.

    >>> import tokensieve
    >>> tokensieve.stop_sequences("harmony")
    ['<|return|>', '<|call|>']
    """

def _format_tool_calls(
    dialect: Dialect | Mapping[str, Any],
    calls_json: str,
    tools: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...] | None = None,
) -> str: ...
def _format_tool_definitions(
    dialect: Dialect | Mapping[str, Any],
    tools_json: str,
    tool_call_markers: tuple[str, str] | list[str] | None = None,
) -> str: ...
def _format_tool_results(dialect: Dialect, results_json: str) -> str: ...

class Event:
    """One event of the stream; immutable. Attributes are named as in the JSON form, and
    one is ``None`` exactly when the JSON form omits its key for this event.

    Every event is an instance of one of its final subclasses, one per kind
    (:class:`BlockStartEvent`, :class:`ChunkEvent`, :class:`BlockCompleteEvent`,
    :class:`StopEvent`, :class:`FinishEvent`, :class:`ErrorEvent`), whose attributes that
    the kind always has are typed without ``None``: ``isinstance`` and class patterns
    narrow (``case ChunkEvent(text=t)``). Events pickle and copy."""

    __match_args__: ClassVar[tuple[Literal["event"]]]
    def __copy__(self) -> Self: ...
    def __deepcopy__(self, memo: object, /) -> Self: ...
    def __reduce__(self) -> tuple[Any, tuple[tuple[Any, ...]]]: ...

    @property
    def event(self) -> EventKind:
        """``block_start``, ``chunk``, ``block_complete``, ``stop``; from a
        :class:`Decoder` also ``finish`` and ``error``."""
    @property
    def index(self) -> int | None:
        """block_start, block_complete: the block's index (0, 1, 2, … in stream order)."""
    @property
    def type(self) -> BlockType | None:
        """The block's type (block_start, chunk, block_complete)."""
    @property
    def text(self) -> str | None:
        """chunk: a piece of the block's content (whole characters, never empty)."""
    @property
    def visible(self) -> bool | None:
        """chunk: ``True`` exactly for text — what a text-to-speech engine speaks."""
    @property
    def block(self) -> int | None:
        """chunk: the index of its block."""
    @property
    def depth(self) -> int | None:
        """chunk: 0 at top level, 1 inside a tool region or call."""
    @property
    def part(self) -> Part | None:
        """tool_call chunk: ``name``, ``id`` or ``input`` (streamed in that order)."""
    @property
    def tool_name(self) -> str | None:
        """The tool's name, once known (tool_call and tool_result)."""
    @property
    def tool_id(self) -> str | None:
        """The call or result id, once known."""
    @property
    def content(self) -> str | None:
        """block_complete of text, thinking, tool_result: the whole block."""
    @property
    def input(self) -> dict[str, Any] | None:
        """block_complete of a successful tool_call: the arguments (a new dict on every access)."""
    @property
    def input_json(self) -> str | None:
        """block_complete of a successful tool_call: the arguments as compact JSON text,
        numbers exactly as written. Not part of :meth:`to_dict`."""
    @property
    def error(self) -> dict[str, Any] | None:
        """block_complete of a failed tool_call: ``{"reason": ErrorReason, "raw": str}``
        (``"raw_truncated": True`` added when ``raw`` was cut at ``max_call_bytes``)."""
    @property
    def is_error(self) -> Literal[True] | None:
        """block_complete of a tool_result that reports an error: ``True``."""
    @property
    def sequence(self) -> str | None:
        """stop: the stop sequence that matched (the stream ends there)."""
    @property
    def choice(self) -> int | None:
        """Provider streams with ``n > 1``: the choice of a block event or a finish
        (``None`` for choice 0, which the JSON form omits)."""
    @property
    def refusal(self) -> Literal[True] | None:
        """block_complete of a text block made of the provider's refusal deltas: ``True``."""
    @property
    def server(self) -> Literal[True] | None:
        """block_complete of a server-side tool call or its result: ``True``."""
    @property
    def signature(self) -> str | None:
        """block_complete: the opaque signature the host must send back with the block."""
    @property
    def redacted(self) -> str | None:
        """block_complete of redacted thinking: the data the host must send back."""
    @property
    def compaction(self) -> Literal[True] | None:
        """block_complete of a context compaction (a thinking block: its content is the
        summary, ``redacted`` its encrypted content): ``True``; the host sends it back as a
        compaction, not as thinking."""
    @property
    def citations(self) -> list[dict[str, Any]] | None:
        """block_complete of a text block with citations (Anthropic ``citations_delta``,
        Bedrock ``citation``): the citation objects in arrival order, each as the provider
        sent it (a new list on every access); the host sends them back as the block's
        ``citations``."""
    @property
    def citations_json(self) -> str | None:
        """As :attr:`citations`, the compact JSON text of the array. Not part of
        :meth:`to_dict`."""
    @property
    def reason(self) -> FinishReason | None:
        """finish: why the response (or its choice) ended, normalised."""
    @property
    def raw_reason(self) -> str | None:
        """finish: the provider's own word for it (``"eof"`` when the body ended early)."""
    @property
    def usage(self) -> Usage | None:
        """finish: the token counts the provider reported (a new dict on every access)."""
    @property
    def response_id(self) -> str | None:
        """finish: the provider's response id."""
    @property
    def model(self) -> str | None:
        """finish: the model that answered."""
    @property
    def source(self) -> ErrorSource | None:
        """error: ``provider`` (the provider sent it) or ``framing`` (a broken body)."""
    @property
    def code(self) -> str | None:
        """error: the provider's error code or type, or the framing fault's name."""
    @property
    def message(self) -> str | None:
        """error: what was wrong."""
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``tokensieve parse --json``, ``tokensieve decode --json``): a new
        dict, absent fields omitted."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def _event(state: tuple[Any, ...], /) -> Event:
    """Rebuilds a pickled event (``Event.__reduce__``)."""

@final
class BlockStartEvent(Event):
    """``block_start``: a block opens."""

    __match_args__: ClassVar[tuple[Literal["type"], Literal["index"]]]
    @property
    def event(self) -> Literal["block_start"]: ...
    @property
    def index(self) -> int: ...
    @property
    def type(self) -> BlockType: ...

@final
class ChunkEvent(Event):
    """``chunk``: a piece of the open block's content."""

    __match_args__: ClassVar[tuple[Literal["text"], Literal["type"]]]
    @property
    def event(self) -> Literal["chunk"]: ...
    @property
    def text(self) -> str: ...
    @property
    def type(self) -> BlockType: ...
    @property
    def visible(self) -> bool: ...
    @property
    def block(self) -> int: ...
    @property
    def depth(self) -> int: ...

@final
class BlockCompleteEvent(Event):
    """``block_complete``: a block ends, with what it holds."""

    __match_args__: ClassVar[tuple[Literal["type"], Literal["index"]]]
    @property
    def event(self) -> Literal["block_complete"]: ...
    @property
    def index(self) -> int: ...
    @property
    def type(self) -> BlockType: ...

@final
class StopEvent(Event):
    """``stop``: a stop sequence ended the stream."""

    __match_args__: ClassVar[tuple[Literal["sequence"]]]
    @property
    def event(self) -> Literal["stop"]: ...
    @property
    def sequence(self) -> str: ...

@final
class FinishEvent(Event):
    """``finish`` (a :class:`Decoder`'s): the response, or one choice of it, ended."""

    __match_args__: ClassVar[tuple[Literal["reason"]]]
    @property
    def event(self) -> Literal["finish"]: ...
    @property
    def reason(self) -> FinishReason: ...

@final
class ErrorEvent(Event):
    """``error`` (a :class:`Decoder`'s): the provider sent an error, or the body broke."""

    __match_args__: ClassVar[tuple[Literal["code"], Literal["message"]]]
    @property
    def event(self) -> Literal["error"]: ...
    @property
    def source(self) -> ErrorSource: ...
    @property
    def message(self) -> str: ...

@final
class Sieve:
    """The streaming parser of one dialect. Every keyword is a key of the JSON config.

    Not shareable between threads: a call while another thread is inside a call on the
    same Sieve raises ``RuntimeError`` (use one Sieve per stream, or a lock).
    """

    def __init__(
        self,
        dialect: Dialect | Mapping[str, Any],
        *,
        tools: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...] | None = None,
        thinking_tags: tuple[str, str] | list[str] | list[tuple[str, str] | list[str]] | None = None,
        tool_call_markers: tuple[str, str] | list[str] | None = None,
        start_in: Literal["text", "thinking"] | None = None,
        stop_sequences: list[str] | tuple[str, ...] | None = None,
        id_prefix: str | None = None,
        on_malformed: Literal["text", "drop"] | None = None,
        max_call_bytes: int | None = None,
        unknown_tools: Literal["call", "fail"] | None = None,
    ) -> None:
        """``ValueError`` for a bad value, ``TypeError`` for a wrong type; both name the key."""
    @property
    def dialect(self) -> Dialect:
        """The dialect's name."""
    @property
    def is_done(self) -> bool:
        """``True`` once the stream ended (a stop sequence, or ``finish()``)."""
    def prefill(self, text: str | Buffer, /) -> None:
        """Advances silently over text the prompt already holds; before the first feed."""
    def feed(self, data: str | Buffer, /) -> list[Event]:
        """Parses the next piece (``str`` as UTF-8; bytes may split a character) and returns
        its events. ``RuntimeError`` after ``finish()``; nothing happens after a stop."""
    def finish(self) -> list[Event]:
        """Ends the stream: held text comes out, open blocks complete."""
    def reset(self) -> None:
        """Back to the start of a new stream, same configuration."""
    def _feed_as(
        self, data: str | Buffer, form: Literal["event", "tuple", "dict", "count"], /
    ) -> Any: ...

@final
class Decoder:
    """The decoder of one provider's streaming response body (the HTTP body: SSE, a JSON
    array, AWS event stream frames) into the same events as a :class:`Sieve`, plus
    ``finish`` and ``error``. The keywords are the keys of the decoder's JSON config.

    Not shareable between threads: a call while another thread is inside a call on the
    same Decoder raises ``RuntimeError`` (use one Decoder per stream, or a lock).
    """

    def __init__(
        self,
        provider: Provider = "openai-chat",
        *,
        accumulate: bool = True,
        **config: Unpack[DecoderOptions],
    ) -> None:
        """``ValueError`` for a bad value (an unknown provider, or one this build does not
        decode: see ``PROVIDERS``), ``TypeError`` for a wrong type or an unknown keyword;
        both name the key. ``accumulate=False``: ``block_complete`` events of successful
        blocks carry no ``content`` / ``input`` and nothing of a block is kept (as the C
        and PHP bindings allow), so a long stream costs no memory beyond its events."""
    @property
    def provider(self) -> Provider:
        """The provider's name."""
    @property
    def text_dialect(self) -> Dialect | None:
        """The dialect the provider's text runs through, or ``None``."""
    def feed(self, data: str | Buffer, /) -> list[Event]:
        """Decodes the next piece of the body (bytes-like, or ``str`` as UTF-8; split
        anywhere) and returns its events. ``RuntimeError`` after ``finish()``."""
    def finish(self) -> list[Event]:
        """Ends the body: open blocks complete, and the ``finish`` event comes if the end
        marker did not bring it (reason ``error``, raw_reason ``eof`` for a cut body)."""
    def reset(self) -> None:
        """Back to the start of a new body, same configuration."""
