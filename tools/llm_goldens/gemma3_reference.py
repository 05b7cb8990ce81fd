#!/usr/bin/python3
"""A float64 forward of a gemma3 GGUF with f32 weights, to explain how far forge and llama.cpp are
from each other and from the exact math (docs/LLM.md, "Gemma 3 parity").

usage: /usr/bin/python3 tools/llm_goldens/gemma3_reference.py --kit /tmp/llm-oracles \
           --model test/data/llm/gemma3-f32.gguf --json test/data/llm/gemma3-f32.json \
           [--compare NAME=logits.f32 ...]

It prints, for each logits file given, max|a - b| / max|b| against three references:
  exact     GELU's tanh form in float64;
  f16-table GELU as ggml's CPU backend computes it for f32 inputs (GGML_GELU_FP16): the input
            rounded to f16 and looked up in ggml's own table (--table, dumped from llama.cpp by
            ggml_gelu_table.py), 0 at or below -10, x itself at or above 10;
and, first, how far each reference moves when every GELU input is multiplied by
1 + N(0, 1) * 2^-JITTER (default 22: a few float32 roundings, what adding the same products in
another order does). With the f16 table that distance is the floor no float32 engine can beat:
an input a float32 rounding from the middle between two f16 values lands on the other one, a
jump of a relative 2^-11 carried through the later layers.

The math is llama.cpp's gemma3 graph: x = token_embd[tok] * sqrtf(n_embd); per layer
h = rmsnorm(x) * attn_norm; q, k = rmsnorm per head * q_norm / k_norm; NeoX RoPE (base 10 000 on
the sliding layers, the file's base on every sixth); q *= 1/sqrt(head_dim); a sliding layer sees
the positions p0 with p1 - p0 < window; o = rmsnorm(attn Wo) * post_attention_norm; x += o;
h = rmsnorm(x) * ffn_norm; x += rmsnorm((gelu(h Wg) * h Wu) Wd) * post_ffw_norm;
logits = (rmsnorm(x) * output_norm) Wout (Wout = token_embd when output.weight is absent).
"""
import argparse
import json
import os
import sys

import numpy as np

GELU_C = np.sqrt(2.0 / np.pi)


