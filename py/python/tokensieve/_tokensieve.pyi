"""Stubs of the extension module (Rust, pyo3): the parser and its events."""

from collections.abc import Mapping
from typing import Any, Final, Literal, final

from typing_extensions import Buffer

from ._types import BlockType, Dialect, EventKind, Part

__version__: Final[str]
#: The dialects this build parses.
DIALECTS: Final[tuple[Dialect, ...]]
#: Inputs at least this many bytes long are scanned with the GIL released.
RELEASE_GIL_AT: Final[int]

@final
class Event:
    """One event of the stream; immutable. Attributes are named as in the JSON form, and
    one is ``None`` exactly when the JSON form omits its key for this event."""

    @property
    def event(self) -> EventKind:
        """``block_start``, ``chunk``, ``block_complete`` or ``stop``."""
    @property
    def index(self) -> int | None:
        """block_start, block_complete: the block's index (0, 1, 2, … in stream order)."""
    @property
    def type(self) -> BlockType | None:
        """The block's type (every event but stop)."""
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
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``tokensieve parse --json``): a new dict, absent fields omitted."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Sieve:
    """The streaming parser of one dialect. Every keyword is a key of the JSON config.

    Not shareable between threads: a call while another thread is inside a call on the
    same Sieve raises ``RuntimeError`` (use one Sieve per stream, or a lock).
    """

    def __init__(
        self,
        dialect: Dialect = "hermes",
        *,
        tools: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...] | None = None,
        thinking_tags: tuple[str, str] | list[str] | None = None,
        tool_call_markers: tuple[str, str] | list[str] | None = None,
        start_in: Literal["text", "thinking"] | None = None,
        stop_sequences: list[str] | tuple[str, ...] | None = None,
        id_prefix: str | None = None,
        on_malformed: Literal["text", "drop"] | None = None,
        max_call_bytes: int | None = None,
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
