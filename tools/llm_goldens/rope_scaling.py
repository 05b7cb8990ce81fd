#!/usr/bin/python3
"""Give a GGUF from the oracle kit's make_gguf.py a RoPE scaling that real models carry.

  rope_scaling.py KIT IN.gguf OUT.gguf --llama3-freqs FACTOR,LOW,HIGH,ORIG_CTX
      adds the tensor rope_freqs.weight (f32, n_rot/2 per-pair frequency divisors), computed
      the way Llama 3.1/3.2 converters do from rope_scaling {factor, low_freq_factor,
      high_freq_factor, original_max_position_embeddings}: pairs whose wavelength is short
      keep their frequency, long ones are divided by FACTOR, a smooth ramp in between.
  rope_scaling.py KIT IN.gguf OUT.gguf --yarn FACTOR,ORIG_CTX [--attn-factor A]
      sets {arch}.rope.scaling.type = yarn, .factor, .original_context_length (and
      .attn_factor).

Every tensor is copied byte for byte.
"""
import argparse
import math

import numpy as np

from gguf_copy import copy_metadata, load_kit


def llama3_freq_divisors(n_rot, base, factor, low_freq_factor, high_freq_factor, orig_ctx):
    low_freq_wavelen = orig_ctx / low_freq_factor
    high_freq_wavelen = orig_ctx / high_freq_factor
    divisors = []
    for i in range(0, n_rot, 2):
        wavelen = 2 * math.pi * base ** (i / n_rot)
        if wavelen < high_freq_wavelen:
            divisors.append(1.0)
        elif wavelen > low_freq_wavelen:
            divisors.append(factor)
        else:
            smooth = (orig_ctx / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            divisors.append(1.0 / ((1 - smooth) / factor + smooth))
    return np.array(divisors, dtype="<f4")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kit")
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--llama3-freqs", help="FACTOR,LOW_FREQ_FACTOR,HIGH_FREQ_FACTOR,ORIG_CTX")
    ap.add_argument("--yarn", help="FACTOR,ORIG_CTX")
    ap.add_argument("--attn-factor", type=float)
    a = ap.parse_args()
    G = load_kit(a.kit)

    r = G.GGUFReader(a.src)
    w = G.GGUFWriter(a.dst)
    arch = r.kv["general.architecture"]
    copy_metadata(G, r, w)
    if a.yarn:
        factor, orig_ctx = a.yarn.split(",")
        w.add_string(f"{arch}.rope.scaling.type", "yarn")
        w.add_f32(f"{arch}.rope.scaling.factor", float(factor))
        w.add_u32(f"{arch}.rope.scaling.original_context_length", int(orig_ctx))
    if a.attn_factor is not None:
        w.add_f32(f"{arch}.rope.scaling.attn_factor", a.attn_factor)

    for name, (ne, gt, _) in r.tensors.items():
        w.add_tensor(name, ne, gt, lambda name=name: r.raw(name))
    if a.llama3_freqs:
        factor, low, high, orig_ctx = (float(v) for v in a.llama3_freqs.split(","))
        n_rot = int(r.kv[f"{arch}.rope.dimension_count"])
        base = float(r.kv[f"{arch}.rope.freq_base"])
        divisors = llama3_freq_divisors(n_rot, base, factor, low, high, orig_ctx)
        w.add_tensor("rope_freqs.weight", [n_rot // 2], G.GGML_F32, lambda: divisors.tobytes())
    w.write()


if __name__ == "__main__":
    main()
