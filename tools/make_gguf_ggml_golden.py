#!/usr/bin/python3
"""Write test/data/gguf/ggml_view.json: what ggml itself reads from four committed GGUF files.

ggml's GGUF reader (gguf_init_from_file in libggml-base of npm @node-llama-cpp/linux-x64,
through ctypes) opens each file; for every tensor the golden keeps its ggml type, its ne[]
and its values decoded by ggml's own to_float (type traits): a 64-bit FNV-1a of their f32 bit
patterns, and for ggml's own file every bit pattern; for every metadata key its GGUF type and
its value (arrays longer than 64: element type and length). The files:

  gguf/ggml_written.gguf   written by ggml's gguf_write_to_file (tools/gen_quant_goldens.py):
                           forge's reader must see what ggml wrote, value by value;
  llm/qwen2-q4_0.gguf, llm/llama-q4_k.gguf, llm/qwen3-q6_k.gguf
                           written by `forge quantize` (tools/llm_goldens/regen.py): ggml must
                           read back the names, types, shapes and values forge meant.

test/core/gguf_ggml_test.cpp compares forge's reading of the same files with this golden.

  /usr/bin/python3 tools/make_gguf_ggml_golden.py [--lib .../bins/linux-x64/libggml-base.so]
"""
import argparse
import ctypes
import glob
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_quant_goldens import TO_FLOAT, load  # noqa: E402

DATA = os.path.join(HERE, "..", "test", "data")
FILES = ["gguf/ggml_written.gguf", "llm/qwen2-q4_0.gguf", "llm/llama-q4_k.gguf", "llm/qwen3-q6_k.gguf"]
EVERY_VALUE = "gguf/ggml_written.gguf"  # the file whose tensors keep every value
GGUF_STRING, GGUF_ARRAY = 8, 9
SCALARS = {0: "u8", 1: "i8", 2: "u16", 3: "i16", 4: "u32", 5: "i32", 6: "f32", 7: "bool", 10: "u64", 11: "i64",
           12: "f64"}
CTYPES = {"u8": ctypes.c_uint8, "i8": ctypes.c_int8, "u16": ctypes.c_uint16, "i16": ctypes.c_int16,
          "u32": ctypes.c_uint32, "i32": ctypes.c_int32, "f32": ctypes.c_float, "bool": ctypes.c_bool,
          "u64": ctypes.c_uint64, "i64": ctypes.c_int64, "f64": ctypes.c_double}


class GgufInitParams(ctypes.Structure):
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.POINTER(ctypes.c_void_p))]


def fnv1a64(data: bytes) -> str:
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def bind(lib):
    p, i64, c = ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p
    lib.gguf_init_from_file.argtypes = [c, GgufInitParams]
    lib.gguf_init_from_file.restype = p
    for name, res in (("gguf_get_n_kv", i64), ("gguf_get_n_tensors", i64), ("gguf_get_data_offset", ctypes.c_size_t)):
        getattr(lib, name).argtypes = [p]
        getattr(lib, name).restype = res
    for name, res in (("gguf_get_key", c), ("gguf_get_kv_type", ctypes.c_int), ("gguf_get_arr_type", ctypes.c_int),
                      ("gguf_get_arr_n", ctypes.c_size_t), ("gguf_get_val_str", c), ("gguf_get_tensor_name", c),
                      ("gguf_get_tensor_type", ctypes.c_int), ("gguf_get_tensor_offset", ctypes.c_size_t),
                      ("gguf_get_tensor_size", ctypes.c_size_t), ("gguf_get_arr_data", p)):
        getattr(lib, name).argtypes = [p, i64]
        getattr(lib, name).restype = res
    lib.gguf_get_arr_str.argtypes = [p, i64, ctypes.c_size_t]
    lib.gguf_get_arr_str.restype = c
    for t in CTYPES:
        getattr(lib, "gguf_get_val_" + t).argtypes = [p, i64]
        getattr(lib, "gguf_get_val_" + t).restype = CTYPES[t]
    lib.ggml_get_tensor.argtypes = [p, c]
    lib.ggml_get_tensor.restype = p
    lib.ggml_n_dims.argtypes = [p]
    lib.ggml_free.argtypes = [p]
    lib.gguf_free.argtypes = [p]


