"""Throughput of the Python binding on the benchmark inputs: MB/s and ns per event returned
to Python, at 4-byte ("token") and 64 KiB chunks.

    cargo run --release -p tokensieve-benches --bin gen-data     # writes benches/data/
    pip install ./py                                            # a release build
    python py/bench.py [--inputs prose,mixed-hermes,…] [--repeat 3] [--representations]

Each figure is the best of --repeat runs (CPU time of the thread) of: a new Sieve with the input's config, every
chunk fed (the chunks are cut before the clock starts), finish(). "events" counts the
Event objects returned. "core" is the same run through `Sieve._feed_as(chunk, "count")`:
the parser and the call into Rust, no Python objects — the floor under the API's cost.
--representations times one stream with chunk events made as Event objects (the API), as
tuples and as dicts, for the choice recorded in py/README.md.

    python py/bench.py --openai       # needs `pip install openai`; no benches/data

--openai decodes one OpenAI Chat Completions SSE body (made here: 2000 text deltas, a tool
call in 200 argument deltas, finish, usage, [DONE]; the envelope of
examples/openai_chat_stream.sse) three ways, per SSE event of the body: openai-python's own
SSEDecoder + json.loads (the SDK's parsing floor), the same + the SDK's ChatCompletionChunk
models (construct_type, what `for chunk in stream` does), and tokensieve.Decoder.feed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from typing import Any

import tokensieve

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_INPUTS = ["prose"] + ["mixed-" + d for d in tokensieve.DIALECTS] + [
    "longarg-hermes-1m", "longarg-anthropic-xml-1m"]
CHUNKINGS = [("4B", 4), ("64KiB", 65536)]


def load(data_dir: str, name: str) -> tuple[dict[str, Any], bytes]:
    with open(os.path.join(data_dir, name + ".config.json"), encoding="utf-8") as f:
        config = json.load(f)
    with open(os.path.join(data_dir, name + ".txt"), "rb") as f:
        return config, f.read()


def run(config: dict[str, Any], chunks: list[bytes], mode: str) -> tuple[float, int]:
    """One stream: (seconds, events). mode "api" calls feed(); the others _feed_as(mode)."""
    sieve = tokensieve.Sieve(**config)
    n = 0
    if mode == "api":
        feed = sieve.feed
        t0 = time.thread_time()
        for c in chunks:
            n += len(feed(c))
    elif mode == "count":
        feed_as = sieve._feed_as
        t0 = time.thread_time()
        for c in chunks:
            n += feed_as(c, "count")
    else:
        feed_as = sieve._feed_as
        t0 = time.thread_time()
        for c in chunks:
            n += len(feed_as(c, mode))  # type: ignore[arg-type]
    n += len(sieve.finish())
    return time.thread_time() - t0, n


def best(repeat: int, config: dict[str, Any], chunks: list[bytes], mode: str) -> tuple[float, int]:
    results = [run(config, chunks, mode) for _ in range(repeat)]
    return min(r[0] for r in results), results[0][1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.environ.get("TOKENSIEVE_BENCH_DATA", os.path.join(REPO, "benches", "data")))
    ap.add_argument("--inputs", default=",".join(DEFAULT_INPUTS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--representations", action="store_true")
    ap.add_argument("--openai", action="store_true")
    args = ap.parse_args()
    if args.openai:
        return openai_sse(args)
    if not os.path.isdir(args.data):
        print("no data in %s: run `cargo run --release -p tokensieve-benches --bin gen-data`" % args.data,
              file=sys.stderr)
        return 2
    print("tokensieve %s, Python %s, best of %d" % (tokensieve.__version__, sys.version.split()[0], args.repeat))
    if args.representations:
        return representations(args)
    print("%-26s %-6s %10s %9s %9s %11s %9s" % ("input", "chunks", "events", "MB/s", "ns/event", "core ns/ev", "core MB/s"))
    for name in args.inputs.split(","):
        config, data = load(args.data, name)
        for label, size in CHUNKINGS:
            chunks = [data[i:i + size] for i in range(0, len(data), size)]
            t, n = best(args.repeat, config, chunks, "api")
            tc, nc = best(args.repeat, config, chunks, "count")
            print("%-26s %-6s %10d %9.0f %9.0f %11.0f %9.0f" % (
                name, label, n, len(data) / t / 1e6, t / n * 1e9, tc / nc * 1e9, len(data) / tc / 1e6))
    return 0


def representations(args: argparse.Namespace) -> int:
    print("%-26s %-6s %10s   %s" % ("input", "chunks", "events", "ns/event: event  tuple   dict  (count)"))
    for name in args.inputs.split(","):
        config, data = load(args.data, name)
        for label, size in CHUNKINGS:
            chunks = [data[i:i + size] for i in range(0, len(data), size)]
            row = []
            n = 0
            for f in ("event", "tuple", "dict", "count"):
                t, n = best(args.repeat, config, chunks, f)
                row.append(t / n * 1e9)
            print("%-26s %-6s %10d   %14.0f %6.0f %6.0f  (%3.0f)" % (name, label, n, *row))
    return 0


def openai_body(deltas: int = 2000, arg_deltas: int = 200) -> tuple[bytes, int]:
    """An OpenAI Chat Completions SSE body and its number of SSE data events."""
    envelope = {"id": "chatcmpl-CQ4mZ8rT2vXk9bLp", "object": "chat.completion.chunk",
                "created": 1764041234, "model": "gpt-4.1-mini-2025-04-14",
                "service_tier": "default", "system_fingerprint": "fp_6f2eabb9a5"}
    words = ("The", " forecast", " for", " Zürich", " says", " sunny", ",", " about", " 21",
             " °C", " —", " a", " good", " day", " for", " the", " lake", ".")
    docs: list[dict[str, Any]] = []

    def chunk(delta: dict[str, Any] | None, finish: str | None = None,
              usage: dict[str, Any] | None = None) -> None:
        choices = [] if delta is None else [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        docs.append(dict(envelope, choices=choices, usage=usage))

    chunk({"role": "assistant", "content": "", "refusal": None})
    for i in range(deltas):
        chunk({"content": words[i % len(words)]})
    chunk({"tool_calls": [{"index": 0, "id": "call_q7Hc2LwVn5TxR8aZ", "type": "function",
                           "function": {"name": "get_weather", "arguments": ""}}]})
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"days":['}}]})
    for i in range(arg_deltas):
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "%d," % i}}]})
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '0]}'}}]})
    chunk({}, "tool_calls")
    chunk(None, usage={"prompt_tokens": 84, "completion_tokens": deltas + arg_deltas,
                       "total_tokens": 84 + deltas + arg_deltas})
    text = "".join("data: %s\n\n" % json.dumps(d, ensure_ascii=False, separators=(",", ":"))
                   for d in docs)
    return (text + "data: [DONE]\n\n").encode(), len(docs) + 1


def openai_sse(args: argparse.Namespace) -> int:
    try:
        streaming: Any = importlib.import_module("openai._streaming")
        models: Any = importlib.import_module("openai._models")
        chunk_type: Any = importlib.import_module("openai.types.chat").ChatCompletionChunk
        version = importlib.import_module("openai").__version__
    except ImportError:
        print("--openai needs openai-python: pip install openai", file=sys.stderr)
        return 2
    body, sse_events = openai_body()
    print("tokensieve %s, openai-python %s, Python %s, best of %d; body %d bytes, %d SSE events"
          % (tokensieve.__version__, version, sys.version.split()[0], args.repeat, len(body),
             sse_events))

    def sdk(chunks: list[bytes], construct: bool) -> int:
        n = 0
        for sse in streaming.SSEDecoder().iter_bytes(iter(chunks)):
            if sse.data.startswith("[DONE]"):
                break
            data = json.loads(sse.data)
            if construct:
                models.construct_type(type_=chunk_type, value=data)
            n += 1
        return n

    def ours(chunks: list[bytes]) -> int:
        decoder = tokensieve.Decoder("openai-chat")
        n = 0
        for c in chunks:
            n += len(decoder.feed(c))
        return n + len(decoder.finish())

    print("%-8s %-44s %10s %12s %14s" % ("reads", "", "objects", "µs/body", "ns/SSE event"))
    for label, size in (("64B", 64), ("16KiB", 16384)):
        chunks = [body[i:i + size] for i in range(0, len(body), size)]
        for name, way in (
            ("openai SSEDecoder + json.loads", "sdk"),
            ("openai SSEDecoder + json.loads + models", "models"),
            ("tokensieve.Decoder (Event objects)", "tokensieve"),
        ):
            times = []
            n = 0
            for _ in range(args.repeat):
                t0 = time.thread_time()
                n = ours(chunks) if way == "tokensieve" else sdk(chunks, way == "models")
                times.append(time.thread_time() - t0)
            t = min(times)
            print("%-8s %-44s %10d %12.0f %14.0f" % (label, name, n, t * 1e6, t / sse_events * 1e9))
    return 0


if __name__ == "__main__":
    sys.exit(main())
