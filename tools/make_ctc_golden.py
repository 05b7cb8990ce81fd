#!/usr/bin/python3
"""Write the PyTorch golden for forge's CTC loss (test/data/autograd/ctc.json).

torch.nn.functional.ctc_loss (Debian python3-torch 1.13) in float64 on float32 logits, batch
of 3 with different input lengths (one shorter than the padded T), label counts (one empty),
a repeated label (no blank skip between the two) and padding past each target. Both the
'mean' reduction (each nll divided by its target length, then the batch mean) and 'sum'.
Gradients are taken at the logits, through log_softmax: PyTorch's raw gradient at log_probs
carries an extra exp(log_probs) term that only cancels there (kernels/ctc.h says why).
A second case puts the blank at the last class.

forge's layout is batch first, [N, T, C]; PyTorch's is [T, N, C]: the script transposes.

Run: /usr/bin/python3 tools/make_ctc_golden.py
"""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "data", "autograd", "ctc.json")


def tensor_json(t):
    return {"shape": list(t.shape), "data": [float(v) for v in t.detach().reshape(-1).tolist()]}


def case(gen, blank, labels_rows, input_lengths, frames=12, classes=6):
    batch = len(labels_rows)
    width = max(len(r) for r in labels_rows)
    logits = ((torch.rand((batch, frames, classes), generator=gen) * 2 - 1) * 3).float().double()
    labels = torch.full((batch, width), 1 if blank != 1 else 2, dtype=torch.int64)  # padding: any class
    for n, row in enumerate(labels_rows):
        labels[n, : len(row)] = torch.tensor(row, dtype=torch.int64)
    target_lengths = torch.tensor([len(r) for r in labels_rows], dtype=torch.int64)
    inputs = torch.tensor(input_lengths, dtype=torch.int64)
    out = {"blank": blank, "logits": tensor_json(logits), "labels": {"shape": list(labels.shape),
           "data": labels.reshape(-1).tolist()}, "input_lengths": input_lengths,
           "target_lengths": target_lengths.tolist()}
    for reduction in ("mean", "sum"):
        x = logits.clone().requires_grad_(True)
        log_probs = torch.log_softmax(x, dim=-1).transpose(0, 1)  # [T, N, C]
        loss = torch.nn.functional.ctc_loss(log_probs, labels, inputs, target_lengths, blank=blank,
                                            reduction=reduction, zero_infinity=False)
        loss.backward()
        out[reduction] = {"loss": float(loss), "grad_logits": tensor_json(x.grad)}
    return out


def main():
    gen = torch.Generator().manual_seed(17)
    doc = {
        "blank_first": case(gen, 0, [[1, 2, 2, 3], [4, 5], []], [12, 9, 7]),
        "blank_last": case(gen, 5, [[0, 4, 4], [1, 2, 3, 1]], [10, 12]),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
