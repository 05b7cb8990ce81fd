#!/usr/bin/python3
"""Turn a llama-arch GGUF from the oracle kit's make_gguf.py into a smollm3 or phi3 one, laid
out the way llama.cpp's converter writes those families (conversion/llama.py, conversion/phi.py).

  to_family.py KIT IN.gguf OUT.gguf --arch smollm3
      renames the "llama.*" metadata to "smollm3.*". llama.cpp's smollm3 is llama's block with
      RoPE left out of every 4th layer (layer il when (il + 1) % 4 == 0); the step is fixed in
      llama.cpp (no key), so a file needs 4 layers or more to have such a layer.
  to_family.py KIT IN.gguf OUT.gguf --arch phi3 --rot-dims R --orig-ctx C [--seed S]
      renames to "phi3.*" and, as Phi-3/Phi-4-mini files are:
      - fuses blk.N.attn_q/k/v.weight into blk.N.attn_qkv.weight (rows q, then k, then v);
      - fuses blk.N.ffn_gate/up.weight into blk.N.ffn_up.weight (rows gate, then up: llama.cpp's
        ggml_swiglu takes silu of the first half);
      - sets rope.dimension_count R (partial rotary: R < head size), context_length 4 C,
        rope.scaling.original_context_length C, rope.scaling.attn_factor
        sqrt(1 + ln 4 / ln C) (what the converter computes for LongRoPE) and
        attention.sliding_window (llama.cpp ignores it for phi3);
      - adds LongRoPE's per-pair frequency divisors rope_factors_long.weight (random in [1, 8])
        and rope_factors_short.weight (random in [1, 1.5]), R / 2 f32 values each. llama.cpp
        uses the long ones when the context per sequence exceeds C, the short ones otherwise.

Quantized rows are whole blocks, so fusing copies their bytes. Every other tensor is copied
byte for byte.
"""
import argparse
import math

import numpy as np

from gguf_copy import copy_metadata, load_kit


def rename_to(arch, overrides):
    def edit(key, value):
        if key == "general.architecture":
            return key, arch
        if key.startswith("llama."):
            key = arch + "." + key[len("llama."):]
        return key, overrides.get(key, value)
    return edit


def fused(r, names):
    """The tensors `names` (same row width and type) stacked row-wise: ne [n_in, sum of rows]."""
    ne0, gt = r.tensors[names[0]][0][0], r.tensors[names[0]][1]
    assert all(r.tensors[n][0][0] == ne0 and r.tensors[n][1] == gt for n in names)
    rows = sum(r.tensors[n][0][1] for n in names)
    return [ne0, rows], gt, lambda: b"".join(r.raw(n) for n in names)


def rope_factors(seed, name, n, low, high):
    rng = np.random.default_rng([seed, sum(name.encode())])
    return (low + (high - low) * rng.random(n)).astype("<f4")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kit")
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--arch", choices=["smollm3", "phi3"], required=True)
    ap.add_argument("--rot-dims", type=int, help="phi3: rope.dimension_count")
    ap.add_argument("--orig-ctx", type=int, help="phi3: rope.scaling.original_context_length")
    ap.add_argument("--sliding-window", type=int, default=8, help="phi3: attention.sliding_window")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    G = load_kit(a.kit)
    r = G.GGUFReader(a.src)
    w = G.GGUFWriter(a.dst)

    overrides = {}
    if a.arch == "phi3":
        overrides = {"phi3.rope.dimension_count": a.rot_dims, "phi3.context_length": 4 * a.orig_ctx}
    copy_metadata(G, r, w, rename_to(a.arch, overrides))
    if a.arch == "phi3":
        w.add_u32("phi3.rope.scaling.original_context_length", a.orig_ctx)
        w.add_f32("phi3.rope.scaling.attn_factor", math.sqrt(1 + math.log(4) / math.log(a.orig_ctx)))
        w.add_u32("phi3.attention.sliding_window", a.sliding_window)

    for name, (ne, gt, _) in r.tensors.items():
        if a.arch == "phi3" and name.endswith(("attn_k.weight", "attn_v.weight", "ffn_gate.weight")):
            continue  # written fused
        if a.arch == "phi3" and name.endswith("attn_q.weight"):
            blk = name[: -len("attn_q.weight")]
            w.add_tensor(blk + "attn_qkv.weight", *fused(r, [blk + "attn_q.weight", blk + "attn_k.weight",
                                                             blk + "attn_v.weight"]))
        elif a.arch == "phi3" and name.endswith("ffn_up.weight"):
            blk = name[: -len("ffn_up.weight")]
            w.add_tensor(name, *fused(r, [blk + "ffn_gate.weight", blk + "ffn_up.weight"]))
        else:
            w.add_tensor(name, ne, gt, lambda name=name: r.raw(name))
    if a.arch == "phi3":
        for name, (low, high) in {"rope_factors_long.weight": (1.0, 8.0),
                                  "rope_factors_short.weight": (1.0, 1.5)}.items():
            values = rope_factors(a.seed, name, a.rot_dims // 2, low, high)
            w.add_tensor(name, [a.rot_dims // 2], G.GGML_F32, lambda v=values: v.tobytes())
    w.write()


if __name__ == "__main__":
    main()
