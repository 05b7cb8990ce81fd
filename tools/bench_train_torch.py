#!/usr/bin/python3
"""Time the training steps of `forge bench train` in PyTorch (CPU, eager), A/B alternating, and print the ratio.

Each round runs `forge bench train --json --only MODEL... --reps STEPS` (forge's median step of
STEPS after a warm-up) and then the same shapes, ops and optimizer in PyTorch with
torch.set_num_threads(threads) (the median of STEPS steps), so both see the same machine state
however loaded it is. It prints one line per round, then per model the median forge and torch
step, and the ratio torch ms / forge ms of each round (above 1: forge is faster; for the GPT it
is forge tokens/s over torch tokens/s), as median [min-max] over the rounds.

  /usr/bin/python3 tools/bench_train_torch.py --forge build/app/forge --threads 2 --models gpt --rounds 5 --steps 3
  /usr/bin/python3 tools/bench_train_torch.py --forge build/app/forge --threads 2     # all three models

tools/bench_paired.py train imports the step definitions below and runs forge and PyTorch
alternately, writing a benchmark record.

PyTorch's speed depends on the BLAS Debian's python3-torch loads through the libblas.so.3
alternative (torch.__config__.show() says only BLAS_INFO=generic): with only the reference BLAS
(libblas3) a 512x384x8192 matmul runs at under 1 GFLOP/s and the GPT step takes minutes;
install OpenBLAS first (apt-get install libopenblas0-pthread). The script prints the BLAS
library this process really mapped, and pins OpenBLAS's own thread pool (which
torch.set_num_threads does not reach) to --threads through OPENBLAS_NUM_THREADS.

OMP_WAIT_POLICY is PASSIVE unless set: torch's OpenMP workers otherwise spin between parallel
regions, which on a loaded machine (load average ~15 on 2 cores) made a 512x1024 element-wise
mul take 21.7 ms at 2 threads instead of 1.6 ms (1 thread: 1.9 ms) and the GPT step ~120 s.
On a quiet machine run it also with OMP_WAIT_POLICY=ACTIVE and keep torch's better number.

It refuses to compare (exit 2) when torch runs on the reference BLAS, or when the environment
overrides the kernels PyTorch's libraries pick for this CPU (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE,
MKL_DEBUG_CPU_TYPE, ONEDNN_MAX_CPU_ISA, ...: KERNEL_OVERRIDES below), and prints the OpenBLAS core
type it runs. Where a machine sets such variables for every program, unset them in this command:

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tools/bench_train_torch.py --forge build/app/forge

--precision bf16 times forge's `bench train --precision bf16` (bf16 matmul operands, f32 sums)
against PyTorch's forward and loss under torch.autocast("cpu", dtype=torch.bfloat16) (backward
and optimizer outside it, as PyTorch recommends); it prints whether PyTorch has oneDNN
(torch.backends.mkldnn.is_available(), the library its CPU bf16 matmuls go through) and one
bf16 and one f32 matmul's GFLOP/s there.

The shapes must match app/bench_train.cpp (MlpShape, BlockShape, GptShape); the GPT and its
optimizer step come from torch_gpt.py (the same model as models/gpt).
"""
import argparse
import contextlib
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

import torch_gpt

REPS = 9
PRECISION = "f32"  # --precision: the forward and loss under bf16 autocast when "bf16"


