#!/usr/bin/env python3
"""`forge bench ops --machine`, the probe scripts run beside each of their timed runs
(tools/bench_llm_side_by_side.sh): only the three machine rows, each with a positive median
in its unit, and no op rows; a bad --reps is refused naming the flag.

usage: check_bench_ops_machine.py FORGE
"""
import json
import subprocess
import sys


def main():
    exe = sys.argv[1]
    env = {"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    run = subprocess.run([exe, "--quiet", "--threads", "2", "bench", "ops", "--machine", "--reps", "1", "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    failures = []
    if run.returncode != 0:
        failures.append(f"exit {run.returncode}: {run.stderr}")
    else:
        rows = json.loads(run.stdout)
        names = [r["name"] for r in rows]
        expected = ["machine/fma peak f32", "machine/read bandwidth", "machine/memcpy bandwidth"]
        if names != expected:
            failures.append(f"rows {names}, expected {expected}")
        for r in rows:
            if not r["median"] > 0 or r["unit"] not in ("GFLOP/s", "GB/s"):
                failures.append(f"row {r['name']}: median {r['median']} {r['unit']}")
    bad = subprocess.run([exe, "bench", "ops", "--machine", "--reps", "0"], capture_output=True, text=True, env=env,
                         timeout=60)
    if bad.returncode == 0 or "--reps" not in bad.stderr:
        failures.append(f"--reps 0: exit {bad.returncode}, stderr {bad.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