def rmsnorm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope_neox(x, pos, base):
    d = x.shape[-1]
    inv = base ** (-np.arange(0, d // 2, dtype=np.float64) * 2.0 / d)
    ang = pos[:, None].astype(np.float64) * inv[None, :]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    x0, x1 = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([x0 * c - x1 * s, x0 * s + x1 * c], axis=-1)


def gelu_exact(x):
    return 0.5 * x * (1.0 + np.tanh(GELU_C * x * (1.0 + 0.044715 * x * x)))


def f16_table_gelu(table):
    def gelu(x):
        x32 = x.astype(np.float32)
        y = table[x32.astype(np.float16).view(np.uint16)].view(np.float16).astype(np.float64)
        y = np.where(x32 <= -10.0, 0.0, y)
        return np.where(x32 >= 10.0, x32.astype(np.float64), y)
    return gelu


def distance_to_f16_tie(x):
    """Per row, the smallest relative distance of a value from a midpoint between two f16 values
    (where rounding to f16 flips): below float32's 6e-8, float32 rounding decides the side."""
    x32 = x.astype(np.float32)
    h = x32.astype(np.float16)
    other = np.where(x32 > h.astype(np.float32), np.nextafter(h, np.float16(np.inf)), np.nextafter(h, np.float16(-np.inf)))
    midpoint = (h.astype(np.float64) + other.astype(np.float64)) / 2
    return (np.abs(x - midpoint) / np.maximum(np.abs(x), 1e-30)).min(axis=1)


def forward(r, tokens, gelu):
    kv = r.kv
    g = lambda k, d=None: kv.get(f"gemma3.{k}", d)  # noqa: E731
    n_layer, n_head = int(g("block_count")), int(g("attention.head_count"))
    n_kv, n_embd = int(g("attention.head_count_kv", n_head)), int(g("embedding_length"))
    hd = int(g("attention.key_length", n_embd // n_head))
    eps, base, window = float(g("attention.layer_norm_rms_epsilon")), float(g("rope.freq_base")), int(g("attention.sliding_window"))
    W = lambda n: r.tensor(n).astype(np.float64)  # noqa: E731
    T = len(tokens)
    pos = np.arange(T)
    x = r.tensor("token_embd.weight")[np.asarray(tokens)].astype(np.float64) * float(np.sqrt(np.float32(n_embd)))
    causal = np.where(pos[None, :] <= pos[:, None], 0.0, -np.inf)
    local = np.where((pos[None, :] <= pos[:, None]) & (pos[:, None] - pos[None, :] < window), 0.0, -np.inf)
    for il in range(n_layer):
        p = f"blk.{il}."
        sliding = il % 6 < 5
        h = rmsnorm(x, W(p + "attn_norm.weight"), eps)
        q = rmsnorm((h @ W(p + "attn_q.weight").T).reshape(T, n_head, hd), W(p + "attn_q_norm.weight"), eps)
        k = rmsnorm((h @ W(p + "attn_k.weight").T).reshape(T, n_kv, hd), W(p + "attn_k_norm.weight"), eps)
        v = (h @ W(p + "attn_v.weight").T).reshape(T, n_kv, hd)
        q, k = rope_neox(q, pos, 1e4 if sliding else base), rope_neox(k, pos, 1e4 if sliding else base)
        q = q / np.sqrt(hd)
        out = np.empty((T, n_head, hd))
        for hh in range(n_head):
            kvh = hh // (n_head // n_kv)
            s = q[:, hh, :] @ k[:, kvh, :].T + (local if sliding else causal)
            s = np.exp(s - s.max(axis=1, keepdims=True))
            out[:, hh, :] = (s / s.sum(axis=1, keepdims=True)) @ v[:, kvh, :]
        o = out.reshape(T, n_head * hd) @ W(p + "attn_output.weight").T
        x = x + rmsnorm(o, W(p + "post_attention_norm.weight"), eps)
        h = rmsnorm(x, W(p + "ffn_norm.weight"), eps)
        f = (gelu(h @ W(p + "ffn_gate.weight").T) * (h @ W(p + "ffn_up.weight").T)) @ W(p + "ffn_down.weight").T
        x = x + rmsnorm(f, W(p + "post_ffw_norm.weight"), eps)
    x = rmsnorm(x, W("output_norm.weight"), eps)
    return x @ W("output.weight" if "output.weight" in r.tensors else "token_embd.weight").T


def relative(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kit", default="/tmp/llm-oracles", help="the oracle kit (for gguf_io.py)")
    ap.add_argument("--model", required=True)
    ap.add_argument("--json", required=True, help="a golden .json (its eval_tokens are the prompt)")
    ap.add_argument("--table", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "data", "llm",
                                                    "ggml_gelu_f16_table.u16"), help="ggml's GELU table (65536 f16)")
    ap.add_argument("--compare", nargs="*", default=[], help="NAME=file.f32: logits [positions, n_vocab]")
    ap.add_argument("--jitter", type=int, default=22, help="GELU inputs times 1 + N(0,1) * 2^-JITTER")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    sys.path.insert(0, a.kit)
    import gguf_io as G  # noqa: E402

    r = G.GGUFReader(a.model)
    with open(a.json) as f:
        tokens = json.load(f)["eval_tokens"]
    window = int(r.kv["gemma3.attention.sliding_window"])
    gelus = {"exact": gelu_exact, "f16-table": f16_table_gelu(np.fromfile(a.table, dtype="<u2"))}
    refs = {name: forward(r, tokens, gelu) for name, gelu in gelus.items()}
    rng = np.random.default_rng(a.seed)
    for name, gelu in gelus.items():
        jittered = forward(r, tokens, lambda x: gelu(x * (1.0 + rng.standard_normal(x.shape) * 2.0 ** -a.jitter)))
        print(f"{name} with jittered GELU inputs vs {name}: {relative(jittered, refs[name]):.3g}")
    print(f"f16-table vs exact: {relative(refs['f16-table'], refs['exact']):.3g}")
    ties = []
    forward(r, tokens, lambda x: ties.append(distance_to_f16_tie(x)) or gelus["f16-table"](x))
    print("GELU input nearest an f16 rounding midpoint, relative distance per position (min over layers):")
    print("  " + " ".join(f"{p}:{d:.1e}" for p, d in enumerate(np.min(ties, axis=0))))
    for spec in a.compare:
        name, path = spec.split("=", 1)
        logits = np.fromfile(path, dtype=np.float32).astype(np.float64).reshape(len(tokens), -1)
        print(f"{name}: " + ", ".join(f"vs {k} {relative(logits, v):.3g}" for k, v in refs.items()) +
              f"; positions 0-{window - 1}: " +
              ", ".join(f"vs {k} {relative(logits[:window], v[:window]):.3g}" for k, v in refs.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
