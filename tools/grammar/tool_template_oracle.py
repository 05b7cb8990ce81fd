#!/usr/bin/env python3
"""Reference renders of chat templates with tools, by jinja2 configured as Hugging Face
transformers renders chat templates (trim_blocks, lstrip_blocks, a json.dumps tojson that keeps
non-ASCII and key order, raise_exception), for test/models/llm/tool_template_test.cpp.

Messages are given to the template the way forge's render_chat passes them (chat_template.cpp):
content always a string, tool_calls as {id, type, function: {name, arguments}} with the
arguments parsed from their JSON text, tool messages with tool_call_id and name, an assistant's
reasoning (when there is some) as reasoning_content and as thinking (gpt-oss's template reads
that, as llama.cpp passes it). gpt-oss's template prints today's date (strftime_now): the test
compares that line as a date, not as text.

    apt-get install python3-jinja2
    /usr/bin/python3 tools/grammar/tool_template_oracle.py [TEMPLATE.jinja ...] > test/data/grammar/tool_templates.json
With no arguments: test/data/chat_templates/{qwen3,chatml,gpt-oss}.jinja.
"""
import datetime
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Local time (24 h) — in any zone",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
ASK = {"role": "user", "content": "What is the weather in Paris, and the time in Tokyo?"}
CALLS = {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_0", "name": "get_weather", "arguments": "{\"city\": \"Paris\", \"unit\": \"celsius\"}"},
    {"id": "call_1", "name": "get_time", "arguments": "{\"zone\": \"Asia/Tokyo\"}"}]}
ONE_CALL = {"role": "assistant", "content": "Let me check.", "tool_calls": [
    {"id": "call_0", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}
RESULT_1 = {"role": "tool", "content": "{\"temp\": 21, \"sky\": \"clear\"}", "tool_call_id": "call_0", "name": "get_weather"}
RESULT_2 = {"role": "tool", "content": "09:30", "tool_call_id": "call_1", "name": "get_time"}
ANSWER = {"role": "assistant", "content": "It is 21 °C and clear in Paris; 09:30 in Tokyo."}
THINK_CALL = {"role": "assistant", "content": "", "reasoning_content": "I need the weather first.", "tool_calls": [
    {"id": "call_0", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}
THOUGHT_ANSWER = {"role": "assistant", "content": "Sunny, 21 °C.", "reasoning_content": "The tool said clear."}
THANKS = {"role": "user", "content": "Thanks! And tomorrow?"}

CONVERSATIONS = [
    ("tools_user", [ASK], [WEATHER, TIME], True),
    ("tools_system_user", [SYSTEM, ASK], [WEATHER, TIME], True),
    ("call_and_results", [SYSTEM, ASK, CALLS, RESULT_1, RESULT_2], [WEATHER, TIME], True),
    ("call_with_content", [ASK, ONE_CALL, RESULT_1], [WEATHER], True),
    ("full_round_trip", [SYSTEM, ASK, CALLS, RESULT_1, RESULT_2, ANSWER], [WEATHER, TIME], False),
    ("no_tools", [SYSTEM, ASK], [], True),
    ("reasoning_call_result", [SYSTEM, ASK, THINK_CALL, RESULT_1], [WEATHER], True),
    ("reasoning_answer_then_user", [ASK, THINK_CALL, RESULT_1, THOUGHT_ANSWER, THANKS], [WEATHER], True),
]


def template_message(m):
    """A ChatMessage as forge hands it to the template."""
    out = {"role": m["role"], "content": m["content"]}
    if m.get("reasoning_content"):
        out["reasoning_content"] = m["reasoning_content"]
        out["thinking"] = m["reasoning_content"]
    if m.get("tool_calls"):
        out["tool_calls"] = []
        for c in m["tool_calls"]:
            try:
                arguments = json.loads(c["arguments"])
            except ValueError:
                arguments = c["arguments"]
            out["tool_calls"].append({"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": arguments}})
    if m.get("tool_call_id"):
        out["tool_call_id"] = m["tool_call_id"]
    if m.get("name"):
        out["name"] = m["name"]
    return out


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.datetime.now().strftime(fmt)  # as transformers
    return env


def main():
    paths = sys.argv[1:] or [os.path.join(ROOT, "test/data/chat_templates", n + ".jinja") for n in ("qwen3", "chatml", "gpt-oss")]
    env = environment()
    out = []
    for path in paths:
        name = os.path.basename(path).removesuffix(".jinja")
        source = open(path, encoding="utf-8").read()
        template = env.from_string(source)
        for conversation, messages, tools, add_generation_prompt in CONVERSATIONS:
            context = {"messages": [template_message(m) for m in messages], "add_generation_prompt": add_generation_prompt,
                       "bos_token": "", "eos_token": ""}
            if tools:
                context["tools"] = tools
            entry = {"template": name, "conversation": conversation, "messages": messages, "tools": tools,
                     "add_generation_prompt": add_generation_prompt}
            try:
                entry["expected"] = template.render(**context)
            except jinja2.exceptions.TemplateError as e:
                entry["error"] = str(e)
            out.append(entry)
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
