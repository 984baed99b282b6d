"""Parse a whole hermes transcript (Qwen, Hermes and other open models) into tool calls.

    python py/examples/hermes_tool_calls.py [TRANSCRIPT_FILE]

Without a file it parses the transcript below. Prints the calls as JSON, then any call
that could not be parsed, with the reason and its raw text.
"""

from __future__ import annotations

import json
import sys

import tokensieve

TRANSCRIPT = """<think>The user wants the weather in two cities; I can ask for both at once.</think>
Let me look that up.
<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
</tool_call>
<tool_call>
{name: 'get_weather', arguments: {city: 'Tokyo', unit: 'celsius',}}
</tool_call>
<tool_call>{"name": "get_time", "arguments": {"zone": "Europe/Par</tool_call>
"""


def main(argv: list[str]) -> int:
    text = open(argv[1], encoding="utf-8").read() if len(argv) > 1 else TRANSCRIPT
    result = tokensieve.Collector(tokensieve.parse(text, "hermes"))
    print(json.dumps(result.tool_calls, indent=2, ensure_ascii=False))
    for failed in result.failed_calls:
        error = failed.error or {}
        print(f"failed call {failed.tool_id}: {error.get('reason')}: {error.get('raw')!r}", file=sys.stderr)
    print(f"visible text: {result.text.strip()!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
