#!/usr/bin/python3
"""Speculative decoding side by side: forge against node-llama-cpp (llama.cpp's prebuilt CPU
binary) on the same model pair, in paired rounds (forge, then node, each round: both see the
same machine state), greedy, --gen tokens after --prompt random tokens, end-of-generation banned.

For each mechanism (plain; lookup: forge --spec lookup vs InputLookupTokenPredictor; draft:
forge --spec draft --model-draft D vs DraftSequenceTokenPredictor) it prints both engines'
median decode tokens/s, their acceptance rates, forge's tokens per pass, each engine's gain over
its own plain decoding, and forge over node (the median of the rounds' ratios). On a shared
machine the numbers are noisy: compare ratios within a round, run more rounds.

  /usr/bin/python3 tools/spec_compare.py --forge build/app/forge --target T-f16.gguf \\
      --draft T-q8_0.gguf [--kit /tmp/llm-oracles] [--prompt 64] [--gen 128] [--rounds 3]
"""
import argparse
import json
import pathlib
import statistics
import subprocess

HERE = pathlib.Path(__file__).resolve().parent


def forge_run(a, mode):
    cmd = [a.forge, "--quiet", "bench", "llm", a.target, "--prompt", str(a.prompt), "--gen", str(a.gen), "--reps",
           str(a.reps), "--threads", str(a.threads), "--json", "--spec", mode, "--draft-max", str(a.draft_max)]
    if mode == "draft":
        cmd += ["--model-draft", a.draft]
    r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return {"tok_s": r["decode_tok_s"], "acceptance": r["acceptance"], "tokens_per_pass": r["tokens_per_pass"]}


def node_run(a, mode):
    cmd = ["node", str(HERE / "spec_node_llama_cpp.mjs"), "--kit", a.kit, "--model", a.target, "--prompt", str(a.prompt),
           "--gen", str(a.gen), "--reps", str(a.reps), "--threads", str(a.threads), "--draft-max", str(a.draft_max)]
    if mode == "draft":
        cmd += ["--draft", a.draft]
    elif mode == "lookup":
        cmd += ["--lookup"]
    r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    return {"tok_s": r["decode_tok_s"], "acceptance": r["acceptance"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--forge", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--draft", required=True)
    ap.add_argument("--kit", default="/tmp/llm-oracles")
    ap.add_argument("--prompt", type=int, default=64)
    ap.add_argument("--gen", type=int, default=128)
    ap.add_argument("--draft-max", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--modes", default="off,lookup,draft")
    a = ap.parse_args()
    modes = a.modes.split(",")
    rounds = {m: [] for m in modes}
    for r in range(a.rounds):
        for m in modes:
            rounds[m].append((forge_run(a, m), node_run(a, m)))
            f, n = rounds[m][-1]
            print(f"round {r + 1} {m:6}: forge {f['tok_s']:8.1f} tok/s, node-llama-cpp {n['tok_s']:8.1f} tok/s", flush=True)
    med = lambda xs: statistics.median(xs)
    plain = {e: med([pair[i]["tok_s"] for pair in rounds["off"]]) for i, e in enumerate(("forge", "node"))} \
        if "off" in rounds else None
    print(f"\n{'mode':8} {'forge tok/s':>12} {'acc':>6} {'tok/pass':>8} {'node tok/s':>11} {'acc':>6} "
          f"{'forge gain':>10} {'node gain':>9} {'forge/node':>10}")
    for m in modes:
        f_tok = med([f["tok_s"] for f, _ in rounds[m]])
        n_tok = med([n["tok_s"] for _, n in rounds[m]])
        ratio = med([f["tok_s"] / n["tok_s"] for f, n in rounds[m]])
        gains = (f"{f_tok / plain['forge']:10.2f} {n_tok / plain['node']:9.2f}" if plain else f"{'':10} {'':9}")
        last_f, last_n = rounds[m][-1]
        print(f"{m:8} {f_tok:12.1f} {last_f['acceptance']:6.2f} {last_f['tokens_per_pass']:8.2f} {n_tok:11.1f} "
              f"{last_n['acceptance']:6.2f} {gains} {ratio:10.2f}")


if __name__ == "__main__":
    main()
