#!/usr/bin/python3
"""Time the training steps of `forge bench train` in PyTorch (CPU, eager) and print the ratio.

Runs `forge bench train --json` with the given thread count, then the same shapes, ops and
optimizer in PyTorch with torch.set_num_threads(threads), and prints one line per model:
forge ms, torch ms, and torch/forge (> 1 means forge is faster).

  /usr/bin/python3 tools/bench_train_torch.py --forge build/app/forge --threads 2

tools/bench_paired.py train imports the step definitions below and runs forge and PyTorch
alternately, writing a benchmark record.

PyTorch's speed depends on the BLAS Debian's python3-torch loads through the libblas.so.3
alternative: with only the reference BLAS (libblas3) a 512x384x8192 matmul runs at under
1 GFLOP/s and the GPT step takes minutes; install OpenBLAS first (apt-get install
libopenblas0-pthread). The script says which one it found.

The shapes must match app/bench_train.cpp (MlpShape, BlockShape, GptShape); the GPT and its
optimizer step come from torch_gpt.py (the same model as models/gpt).
"""
import argparse
import json
import math
import os
import subprocess
import time

import torch
import torch.nn.functional as F

import torch_gpt

REPS = 9


def median_ms(step, reps=REPS):
    step()  # warm-up
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3


def weight(*shape):
    bound = 1.0 / math.sqrt(shape[-1])
    return ((torch.rand(shape) * 2 - 1) * bound).requires_grad_(True)


def mlp_step():
    batch, inp, hidden, classes = 512, 256, 1024, 10
    p = [weight(hidden, inp), weight(hidden), weight(hidden, hidden), weight(hidden), weight(classes, hidden),
         weight(classes)]
    opt = torch.optim.AdamW(p, lr=1e-3, weight_decay=0.01)
    x = torch.randn(batch, inp)
    y = torch.arange(batch) % classes

    def step():
        opt.zero_grad(set_to_none=True)
        h1 = F.gelu(F.linear(x, p[0], p[1]))
        h2 = F.gelu(F.linear(h1, p[2], p[3]))
        F.cross_entropy(F.linear(h2, p[4], p[5]), y).backward()
        opt.step()
    return step


def rope_neox(x):
    _, t, _, hd = x.shape
    half = hd // 2
    inv = 10000.0 ** (-torch.arange(half, dtype=torch.float32) * 2 / hd)
    angles = torch.arange(t, dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = angles.cos()[None, :, None, :], angles.sin()[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def rmsnorm(x, w, eps=1e-5):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def block_step():
    b, t, d, heads, hidden = 4, 128, 256, 4, 768
    hd = d // heads
    p = [torch.ones(d, requires_grad=True), weight(d, d), weight(d, d), weight(d, d), weight(d, d),
         torch.ones(d, requires_grad=True), weight(hidden, d), weight(hidden, d), weight(d, hidden)]
    opt = torch.optim.AdamW(p, lr=1e-3, weight_decay=0.01)
    x = torch.randn(b, t, d)
    target = torch.randn(b, t, d)
    mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)

    def step():
        opt.zero_grad(set_to_none=True)
        h = rmsnorm(x, p[0])
        q = rope_neox(F.linear(h, p[1]).reshape(b, t, heads, hd)).transpose(1, 2)
        k = rope_neox(F.linear(h, p[2]).reshape(b, t, heads, hd)).transpose(1, 2)
        v = F.linear(h, p[3]).reshape(b, t, heads, hd).transpose(1, 2)
        attn = torch.softmax((q @ k.transpose(-1, -2) / math.sqrt(hd)).masked_fill(mask, float("-inf")), dim=-1)
        r = x + F.linear((attn @ v).transpose(1, 2).reshape(b, t, d), p[4])
        h2 = rmsnorm(r, p[5])
        out = r + F.linear(F.silu(F.linear(h2, p[6])) * F.linear(h2, p[7]), p[8])
        F.mse_loss(out, target).backward()
        opt.step()
    return step


GPT_SHAPE = {"depth": 6, "vocab": 8192, "batch": 2, "seq": 256}


def gpt_step():
    s = GPT_SHAPE
    cfg = torch_gpt.Config(s["depth"], s["vocab"])
    params = {}
    for name, shape in cfg.shapes().items():
        params[name] = (torch.randn(shape) / math.sqrt(shape[1])).requires_grad_(True)
    opt = torch_gpt.Optimizer(cfg, params, s["batch"] * s["seq"])
    tokens = torch.randint(0, s["vocab"], (s["batch"], s["seq"] + 1))

    def step():
        for p in params.values():
            p.grad = None
        logits = torch_gpt.forward(cfg, params, tokens[:, :-1])
        F.cross_entropy(logits.reshape(-1, s["vocab"]), tokens[:, 1:].reshape(-1)).backward()
        opt.step(0)
    return step


def blas_in_use():
    return os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forge", default="build/app/forge", help="path to the forge executable")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()

    out = subprocess.run([args.forge, "--threads", str(args.threads), "bench", "train", "--json"], check=True,
                         capture_output=True, text=True).stdout
    forge = {r["name"]: r["ms"] for r in json.loads(out)["results"]}
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    theirs = {"mlp": median_ms(mlp_step()), "transformer_block": median_ms(block_step()), "gpt": median_ms(gpt_step())}
    blas = blas_in_use()
    print(f"threads {args.threads}, torch {torch.__version__}, BLAS {blas}")
    if "openblas" not in blas:
        print("warning: torch runs on the reference BLAS here; install libopenblas0-pthread for a fair comparison")
    print(f"{'model':<18} {'forge ms':>9} {'torch ms':>9} {'torch/forge':>12}")
    for name, ms in theirs.items():
        print(f"{name:<18} {forge[name]:>9.3f} {ms:>9.3f} {ms / forge[name]:>12.2f}")
    tokens = GPT_SHAPE["batch"] * GPT_SHAPE["seq"]
    print(f"gpt tokens/s: forge {tokens / forge['gpt'] * 1e3:.0f}, torch {tokens / theirs['gpt'] * 1e3:.0f}")


if __name__ == "__main__":
    main()
