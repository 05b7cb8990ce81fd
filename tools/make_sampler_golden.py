#!/usr/bin/python3
"""Write the sampler golden (test/data/llm/sampler_golden.json) with llama.cpp's own samplers.

llama.cpp's sampler chain is called through ctypes on the prebuilt libllama of npm
@node-llama-cpp/linux-x64 (see ../shared/ORACLES.md): for fixed logits, a fixed history of
accepted tokens and each set of options, the chain penalties -> top-k -> top-p -> min-p ->
temperature (llama.cpp's default order, without its final draw) is applied with
llama_sampler_apply, and the surviving token ids and their probabilities (the softmax of the
surviving logits, in float64) are recorded: the exact distribution the final draw samples
from. forge's Sampler::distribution must give the same tokens and probabilities.

usage: /usr/bin/python3 tools/make_sampler_golden.py [--lib-dir .../bins/linux-x64]
"""
import argparse
import ctypes
import glob
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "test", "data", "llm", "sampler_golden.json")
N_VOCAB = 64
DEFAULT_LIB = "/work/oracle-llm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"

# forge's SamplerOptions field names; anything absent keeps the "off" value below.
OFF = dict(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, repeat_penalty=1.0, frequency_penalty=0.0,
           presence_penalty=0.0, penalty_window=0)
CASES = {
    "top_k": dict(top_k=5),
    "top_p": dict(top_p=0.9),
    "top_p_small": dict(top_p=0.3, temperature=0.7),
    "min_p": dict(min_p=0.1),
    "temperature": dict(temperature=1.7),
    "defaults": dict(temperature=0.8, top_k=40, top_p=0.95, min_p=0.05),
    "penalties": dict(repeat_penalty=1.3, frequency_penalty=0.2, presence_penalty=0.5, penalty_window=8),
    "penalties_and_filters": dict(repeat_penalty=1.1, frequency_penalty=0.1, presence_penalty=0.3, penalty_window=64,
                                  top_k=20, top_p=0.8, min_p=0.02, temperature=0.9),
}
# Accepted tokens, oldest first: 3 four times, 7 twice; a window of 8 forgets the first three.
HISTORY = [3, 12, 3, 3, 7, 10, 3, 60, 7, 1, 2]


class TokenData(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int32), ("logit", ctypes.c_float), ("p", ctypes.c_float)]


class TokenDataArray(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(TokenData)), ("size", ctypes.c_size_t), ("selected", ctypes.c_int64),
                ("sorted", ctypes.c_bool)]


class ChainParams(ctypes.Structure):
    _fields_ = [("no_perf", ctypes.c_bool)]


def load_llama(lib_dir):
    ctypes.CDLL(os.path.join(lib_dir, "libggml-base.so"), mode=ctypes.RTLD_GLOBAL)
    ctypes.CDLL(glob.glob(os.path.join(lib_dir, "libggml.*so"))[0], mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(glob.glob(os.path.join(lib_dir, "libllama.*so"))[0])
    p = ctypes.c_void_p
    lib.llama_sampler_chain_init.argtypes = [ChainParams]
    lib.llama_sampler_chain_init.restype = p
    lib.llama_sampler_chain_add.argtypes = [p, p]
    lib.llama_sampler_init_top_k.argtypes = [ctypes.c_int32]
    lib.llama_sampler_init_top_p.argtypes = [ctypes.c_float, ctypes.c_size_t]
    lib.llama_sampler_init_min_p.argtypes = [ctypes.c_float, ctypes.c_size_t]
    lib.llama_sampler_init_temp.argtypes = [ctypes.c_float]
    lib.llama_sampler_init_penalties.argtypes = [ctypes.c_int32, ctypes.c_float, ctypes.c_float, ctypes.c_float]
    for name in ("top_k", "top_p", "min_p", "temp", "penalties"):
        getattr(lib, "llama_sampler_init_" + name).restype = p
    lib.llama_sampler_accept.argtypes = [p, ctypes.c_int32]
    lib.llama_sampler_apply.argtypes = [p, ctypes.POINTER(TokenDataArray)]
    lib.llama_sampler_free.argtypes = [p]
    return lib


def chain(lib, o):
    """llama.cpp's default order; a sampler that is off is left out (each is a no-op when off)."""
    c = lib.llama_sampler_chain_init(ChainParams(True))
    if o["penalty_window"] > 0:
        lib.llama_sampler_chain_add(c, lib.llama_sampler_init_penalties(o["penalty_window"], o["repeat_penalty"],
                                                                        o["frequency_penalty"], o["presence_penalty"]))
    if o["top_k"] > 0:
        lib.llama_sampler_chain_add(c, lib.llama_sampler_init_top_k(o["top_k"]))
    if o["top_p"] < 1.0:
        lib.llama_sampler_chain_add(c, lib.llama_sampler_init_top_p(o["top_p"], 1))
    if o["min_p"] > 0.0:
        lib.llama_sampler_chain_add(c, lib.llama_sampler_init_min_p(o["min_p"], 1))
    lib.llama_sampler_chain_add(c, lib.llama_sampler_init_temp(o["temperature"]))
    return c


def distribution(lib, options, logits, history):
    c = chain(lib, options)
    for token in history:
        lib.llama_sampler_accept(c, token)
    data = (TokenData * len(logits))(*[TokenData(i, v, 0.0) for i, v in enumerate(logits)])
    arr = TokenDataArray(data, len(logits), -1, False)
    lib.llama_sampler_apply(c, ctypes.byref(arr))
    survivors = [(arr.data[i].id, arr.data[i].logit) for i in range(arr.size) if arr.data[i].logit != -math.inf]
    lib.llama_sampler_free(c)
    top = max(logit for _, logit in survivors)
    weights = [(i, math.exp(logit - top)) for i, logit in survivors]
    total = sum(w for _, w in weights)
    return sorted(([i, w / total] for i, w in weights), key=lambda t: t[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib-dir", default=DEFAULT_LIB)
    a = ap.parse_args()
    lib = load_llama(a.lib_dir)
    rng = random.Random(20)
    # Continuous random logits (no ties: top-k's order among equal logits is unspecified).
    rows = [[round(rng.gauss(0.0, 2.5), 6) for _ in range(N_VOCAB)] for _ in range(3)]
    out = {"source": "llama.cpp samplers (libllama of @node-llama-cpp/linux-x64 3.22.1) via llama_sampler_apply",
           "n_vocab": N_VOCAB, "history": HISTORY, "logits": rows, "cases": []}
    for name, changes in CASES.items():
        options = {**OFF, **changes}
        for r, logits in enumerate(rows):
            out["cases"].append({"name": name, "options": options, "row": r,
                                 "distribution": distribution(lib, options, logits, HISTORY)})
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out['cases'])} cases -> {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