def value(lib, g, k):
    t = lib.gguf_get_kv_type(g, k)
    if t == GGUF_STRING:
        return t, lib.gguf_get_val_str(g, k).decode()
    if t != GGUF_ARRAY:
        return t, getattr(lib, "gguf_get_val_" + SCALARS[t])(g, k)
    element, n = lib.gguf_get_arr_type(g, k), lib.gguf_get_arr_n(g, k)
    if n > 64:
        return t, {"element_type": element, "n": n}  # long arrays (vocabularies): type and length
    if element == GGUF_STRING:
        items = [lib.gguf_get_arr_str(g, k, i).decode() for i in range(n)]
    else:
        data = lib.gguf_get_arr_data(g, k)
        items = list(ctypes.cast(data, ctypes.POINTER(CTYPES[SCALARS[element]]))[:n])
    return t, {"element_type": element, "n": n, "items": items}


def ne_of(tensor_ptr, n_dims):
    # struct ggml_tensor: enum type (4 bytes, padded to 8), a buffer pointer, then int64 ne[4].
    return list(ctypes.cast(tensor_ptr + 16, ctypes.POINTER(ctypes.c_int64))[:n_dims])


def read(lib, path, every_value):
    ctx = ctypes.c_void_p()
    g = lib.gguf_init_from_file(path.encode(), GgufInitParams(True, ctypes.pointer(ctx)))
    assert g, f"ggml cannot read {path}"
    raw = open(path, "rb").read()
    base = lib.gguf_get_data_offset(g)
    doc = {"metadata": [], "tensors": []}
    for k in range(lib.gguf_get_n_kv(g)):
        t, v = value(lib, g, k)
        doc["metadata"].append({"key": lib.gguf_get_key(g, k).decode(), "type": t, "value": v})
    for i in range(lib.gguf_get_n_tensors(g)):
        name = lib.gguf_get_tensor_name(g, i)
        gid = lib.gguf_get_tensor_type(g, i)
        tensor = lib.ggml_get_tensor(ctx, name)
        ne = ne_of(tensor, lib.ggml_n_dims(tensor))
        numel = int(np.prod(ne))
        start = base + lib.gguf_get_tensor_offset(g, i)
        block = raw[start:start + lib.gguf_get_tensor_size(g, i)]
        values = np.zeros(numel, dtype=np.float32)
        if gid == 0:
            values = np.frombuffer(block, dtype=np.float32).copy()
        else:
            src = np.frombuffer(block, dtype=np.uint8).copy()
            TO_FLOAT(lib.ggml_get_type_traits(gid).contents.to_float)(src.ctypes.data, values.ctypes.data, numel)
        bits = values.view(np.uint32)
        entry = {"name": name.decode(), "ggml_type": gid, "ne": ne, "fnv1a64": fnv1a64(bits.tobytes())}
        if every_value:
            entry["bits"] = [int(b) for b in bits]
        doc["tensors"].append(entry)
    lib.gguf_free(g)
    lib.ggml_free(ctx)
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=(glob.glob("/work/oracle-llm/node_modules/@node-llama-cpp/linux-x64/bins/*/"
                                                "libggml-base.so") or [None])[0])
    a = ap.parse_args()
    lib = load(a.lib)
    bind(lib)
    out = {"source": "ggml's gguf reader and to_float (libggml-base of @node-llama-cpp/linux-x64 3.22.1)",
           "files": {f: read(lib, os.path.join(DATA, f), f == EVERY_VALUE) for f in FILES}}
    with open(os.path.join(DATA, "gguf", "ggml_view.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    for name, doc in out["files"].items():
        print(f"{name}: {len(doc['metadata'])} keys, {len(doc['tensors'])} tensors")


if __name__ == "__main__":
    main()
