#!/usr/bin/python3
"""Write the PyTorch goldens for forge's autograd tests (test/data/autograd/*.json).

Two small models, each with fixed float32 inputs and parameters; the loss and the gradient
of every parameter are computed by torch.autograd in float64 (the float32 values widened),
so the goldens are the exact answer to within float64 rounding and forge's f32 result is
compared against that:

  mlp.json          x -> linear -> gelu(erf) -> linear -> cross-entropy with label smoothing
                    0.1 and one ignored target (-100)
  transformer.json  one pre-norm block: x + attn(rmsnorm(x)), then + SwiGLU(rmsnorm(.)),
                    causal attention with 2 heads and NeoX RoPE; loss = mse(out, target)

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/make_autograd_goldens.py
"""
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "data", "autograd")


def f32(shape, gen, scale=1.0):
    """Uniform(-scale, scale) values that are exactly float32, held as float64."""
    return ((torch.rand(shape, generator=gen) * 2 - 1) * scale).float().double()


def tensor_json(t):
    return {"shape": list(t.shape), "data": [float(v) for v in t.detach().reshape(-1).tolist()]}


def write(name, inputs, params, loss):
    loss.backward()
    doc = {
        "inputs": {k: tensor_json(v) if v.is_floating_point() else {"shape": list(v.shape), "data": v.reshape(-1).tolist()}
                   for k, v in inputs.items()},
        "params": {k: tensor_json(v) for k, v in params.items()},
        "loss": float(loss),
        "grads": {k: tensor_json(v.grad) for k, v in params.items()},
    }
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


def mlp():
    gen = torch.Generator().manual_seed(1)
    x = f32((6, 4), gen)
    targets = torch.tensor([0, 2, 1, -100, 2, 0])
    params = {"w1": f32((16, 4), gen, 0.5), "b1": f32((16,), gen, 0.1),
              "w2": f32((3, 16), gen, 0.5), "b2": f32((3,), gen, 0.1)}
    for p in params.values():
        p.requires_grad_(True)
    h = torch.nn.functional.gelu(x @ params["w1"].T + params["b1"])
    logits = h @ params["w2"].T + params["b2"]
    loss = torch.nn.functional.cross_entropy(logits, targets, ignore_index=-100, label_smoothing=0.1)
    write("mlp.json", {"x": x, "targets": targets}, params, loss)


def rmsnorm(x, w, eps=1e-5):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def rope_neox(x, theta_base=10000.0):
    """x [B, T, H, hd]; position t; pairs (i, i + hd/2) rotated by t * base^(-2i/hd)."""
    _, t, _, hd = x.shape
    half = hd // 2
    inv = theta_base ** (-torch.arange(half, dtype=torch.float64) * 2 / hd)
    angles = torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]  # [T, half]
    cos, sin = angles.cos()[None, :, None, :], angles.sin()[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def transformer():
    gen = torch.Generator().manual_seed(2)
    batch, seq, dim, heads, hidden = 2, 5, 8, 2, 12
    hd = dim // heads
    x = f32((batch, seq, dim), gen)
    target = f32((batch, seq, dim), gen)
    params = {"norm1": 1 + f32((dim,), gen, 0.1), "wq": f32((dim, dim), gen, 0.4), "wk": f32((dim, dim), gen, 0.4),
              "wv": f32((dim, dim), gen, 0.4), "wo": f32((dim, dim), gen, 0.4), "norm2": 1 + f32((dim,), gen, 0.1),
              "w_gate": f32((hidden, dim), gen, 0.4), "w_up": f32((hidden, dim), gen, 0.4),
              "w_down": f32((dim, hidden), gen, 0.4)}
    params = {k: v.float().double() for k, v in params.items()}
    for p in params.values():
        p.requires_grad_(True)
    p = params

    x0 = x
    h = rmsnorm(x, p["norm1"])
    q = rope_neox((h @ p["wq"].T).reshape(batch, seq, heads, hd)).transpose(1, 2)
    k = rope_neox((h @ p["wk"].T).reshape(batch, seq, heads, hd)).transpose(1, 2)
    v = (h @ p["wv"].T).reshape(batch, seq, heads, hd).transpose(1, 2)
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
    mask = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
    attn = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    o = (attn @ v).transpose(1, 2).reshape(batch, seq, dim)
    x = x + o @ p["wo"].T

    h = rmsnorm(x, p["norm2"])
    mlp = (torch.nn.functional.silu(h @ p["w_gate"].T) * (h @ p["w_up"].T)) @ p["w_down"].T
    out = x + mlp
    loss = torch.nn.functional.mse_loss(out, target)
    inputs = {"x": x0, "target": target}
    write("transformer.json", inputs, params, loss)


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    os.makedirs(OUT, exist_ok=True)
    mlp()
    transformer()