def autocast():
    """The forward's context: bf16 autocast (matmuls in bf16) under --precision bf16, else nothing."""
    if PRECISION == "bf16":
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def median_ms(step, reps=REPS, warm_up=True):
    if warm_up:
        step()
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
        with autocast():
            h1 = F.gelu(F.linear(x, p[0], p[1]))
            h2 = F.gelu(F.linear(h1, p[2], p[3]))
            loss = F.cross_entropy(F.linear(h2, p[4], p[5]), y)
        loss.backward()
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
        with autocast():
            h = rmsnorm(x, p[0])
            q = rope_neox(F.linear(h, p[1]).reshape(b, t, heads, hd)).transpose(1, 2)
            k = rope_neox(F.linear(h, p[2]).reshape(b, t, heads, hd)).transpose(1, 2)
            v = F.linear(h, p[3]).reshape(b, t, heads, hd).transpose(1, 2)
            attn = torch.softmax((q @ k.transpose(-1, -2) / math.sqrt(hd)).masked_fill(mask, float("-inf")), dim=-1)
            r = x + F.linear((attn @ v).transpose(1, 2).reshape(b, t, d), p[4])
            h2 = rmsnorm(r, p[5])
            out = r + F.linear(F.silu(F.linear(h2, p[6])) * F.linear(h2, p[7]), p[8])
            loss = F.mse_loss(out.float(), target)
        loss.backward()
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
        with autocast():
            logits = torch_gpt.forward(cfg, params, tokens[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, s["vocab"]), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step(0)
    return step


STEPS = {"mlp": mlp_step, "transformer_block": block_step, "gpt": gpt_step}


def blas_in_use():
    """The BLAS and LAPACK libraries this process has mapped (after torch ran a matmul)."""
    with open("/proc/self/maps") as maps:
        return sorted({line.split()[-1] for line in maps if "blas" in line or "lapack" in line})


# Environment settings that make PyTorch's BLAS, oneDNN or ATen run other kernels than they pick for
# this CPU. Some machines set the first two for every program (old OpenBLAS builds crashed on their
# processors); on this project's AMD EPYC (Zen 5) they pin Debian's OpenBLAS 0.3.21 to its Haswell
# (AVX2) kernels instead of the Cooperlake (AVX-512) ones it picks itself and computes correctly
# (docs/TRAINING.md, "The kernels OpenBLAS picks"). A slowed reference flatters forge: refuse to compare.
KERNEL_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "MKL_DEBUG_CPU_TYPE", "MKL_ENABLE_INSTRUCTIONS",
                    "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "ATEN_CPU_CAPABILITY")
FAST_BLAS = ("openblas", "mkl", "blis")


def refuse_overridden_kernels():
    """Exit (status 2) when the environment overrides the kernels PyTorch's libraries pick."""
    found = [name for name in KERNEL_OVERRIDES if name in os.environ]
    if found:
        settings = ", ".join(f"{name}={os.environ[name]}" for name in found)
        unset = " ".join(f"-u {name}" for name in found)
        print(f"refusing to compare: {settings} override the kernels PyTorch's libraries pick for this CPU and "
              f"can slow it (a slowed reference flatters forge); run this command alone under `env {unset} ...`",
              file=sys.stderr)
        sys.exit(2)


def refuse_reference_blas(libraries):
    """Exit (status 2) when torch's matmuls ran on the reference BLAS (~100x slower than OpenBLAS):
    `libraries` are the ones its process mapped (blas_in_use())."""
    if not any(fast in lib for lib in libraries for fast in FAST_BLAS):
        print(f"refusing to compare: torch runs on the reference BLAS ({' '.join(libraries)}); "
              f"install OpenBLAS (apt-get install libopenblas0-pthread)", file=sys.stderr)
        sys.exit(2)


def openblas_core():
    """'core TYPE (build configuration)' of the OpenBLAS this process mapped, or '' when none is."""
    for path in blas_in_use():
        if "libopenblas" in path:
            library = ctypes.CDLL(path)
            library.openblas_get_corename.restype = ctypes.c_char_p
            library.openblas_get_config.restype = ctypes.c_char_p
            return (f"core {library.openblas_get_corename().decode()} "
                    f"({library.openblas_get_config().decode()})")
    return ""


def pin_threads(threads):
    """Re-run this script (same arguments) with OPENBLAS_NUM_THREADS = threads and OMP_WAIT_POLICY
    PASSIVE unless set, unless they are already so: both are read once, when the libraries load."""
    env = {"OPENBLAS_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    if any(os.environ.get(k) != v for k, v in env.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **env})


def matmul_gflops(dtype, m=512, k=384, n=1024, reps=5):
    """One m x k x n matmul's GFLOP/s in `dtype` (the median of reps), for the bf16 report."""
    a, b = torch.randn(m, k).to(dtype), torch.randn(k, n).to(dtype)
    return 2 * m * k * n / median_ms(lambda: a @ b, reps) / 1e6


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def forge_round(args, models):
    """forge's median step (ms) of each model, from one `forge bench train` process."""
    command = [args.forge, "--threads", str(args.threads), "bench", "train", "--json", "--reps", str(args.steps),
               "--precision", args.precision]
    for name in models:
        command += ["--only", name]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return {r["name"]: r["ms"] for r in json.loads(out)["results"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forge", default="build/app/forge", help="path to the forge executable")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", default="mlp,transformer_block,gpt", help="comma-separated (default: all three)")
    parser.add_argument("--rounds", type=int, default=3, help="A/B rounds, forge then torch (default 3)")
    parser.add_argument("--steps", type=int, default=5, help="timed steps per model and round, median taken (default 5)")
    parser.add_argument("--precision", choices=["f32", "bf16"], default="f32",
                        help="bf16: forge's --precision bf16 against PyTorch's bf16 autocast (default f32)")
    args = parser.parse_args()
    global PRECISION
    PRECISION = args.precision
    models = args.models.split(",")
    for name in models:
        if name not in STEPS:
            parser.error(f"--models: unknown model '{name}' (expected {', '.join(STEPS)})")
    if args.rounds < 1 or args.steps < 1:
        parser.error("--rounds and --steps must be at least 1")
    refuse_overridden_kernels()
    pin_threads(args.threads)

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    steps = {name: STEPS[name]() for name in models}
    for step in steps.values():
        step()  # warm-up, once for all rounds
    print(f"threads {args.threads}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
          f"OPENBLAS_NUM_THREADS {os.environ['OPENBLAS_NUM_THREADS']}, OMP_WAIT_POLICY {os.environ['OMP_WAIT_POLICY']}, "
          f"BLAS {' '.join(blas_in_use())} {openblas_core()}")
    refuse_reference_blas(blas_in_use())
    if args.precision == "bf16":
        print(f"precision bf16: torch.autocast(cpu, bfloat16); oneDNN (mkldnn) available: "
              f"{torch.backends.mkldnn.is_available()}; 512x384x1024 matmul bf16 {matmul_gflops(torch.bfloat16):.0f} "
              f"GFLOP/s, f32 {matmul_gflops(torch.float32):.0f} GFLOP/s")
    print(f"load average before: {load_average()}")
    forge_ms, torch_ms = {n: [] for n in models}, {n: [] for n in models}
    for r in range(1, args.rounds + 1):
        ours = forge_round(args, models)
        theirs = {name: median_ms(step, args.steps, warm_up=False) for name, step in steps.items()}
        for name in models:
            forge_ms[name].append(ours[name])
            torch_ms[name].append(theirs[name])
        print(f"round {r}/{args.rounds}: " + ", ".join(
            f"{n} forge {ours[n]:.1f} ms torch {theirs[n]:.1f} ms" for n in models) + f" (load {load_average()})",
            flush=True)
    print(f"load average after: {load_average()}")
    print(f"{'model':<18} {'forge ms':>9} {'torch ms':>9} {'torch/forge per round: median [min-max]':>42}")
    for name in models:
        ratios = [t / f for f, t in zip(forge_ms[name], torch_ms[name])]
        print(f"{name:<18} {statistics.median(forge_ms[name]):>9.1f} {statistics.median(torch_ms[name]):>9.1f} "
              f"{statistics.median(ratios):>30.2f} [{min(ratios):.2f}-{max(ratios):.2f}]")
    if "gpt" in models:
        tokens = GPT_SHAPE["batch"] * GPT_SHAPE["seq"]
        print(f"gpt tokens/s (median step): forge {tokens / statistics.median(forge_ms['gpt']) * 1e3:.0f}, "
              f"torch {tokens / statistics.median(torch_ms['gpt']) * 1e3:.0f}")


if __name__ == "__main__":
    main()
