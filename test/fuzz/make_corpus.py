#!/usr/bin/python3
"""Seed corpora for the fuzz targets in test/fuzz, one folder per target in test/fuzz/corpus:
- gguf: small valid GGUF files covering every metadata type, nested arrays, versions 2 and 3,
  a custom alignment and a tensor of every block format forge decodes (plus the ggml-written
  test file);
- nam: the small Core fixture models (test/data/nam/core) of each architecture;
- audio: tiny WAV (PCM 16/24, float, stereo) and FLAC files, written through libsndfile;
- safetensors: small checkpoints of each dtype, with and without metadata;
- chat_template: the real templates of test/data/chat_templates, each with a conversation;
- tokenizer: texts in several scripts, with and without special tokens;
- serve_request: a byte choosing the endpoint (even: chat, odd: completions), then a request
  body using each field forge serve reads, and the hostile bodies of issue 32 (regression_*);
- grammar: a byte choosing a regex (0), a JSON Schema (1) or a GBNF grammar (2), the source, NUL,
  then text to walk through its grammar: everyday ones and the hostile ones of issue 32."""
import ctypes
import glob
import json
import math
import os
import random
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
# ggml type id: (block size, block bytes)
TYPES = {0: (1, 4), 1: (1, 2), 30: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
         10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
         20: (32, 18), 23: (256, 136), 34: (256, 54), 35: (256, 66)}


def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


def value(tag, v):
    fmt = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
    if tag == 8:
        return s(v)
    if tag == 9:
        elem, items = v
        return struct.pack("<IQ", elem, len(items)) + b"".join(value(elem, i) for i in items)
    return struct.pack("<" + fmt[tag], v)


def gguf(kvs, tensors, version=3, alignment=32):
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, tag, v in kvs:
        out += s(key) + struct.pack("<I", tag) + value(tag, v)
    offset, blobs = 0, []
    for name, gid, dims, data in tensors:
        out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", gid, offset)
        blobs.append(data)
        offset += (len(data) + alignment - 1) // alignment * alignment
    out += b"\0" * (-len(out) % alignment)
    for data in blobs:
        out += data + b"\0" * (-len(data) % alignment)
    return out


def write_all(folder, files):
    os.makedirs(folder, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def nam_seeds(corpus):
    folder = os.path.join(corpus, "nam")
    os.makedirs(folder, exist_ok=True)
    core = os.path.join(HERE, "..", "data", "nam", "core")
    for name in ["linear_direct", "convnet_plain", "convnet_leaky", "convnet_batchnorm", "forge_lstm_nano",
                 "forge_nano", "container"]:
        shutil.copy(os.path.join(core, name + ".nam"), os.path.join(folder, name + ".nam"))


class SfInfo(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


def audio_seeds(corpus):
    sf = ctypes.CDLL("libsndfile.so.1")
    sf.sf_open.restype = ctypes.c_void_p
    sf.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SfInfo)]
    sf.sf_writef_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int64]
    sf.sf_close.argtypes = [ctypes.c_void_p]
    wav, flac, pcm16, pcm24, flt = 0x010000, 0x170000, 0x0002, 0x0003, 0x0006
    folder = os.path.join(corpus, "audio")
    os.makedirs(folder, exist_ok=True)
    for name, fmt, channels in [("pcm16.wav", wav | pcm16, 1), ("pcm24_stereo.wav", wav | pcm24, 2),
                                ("float.wav", wav | flt, 1), ("pcm16.flac", flac | pcm16, 1),
                                ("pcm24_stereo.flac", flac | pcm24, 2)]:
        frames = 64
        samples = (ctypes.c_float * (frames * channels))(*[0.5 * math.sin(0.3 * i) for i in range(frames * channels)])
        info = SfInfo(0, 48000, channels, fmt, 0, 0)
        handle = sf.sf_open(os.path.join(folder, name).encode(), 0x20, ctypes.byref(info))  # SFM_WRITE
        assert handle, name
        sf.sf_writef_float(handle, samples, frames)
        sf.sf_close(handle)


