#!/usr/bin/python3
"""Paired benchmark runs: forge and a reference alternately (A B A B ...), one benchmark record.

Each pair runs forge once, then the reference once, so both see the same machine state; the
record (docs/BENCHMARKS.md, schema 1) gets, per measurement, a forge row, a reference row and a
"forge over <reference>" row whose reps are the ratio of each pair (above 1: forge is faster).
The machine block, the build block and the machine-limit rows come from
`forge bench run --suite machine`; the record is checked by forge's own reader at the end.

  # llama.cpp (node-llama-cpp from /work/oracle-llm): prefill and decode per model
  /usr/bin/python3 tools/bench_paired.py llm --model M-q4_0.gguf --model M-q8_0.gguf --pairs 5 --out llm.json
  # PyTorch training steps (the shapes of `forge bench train`, from tools/bench_train_torch.py)
  /usr/bin/python3 tools/bench_paired.py train --pairs 5 --out train.json
  # NeuralAmpModelerCore's benchmodel, when built (skips with a message when it is not)
  /usr/bin/python3 tools/bench_paired.py nam --core /path/to/benchmodel --pairs 5 --out nam.json
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOISY_CV, MIN_STEADY_REPS = 0.05, 3  # docs/BENCHMARKS.md; app/bench_stats.h holds the same rule


def make_row(name, unit, direction, reps, **extra):
    cv = statistics.stdev(reps) / abs(statistics.fmean(reps)) if len(reps) > 1 else 0.0
    row = {"name": name, "unit": unit, "direction": direction, "reps": reps, "median": statistics.median(reps),
           "min": min(reps), "max": max(reps), "cv": cv, "noisy": cv > NOISY_CV or len(reps) < MIN_STEADY_REPS}
    row.update(extra)
    return row


def paired_rows(name, unit, direction, forge_reps, ref_reps, reference, params):
    """The forge row, the reference row and the per-pair ratio row (above 1: forge is better)."""
    ratios = [f / r if direction == "higher" else r / f for f, r in zip(forge_reps, ref_reps)]
    ref_name = reference["name"]
    return [make_row(f"{name}/forge", unit, direction, forge_reps, params=params),
            make_row(f"{name}/{ref_name}", unit, direction, ref_reps, reference=reference, params=params),
            make_row(f"{name}/forge over {ref_name}", "x", "higher", ratios, reference=reference, params=params)]


def run(*args, **kwargs):
    return subprocess.run([str(a) for a in args], check=True, capture_output=True, text=True, **kwargs).stdout


def machine_record(forge, threads):
    """machine, build and the machine-limit rows, from `forge bench run --suite machine`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "machine.json"
        run(forge, "--threads", threads, "bench", "run", "--suite", "machine", "--reps", 3, "--out", out)
        return json.loads(out.read_text())


