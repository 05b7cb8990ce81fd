#!/usr/bin/python3
"""Write the optimizer goldens for forge's tests (test/data/optim/optimizers.json).

For each configuration: the initial parameters (a matrix and a vector), a fixed gradient for
each of 4 steps, and the parameters after every step, from torch.optim (PyTorch 1.13) in
float32. Also one case of torch.nn.utils.clip_grad_norm_. Muon's golden comes from the reference
Muon itself, on this file's matrices and gradients: tools/make_muon_golden.py.

Run with Debian's python3-torch: /usr/bin/python3 tools/make_optim_goldens.py
"""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "data", "optim")
STEPS = 4


def values(t):
    return {"shape": list(t.shape), "data": [float(v) for v in t.detach().reshape(-1).tolist()]}


def initial(gen):
    return [torch.rand((4, 6), generator=gen) * 2 - 1, torch.rand((6, 4), generator=gen) * 2 - 1,
            torch.rand((5,), generator=gen) * 2 - 1]


def gradients(gen, params):
    return [[torch.randn(p.shape, generator=gen) for p in params] for _ in range(STEPS)]


def run_torch(make, params, grads):
    params = [p.clone().requires_grad_(True) for p in params]
    opt = make(params)
    history = []
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = g.clone()
        opt.step()
        history.append([values(p) for p in params])
    return history


def main():
    os.makedirs(OUT, exist_ok=True)
    gen = torch.Generator().manual_seed(3)
    params = initial(gen)
    grads = gradients(gen, params)
    cases = {
        "sgd": dict(kind="sgd", lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False),
        "sgd_momentum": dict(kind="sgd", lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, nesterov=False),
        "sgd_nesterov": dict(kind="sgd", lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.01, nesterov=True),
        "adam": dict(kind="adam", lr=1e-2, betas=[0.9, 0.999], eps=1e-8, weight_decay=0.1),
        "adamw": dict(kind="adamw", lr=1e-2, betas=[0.9, 0.95], eps=1e-8, weight_decay=0.1),
    }
    doc = {"initial": [values(p) for p in params], "grads": [[values(g) for g in s] for s in grads], "cases": {}}
    for name, c in cases.items():
        if c["kind"] == "sgd":
            make = lambda ps, c=c: torch.optim.SGD(ps, lr=c["lr"], momentum=c["momentum"], dampening=c["dampening"],
                                                   weight_decay=c["weight_decay"], nesterov=c["nesterov"])
            history = run_torch(make, params, grads)
        else:
            cls = torch.optim.Adam if c["kind"] == "adam" else torch.optim.AdamW
            make = lambda ps, c=c, cls=cls: cls(ps, lr=c["lr"], betas=tuple(c["betas"]), eps=c["eps"],
                                                weight_decay=c["weight_decay"])
            history = run_torch(make, params, grads)
        doc["cases"][name] = {"config": c, "after_step": history}

    clip_grads = [g.clone() for g in grads[0]]
    dummies = [torch.zeros(g.shape, requires_grad=True) for g in clip_grads]
    for d, g in zip(dummies, clip_grads):
        d.grad = g.clone()
    norm = torch.nn.utils.clip_grad_norm_(dummies, max_norm=1.5)
    doc["clip"] = {"max_norm": 1.5, "norm": float(norm), "clipped": [values(d.grad) for d in dummies]}

    with open(os.path.join(OUT, "optimizers.json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
