#!/usr/bin/env python3
"""Writes the seed corpus fuzz/seeds/<target>/ from the conformance vectors.

Stream targets read [flags, seed, (prefill length, prefill)?, input...] (see src/lib.rs), the
ffi target the same after a dialect byte (src/ffi.rs; and the provider bodies after a
provider byte, src/ffi_decoder.rs):
the flags are derived from each vector's config (stop sequences, tools, start_in,
on_malformed, prefill). Also seeded: the @ai-sdk-tool/parser anchor cases (hermes h_*,
morph-xml m_*, qwen3-coder q_*), a few realistic transcripts, JSON values for the json
target, and whole texts for the format target. Deterministic; rerun after adding vectors.
"""
import hashlib
import re
import json
import os
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
# TOKENSIEVE_PROVIDER_* codes, in order (Provider::ALL).
PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "ollama"]
MAIN = HERE.parent
DIRS = [MAIN / "conformance" / "cases", MAIN.parent / "shared" / "conformance" / "cases"]
ANCHORS = MAIN.parent / "shared" / "anchors" / "aisdk" / "cases"
TARGETS = {
    "passthrough": "sieve_passthrough",
    "anthropic-xml": "sieve_anthropic_xml",
    "hermes": "sieve_hermes",
    "morph-xml": "sieve_morph_xml",
    "qwen3-coder": "sieve_qwen3_coder",
    "minimax-m2": "sieve_minimax_m2",
    "glm-4.5": "sieve_glm_4_5",
    "harmony": "sieve_harmony",
    "kimi-k2": "sieve_kimi_k2",
    "deepseek-v3.1": "sieve_deepseek_v3_1",
    "deepseek-v3": "sieve_deepseek_v3",
    "mistral": "sieve_mistral",
    "llama3-json": "sieve_llama3_json",
    "pythonic": "sieve_pythonic",
    "deepseek-v3.2": "sieve_deepseek_v3_2",
    "deepseek-v4": "sieve_deepseek_v4",
    "seed-oss": "sieve_seed_oss",
    "olmo-3": "sieve_olmo_3",
    "lfm2": "sieve_lfm2",
    "cohere-command": "sieve_cohere_command",
    "granite": "sieve_granite",
    "phi-4-mini": "sieve_phi_4_mini",
    "apertus": "sieve_apertus",
    "xlam": "sieve_xlam",
    "gemma-4": "sieve_gemma_4",
    "functiongemma": "sieve_functiongemma",
    "minicpm5": "sieve_minicpm5",
    "step-3": "sieve_step_3",
    "hunyuan": "sieve_hunyuan",
    "minimax-m3": "sieve_minimax_m3",
    "inkling": "sieve_inkling",
    "kimi-k3": "sieve_kimi_k3",
}
OUT = HERE / "seeds"


def put(target, data: bytes):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    (d / name).write_bytes(data)


def header(config, prefill: bytes | None) -> bytes:
    flags = 0
    if config.get("stop_sequences"):
        flags |= 1
    if config.get("tools"):
        flags |= 2
    if config.get("start_in") == "thinking":
        flags |= 4
    if config.get("on_malformed") == "drop":
        flags |= 8
    out = bytes([flags, 0])
    if prefill and len(prefill) < 48:
        out = bytes([flags | 64, 0, len(prefill)]) + prefill
    return out


def vector_inputs():
    for root in DIRS:
        if not root.exists():
            continue
        for f in sorted(root.rglob("*.json")):
            try:
                v = json.loads(f.read_text())
            except (OSError, ValueError):
                continue
            if "input" in v:
                data = v["input"].encode()
            elif "input_hex" in v:
                data = bytes.fromhex(v["input_hex"])
            else:
                continue
            yield v, data


def json_values(v):
    for ev in v.get("events", []):
        if ev.get("event") == "block_complete" and "input" in ev:
            try:
                yield json.dumps(ev["input"], ensure_ascii=False, indent=1).encode()
            except UnicodeEncodeError:
                yield json.dumps(ev["input"], indent=1).encode()
        if ev.get("part") == "input":
            yield ev["text"].encode("utf-8", "replace")


