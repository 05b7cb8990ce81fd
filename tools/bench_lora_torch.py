#!/usr/bin/python3
"""Speed and peak memory of a LoRA training step, `forge train lora` on a quantized GGUF against
PyTorch doing the same step on the dequantized float32 model, side by side (A/B rounds).

The step: one row of --seq-len tokens (batch 1), LoRA of rank --rank on all seven matrices of
every block (q, k, v, o, gate, up, down), the base frozen, the mean cross-entropy of the row's
next tokens, its backward, one AdamW step (lr 1e-4, no weight decay: forge's defaults).

- forge: `forge --threads T train lora --model M --text TEXT --seq-len S --batch 1 --rank R
  --alpha A --steps N+1 ...` under /usr/bin/time -v. Its speed is the median of the per-step
  tokens_per_s that log.jsonl records for steps 2..N+1 (step 1 is the warm-up; the validations
  before and after are not in them); its memory is GNU time's maximum resident set size (the
  mapped file's pages count: the whole file is resident by then).
- PyTorch: this script again, in a fresh process (--torch-worker): M dequantized by forge itself
  (`forge quantize --allow-requantize M M-f32.gguf F32`, once, kept in --work) and read tensor
  by tensor into float32 tensors, the forward of torch_qwen3.py (the one make_lora_step_golden.py
  checks forge against), A U(+-1/sqrt(n_in)) and B zero as forge and peft start them,
  torch.optim.AdamW; one warm-up step, then the median of N timed steps; peak memory is the
  worker's own resource.getrusage maxrss. Its tokens are seeded random ids (the speed of dense
  matmuls does not depend on them).

Each round runs, for each model, forge and PyTorch one after the other (the order alternating
between rounds), so both see the same machine state. The table gives the medians over the
rounds and the ratios: speed forge / torch (goal >= 1.5) and peak RSS forge / torch (goal <= 1/3).

  /usr/bin/python3 tools/bench_lora_torch.py --forge build/app/forge --threads 2 --rounds 2 --steps 3 \\
      --models /tmp/switch/qwen3-0.6b-shape-q8_0.gguf,/tmp/lora-bench/qwen3-0.6b-shape-q4_k_m.gguf

PyTorch's matmuls run on the BLAS behind Debian's libblas.so.3 alternative: install OpenBLAS
first (apt-get install libopenblas0-pthread; the reference BLAS is ~100x slower). As in
bench_train_torch.py, OPENBLAS_NUM_THREADS is pinned to --threads and OMP_WAIT_POLICY is PASSIVE
unless set; the script prints the BLAS library and OpenBLAS core type the worker really ran, and
refuses to compare where the environment overrides them (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE, ...:
run it under `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ...` on machines that set them).
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

import gguf_reader
import torch_qwen3
from bench_train_torch import (blas_in_use, load_average, openblas_core, pin_threads, refuse_overridden_kernels,
                               refuse_reference_blas)

FORGE_TARGETS = "q,k,v,o,gate,up,down"  # forge's names of torch_qwen3.TARGETS
LR = 1e-4
NEVER = 1_000_000_000  # an --eval-every / --checkpoint-every beyond the run


def load_f32(path):
    """The config and the float32 weights of an all-F32 qwen3 GGUF, each tensor read straight from
    the file into its own tensor (no float64 copy and no mapped pages that would count twice)."""
    meta, infos = gguf_reader.read_header(path)
    weights = {}
    with open(path, "rb") as f:
        for name, dims, ggml_type, offset in infos:
            if ggml_type != gguf_reader.GGML_F32:
                raise ValueError(f"{path}: tensor {name} has ggml type {ggml_type}, not F32 "
                                 f"(make the file with forge quantize --allow-requantize IN OUT F32)")
            t = torch.empty(list(reversed(dims)), dtype=torch.float32)
            f.seek(offset)
            if f.readinto(memoryview(t.numpy()).cast("B")) != t.numel() * 4:
                raise ValueError(f"{path}: tensor {name} runs past the end of the file")
            weights[name] = t
    return torch_qwen3.Config(meta), weights


def lora_factors(cfg, weights, rank, gen):
    """A [r, n_in] U(+-1/sqrt(n_in)) and B [n_out, r] zero on every target of every block."""
    factors = {}
    for layer in range(cfg.n_layer):
        for target in torch_qwen3.TARGETS:
            name = f"blk.{layer}.{target}.weight"
            n_out, n_in = weights[name].shape
            bound = 1.0 / n_in ** 0.5
            factors[name + ".lora_a"] = ((torch.rand(rank, n_in, generator=gen) * 2 - 1) * bound).requires_grad_(True)
            factors[name + ".lora_b"] = torch.zeros(n_out, rank, requires_grad=True)
    return factors


def torch_worker(args):
    """One PyTorch measurement in this process: prints a JSON object on its last line."""
    torch.set_num_threads(args.threads)
    cfg, weights = load_f32(args.torch_worker)
    gen = torch.Generator().manual_seed(0)
    factors = lora_factors(cfg, weights, args.rank, gen)
    row = torch.randint(0, weights["token_embd.weight"].shape[0], (args.seq_len + 1,), generator=gen)
    tokens, targets = row[:-1], row[1:]
    optimizer = torch.optim.AdamW(list(factors.values()), lr=LR, weight_decay=0.0)

    def step():
        optimizer.zero_grad(set_to_none=True)
        logits = torch_qwen3.forward(cfg, weights, factors, args.alpha / args.rank, tokens)
        loss = F.cross_entropy(logits, targets)
        loss.backward()
        optimizer.step()
        return loss.item()

    step()  # warm-up
    seconds = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"step_s": seconds, "tokens_per_s": args.seq_len / statistics.median(seconds),
                      "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "threads": torch.get_num_threads(), "blas": blas_in_use(), "openblas_core": openblas_core()}))


def torch_round(args, f32_path):
    command = [sys.executable, os.path.abspath(__file__), "--torch-worker", f32_path, "--threads", str(args.threads),
               "--steps", str(args.steps), "--seq-len", str(args.seq_len), "--rank", str(args.rank),
               "--alpha", str(args.alpha)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    worker = json.loads(out.strip().splitlines()[-1])
    refuse_reference_blas(worker["blas"])
    return worker


def forge_command(args, model, out_dir):
    return [args.forge, "--threads", str(args.threads), "train", "lora", "--model", model, "--text", args.text,
            "--seq-len", str(args.seq_len), "--batch", "1", "--rank", str(args.rank), "--alpha", str(args.alpha),
            "--targets", FORGE_TARGETS, "--lr", str(LR), "--steps", str(args.steps + 1), "--eval-every", str(NEVER),
            "--checkpoint-every", str(NEVER), "--out", out_dir, "--force", "--json"]


def forge_round(args, model, out_dir):
    """forge's median tokens/s of the steps after the first, and its peak RSS (kB)."""
    run = subprocess.run(["/usr/bin/time", "-v", *forge_command(args, model, out_dir)], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"forge train lora failed ({run.returncode}):\n{run.stderr[-3000:]}")
    maxrss = next(int(line.split(":")[1]) for line in run.stderr.splitlines() if "Maximum resident set size" in line)
    with open(os.path.join(out_dir, "log.jsonl")) as log:
        steps = [json.loads(line) for line in log]
    timed = [s["tokens_per_s"] for s in steps if s["step"] >= 2]
    return {"tokens_per_s": statistics.median(timed), "maxrss_kb": maxrss}


