"""Stream a model's output through tokensieve and print what a text-to-speech engine would
speak: visible text only, the moment it is known, never a tag or the thinking.

    python py/examples/tts_stream.py [--async]

The "model" delivers 1–10 bytes per token, splitting tags and UTF-8 characters anywhere.
Spoken text is sent to the engine a sentence at a time (here: printed, one per line).
"""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import AsyncIterator, Iterator

import tokensieve

OUTPUT = (
    "<think>The user asked about the weather; call the tool first.</think>"
    "Let me check the forecast for Zürich. "
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call>'
    "<tool_response>{\"temp\": 21, \"sky\": \"sunny\"}</tool_response>"
    "It is 21 °C and sunny in Zürich — a good day for the lake! Enjoy. 😎"
)


def model_tokens(seed: int = 7) -> Iterator[bytes]:
    """The output as a model server sends it: 1–10 bytes at a time."""
    data, rng, i = OUTPUT.encode(), random.Random(seed), 0
    while i < len(data):
        n = rng.randint(1, 10)
        yield data[i:i + n]
        i += n


async def model_tokens_async() -> AsyncIterator[bytes]:
    for token in model_tokens():
        await asyncio.sleep(0)  # a network read
        yield token


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
        elif event.event == "block_complete" and event.type == "tool_call":
            print(f"    [tool call {event.tool_name}({event.input_json}) while speaking]")

    def flush(self) -> None:
        self.speak(self.pending)
        self.pending = ""

    def speak(self, sentence: str) -> None:
        if sentence.strip():
            print(f"TTS> {sentence.strip()}")


def main() -> None:
    speaker = Speaker()
    for event in tokensieve.stream(model_tokens(), "hermes"):
        speaker.event(event)
    speaker.flush()


async def amain() -> None:
    speaker = Speaker()
    async for event in tokensieve.astream(model_tokens_async(), "hermes"):
        speaker.event(event)
    speaker.flush()


if __name__ == "__main__":
    if "--async" in sys.argv[1:]:
        asyncio.run(amain())
    else:
        main()