TRANSCRIPTS = {
    "anthropic-xml": [
        "Let me check.<thinking>The user wants Paris; a < b.</thinking>\n\n<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n<invoke name=\"search\">\n<parameter name=\"filters\">{\"lang\": [\"en\", \"fr\"], \"since\": 2024}</parameter>\n<parameter name=\"query\"><![CDATA[a </parameter> b]]></parameter>\n</invoke>\n</function_calls>\n<function_results>\n<result tool_use_id=\"call_0\">\n<tool_name>get_weather</tool_name>\n<stdout>18°C, rain 🌧</stdout>\n</result>\n</function_results>\nIt is 18°C in Paris.\nHuman: thanks",
    ],
    "hermes": [
        "<think>Need the weather.</think>\nSure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"東京\", \"days\": 3}}\n</tool_call>\n<tool_call>\n[{name: 'search', arguments: {query: \"a</tool_call>b\", limit: 5,},}, {\"name\": \"f\", \"arguments\": \"{\\\"p\\\": 1}\"}]\n</tool_call>\n<tool_response>\n{\"temp\": 18}\n</tool_response>\nDone.",
    ],
    "qwen3-coder": [
        "<think>Write it.</think>\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.rs\n</parameter>\n<parameter=content>\nfn main() { if a < b { println!(\"<tag>\"); } }\n</parameter>\n</function>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>\nDone.",
    ],
    "minimax-m2": [
        "<think>Two searches.</think>\nOn it.\n<minimax:tool_call>\n<invoke name=\"search_web\">\n<parameter name=\"query_list\">[\"\\\"OpenAI\\\" latest\"]</parameter>\n<parameter name=\"limit\">5</parameter>\n</invoke>\n<invoke name=\"write_file\">\n<parameter name=\"content\">\nif a < b { x(\"</invoke>\") }\n</parameter>\n</invoke>\n</minimax:tool_call>\nDone.",
    ],
    "glm-4.5": [
        "<think>Weather, then a file.</think>\nSure.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>東京</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n<tool_call>write_file<arg_key>content</arg_key><arg_value>if a < b { x(\"</tool_call>\") }</arg_value></tool_call>\nThe <tool_call> tag. Done.",
    ],
    "deepseek-v3.2": [
        "<think>Two calls.</think>\nOn it.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">東京</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"write_file\">\n<｜DSML｜parameter name=\"content\" string=\"true\">if a < b { x(\"</｜DSML｜invoke>\") }</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    ],
    "deepseek-v4": [
        "<think>Look it up.\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"q\" string=\"true\">rust</｜DSML｜parameter>\n<｜DSML｜parameter name=\"opts\" string=\"false\">{\"n\": [1, 2]}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls></think>\n<|DSML|tool_calls><|DSML|invoke name=\"f\"></|DSML|invoke></|DSML|tool_calls>Done.",
    ],
    "pythonic": [
        "<think>Weather, then a note.</think>\nSure.\n<|python_start|>[get_weather(city='東京', days=3, opts={'metric': True, 'hours': (6, 12)}), note(text=\"it\\'s \\\"x\\\"\\n\\x41\\u00e9\", tags=[None, -1.5])]<|python_end|>\nSee [1, 2] and [f(x)]. [bad(1)]\nDone.",
    ],
    "morph-xml": [
        "<think>ok</think>Checking.\n<get_weather>\n<city>Zürich &amp; Bern</city>\n<days>3</days>\n</get_weather>\n<search><tags><item>a</item><item>b</item></tags><filters>{\"x\": 1}</filters></search><get_time/> done.",
    ],
    "harmony": [
        "<|channel|>analysis<|message|>Need the weather; a < b.<|end|><|start|>assistant<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"東京\", days: 3,}<|call|><|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{\"temp\": 18}<|end|><|start|>assistant to=browser.search<|channel|>analysis code<|message|>{\"query\": \"a<|end\"}<|call|><|start|>assistant<|channel|>final<|message|>It is 18°C.<|return|>",
    ],
    "kimi-k2": [
        "<think>Two lookups.</think>Sure. <|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0 <|tool_call_argument_begin|> {\"city\": \"東京\", days: 3,} <|tool_call_end|>\n<|tool_call_begin|>search:1<|tool_call_argument_begin|>{\"q\": \"a<|tool_call_end|>\n<|tool_calls_section_end|>Done.",
    ],
    "deepseek-v3.1": [
        "<think>Weather twice.</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"location\": \"東京\"}<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>search<｜tool▁sep｜>{q: 'a<｜tool▁call▁end｜><｜tool▁calls▁end｜> A <｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
    ],
    "deepseek-v3": [
        "<think>R1 plan</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"location\": \"東京\"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{q: 'a``` b'}\n``<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ],
    "mistral": [
        "[THINK]Weather, then the time.[/THINK]Sure.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"東京\", \"days\": 3}[TOOL_CALLS]get_time[CALL_ID]a1B2c3D4e[ARGS]{tz: 'UTC',}",
        "[TOOL_CALLS] [{\"name\": \"search\", \"arguments\": {\"q\": \"[TOOL_CALLS] in a string\"}}, {\"name\": \"ping\", \"arguments\": \"{}\"}] Done.[TOOL_CA",
    ],
    "llama3-json": [
        "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"東京\", \"days\": 3}}; {\"name\": \"get_time\", \"parameters\": {tz: 'UTC',}}\nDone.",
        "Checking.<|python_tag|>{\"name\": \"search\", \"arguments\": {\"q\": \"{\\\"name\\\": 1}\"}}<|python_tag|>brave_search.call(query=\"x\")<|python_ta",
    ],
    "kimi-k3": [
        "The user wants weather; a < b.\n<|close|>think<|sep|><|open|>response<|sep|>Checking.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>東京 \"x\" &amp;<|close|>argument<|sep|><|open|>argument key=\"days\" type=\"number\"<|sep|>3<|close|>argument<|sep|><|open|>argument key=\"opts\" type=\"object\"<|sep|>{\"n\": [1, 2.50]}<|close|>argument<|sep|><|close|>call<|sep|><|open|>call tool=\"a&amp;b&quot;c\" index=\"2\"<|sep|>stray<|close|>call<|sep|><|open|>call index=\"3\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>",
        "plan<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"s\" type=\"string\"<|sep|>a<|open|>argument key=\"n\"<|sep|>7<|close|>call<|sep|><|close|>tools<|sep|><|close|>think<|sep|>Done.<|open|>call tool=\"g\"<|sep|><|open|>json type=\"object\"<|sep|>{}<|close|>json<|sep|><|close|>call<|sep|><|open|>call tool=\"h\"<|sep|><|open|>argument key=\"x\" type=\"number\"<|sep|>4<|close|>argu",
    ],
    "passthrough": [
        "Hello <thinking>hmm <b> a < b</thinking> world \xff\xe2\x82 end <|eot|> after",
    ],
}


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    n = 0
    for v, data in vector_inputs():
        cfg = v.get("config", {})
        d = cfg.get("dialect")
        if not isinstance(d, str) or d not in TARGETS:
            continue
        pre = v.get("prefill")
        put(TARGETS[d], header(cfg, pre.encode() if pre else None) + data)
        put("format", bytes([list(TARGETS).index(d) if d != "passthrough" else 0]) + data)
        # ffi: [TOKENSIEVE_DIALECT_* code (the TARGETS order), flags, seed, ...]; flag bits 0-3
        # and 6 as for the stream targets.
        put("ffi", bytes([list(TARGETS).index(d)]) + header(cfg, pre.encode() if pre else None) + data)
        put("ffi", b"\xf0" + json.dumps(cfg, ensure_ascii=False).encode())  # a config text
        for j in json_values(v):
            put("json", j)
            put("json_relaxed", b"\x00" + j)
        if d == "hermes":
            for body in re.findall(rb"<tool_call>(.*?)</tool_call>", data, re.S):
                put("json_relaxed", b"\x00" + body)
        n += 1
    if ANCHORS.exists():
        for f in sorted(ANCHORS.glob("*.txt")):
            t = {"h": "hermes", "m": "morph-xml", "q": "qwen3-coder"}.get(f.name[0])
            if t:
                put(TARGETS[t], bytes([2, 0]) + f.read_bytes())
    for d, texts in TRANSCRIPTS.items():
        for t in texts:
            for flags in (0, 1, 2, 3):
                put(TARGETS[d], bytes([flags, 7]) + t.encode("utf-8", "surrogateescape"))
            # ffi: plain, accumulate + caller memory, typed tools + misuse, stops + accumulate.
            for flags in (0, 16 | 32, 2 | 128, 1 | 16 | 128):
                put("ffi", bytes([list(TARGETS).index(d), flags, 7]) + t.encode("utf-8", "surrogateescape"))
    for j in [b'{"a": [1, 2.5e-3, -0, true, false, null, "\\u00e9\\ud83d\\ude00"]}', b"[]", b'"x"',
              b"  123  ", b'{"k":{"k":{"k":[[[]]]}}}', b'"\\uD800"', b"1e400", b"-0.0E+1"]:
        put("json", j)
    for r in [b"{city: Paris, 'q': 'it\\'s \"x\"', // note\n n: 1.50, arr: [1, 2,], /* c */ ok: true,}",
              b"[hello world, http://x/y, 12345678901234567890, -0, 1/*x*/]", b"{a: '\\uD83D\\uDE00', b: \"\\d\"}",
              b"'\xff\xfe raw \x01 ctl'", b"{\"arguments\": \"{\\\"a\\\": 1}\"}", b"  nul  ", b"{k: [[[[]]]]}"]:
        put("json_relaxed", b"\x05" + r)
    # Provider decoders: [flags, seed, body]; flags 0, the hermes text dialect, caller memory.
    providers = MAIN / "conformance" / "providers"
    for d in sorted(providers.iterdir()) if providers.exists() else []:
        if not d.is_dir():
            continue
        target = "decode_" + d.name.replace("-", "_")
        for f in sorted(d.iterdir()):
            if f.suffix in (".json", ".frames", ".py") or f.name.startswith("."):
                continue
            for flags in (0, 1, 8):
                put(target, bytes([flags, 7]) + f.read_bytes())
            # ffi, the decoder functions (src/ffi_decoder.rs): [0xE0 + TOKENSIEVE_PROVIDER_*,
            # flags, seed, body]; the hermes text dialect made from JSON, and caller memory
            # with accumulate and the misuse schedule.
            code = PROVIDERS.index(d.name)
            for flags in (1 | 32, 8 | 16 | 64):
                put("ffi", bytes([0xE0 + code, flags, 7]) + f.read_bytes())
            # The framings alone, [flags, seed, body]: payloads taken whole, 3 bytes at a
            # time, 1 at a time with (event stream) a small frame length cap.
            frame = {".sse": "frame_sse", ".jsonarray": "frame_json_array", ".bin": "frame_event_stream",
                     ".ndjson": "frame_ndjson"}
            if f.suffix in frame:
                for flags in (0, 3, 8 | 1):
                    put(frame[f.suffix], bytes([flags, 7]) + f.read_bytes())
    print(f"{n} vectors -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
