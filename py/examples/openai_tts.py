"""Stream an OpenAI Chat Completions response body through tokensieve's provider-stream
decoder and print what a text-to-speech engine would speak; no network, no SDK.

    python py/examples/openai_tts.py [--async]

The body is openai_chat_stream.sse (next to this file): a streamed `/v1/chat/completions`
response in OpenAI's SSE wire format (`stream_options.include_usage`), with text deltas, a
tool call and a usage chunk. It is read in "network reads" of 1–200 bytes, so SSE lines,
JSON strings and UTF-8 characters are split anywhere. Visible text is spoken a sentence at a
time the moment it is known; the tool call, the finish reason and the usage come at the end
of the turn.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from collections.abc import AsyncIterator, Iterator

import tokensieve

BODY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openai_chat_stream.sse")


def network_reads(seed: int = 3) -> Iterator[bytes]:
    """The response body as an HTTP client hands it over: 1–200 bytes at a time."""
    with open(BODY, "rb") as f:
        data = f.read()
    rng, i = random.Random(seed), 0
    while i < len(data):
        n = rng.randint(1, 200)
        yield data[i:i + n]
        i += n


async def network_reads_async() -> AsyncIterator[bytes]:
    for read in network_reads():
        await asyncio.sleep(0)  # the socket
        yield read


class Speaker:
    """Buffers visible text and speaks it a sentence at a time."""

    def __init__(self) -> None:
        self.pending = ""

    def event(self, event: tokensieve.Event) -> None:
        if event.event == "chunk" and event.visible and event.text:
            self.pending += event.text
            while True:
                ends = [i for i in (self.pending.find(". "), self.pending.find("! ")) if i >= 0]
                if not ends:
                    break
                cut = min(ends) + 1
                self.speak(self.pending[:cut])
                self.pending = self.pending[cut:]
        elif event.event == "error":
            print(f"    [{event.source} error {event.code}: {event.message}]")

    def flush(self) -> None:
        self.speak(self.pending)
        self.pending = ""

    def speak(self, sentence: str) -> None:
        if sentence.strip():
            print(f"TTS> {sentence.strip()}")


def report(turn: tokensieve.Collector) -> None:
    for call in turn.tool_calls:
        print(f"tool call {call['id']}: {call['name']}({call['arguments']})")
    if turn.finish is not None:
        print(f"finish: {turn.finish.reason} (the provider said {turn.finish.raw_reason!r}), "
              f"model {turn.finish.model}")
    print(f"usage: {turn.usage}")


def main() -> None:
    speaker, turn = Speaker(), tokensieve.Collector()
    decoder = tokensieve.Decoder("openai-chat")
    for read in network_reads():
        for event in decoder.feed(read):
            speaker.event(event)
            turn.push(event)
    for event in decoder.finish():
        speaker.event(event)
        turn.push(event)
    speaker.flush()
    report(turn)


async def amain() -> None:
    speaker, turn = Speaker(), tokensieve.Collector()
    async for event in tokensieve.astream(network_reads_async(), provider="openai-chat"):
        speaker.event(event)
        turn.push(event)
    speaker.flush()
    report(turn)


if __name__ == "__main__":
    if "--async" in sys.argv[1:]:
        asyncio.run(amain())
    else:
        main()
