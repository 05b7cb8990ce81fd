#!/usr/bin/env python3
"""Data-parallel scaling of `forge train gpt`: measured on this machine, modelled for P machines.

Measures, alternating A/B in one run (so machine load hits both alike), the step time of
  A: one process,                   `forge --threads 1 train gpt ...`
  B: two ranks of one thread each,  `mpirun -np 2 forge --threads 1 train gpt ...`
with the same global batch, the gradient sum's time inside those steps (log.jsonl allreduce_s:
it includes waiting for the slower rank), and the sum alone on a buffer of the model's
gradient size (build/tools/bench_allreduce under mpirun -np 2).
Then models P = 1..64 machines for the same global batch (strong scaling) from the measured
one-process step time, split into forward+backward (divided among the ranks) and the optimizer
step (log.jsonl optimizer_s: every rank runs all of it), and the gradient size, on 10 and
100 Gbit/s links (docs/TRAINING.md).

  /usr/bin/python3 tools/bench_mpi_scaling.py --forge build/app/forge --rounds 3
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def train_args(forge, out, a):
    return [forge, "--threads", "1", "train", "gpt",
            "--data", os.path.join(ROOT, "test/data/gpt/corpus.txt"),
            "--tokenizer", os.path.join(ROOT, "test/data/llm/qwen3-f32.gguf"),
            "--out", out, "--depth", str(a.depth), "--seq-len", str(a.seq_len), "--batch", str(a.batch),
            "--micro-batch", str(a.batch // 2), "--steps", str(a.steps), "--eval-every", str(10 * a.steps),
            "--checkpoint-every", str(10 * a.steps), "--eval-tokens", "256", "--json"]


def mpirun(ranks):
    # --bind-to none: Open MPI pins each of 2 ranks to a core by default, which on a machine
    # shared with other work keeps a rank waiting on its busy core while the other core idles
    # (the one-process run is not pinned either).
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")  # Open MPI refuses root without it
    return cmd


def run_once(cmd, out):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}")
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    lines = [json.loads(l) for l in open(os.path.join(out, "log.jsonl"))]
    # Skip the first two steps (warm-up) and the last (it evaluates and checkpoints).
    steady = lines[2:-1]
    tokens = summary["tokens"] / summary["steps"]
    return {"step_s": [tokens / l["tokens_per_s"] for l in steady],
            "optimizer_s": [l["optimizer_s"] for l in steady],
            "allreduce_s": [l["allreduce_s"] for l in steady if "allreduce_s" in l],
            "exposed_s": [l["allreduce_exposed_s"] for l in steady if "allreduce_exposed_s" in l],
            "parameters": summary["parameters"], "losses": [l["loss"] for l in lines]}


def chain_sum_seconds(params, ranks, gbit, chunk_bytes=4 << 18, hop_latency=50e-6):
    """Model of Communicator::sum_in_rank_order over `ranks` machines on `gbit` links: the
    gradient crosses each link twice (chain, then broadcast), plus the pipeline filling over
    P-1 chain hops and log2(P) broadcast hops, each a chunk's transfer and a message latency."""
    if ranks == 1:
        return 0.0
    bandwidth = gbit * 1e9 / 8
    grad_bytes = 4 * params
    hops = (ranks - 1) + math.ceil(math.log2(ranks))
    return 2 * grad_bytes / bandwidth + hops * (min(chunk_bytes, grad_bytes) / bandwidth + hop_latency)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--forge", default=os.path.join(ROOT, "build/app/forge"))
    p.add_argument("--bench-allreduce", default=os.path.join(ROOT, "build/tools/bench_allreduce"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--model-batch", type=int, default=64, help="global batch (rows) of the P-machine model")
    a = p.parse_args()

    one, two = {"step_s": [], "optimizer_s": []}, {"step_s": [], "allreduce_s": [], "exposed_s": []}
    alone_ms = []
    with tempfile.TemporaryDirectory(prefix="forge_mpi_scaling_") as tmp:
        for r in range(a.rounds):
            for name, runner, acc in (("1x1", [], one), ("2x1", mpirun(2), two)):
                out = os.path.join(tmp, f"{name}_{r}")
                got = run_once(runner + train_args(a.forge, out, a), out)
                for key in acc:
                    acc[key] += got[key]
                acc["parameters"], acc["losses"] = got["parameters"], got["losses"]
                print(f"round {r + 1} {name}: median step {statistics.median(got['step_s']):.3f} s", flush=True)
            cmd = mpirun(2) + [a.bench_allreduce, str(one["parameters"]), "20"]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            alone_ms.append(json.loads(done.stdout.strip().splitlines()[-1])["median_ms"])
            print(f"round {r + 1} sum alone: {alone_ms[-1]:.1f} ms", flush=True)
    if one["losses"] != two["losses"]:
        sys.exit("the two-rank run's losses differ from the one-process run's")
    t1, t2 = statistics.median(one["step_s"]), statistics.median(two["step_s"])
    t_opt = statistics.median(one["optimizer_s"])
    reduce_s, exposed_s = statistics.median(two["allreduce_s"]), statistics.median(two["exposed_s"])
    params = one["parameters"]
    print(f"\nmeasured: depth {a.depth}, {params} parameters, batch {a.batch} x {a.seq_len} tokens, "
          f"{a.rounds} rounds A/B, steps 3..{a.steps - 1}")
    print(f"  1 rank x 1 thread : {t1:.3f} s/step, of which the optimizer step {t_opt:.3f} s")
    print(f"  2 ranks x 1 thread: {t2:.3f} s/step  (speedup {t1 / t2:.2f}x), gradient sum {1e3 * reduce_s:.1f} ms "
          f"of which {1e3 * exposed_s:.1f} ms not hidden by the backward (shared memory)")
    print(f"  the sum alone, 2 ranks, {4 * params / 1e6:.1f} MB: {statistics.median(alone_ms):.1f} ms")
    print(f"  losses equal bit for bit: yes ({len(one['losses'])} steps)")

    scale = a.model_batch // a.batch
    fwd_bwd1 = (t1 - t_opt) * scale
    print(f"\nmodel: global batch {a.model_batch} rows x {a.seq_len} tokens; one machine: forward+backward "
          f"{fwd_bwd1:.2f} s (measured x {scale}), optimizer {t_opt:.2f} s; step(P) = fwd_bwd / P + optimizer + "
          f"sum(P), no overlap counted; last column: the optimizer sharded over the ranks too")
    print("| P | fwd+bwd per rank | sum @10 Gbit/s | speedup @10 | sum @100 Gbit/s | speedup @100 | @100, sharded optimizer |")
    print("|---|---|---|---|---|---|---|")
    single = fwd_bwd1 + t_opt
    for ranks in (1, 2, 4, 8, 16, 32, 64):
        compute = fwd_bwd1 / ranks
        row = [f"{ranks}", f"{compute:.3f} s"]
        for gbit in (10, 100):
            comm = chain_sum_seconds(params, ranks, gbit)
            row += [f"{1e3 * comm:.1f} ms", f"{single / (compute + t_opt + comm):.1f}x"]
        row.append(f"{single / (compute + t_opt / ranks + chain_sum_seconds(params, ranks, 100)):.1f}x")
        print("| " + " | ".join(row) + " |")

if __name__ == "__main__":
    main()
