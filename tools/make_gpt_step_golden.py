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
and batch. Recorded in one safetensors file (written by torch_safetensors.py with the standard library; the
format is a JSON header and raw little-endian float32): the initial parameters
("init.<name>"), the tokens, every gradient of step 1 before clipping ("grad.<name>"), every
parameter after step 2 ("after.<name>"), and in the metadata the loss and gradient norm of
both steps.

Run with Debian's python3-torch: /usr/bin/python3 tools/make_gpt_step_golden.py
"""
import math
import os

import torch
import torch.nn.functional as F

from torch_gpt import Config, Optimizer, forward
from torch_safetensors import write_safetensors

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "data", "gpt")

# The config (keep in step with test/models/gpt/train_step_golden_test.cpp).
DEPTH, HEAD_DIM, VOCAB, BATCH, SEQ = 1, 64, 61, 2, 8
TOTAL_STEPS = 10  # the schedule's multiplier is 1 for steps 0 and 1


def main():
    gen = torch.Generator().manual_seed(1234)
    cfg = Config(DEPTH, VOCAB, HEAD_DIM)
    params = {}
    for name, shape in cfg.shapes().items():
        std = 1.0 if name == "token_embd.weight" else 1.0 / math.sqrt(shape[1])
        params[name] = (torch.randn(shape, generator=gen) * std).requires_grad_(True)
    out = {f"init.{name}": p.detach().clone() for name, p in params.items()}
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=gen)
    ids, targets = tokens[:, :-1], tokens[:, 1:]
    optimizer = Optimizer(cfg, params, BATCH * SEQ)

    steps = []
    for step in range(2):
        for p in params.values():
            p.grad = None
        loss = F.cross_entropy(forward(cfg, params, ids).reshape(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        if step == 0:
            out.update({f"grad.{name}": p.grad.clone() for name, p in params.items()})
        steps.append((float(loss), optimizer.step(step)))
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