def safetensors(tensors, metadata=None):
    header, data = {}, b""
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds(corpus):
    write_all(os.path.join(corpus, "safetensors"), {
        "f32.safetensors": safetensors({"w": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4))}),
        "mixed.safetensors": safetensors({"a": ("F16", [3], b"\0\x3c" * 3), "b": ("I64", [1], struct.pack("<q", -5)),
                                          "c": ("BF16", [2], b"\x80\x3f" * 2), "d": ("U8", [0], b"")},
                                         {"format": "forge-checkpoint"}),
        "empty.safetensors": safetensors({}),
    })


def chat_template_seeds(corpus):
    conversation = b"\0" + bytes([8 * 5 + 1]) + b"Hello" + bytes([8 * 3 + 2]) + b"Hi!" + bytes([8 * 4 + 1]) + b"Why?"
    files = {}
    for path in sorted(glob.glob(os.path.join(HERE, "..", "data", "chat_templates", "*.jinja"))):
        with open(path, "rb") as f:
            files[os.path.basename(path)] = f.read() + conversation
    files["features.jinja"] = (b"{% set ns = namespace(n=0) %}{% macro m(x, y=2) %}{{ x * y }}{% endmacro %}"
                               b"{% for message in messages if message.role != 'x' %}{% set ns.n = ns.n + 1 %}"
                               b"{{ loop.index }}:{{ message['role'] | upper }} {{ message.content | trim | tojson }}"
                               b"{{ m(ns.n) }}{{ [1, 2, 3][::-1] | join(',') }}{{ {'a': 1}.items() | list }}"
                               b"{% if ns.n is even %}{{ 7 // 2 }}{{ -7 % 3 }}{{ 2 ** 5 }}{% endif %}{% endfor %}"
                               b"{{ raise_exception('x') if false }}{{ range(3) | length }}") + conversation
    write_all(os.path.join(corpus, "chat_template"), files)


def tokenizer_seeds(corpus):
    texts = ["Hello world", " leading space and  two", "Grüße, 世界! 🤖", "<|im_start|>user\nhi<|im_end|>",
             "<think>ok</think>", "1234567 + 89 = ?", "\t\ttabs\nand\r\nlines", "ça va? ▁"]
    files = {}
    for i, text in enumerate(texts):
        for choice in (0, 1, 2, 7):
            files[f"text{i}_{choice}.txt"] = bytes([choice]) + text.encode()
    write_all(os.path.join(corpus, "tokenizer"), files)


