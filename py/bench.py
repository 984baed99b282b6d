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
"""

from __future__ import annotations

import argparse
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
