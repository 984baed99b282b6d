"""Complete blocks and tool calls, gathered from a stream's events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._tokensieve import Event
    from ._types import ToolCall


class Collector:
    """Gathers the complete blocks of a stream (its ``block_complete`` events, which carry
    ``content`` and ``input``) and what follows from them: the visible text, the thinking,
    the tool calls. Push every event, or pass them all at once::

        calls = Collector(tokensieve.parse(text, "hermes")).tool_calls
    """

    __slots__ = ("blocks", "stop")

    def __init__(self, events: Iterable[Event] = ()) -> None:
        #: The ``block_complete`` events, in stream order.
        self.blocks: list[Event] = []
        #: The stop sequence that ended the stream, if one did.
        self.stop: str | None = None
        self.extend(events)

    def push(self, event: Event) -> None:
        """Records one event (chunks and block starts are skipped: completions carry all)."""
        kind = event.event
        if kind == "block_complete":
            self.blocks.append(event)
        elif kind == "stop":
            self.stop = event.sequence

    def extend(self, events: Iterable[Event]) -> None:
        """Records every event of ``events``."""
        for event in events:
            self.push(event)

    def _content(self, block_type: str) -> str:
        return "".join(b.content or "" for b in self.blocks if b.type == block_type)

    @property
    def text(self) -> str:
        """The visible text: what a text-to-speech engine speaks (with the raw text of
        failed calls, unless ``on_malformed="drop"``)."""
        return self._content("text")

    @property
    def thinking(self) -> str:
        """The thinking, all blocks joined."""
        return self._content("thinking")

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The successful tool calls: ``[{"id", "name", "arguments": dict}]``."""
        calls: list[ToolCall] = []
        for b in self.blocks:
            if b.type == "tool_call" and b.error is None:
                arguments = b.input
                calls.append(
                    {
                        "id": b.tool_id or "",
                        "name": b.tool_name or "",
                        "arguments": arguments if arguments is not None else {},
                    }
                )
        return calls

    @property
    def failed_calls(self) -> list[Event]:
        """The tool calls that could not be parsed (``event.error`` says why, with the raw text)."""
        return [b for b in self.blocks if b.type == "tool_call" and b.error is not None]

    @property
    def tool_results(self) -> list[Event]:
        """The tool results (``content``, ``tool_id``, ``tool_name``, ``is_error``)."""
        return [b for b in self.blocks if b.type == "tool_result"]

    def __repr__(self) -> str:
        return "Collector(%d blocks, %d tool calls)" % (
            len(self.blocks),
            sum(1 for b in self.blocks if b.type == "tool_call"),
        )