def serve_request_seeds(corpus):
    user = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi \u00e9"}]
    tool = {"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
                                             "parameters": {"type": "object", "required": ["city"],
                                                            "properties": {"city": {"type": "string"},
                                                                           "days": {"type": "integer", "minimum": 1}}}}}
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8},
                                               "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
                                               "score": {"type": "number"}, "ok": {"type": "boolean"}},
              "required": ["name"], "additionalProperties": False}
    chat = {
        "chat_minimal": {"messages": user},
        "chat_sampling": {"model": "m", "messages": user, "temperature": 0.7, "top_p": 0.9, "top_k": 40, "min_p": 0.05,
                          "seed": 7, "max_tokens": 16, "stop": ["\n", "END"], "presence_penalty": 0.5,
                          "frequency_penalty": 0.1, "repeat_penalty": 1.1, "logit_bias": {"5": -100, "7": 2.5},
                          "logprobs": True, "top_logprobs": 3, "user": "u", "metadata": {"a": "b"}},
        "chat_stream": {"messages": user, "stream": True, "stream_options": {"include_usage": True},
                        "max_completion_tokens": 4},
        "chat_json_object": {"messages": user, "response_format": {"type": "json_object"}},
        "chat_json_schema": {"messages": user,
                             "response_format": {"type": "json_schema", "json_schema": {"name": "p", "schema": schema}}},
        "chat_tools": {"messages": user + [{"role": "assistant", "content": None, "tool_calls": [
                           {"id": "c1", "type": "function",
                            "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
                           {"role": "tool", "tool_call_id": "c1", "content": "sunny"}],
                       "tools": [tool], "tool_choice": "required", "parallel_tool_calls": False},
        "chat_tool_named": {"messages": user, "tools": [tool],
                            "tool_choice": {"type": "function", "function": {"name": "get_weather"}}},
        "chat_parts": {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}],
                       "chat_template_kwargs": {"enable_thinking": False}},
        # issue 32's probes: n = 1000 was refused as out of [1, 128]
        "chat_n_1000": {"messages": user, "n": 1000, "best_of": 1000},
        # issue 29: llama-server's constraint fields, one and two at once
        "chat_grammar": {"messages": user, "grammar": 'root ::= ("yes" | "no") "!"{1,3}\nunused ::= [^\\n]*\n'},
        "chat_grammar_and_schema": {"messages": user, "grammar": 'root ::= "a"', "json_schema": schema},
        "chat_json_object_schema": {"messages": user, "response_format": {"type": "json_object", "schema": schema}},
        "chat_max_tokens_0": {"messages": user, "max_tokens": 0},
    }
    completions = {
        "completion_text": {"prompt": "Once upon", "max_tokens": 8, "temperature": 0, "echo": False},
        "completion_tokens": {"prompt": [1, 2, 3], "logprobs": 2, "stop": "x", "return_tokens": True},
        "completion_list": {"prompt": ["only one"], "n": 1, "stream": True},
        # issue 32's probes: a long prompt (the probe's was 8 MiB, refused by its bytes before tokenizing)
        "completion_long_prompt": {"prompt": "Once upon a time " * 64, "max_tokens": 1},
        "completion_json_schema": {"prompt": "x", "json_schema": schema},
        "completion_grammar_left_recursion": {"prompt": "x", "grammar": 'root ::= root "a" | "b"'},
    }
    pattern = lambda p: {"type": "json_schema", "json_schema": {"name": "p", "schema": {"type": "string", "pattern": p}}}
    schema_format = lambda s: {"type": "json_schema", "json_schema": {"name": "p", "schema": s}}
    letters = {"type": "object", "properties": {f"p{i}": {"type": "string", "pattern": "^%s{0,99999}$" % chr(65 + i)}
                                                for i in range(25)}}
    hostile_tool = dict(tool, function=dict(tool["function"], parameters={"type": "string", "pattern": "(a?){0,99999}"}))
    chat.update({  # issue 32: each crashed, stalled or answered 500 / bad_alloc
        "regression_nullable_repeat_99999": {"messages": user, "response_format": pattern("^(a?){0,99999}$")},
        "regression_nullable_repeat_6000": {"messages": user, "max_tokens": 8, "response_format": pattern("(a?){0,6000}")},
        "regression_nullable_repeat_tool": {"messages": user, "tools": [hostile_tool], "tool_choice": "required"},
        "regression_25_big_repeats": {"messages": user, "response_format": schema_format(letters)},
        "regression_star_of_star": {"messages": user, "response_format": pattern("(a*)*")},
        "regression_star_of_empty": {"messages": user, "response_format": pattern("(|a)*")},
        "regression_huge_count": {"messages": user, "response_format": pattern("a{99999999999999999999}")},
        "regression_self_ref_root": {"messages": user, "response_format": schema_format({"$ref": "#"})},
        "regression_self_ref_defs": {"messages": user, "response_format": schema_format(
            {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})},
        "regression_enum_5000": {"messages": user, "response_format": schema_format(
            {"enum": ["value-%d" % i for i in range(5000)]})},
    })
    files = {name + ".json": b"\0" + json.dumps(body).encode() for name, body in chat.items()}
    files.update({name + ".json": b"\1" + json.dumps(body).encode() for name, body in completions.items()})
    write_all(os.path.join(corpus, "serve_request"), files)


def grammar_seeds(corpus):
    regexes = {
        "regex_classes": (r"^[a-c]+\d{2,3}(x|yz)?$", "ab12x"),
        "regex_unicode": ("[^a]é.", "bé€"),
        "regex_date": (r"\d{4}-\d{2}-\d{2}", "2026-12-04"),
        "regex_nullable_repeat": ("(a?){0,6000}", "a" * 64),
        "regex_nullable_repeat_99999": ("(a?){0,99999}", "aaaa"),
        "regex_star_of_star": ("(a*)*b", "aaab"),
        "regex_star_of_empty": ("(|a)*", "aaaa"),
        "regex_empty_groups": ("(()|a){3,}((a?)(b?))*", "abab"),
        "regex_huge_count": ("a{99999999999999999999}", "a"),
        "regex_ambiguous": ("a{0,2000}a{0,2000}", "a" * 1100),
        "regex_literal_brace": ("a{,5}", "a{,5}"),
    }
    schemas = {
        "schema_object": ({"type": "object", "properties": {"n": {"type": "integer", "minimum": -5, "maximum": 300},
                                                            "s": {"type": "string", "maxLength": 4}}, "required": ["n"]},
                          '{"n": 42, "s": "ab"}'),
        "schema_recursive": ({"type": "array", "items": {"$ref": "#"}}, "[[], [[]]]"),
        "schema_self_ref": ({"$ref": "#"}, "1"),
        "schema_self_ref_defs": ({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "1"),
        "schema_enum": ({"enum": ["value-%d" % i for i in range(300)] + [42, None]}, '"value-123"'),
        "schema_patterns": ({"type": "object", "properties": {f"p{i}": {"type": "string", "pattern": "^%s{0,9999}$" % chr(65 + i)}
                                                               for i in range(3)}}, '{"p0": "AAA"}'),
    }
    gbnf = {
        "gbnf_arithmetic": ('root ::= (expr "=" term "\\n")+\nexpr ::= term ([-+*/] term)*\nterm ::= [0-9]+ | "(" expr ")"\n', "1+(2*3)=7\n"),
        "gbnf_escapes": ('root ::= "\\x41\\u00e9\\U0001F600" [^\\n"]* . # comment\n', "A\u00e9\U0001F600xyz\n"),
        "gbnf_left_recursion": ("root ::= root \"a\" | \"b\"\n", "baa"),
        "gbnf_nullable_star": ('root ::= x*\nx ::= "a"?\n', "aaa"),
        "gbnf_huge_count": ('root ::= "a"{0,99999999999999999999}', "a"),
        "gbnf_deep_groups": ("root ::= " + "(" * 1500 + '"a"' + ")" * 1500, "a"),
        "gbnf_nested_counts": ('root ::= ("a"{0,100}){0,100} "b"', "a" * 300 + "b"),
    }
    files = {name: b"\0" + pattern.encode() + b"\0" + text.encode() for name, (pattern, text) in regexes.items()}
    files.update({name: b"\1" + json.dumps(schema).encode() + b"\0" + text.encode() for name, (schema, text) in schemas.items()})
    files.update({name: b"\2" + grammar.encode() + b"\0" + text.encode() for name, (grammar, text) in gbnf.items()})
    write_all(os.path.join(corpus, "grammar"), files)


def main():
    rnd = random.Random(3)
    corpus = os.path.join(HERE, "corpus")
    nam_seeds(corpus)
    audio_seeds(corpus)
    safetensors_seeds(corpus)
    chat_template_seeds(corpus)
    tokenizer_seeds(corpus)
    serve_request_seeds(corpus)
    grammar_seeds(corpus)
    corpus = os.path.join(corpus, "gguf")
    os.makedirs(corpus, exist_ok=True)
    every = [("u8", 0, 7), ("i8", 1, -7), ("u16", 2, 700), ("i16", 3, -700), ("u32", 4, 70000), ("i32", 5, -70000),
             ("f32", 6, 1.5), ("bool", 7, True), ("str", 8, "hello"), ("u64", 10, 1 << 40), ("i64", 11, -(1 << 40)),
             ("f64", 12, 2.5), ("arr", 9, (5, [1, 2, 3])), ("strs", 9, (8, ["a", "bc"])),
             ("nested", 9, (9, [(0, [1, 2]), (8, ["x"])]))]
    files = {
        "empty.gguf": gguf([], []),
        "metadata.gguf": gguf(every, []),
        "v2.gguf": gguf(every[:3], [("t", 0, [4], b"\1" * 16)], version=2),
        "aligned64.gguf": gguf([("general.alignment", 4, 64)], [("a", 0, [3], b"\2" * 12), ("b", 1, [5], b"\3" * 10)],
                               alignment=64),
    }
    tensors = []
    for gid, (block, size) in TYPES.items():
        n = block * 2 if block > 1 else 8
        tensors.append((f"t{gid}", gid, [n, 1], bytes(rnd.randrange(256) for _ in range(n // block * size))))
    files["every_type.gguf"] = gguf([("general.architecture", 8, "llama")], tensors)
    for name, data in files.items():
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
    shutil.copy(os.path.join(HERE, "..", "data", "gguf", "ggml_written.gguf"), os.path.join(corpus, "ggml_written.gguf"))


if __name__ == "__main__":
    main()
