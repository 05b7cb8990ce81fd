#!/usr/bin/python3
"""Turn a llama-arch GGUF from the oracle kit's make_gguf.py into a qwen2 one.

qwen2 is llama's block with biases on the q, k and v projections and NEOX RoPE (llama.cpp
picks the RoPE flavour from the architecture name). The kit's generator has no qwen2, so this
renames the "llama.*" metadata to "qwen2.*" and adds random f32 biases; every other tensor is
copied byte for byte. Usage: to_qwen2.py KIT_DIR IN.gguf OUT.gguf [--seed S] [--bias-std X]
"""
import argparse
import zlib

import numpy as np

from gguf_copy import copy_metadata, load_kit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kit")
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bias-std", type=float, default=0.2)
    a = ap.parse_args()
    G = load_kit(a.kit)

    r = G.GGUFReader(a.src)
    w = G.GGUFWriter(a.dst)

    def rename(key, value):
        if key == "general.architecture":
            value = "qwen2"
        return ("qwen2." + key[len("llama."):] if key.startswith("llama.") else key), value

    copy_metadata(G, r, w, rename)

    def copy(name):
        return lambda: r.raw(name)

    for name, (ne, gt, _) in r.tensors.items():
        w.add_tensor(name, ne, gt, copy(name))
        for proj in ("attn_q", "attn_k", "attn_v"):
            if name.endswith(proj + ".weight"):
                bias = name[: -len("weight")] + "bias"
                rng = np.random.default_rng([a.seed, zlib.crc32(bias.encode())])
                values = (rng.standard_normal(ne[1], dtype=np.float32) * np.float32(a.bias_std)).astype("<f4")
                w.add_tensor(bias, [ne[1]], G.GGML_F32, lambda v=values: v.tobytes())
    w.write()


if __name__ == "__main__":
    main()
