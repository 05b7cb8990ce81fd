#!/usr/bin/python3
"""Write the Muon golden (test/data/optim/muon_reference.json) by running the reference Muon itself.

The reference is Keller Jordan's muon.py (github.com/KellerJordan/Muon). It is not part of
forge and is not committed: fetch it yourself and pass its path, e.g.

  git clone https://github.com/KellerJordan/Muon /tmp/Muon   # or any copy of muon.py
  /usr/bin/python3 tools/make_muon_golden.py --muon /tmp/Muon/muon.py

Its SingleDeviceMuon steps the two matrices of test/data/optim/optimizers.json with that file's
four gradients (lr 0.02, momentum 0.95, weight decay 0.01). The published code runs the
Newton-Schulz iteration in bfloat16 (`G.bfloat16()`); forge runs it in f32. So the golden is the
reference code run with parameters in float64 and its bfloat16 cast made a float64 cast: the
reference's own arithmetic, to float64 rounding. The script also runs the published bf16 code
and an f32 version and records how far each lands from the float64 run (the size of the
precision choice, for docs/TESTING.md). Debian's python3-torch 1.13 runs it.
"""
import argparse
import contextlib
import importlib.util
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "test", "data", "optim")
CONFIG = dict(lr=0.02, momentum=0.95, weight_decay=0.01)


def load_reference(path):
    spec = importlib.util.spec_from_file_location("reference_muon", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def bfloat16_cast_becomes(dtype):
    """Inside: Tensor.bfloat16() converts to `dtype` instead (None: leave the reference as published)."""
    original = torch.Tensor.bfloat16
    if dtype is not None:
        torch.Tensor.bfloat16 = lambda self, *args, **kwargs: self.to(dtype)
    try:
        yield
    finally:
        torch.Tensor.bfloat16 = original


def tensor(t, dtype):
    return torch.tensor(t["data"], dtype=dtype).reshape(t["shape"])


def run(reference, doc, dtype, cast):
    """The reference optimizer over the golden's matrices; the parameters after every step."""
    indices = [i for i, t in enumerate(doc["initial"]) if len(t["shape"]) == 2]
    params = [torch.nn.Parameter(tensor(doc["initial"][i], dtype)) for i in indices]
    optimizer = reference.SingleDeviceMuon(params, **CONFIG)
    history = []
    with bfloat16_cast_becomes(cast):
        for step_grads in doc["grads"]:
            for p, i in zip(params, indices):
                p.grad = tensor(step_grads[i], dtype)
            optimizer.step()
            history.append([p.detach().to(torch.float64).clone() for p in params])
    return indices, history


def max_abs_diff(a, b):
    return max(float((x - y).abs().max()) for step_a, step_b in zip(a, b) for x, y in zip(step_a, step_b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--muon", required=True, help="path of the reference muon.py")
    a = ap.parse_args()
    reference = load_reference(a.muon)
    with open(os.path.join(DATA, "optimizers.json")) as f:
        doc = json.load(f)
    indices, exact = run(reference, doc, torch.float64, torch.float64)
    _, in_f32 = run(reference, doc, torch.float32, torch.float32)
    _, published = run(reference, doc, torch.float32, None)
    out = {
        "source": "github.com/KellerJordan/Muon muon.py SingleDeviceMuon, float64 (its bfloat16 cast made float64)",
        "config": CONFIG,
        "params": indices,  # indices into optimizers.json's "initial" and "grads"
        "after_step": [[{"shape": list(p.shape), "data": p.reshape(-1).tolist()} for p in step] for step in exact],
        "max_abs_diff_f32": max_abs_diff(in_f32, exact),
        "max_abs_diff_published_bf16": max_abs_diff(published, exact),
    }
    with open(os.path.join(DATA, "muon_reference.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"reference in f32 vs float64: {out['max_abs_diff_f32']:.3e}; "
          f"as published (bf16) vs float64: {out['max_abs_diff_published_bf16']:.3e}")


if __name__ == "__main__":
    main()
