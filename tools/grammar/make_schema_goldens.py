#!/usr/bin/env python3
"""JSON Schema goldens for the grammar engine, checked by an independent validator (Python
jsonschema, Debian python3-jsonschema), for test/models/llm/grammar_golden_test.cpp:

  1. every schema below with hand-written instances; jsonschema says which are valid;
  2. the test binary, run with FORGE_WRITE_GRAMMAR_SAMPLES, samples each schema's grammar from
     random logits on the real Qwen3 vocabulary (fixed seeds) and writes the texts;
  3. jsonschema validates every sample; all of it goes to test/data/grammar/schema_goldens.json.

The test then requires: the same samples again (seeded, exact), every sample valid by
jsonschema, and no instance accepted by the grammar that jsonschema rejects (instances marked
canonical, written the way the grammar writes JSON, must also be accepted when valid).

    apt-get install python3-jsonschema
    meson compile -C build && /usr/bin/python3 tools/grammar/make_schema_goldens.py build
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "test/data/grammar/schema_goldens.json")

SCHEMAS = [
    ("person", {"type": "object", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 10},
        "age": {"type": "integer", "minimum": 0, "maximum": 130},
        "email": {"type": "string", "format": "uuid"}},
        "required": ["name", "age"], "additionalProperties": False},
     [('{"name": "Ada", "age": 36}', True), ('{"name": "Ada", "age": 131}', True), ('{"name": "", "age": 3}', True),
      ('{"age": 3, "name": "x"}', False), ('{"name": "Ada", "age": 36, "email": "3f2b8c1e-9a4d-4e6f-8b21-0c5d7e9f1a2b"}', True),
      ('{"name": "Ada", "age": 36, "email": "nope"}', False), ('{"name": "Ada", "age": 3, "x": 1}', True),
      ('{"name": "Ada", "age": -1}', True)]),
    ("enum_const_anyof", {"type": "object", "properties": {
        "kind": {"const": "point"}, "color": {"enum": ["red", "green", None, 7]},
        "at": {"anyOf": [{"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 3}, {"type": "null"}]}},
        "required": ["kind", "color", "at"]},
     [('{"kind": "point", "color": "red", "at": [1, 2.5]}', True), ('{"kind": "point", "color": null, "at": null}', True),
      ('{"kind": "point", "color": 7, "at": [1]}', True), ('{"kind": "line", "color": 7, "at": null}', True),
      ('{"kind": "point", "color": "blue", "at": null}', True), ('{"kind": "point", "color": 7, "at": [1, 2, 3, 4]}', True)]),
    ("ranges", {"type": "object", "properties": {
        "i": {"type": "integer", "exclusiveMinimum": -10, "exclusiveMaximum": 10},
        "x": {"type": "number", "minimum": -1, "maximum": 2},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2}},
        "required": ["i", "x", "tags"]},
     [('{"i": 9, "x": 2, "tags": []}', True), ('{"i": 10, "x": 0, "tags": []}', True), ('{"i": -9, "x": -1.0, "tags": ["abc"]}', True),
      ('{"i": 0, "x": 2.5, "tags": []}', True), ('{"i": 0, "x": -1.01, "tags": []}', True), ('{"i": 0, "x": 0, "tags": ["a", "b", "c"]}', True),
      ('{"i": 0, "x": 1.999, "tags": ["abcd"]}', True)]),
    ("recursive_ref", {"$defs": {"node": {"type": "object", "properties": {
        "v": {"type": "integer", "minimum": 0, "maximum": 9},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 2}}, "required": ["v", "kids"]}},
        "$ref": "#/$defs/node"},
     [('{"v": 1, "kids": [{"v": 2, "kids": []}]}', True), ('{"v": 1, "kids": [{"v": 2}]}', True), ('{"v": 10, "kids": []}', True)]),
    ("pattern_date", {"type": "object", "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{2,4}$"}, "day": {"type": "string", "format": "date"}},
        "required": ["code", "day"]},
     [('{"code": "AB-123", "day": "2024-02-29"}', True), ('{"code": "AB-1", "day": "2024-02-29"}', True),
      ('{"code": "AB-12", "day": "2024-13-01"}', True)]),
    ("extra_properties", {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
                          "additionalProperties": {"type": "boolean"}},
     [('{"id": 1, "a": true, "b": false}', True), ('{"id": 1, "a": 1}', True), ('{"id": 1}', True)]),
    ("open_object", {"type": "object", "additionalProperties": {"anyOf": [
        {"type": "string", "maxLength": 6}, {"type": "integer"}, {"type": "boolean"}, {"type": "null"}]}},
     [('{}', True), ('{"a": "xyz", "b": 3, "c": null}', True), ('{"a": [1]}', True)]),
]

SEEDS = [1, 2, 3, 4]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    binary = os.path.join(ROOT, build, "test/models/llm/llm_grammar_test")
    goldens = []
    for name, schema, instances in SCHEMAS:
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        entry = {"name": name, "schema": schema, "seeds": SEEDS, "instances": []}
        for text, canonical in instances:
            entry["instances"].append({"text": text, "valid": validator.is_valid(json.loads(text)), "canonical": canonical})
        goldens.append(entry)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:  # phase 1: the schemas the sampler reads
        json.dump(goldens, f, indent=1, ensure_ascii=False)
    with tempfile.TemporaryDirectory() as tmp:
        samples_path = os.path.join(tmp, "samples.json")
        env = dict(os.environ, FORGE_WRITE_GRAMMAR_SAMPLES=samples_path)
        subprocess.run([binary, "--gtest_filter=GrammarGoldens.*"], env=env, check=True, stdout=subprocess.DEVNULL)
        samples = json.load(open(samples_path, encoding="utf-8"))
    for entry in goldens:
        validator = jsonschema.Draft202012Validator(entry["schema"], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        entry["samples"] = []
        for sample in samples[entry["name"]]:
            valid = False
            if sample["ended"]:
                try:
                    valid = validator.is_valid(json.loads(sample["text"]))
                except ValueError:
                    valid = False
            entry["samples"].append({"seed": sample["seed"], "ended": sample["ended"], "text": sample["text"], "valid": valid})
            if sample["ended"] and not valid:
                print(f"INVALID sample for {entry['name']} seed {sample['seed']}: {sample['text']!r}", file=sys.stderr)
    tmp_out = OUT + ".tmp"
    with open(tmp_out, "w", encoding="utf-8") as f:
        json.dump(goldens, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp_out, OUT)
    n = sum(len(e["samples"]) for e in goldens)
    bad = sum(1 for e in goldens for s in e["samples"] if s["ended"] and not s["valid"])
    print(f"wrote {OUT}: {len(goldens)} schemas, {n} samples ({bad} invalid)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
