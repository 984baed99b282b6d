"""Complete blocks and tool calls, gathered from a stream's events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._tokensieve import Event
    from ._types import ToolCall, Usage


class Collector:
    """Gathers the complete blocks of a stream (its ``block_complete`` events, which carry
    ``content`` and ``input``) and what follows from them: the visible text, the thinking,
    the tool calls; for a provider stream (a :class:`~tokensieve.Decoder`'s events) also the
    ``finish`` (reason, usage) and the ``error`` events. Push every event, or pass them all
    at once::

        calls = Collector(tokensieve.parse(text, "hermes")).tool_calls
        turn = Collector(tokensieve.stream(body_chunks, provider="openai-chat"))
        turn.finish.reason if turn.finish else None   # "tool_calls", "stop", …

    A provider response with ``n > 1`` has several choices: a Collector follows one,
    ``choice`` (0 by default); the block events and the finish of the others are skipped.
    """

    __slots__ = ("blocks", "choice", "errors", "finish", "stop")

    def __init__(self, events: Iterable[Event] = (), *, choice: int = 0) -> None:
        #: The choice followed (provider streams with ``n > 1``).
        self.choice = choice
        #: The ``block_complete`` events, in stream order.
        self.blocks: list[Event] = []
        #: The stop sequence that ended the stream, if one did.
        self.stop: str | None = None
        #: Provider streams: the ``finish`` event of the choice, once it came.
        self.finish: Event | None = None
        #: Provider streams: the ``error`` events (the provider's, and broken framing).
        self.errors: list[Event] = []
        self.extend(events)

    def push(self, event: Event) -> None:
        """Records one event (chunks and block starts are skipped: completions carry all)."""
        kind = event.event
        if kind == "block_complete":
            if (event.choice or 0) == self.choice:
                self.blocks.append(event)
        elif kind == "finish":
            if (event.choice or 0) == self.choice:
                self.finish = event
        elif kind == "error":
            self.errors.append(event)
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
        failed calls, unless ``on_malformed="drop"``, and a provider's refusal)."""
        return self._content("text")

    @property
    def refusal(self) -> str:
        """Provider streams: the text of the refusal blocks (part of :attr:`text` too)."""
        return "".join(b.content or "" for b in self.blocks if b.refusal)

    @property
    def usage(self) -> Usage | None:
        """Provider streams: the finish's token counts, when the provider reported any."""
        return self.finish.usage if self.finish is not None else None

    @property
    def thinking(self) -> str:
        """The thinking, all blocks joined."""
        return self._content("thinking")

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The successful tool calls for the host to run: ``[{"id", "name", "arguments":
        dict}]`` (a provider's server-side calls, ``server=True``, are in :attr:`blocks`)."""
        calls: list[ToolCall] = []
        for b in self.blocks:
            if b.type == "tool_call" and b.error is None and not b.server:
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
        tail = ""
        if self.finish is not None:
            tail += ", finish=%r" % self.finish.reason
        if self.errors:
            tail += ", %d errors" % len(self.errors)
        return "Collector(%d blocks, %d tool calls%s)" % (
            len(self.blocks),
            sum(1 for b in self.blocks if b.type == "tool_call"),
            tail,
        )
