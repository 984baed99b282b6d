#!/usr/bin/env python3
"""Renders each family's published chat template with the tools in tools.json and a minimal
conversation, cuts the tool-definition section out, and writes it to <family>.txt: the
fixtures core/tests/tool_definitions.rs compares format_tool_definitions with, byte for byte.

Needs jinja2 (`python3 -m venv target/venv && target/venv/bin/pip install jinja2`). The
templates are read from TEMPLATES (default target/tdefs/templates/, file name as in SOURCES);
a missing one is downloaded from raw.githubusercontent.com at the recorded commit. The copies
used for the committed fixtures keep each template's tool-rendering part verbatim (macros,
system/developer message construction) and may drop the message loop past the first user
turn, which the tools section does not depend on.

Run from the repository root: python3 core/tests/tool_definitions/gen.py [TEMPLATES [FAMILY...]]
(with FAMILY names, only those fixtures are written).
"""

import json
import os
import sys
import urllib.request
from datetime import datetime

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))

# family -> (repository, path, commit, cut start, cut end, end included)
SOURCES = {
    "hermes": ("ye-NX/llama.cpp", "models/templates/Qwen-Qwen3-0.6B.jinja",
               "b354d7c9ecb76c97c07098617cdebbdfffa2583e", "# Tools", "<|im_end|>", False),
    "qwen3-coder": ("wbpxre150/llama.cpp", "models/templates/Qwen3-Coder.jinja",
                    "90dd63ae86bdad1b4bb6de69379956b0ae1189bf",
                    "You have access to the following functions", "</IMPORTANT>", True),
    "harmony": ("ye-NX/llama.cpp", "models/templates/openai-gpt-oss-120b.jinja",
                "b354d7c9ecb76c97c07098617cdebbdfffa2583e", "# Tools", "} // namespace functions",
                True),
    "llama3-json": ("ye-NX/llama.cpp", "models/templates/meta-llama-Llama-3.3-70B-Instruct.jinja",
                    "b354d7c9ecb76c97c07098617cdebbdfffa2583e", "Given the following functions",
                    "Hi<|eot_id|>", False),
    "mistral": ("ye-NX/llama.cpp", "models/templates/unsloth-mistral-Devstral-Small-2507.jinja",
                "b354d7c9ecb76c97c07098617cdebbdfffa2583e", "[AVAILABLE_TOOLS]",
                "[/AVAILABLE_TOOLS]", True),
    "kimi-k2": ("ggml-org/llama.cpp", "models/templates/moonshotai-Kimi-K2.jinja",
                "02f4a631678bc435c5cea7a54ab4222ee32e8453", "<|im_system|>tool_declare",
                "<|im_end|>", True),
    "deepseek-v3.1": ("sgl-project/sglang", "examples/chat_template/tool_chat_template_deepseekv31.jinja",
                      "365525805e502c39e57fcf4d6d8f10b295fd457a", "## Tools",
                      "without separators or spaces\n", True),
    "glm-4.5": ("ggml-org/llama.cpp", "models/templates/glm_4_5.jinja",
                "623f3dd04b05999ffcb598a88d4f79fa9c3af849", "# Tools", "</tool_call>", True),
    "minimax-m2": ("ggml-org/llama.cpp", "models/templates/unsloth-MiniMax-M2.jinja",
                   "a21f05affbf67c90f2ac574f1bdd7197ccbe2369", "# Tools", "</minimax:tool_call>",
                   True),
    "seed-oss": ("ggml-org/llama.cpp", "models/templates/ByteDance-Seed-OSS.jinja",
                 "b1933d306f928b19e1601e640c4f1a2eb84b238a", "Function:\n", "</seed:tool_call>\n",
                 True),
    "deepseek-v3.2": ("ggml-org/llama.cpp", "models/templates/DeepSeek-V3.2.jinja",
                      "708653def250076cc56382f9c524af9db855542c", "## Tools", "</functions>",
                      True),
    "deepseek-v4": ("sgl-project/sglang", "examples/chat_template/tool_chat_template_deepseekv4.jinja",
                    "f4d42afb6702d2acb08886aaa4f4d2906cfd85ea", "## Tools",
                    "to invoke tool calls.\n", True),
    "pythonic": ("vllm-project/vllm", "examples/tool_chat_template_llama3.2_pythonic.jinja",
                 "3a9445d9d68e3864449042702ce0316461b03e23", "You have access to the following",
                 "You are helpful.<|eot_id|>", False),
    "phi-4-mini": ("vllm-project/vllm", "examples/tool_chat_template_phi4_mini.jinja",
                   "07b13497a9b52274d334090a9a8e04d5ec9ca7e9", "In addition to plain text",
                   "<|end|>", False),
    "lfm2": ("ggml-org/llama.cpp", "models/templates/llama-cpp-lfm2.jinja",
             "3700b6f7b10b67844b61a196c32218d2558e6099", "List of tools:", "<|im_end|>", False),
    "granite": ("ye-NX/llama.cpp", "models/templates/ibm-granite-granite-3.3-2B-Instruct.jinja",
                "b354d7c9ecb76c97c07098617cdebbdfffa2583e", "<|start_of_role|>available_tools",
                "<|end_of_text|>\n", True),
    "olmo-3": ("vllm-project/vllm", "examples/tool_chat_template_olmo3.jinja",
               "2e30b474731f235b021ecf9821124116786dfce5", "You have access to the following",
               "</functions>", True),
    "xlam": ("vllm-project/vllm", "examples/tool_chat_template_xlam_qwen.jinja",
             "31106f4f486decd092d235ea4b8a729ce5342158", "You have access to a set of tools",
             "<|im_end|>", False),
    "deepseek-v3": ("sgl-project/sglang", "examples/chat_template/tool_chat_template_deepseekv3.jinja",
                    "11507615695b2766453279c8909dd0b36da36fe6", "You are a helpful assistant with tool",
                    "<｜User｜>", False),
    "apertus": ("ye-NX/llama.cpp", "models/templates/Apertus-8B-Instruct.jinja",
                "b354d7c9ecb76c97c07098617cdebbdfffa2583e", "Tool Capabilities:",
                "<|developer_end|>", False),
    "cohere-command": ("ggml-org/llama.cpp",
                       "models/templates/CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
                       "041462bd55ae7be3ddfbd7a7356f01715740c50d",
                       "You have been trained to have advanced", "]\n```", True),
    "gemma-4": ("ggml-org/llama.cpp", "models/templates/gemma4.jinja",
                "75f1ba7389067a9f90082515e124c377a1e104b2", "<|tool>", "<turn|>", False),
    # TokenSpeed's packaged Inkling template ("validated against the reference TMLv0 renderer
    # snapshot"; since replaced there by the checkpoint's own chat_template.jinja, which is
    # not public here). Independent re-implementations of the checkpoint's template agree on
    # the section: four keys, sorted at every depth, compact separators.
    "inkling": ("lightseekorg/tokenspeed", "python/tokenspeed/runtime/chat_templates/inkling.jinja",
                "bdb8becd784f0b5ccd35e6b5d2aa0b8108cf2427", "<|message_system|>tool_declare",
                "<|end_message|>", True),
}