def dequantized(args, model):
    """M's float32 copy in --work, made by forge the first time."""
    stem = os.path.splitext(os.path.basename(model))[0]
    path = os.path.join(args.work, stem + "-f32.gguf")
    if not os.path.exists(path):
        subprocess.run([args.forge, "quantize", "--allow-requantize", model, path + ".tmp", "F32"], check=True,
                       capture_output=True)
        os.replace(path + ".tmp", path)
    return path


def gib(kb):
    return kb / 1024 ** 2


def torch_build():
    """What torch.__config__.show() says of the libraries its CPU kernels use."""
    show = torch.__config__.show()
    found = [re.search(pattern, show) for pattern in
             (r"BLAS_INFO=\w+", r"LAPACK_INFO=\w+", r"Intel\(R\) MKL-DNN v[\d.]+", r"CPU capability usage: \w+")]
    return ", ".join(m.group(0) for m in found if m)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forge", default="build/app/forge", help="path to the forge executable")
    parser.add_argument("--models", default="/tmp/switch/qwen3-0.6b-shape-q8_0.gguf,"
                        "/tmp/lora-bench/qwen3-0.6b-shape-q4_k_m.gguf", help="comma-separated qwen3 GGUFs")
    parser.add_argument("--text", default="test/data/gpt/corpus.txt", help="forge's --text (default: %(default)s)")
    parser.add_argument("--work", default="/tmp/lora-bench", help="folder for the f32 copies and forge's runs")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="A/B rounds (default 2)")
    parser.add_argument("--steps", type=int, default=3, help="timed steps after one warm-up (default 3)")
    parser.add_argument("--seq-len", type=int, default=256)
    parser.add_argument("--rank", type=int, default=16)
    parser.add_argument("--alpha", type=float, default=32.0)
    parser.add_argument("--torch-worker", metavar="F32_GGUF", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rounds < 1 or args.steps < 1 or args.threads < 1:
        parser.error("--rounds, --steps and --threads must be at least 1")
    refuse_overridden_kernels()
    pin_threads(args.threads)
    if args.torch_worker:
        torch_worker(args)
        return

    models = args.models.split(",")
    for model in models:
        if not os.path.isfile(model):
            parser.error(f"--models: no file {model}")
    os.makedirs(args.work, exist_ok=True)
    f32 = {model: dequantized(args, model) for model in models}
    print(f"load average before: {load_average()}", flush=True)
    forge, torch_runs = {m: [] for m in models}, {m: [] for m in models}
    for r in range(1, args.rounds + 1):
        for model in models:
            out_dir = os.path.join(args.work, "run-" + os.path.splitext(os.path.basename(model))[0])
            runs = [lambda: forge[model].append(forge_round(args, model, out_dir)),
                    lambda: torch_runs[model].append(torch_round(args, f32[model]))]
            for run in runs if r % 2 else reversed(runs):
                run()
            a, b = forge[model][-1], torch_runs[model][-1]
            print(f"round {r}/{args.rounds} {os.path.basename(model)}: forge {a['tokens_per_s']:.1f} tok/s "
                  f"{gib(a['maxrss_kb']):.2f} GiB, torch {b['tokens_per_s']:.1f} tok/s {gib(b['maxrss_kb']):.2f} GiB "
                  f"(load {load_average()})", flush=True)
    print(f"load average after: {load_average()}")
    worker = torch_runs[models[0]][0]
    print(f"forge: --threads {args.threads}, {args.forge}")
    print(f"torch {torch.__version__}: {worker['threads']} threads, {torch_build()}, "
          f"BLAS mapped {' '.join(worker['blas'])} {worker['openblas_core']}, "
          f"OPENBLAS_NUM_THREADS {os.environ['OPENBLAS_NUM_THREADS']}, OMP_WAIT_POLICY {os.environ['OMP_WAIT_POLICY']}")
    print(f"LoRA rank {args.rank}, alpha {args.alpha:g}, targets {FORGE_TARGETS}, seq {args.seq_len}, batch 1; "
          f"medians of {args.rounds} rounds, each the median of {args.steps} steps after a warm-up")
    print(f"| base | forge tok/s | torch f32 tok/s | speed forge/torch | forge peak RSS | torch peak RSS | "
          f"RSS forge/torch |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for model in models:
        speed = statistics.median(a["tokens_per_s"] / b["tokens_per_s"] for a, b in zip(forge[model], torch_runs[model]))
        memory = statistics.median(a["maxrss_kb"] / b["maxrss_kb"] for a, b in zip(forge[model], torch_runs[model]))
        ours = statistics.median(a["tokens_per_s"] for a in forge[model])
        theirs = statistics.median(b["tokens_per_s"] for b in torch_runs[model])
        ours_kb = statistics.median(a["maxrss_kb"] for a in forge[model])
        theirs_kb = statistics.median(b["maxrss_kb"] for b in torch_runs[model])
        print(f"| {os.path.basename(model)} | {ours:.1f} | {theirs:.1f} | {speed:.2f}x "
              f"({'meets' if speed >= 1.5 else 'misses'} >= 1.5x) | {gib(ours_kb):.2f} GiB | {gib(theirs_kb):.2f} GiB | "
              f"{memory:.2f} ({'meets' if memory <= 1 / 3 else 'misses'} <= 0.33) |")


if __name__ == "__main__":
    main()
