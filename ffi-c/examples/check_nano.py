#!/usr/bin/env python3
"""Runs nano_stream with many seeds and checks what a streaming client would receive.

    check_nano.py PATH/TO/nano_stream [SEEDS]

Every line is strict JSON (no raw control characters, valid UTF-8); seq counts 0, 1, 2, …;
the visible deltas concatenate to the transcript's visible text whatever the chunking;
exactly one tool call line with the typed arguments; a last line {"delta":"","end":true}.
Some seeds must have split a UTF-8 character. Prints "N passed, M failed".
"""
import json
import re
import subprocess
import sys

VISIBLE = ("I'll check the weather in São Paulo for you — one moment 🌦️.\n\n"
           "Quote of the day: \"Pack an umbrella\" \\ said the \tforecaster.\n")
TOOL = {"id": "call_0", "name": "get_weather", "arguments": {"city": "São Paulo", "days": 3}}


def check(exe, seed):
    p = subprocess.run([exe, str(seed)], capture_output=True, timeout=30)
    if p.returncode != 0:
        return 'exit %d: %s' % (p.returncode, p.stderr.decode(errors='replace')), 0
    splits = int(re.search(rb'(\d+) UTF-8 characters split', p.stderr).group(1))
    lines = p.stdout.decode('utf-8').splitlines()  # raises on invalid UTF-8
    msgs = [json.loads(line) for line in lines]    # strict: raw control characters fail
    text, tools = '', []
    for i, m in enumerate(msgs):
        if m.get('seq') != i:
            return 'line %d has seq %r' % (i, m.get('seq')), splits
        last = i == len(msgs) - 1
        if m.get('end') is not last:
            return 'line %d: end is %r' % (i, m.get('end')), splits
        if 'tool_call' in m:
            tools.append(m['tool_call'])
        elif last:
            if m != {'seq': i, 'delta': '', 'end': True}:
                return 'bad last line %r' % m, splits
        else:
            if set(m) != {'seq', 'delta', 'end'} or not m['delta']:
                return 'bad delta line %r' % m, splits
            text += m['delta']
    if text != VISIBLE:
        return 'visible text %r != %r' % (text, VISIBLE), splits
    if tools != [TOOL]:
        return 'tool calls %r' % tools, splits
    return None, splits


def main():
    exe = sys.argv[1]
    seeds = range(1, int(sys.argv[2]) + 1 if len(sys.argv) > 2 else 31)
    passed = failed = total_splits = 0
    for seed in seeds:
        err, splits = check(exe, seed)
        total_splits += splits
        if err:
            failed += 1
            print('FAIL  seed %d: %s' % (seed, err))
        else:
            passed += 1
    if total_splits == 0:
        failed += 1
        print('FAIL  no seed split a UTF-8 character')
    print('nano_stream: %d passed, %d failed (%d split characters)' % (passed, failed, total_splits))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
