#!/usr/bin/python3
"""Write the PyTorch golden for forge's training loss STFT term (test/data/nam/mrstft.json).

The reference trainer's "fit_mrstft" term: auraloss's MultiResolutionSTFTLoss with its
defaults (FFT 1024/2048/512, hops 120/240/50, periodic Hann windows 600/1200/240,
torch.stft with center=True and reflect padding, magnitudes sqrt(clamp(re² + im², 1e-8)),
spectral convergence + mean |log|Y| - log|X||, averaged over the resolutions) of the
pre-emphasized (0.85) prediction and target. This script restates those formulas on
torch.stft (auraloss is not packaged in Debian and pip is not reachable here). With
--auraloss DIR (a checkout of github.com/csteinmetz1/auraloss, never committed; it needs
Debian's python3-scipy) it also runs auraloss's own MultiResolutionSTFTLoss on the same
inputs in float64 and checks that loss and gradient agree with the golden (measured: bit for
bit, auraloss at 0853e9e).

Inputs are fixed float32 values (a noisy two-tone target and a perturbed prediction,
B = 2, T = 1100); the loss and d loss / d prediction are computed by torch.autograd in
float64 from them, so forge's f32 result is compared with the exact answer.

Run with Debian's python3-torch (1.13): /usr/bin/python3 tools/make_mrstft_golden.py
"""
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "test", "data", "nam", "mrstft.json")
RESOLUTIONS = [(1024, 120, 600), (2048, 240, 1200), (512, 50, 240)]
PRE_EMPHASIS = 0.85


def pre_emphasis(x):
    return x[..., 1:] - PRE_EMPHASIS * x[..., :-1]


def magnitude(x, fft, hop, window):
    spectrum = torch.stft(x, fft, hop, window, torch.hann_window(window, dtype=x.dtype), center=True,
                          pad_mode="reflect", return_complex=True)
    return torch.sqrt(torch.clamp(spectrum.real ** 2 + spectrum.imag ** 2, min=1e-8))


def mrstft(prediction, target):
    total = 0.0
    for fft, hop, window in RESOLUTIONS:
        x, y = magnitude(prediction, fft, hop, window), magnitude(target, fft, hop, window)
        convergence = torch.norm(y - x, p="fro") / torch.norm(y, p="fro")
        log_magnitude = torch.nn.functional.l1_loss(torch.log(y), torch.log(x))
        total = total + convergence + log_magnitude
    return total / len(RESOLUTIONS)


def check_against_auraloss(directory, prediction, target, loss):
    """auraloss itself on the same float64 inputs: the restatement above must be the same function."""
    import sys
    sys.path.insert(0, directory)
    import auraloss
    x = prediction.detach().clone().requires_grad_(True)
    # auraloss makes its windows in the default dtype: float64, like the inputs (with float32
    # windows torch.stft computes in float32: loss 4.8e-8, gradient 1.3e-4 from the golden).
    torch.set_default_dtype(torch.float64)
    theirs = auraloss.freq.MultiResolutionSTFTLoss()(pre_emphasis(x).unsqueeze(1), pre_emphasis(target).unsqueeze(1))
    theirs.backward()
    loss_error = abs(float(theirs) - float(loss)) / abs(float(loss))
    grad_error = float((x.grad - prediction.grad).abs().max() / prediction.grad.abs().max())
    print(f"auraloss: loss {float(theirs):.15g} (relative difference {loss_error:.2e}), "
          f"gradient difference {grad_error:.2e} of its largest element")
    assert loss_error < 1e-12 and grad_error < 1e-12, "the golden's formulas differ from auraloss"


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--auraloss", help="a checkout of auraloss: also check the golden against it")
    a = ap.parse_args()
    gen = torch.Generator().manual_seed(6)
    batch, length = 2, 1100
    t = torch.arange(length, dtype=torch.float64)
    tones = 0.5 * torch.sin(2 * math.pi * 440 / 48000 * t) + 0.2 * torch.sin(2 * math.pi * 3100 / 48000 * t)
    target = (tones + 0.05 * torch.randn((batch, length), generator=gen, dtype=torch.float64)).float().double()
    prediction = (0.9 * target + 0.03 * torch.randn((batch, length), generator=gen, dtype=torch.float64))
    prediction = prediction.float().double().requires_grad_(True)
    loss = mrstft(pre_emphasis(prediction), pre_emphasis(target))
    loss.backward()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        def numbers(t, digits):
            return "[" + ",".join(f"{float(v):.{digits}g}" for v in t.detach().flatten()) + "]"
        # float32 inputs round-trip in 9 significant digits; the float64 answers keep 12.
        f.write(f'{{"shape":[{batch},{length}],"loss":{float(loss):.15g},\n')
        f.write(f'"prediction":{numbers(prediction, 9)},\n"target":{numbers(target, 9)},\n')
        f.write(f'"grad_prediction":{numbers(prediction.grad, 12)}}}\n')
    print(f"wrote {OUT}: loss {float(loss):.9g}")
    if a.auraloss:
        check_against_auraloss(a.auraloss, prediction, target, loss)


if __name__ == "__main__":
    main()