# Templates that fail on some of the tools (gemma-4 reads `additionalProperties: false` as a
# property and fails on it): rendered with the first N tools only (the Rust test does the same).
TOOL_COUNT = {"gemma-4": 2}

# Templates that read the tools without the OpenAI wrapper (`tool.name`): given the function
# objects.
UNWRAPPED = {"apertus"}

# Templates that write their tool instructions only without a system message: rendered with
# the user turn alone.
NO_SYSTEM = {"xlam"}


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    # transformers' chat-template `tojson`: json.dumps, no HTML escaping, unicode kept.
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


# Templates that mutate lists (`list.append`), which transformers' immutable sandbox refuses:
# rendered in jinja2's plain sandbox, as the servers that ship them (SGLang) do.
MUTABLE = {"deepseek-v4"}


def environment(mutable=False):
    # As transformers' apply_chat_template compiles a template.
    sandbox = SandboxedEnvironment if mutable else ImmutableSandboxedEnvironment
    env = sandbox(trim_blocks=True, lstrip_blocks=True,
                                       extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda f: datetime(2026, 1, 1).strftime(f)
    return env


def template_text(directory, repo, path, commit):
    local = os.path.join(directory, os.path.basename(path))
    if not os.path.exists(local):
        url = f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
        os.makedirs(directory, exist_ok=True)
        with urllib.request.urlopen(url) as r, open(local, "wb") as f:
            f.write(r.read())
    with open(local, encoding="utf-8") as f:
        return f.read()


# anthropic-xml has no public chat template: its section is the one Claude's own tool prompt
# uses (the `<function_calls>` instruction, then `<functions>` of one JSON object a line, keys
# description, name, parameters), written here independently of the Rust code.
ANTHROPIC_HEAD = (
    "In this environment you have access to a set of tools you can use to answer the user's question.\n"
    "You can invoke functions by writing a \"<function_calls>\" block like the following as part of your reply to the user:\n"
    "<function_calls>\n<invoke name=\"$FUNCTION_NAME\">\n"
    "<parameter name=\"$PARAMETER_NAME\">$PARAMETER_VALUE</parameter>\n...\n</invoke>\n"
    "<invoke name=\"$FUNCTION_NAME2\">\n...\n</invoke>\n</function_calls>\n\n"
    "String and scalar parameters should be specified as is, while lists and objects should use JSON format.\n\n"
    "Here are the functions available in JSONSchema format:\n<functions>")


def anthropic(tools):
    lines = [ANTHROPIC_HEAD]
    for t in tools:
        f = {"description": t["description"], "name": t["name"], "parameters": t["schema"]}
        lines.append("<function>" + tojson(f) + "</function>")
    return "\n".join(lines) + "\n</functions>"


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "target/tdefs/templates"
    only = set(sys.argv[2:])
    with open(os.path.join(HERE, "tools.json"), encoding="utf-8") as f:
        tools = json.load(f)
    # The OpenAI form the templates take.
    openai = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                                  "parameters": t["schema"]}} for t in tools]
    messages = [{"role": "system", "content": "You are helpful."},
                {"role": "user", "content": "Hi"}]
    env = environment()
    for family, (repo, path, commit, start, end, include) in SOURCES.items():
        if only and family not in only:
            continue
        text = (environment(True) if family in MUTABLE else env).from_string(template_text(directory, repo, path, commit)).render(
            messages=messages[1:] if family in NO_SYSTEM else messages,
            tools=[t["function"] for t in openai[:TOOL_COUNT.get(family)]] if family in UNWRAPPED
            else openai[:TOOL_COUNT.get(family)], add_generation_prompt=True, bos_token="<s>",
            eos_token="</s>")
        i = text.index(start)
        j = text.index(end, i)
        cut = text[i:j + len(end)] if include else text[i:j]
        if family == "deepseek-v3":
            # The spaces before the user turn are the template's indentation of that line.
            cut = cut.rstrip(" ")
        with open(os.path.join(HERE, f"{family}.txt"), "w", encoding="utf-8", newline="") as f:
            f.write(cut)
        print(f"{family}: {len(cut)} bytes from {repo}/{path}@{commit[:12]}")
    if only:
        return
    # gemma-4 once more with the third tool, less the properties its template fails on
    # (`extra`, and `filter`, which has no type): its type lists, arrays of objects, nullable.
    third = json.loads(json.dumps(openai[2]))
    del third["function"]["parameters"]["properties"]["extra"]
    del third["function"]["parameters"]["properties"]["filter"]
    repo, path, commit, start, end, include = SOURCES["gemma-4"]
    text = env.from_string(template_text(directory, repo, path, commit)).render(
        messages=messages, tools=[third], add_generation_prompt=True, bos_token="<s>")
    i = text.index(start)
    with open(os.path.join(HERE, "gemma-4-search.txt"), "w", encoding="utf-8", newline="") as f:
        f.write(text[i:text.index(end, i)])
    print("gemma-4-search: the third tool without `extra` and `filter`")
    with open(os.path.join(HERE, "anthropic-xml.txt"), "w", encoding="utf-8", newline="") as f:
        f.write(anthropic(tools))
    print("anthropic-xml: written by this script (no public template)")


if __name__ == "__main__":
    main()
