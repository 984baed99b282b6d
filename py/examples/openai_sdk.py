"""Plug tokensieve into the openai SDK: the SDK sends the request, tokensieve reads the raw
streamed body (`with_streaming_response` … `iter_bytes()`), so the host gets one event
vocabulary — visible text, thinking, whole tool calls, finish and usage — instead of chunk
objects to reassemble.

    pip install openai
    python py/examples/openai_sdk.py [--async]

No network: the SDK's HTTP client is given an `httpx.MockTransport` that answers with the
bundled openai_chat_stream.sse, a recorded-format `/v1/chat/completions` stream. With a real
key, drop the `http_client=` argument and the code is unchanged.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from typing import Any

import tokensieve

BODY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openai_chat_stream.sse")

REQUEST: dict[str, Any] = {
    "model": "gpt-4.1-mini",
    "messages": [{"role": "user", "content": "Weather in Zürich?"}],
    "stream": True,
    "stream_options": {"include_usage": True},
}


def transport(httpx: Any) -> Any:
    """An httpx transport that answers every request with the recorded SSE body."""
    with open(BODY, "rb") as f:
        body = f.read()

    def answer(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx.MockTransport(answer)


def show(event: tokensieve.Event, turn: tokensieve.Collector) -> None:
    turn.push(event)
    if event.event == "chunk" and event.visible:
        print(event.text, end="", flush=True)  # what a TTS engine or a UI gets, as it comes


def report(turn: tokensieve.Collector) -> None:
    print()
    for call in turn.tool_calls:
        print(f"tool call {call['id']}: {call['name']}({call['arguments']})")
    if turn.finish is not None:
        print(f"finish: {turn.finish.reason}, usage: {turn.usage}")


def run_sync(openai: Any, httpx: Any) -> None:
    client = openai.OpenAI(api_key="sk-test", http_client=httpx.Client(transport=transport(httpx)))
    turn = tokensieve.Collector()
    with client.chat.completions.with_streaming_response.create(**REQUEST) as response:
        for event in tokensieve.stream(response.iter_bytes(), provider="openai-chat"):
            show(event, turn)
    report(turn)


async def run_async(openai: Any, httpx: Any) -> None:
    http = httpx.AsyncClient(transport=transport(httpx))
    client = openai.AsyncOpenAI(api_key="sk-test", http_client=http)
    turn = tokensieve.Collector()
    async with client.chat.completions.with_streaming_response.create(**REQUEST) as response:
        async for event in tokensieve.astream(response.iter_bytes(), provider="openai-chat"):
            show(event, turn)
    report(turn)


def main() -> int:
    try:
        openai = importlib.import_module("openai")
        httpx = importlib.import_module("httpx")
    except ImportError:
        print("this example needs the openai SDK: pip install openai", file=sys.stderr)
        return 2
    if "--async" in sys.argv[1:]:
        asyncio.run(run_async(openai, httpx))
    else:
        run_sync(openai, httpx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
