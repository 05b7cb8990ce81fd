#!/usr/bin/python3
"""Write the GPT training-step golden for forge's tests (test/data/gpt/train_step.safetensors).

A small forge GPT (models/gpt: qwen3-shaped nanochat recipe) written out in PyTorch 1.13
float32: the initial parameters (random, every matrix non-zero so every gradient is
exercised), a batch of token ids, then two optimizer steps on that batch exactly as
models/gpt/gpt_optimizer.cpp takes them -- global gradient-norm clipping
(torch.nn.utils.clip_grad_norm_), Muon for the block matrices (a float32 transcription of
Keller Jordan's reference, github.com/KellerJordan/Muon: Nesterov momentum, quintic
Newton-Schulz, sqrt(max(1, rows/cols)) scale) and torch.optim.AdamW for the embedding and
the head, with nanochat's rates, betas (0.8, 0.95), eps 1e-10 and rate scaling by width
and batch. Recorded in one safetensors file (written here with the standard library; the
format is a JSON header and raw little-endian float32): the initial parameters
("init.<name>"), the tokens, every gradient of step 1 before clipping ("grad.<name>"), every
parameter after step 2 ("after.<name>"), and in the metadata the loss and gradient norm of
both steps.

Run with Debian's python3-torch: /usr/bin/python3 tools/make_gpt_step_golden.py
"""
import json
import math
import os

import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "data", "gpt")

# The config (keep in step with test/models/gpt/train_step_golden_test.cpp).
DEPTH, HEAD_DIM, VOCAB, BATCH, SEQ = 1, 64, 61, 2, 8
WIDTH = 64 * DEPTH
N_HEAD = WIDTH // HEAD_DIM
FF = (8 * WIDTH + 2) // 3
FF = (FF + 63) // 64 * 64
EPS = 1e-6
ROPE_BASE = 10000.0
MATRIX_LR, EMBEDDING_LR, UNEMBEDDING_LR, CLIP = 0.02, 0.2, 0.004, 1.0
TOTAL_STEPS = 10  # the schedule's multiplier is 1 for steps 0 and 1


def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().numpy().tobytes()
        dtype = {torch.float32: "F32", torch.int64: "I64"}[t.dtype]
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def rmsnorm(x):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + EPS)


def rope_neox(x):  # [B, T, H, hd]
    _, t, _, hd = x.shape
    half = hd // 2
    inv = ROPE_BASE ** (-torch.arange(half, dtype=torch.float64) * 2 / hd)
    angles = (torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]).float()
    cos, sin = angles.cos()[None, :, None, :], angles.sin()[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def forward(p, ids):
    b, t = ids.shape
    x = rmsnorm(p["token_embd.weight"][ids])
    mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
    for i in range(DEPTH):
        w = lambda name: p[f"blk.{i}.{name}.weight"]
        h = rmsnorm(x)
        q = rmsnorm(F.linear(h, w("attn_q")).view(b, t, N_HEAD, HEAD_DIM))
        k = rmsnorm(F.linear(h, w("attn_k")).view(b, t, N_HEAD, HEAD_DIM))
        v = F.linear(h, w("attn_v")).view(b, t, N_HEAD, HEAD_DIM)
        q, k, v = rope_neox(q).transpose(1, 2), rope_neox(k).transpose(1, 2), v.transpose(1, 2)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
        attn = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        x = x + F.linear((attn @ v).transpose(1, 2).reshape(b, t, WIDTH), w("attn_output"))
        h = rmsnorm(x)
        x = x + F.linear(F.silu(F.linear(h, w("ffn_gate"))) * F.linear(h, w("ffn_up")), w("ffn_down"))
    return F.linear(rmsnorm(x), p["output.weight"])


def newton_schulz(g, steps=5):
    a, b, c = 3.4445, -4.7750, 2.0315
    tall = g.size(0) > g.size(1)
    x = g.T if tall else g
    x = x / (x.norm() + 1e-7)
    for _ in range(steps):
        A = x @ x.T
        B = b * A + c * A @ A
        x = a * x + B @ x
    return x.T if tall else x


def main():
    gen = torch.Generator().manual_seed(1234)
    shapes = {"token_embd.weight": (VOCAB, WIDTH)}
    for i in range(DEPTH):
        for name, shape in (("attn_q", (WIDTH, WIDTH)), ("attn_k", (WIDTH, WIDTH)), ("attn_v", (WIDTH, WIDTH)),
                            ("attn_output", (WIDTH, WIDTH)), ("ffn_gate", (FF, WIDTH)), ("ffn_up", (FF, WIDTH)),
                            ("ffn_down", (WIDTH, FF))):
            shapes[f"blk.{i}.{name}.weight"] = shape
    shapes["output.weight"] = (VOCAB, WIDTH)
    params = {}
    for name, shape in shapes.items():
        std = 1.0 if name == "token_embd.weight" else 1.0 / math.sqrt(shape[1])
        params[name] = (torch.randn(shape, generator=gen) * std).requires_grad_(True)
    out = {f"init.{name}": p.detach().clone() for name, p in params.items()}
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=gen)
    ids, targets = tokens[:, :-1], tokens[:, 1:]

    batch_scale = math.sqrt(BATCH * SEQ / 2 ** 19)
    width_scale = (WIDTH / 768) ** -0.5
    matrices = [p for n, p in params.items() if n.startswith("blk.")]
    adam_embedding = torch.optim.AdamW([params["token_embd.weight"]], lr=EMBEDDING_LR * batch_scale * width_scale,
                                       betas=(0.8, 0.95), eps=1e-10, weight_decay=0.0)
    adam_head = torch.optim.AdamW([params["output.weight"]], lr=UNEMBEDDING_LR * batch_scale * width_scale,
                                  betas=(0.8, 0.95), eps=1e-10, weight_decay=0.0)
    momentum_buffers = [torch.zeros_like(p) for p in matrices]

    steps = []
    for step in range(2):
        for p in params.values():
            p.grad = None
        logits = forward(params, ids)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        if step == 0:
            out.update({f"grad.{name}": p.grad.clone() for name, p in params.items()})
        norm = torch.nn.utils.clip_grad_norm_(list(params.values()), CLIP)
        beta = (1 - min(step / 300, 1)) * 0.85 + min(step / 300, 1) * 0.95
        with torch.no_grad():
            for p, m in zip(matrices, momentum_buffers):
                m.lerp_(p.grad, 1 - beta)
                direction = p.grad.lerp(m, beta)
                update = newton_schulz(direction) * max(1.0, p.size(0) / p.size(1)) ** 0.5
                p.add_(update, alpha=-MATRIX_LR * batch_scale)
        adam_embedding.step()
        adam_head.step()
        steps.append((float(loss), float(norm)))

    out.update({f"after.{name}": p.detach().clone() for name, p in params.items()})
    out["tokens"] = tokens
    metadata = {"depth": str(DEPTH), "head_dim": str(HEAD_DIM), "total_steps": str(TOTAL_STEPS)}
    for i, (loss, norm) in enumerate(steps):
        metadata[f"loss.{i}"], metadata[f"grad_norm.{i}"] = repr(loss), repr(norm)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "train_step.safetensors")
    write_safetensors(path, out, metadata)
    print(f"wrote {path}: losses {[s[0] for s in steps]}, grad norms {[s[1] for s in steps]}")


if __name__ == "__main__":
    main()