def finish(record, rows, reference, out, forge):
    record["suite"] = f"paired with {reference['name']}"
    record["build"]["reference"] = reference
    record["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    record["rows"] += rows
    tmp = pathlib.Path(str(out) + ".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, out)
    run(forge, "bench", "compare", out, out)  # forge's reader checks the schema; exits non-zero if it refuses
    for row in rows:
        print(f"{row['name']:<60} {row['median']:>10.4g} {row['unit']:<12} cv {100 * row['cv']:4.1f}%")
    print(f"wrote {out}")


def pairs_of(args, measure_forge, measure_reference):
    forge_reps, ref_reps = [], []
    for i in range(args.pairs):
        forge_reps.append(measure_forge())
        ref_reps.append(measure_reference())
        print(f"pair {i + 1}/{args.pairs}: forge {forge_reps[-1]}, reference {ref_reps[-1]}", file=sys.stderr)
    return forge_reps, ref_reps


def llm(args):
    bench = pathlib.Path(args.oracle) / "llama_bench.mjs"
    if not bench.exists():
        print(f"skip: {bench} not found (the llama.cpp kit of ../shared/ORACLES.md)")
        return 0
    record = machine_record(args.forge, args.threads)
    rows, reference = [], None
    for model in args.model:
        def forge_once():
            out = json.loads(run(args.forge, "--threads", args.threads, "bench", "llm", model, "--prompt", args.prompt,
                                 "--gen", args.gen, "--reps", 1, "--json"))
            return out["prefill_tok_s"], out["decode_tok_s"]

        def llama_once():
            nonlocal reference
            out = json.loads(run("node", bench, "--model", model, "--pp", args.prompt, "--tg", args.gen, "--threads",
                                 args.threads, "--reps", 1, "--warmup", 1))
            release = out.get("llama_cpp_release", {})
            version = release.get("release", "?") if isinstance(release, dict) else str(release)
            package = pathlib.Path(args.oracle) / "node_modules" / "node-llama-cpp" / "package.json"
            binding = json.loads(package.read_text()).get("version", "?") if package.exists() else "?"
            reference = {"name": "llama.cpp", "version": f"{version} (node-llama-cpp {binding})"}
            by_test = {r["test"]: r["median_tps"] for r in out["results"]}
            return by_test[f"pp{args.prompt}"], by_test[f"tg{args.gen}"]

        forge_reps, ref_reps = pairs_of(args, forge_once, llama_once)
        stem = pathlib.Path(model).stem
        params = {"model": str(model), "threads": args.threads}
        rows += paired_rows(f"llm/{stem} prefill pp{args.prompt}", "tok/s", "higher", [f[0] for f in forge_reps],
                            [r[0] for r in ref_reps], reference, params)
        rows += paired_rows(f"llm/{stem} decode tg{args.gen}", "tok/s", "higher", [f[1] for f in forge_reps],
                            [r[1] for r in ref_reps], reference, params)
    finish(record, rows, reference, args.out, args.forge)
    return 0


def train(args):
    sys.path.insert(0, str(ROOT / "tools"))
    import torch
    import bench_train_torch as steps  # the PyTorch twins of `forge bench train`'s models

    steps.refuse_overridden_kernels()
    steps.pin_threads(args.threads)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    models = {"mlp": steps.mlp_step(), "transformer_block": steps.block_step()}
    for step in models.values():
        step()  # warm-up
    record = machine_record(args.forge, args.threads)
    steps.refuse_reference_blas(steps.blas_in_use())
    reference = {"name": "pytorch", "version": f"{torch.__version__} {steps.openblas_core()}"}

    def forge_once():
        out = json.loads(run(args.forge, "--threads", args.threads, "bench", "train", "--json", "--reps", args.steps))
        return {r["name"]: (r["ms"], r["shape"]) for r in out["results"]}

    def torch_once():
        return {name: steps.median_ms(step, args.steps) for name, step in models.items()}

    forge_reps, ref_reps = pairs_of(args, forge_once, torch_once)
    rows = []
    for name in models:
        shape = forge_reps[0][name][1]
        rows += paired_rows(f"train/{name} step {shape}", "ms", "lower", [f[name][0] for f in forge_reps],
                            [r[name] for r in ref_reps], reference, {"threads": args.threads, "steps_per_rep": args.steps})
    finish(record, rows, reference, args.out, args.forge)
    return 0


def nam(args):
    core = args.core or os.environ.get("NAM_CORE_BENCHMODEL", "")
    if not core or not os.access(core, os.X_OK):
        print("skip: NeuralAmpModelerCore's benchmodel is not built (give --core PATH or NAM_CORE_BENCHMODEL; "
              "tools/bench_nam_vs_core.sh says how to build it)")
        return 0
    if not pathlib.Path(args.nam_model).exists():
        print(f"skip: model {args.nam_model} not found")
        return 0
    record = machine_record(args.forge, 1)
    budget_us = 64 / 48000 * 1e6  # Core's benchmodel: 2 s at 48 kHz in blocks of 64

    def forge_once():
        out = json.loads(run(args.forge, "nam", "bench", args.nam_model, "--block", 64, "--seconds", 2, "--json"))
        return budget_us / out["us_per_block"]

    def core_once():
        times = re.findall(r"^([0-9.]+)ms$", run(core, args.nam_model), re.MULTILINE)
        return budget_us / (float(times[-1]) * 1000 / 1500)

    forge_reps, ref_reps = pairs_of(args, forge_once, core_once)
    reference = {"name": "NeuralAmpModelerCore", "version": args.core_version}
    rows = paired_rows(f"nam/{pathlib.Path(args.nam_model).stem} block 64", "x real time", "higher", forge_reps, ref_reps,
                       reference, {"model": args.nam_model, "block": 64, "threads": 1})
    finish(record, rows, reference, args.out, args.forge)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--forge", default=str(ROOT / "build" / "app" / "forge"), help="the forge executable")
    parser.add_argument("--pairs", type=int, default=5, help="forge/reference pairs (default 5)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", required=True, help="the record to write (JSON)")
    sub = parser.add_subparsers(dest="reference", required=True)
    p = sub.add_parser("llm", help="llama.cpp via node-llama-cpp")
    p.add_argument("--model", action="append", required=True, help="a GGUF model (repeatable)")
    p.add_argument("--prompt", type=int, default=128)
    p.add_argument("--gen", type=int, default=32)
    p.add_argument("--oracle", default="/work/oracle-llm", help="the llama.cpp kit (llama_bench.mjs)")
    p = sub.add_parser("train", help="PyTorch training steps")
    p.add_argument("--steps", type=int, default=5, help="steps per repetition, median taken (default 5)")
    p = sub.add_parser("nam", help="NeuralAmpModelerCore's benchmodel")
    p.add_argument("--core", help="Core's benchmodel binary (or NAM_CORE_BENCHMODEL)")
    p.add_argument("--core-version", default="unknown", help="Core's commit or release, for the record")
    p.add_argument("--nam-model", default=str(ROOT.parent / "shared" / "fixtures" / "nam" / "wavenet_a1_standard.nam"))
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    try:
        return {"llm": llm, "train": train, "nam": nam}[args.reference](args)
    except subprocess.CalledProcessError as e:
        print(f"bench_paired: {' '.join(e.cmd)} failed ({e.returncode}):\n{e.stderr}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
