#!/usr/bin/env python3
"""What AddressSanitizer + UBSan cost on this machine: two compute-heavy scalar kernel test
files compiled (without ccache) and run, in a plain scalar build and a sanitized one, back to
back under the same load. The ratios project the cost of SANITIZE=1 in CI (docs/RELIABILITY.md).

usage: tools/sanitizer_cost.py PLAIN_BUILD SANITIZED_BUILD
  both configured with -Dkernel_backend=scalar (the second also with
  -Db_sanitize=address,undefined -Dcpp_args=-fno-sanitize-recover=all) and their kernel
  libraries built:  meson compile -C BUILD kernels/forge_kernels_scalar kernels/forge_kernels_quant
"""
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile
import time

FILES = ["test/kernels/matmul_test.cpp", "test/kernels/quant_gemm_test.cpp"]


def compile_command(build, source, out):
    """The build's own command for `source` (compile_commands.json), without ccache and
    dependency files, writing `out`."""
    entries = json.loads((build / "compile_commands.json").read_text())
    command = next(e["command"] for e in entries if e["file"].endswith(source))
    args, skip = [], False
    for arg in shlex.split(command):
        if skip or arg in ("ccache", "-MD"):
            skip = False
            continue
        if arg in ("-MQ", "-MF"):
            skip = True
            continue
        args.append(arg)
    args[args.index("-o") + 1] = str(out)
    return args


def measure(build, sanitized, scratch):
    objects = []
    start = time.monotonic()
    for source in FILES:
        out = scratch / f"{build.name}_{pathlib.Path(source).stem}.o"
        subprocess.run(compile_command(build, source, out), cwd=build, check=True)
        objects.append(str(out))
    compiled = time.monotonic()
    exe = scratch / f"{build.name}_test"
    subprocess.run(["c++", *(["-fsanitize=address,undefined"] if sanitized else []), "-o", str(exe), *objects,
                    str(build / "kernels/libforge_kernels_scalar.a"), str(build / "kernels/libforge_kernels_quant.a"),
                    "-lgtest", "-lgtest_main", "-lgmock", "-pthread"], check=True)
    linked = time.monotonic()
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    subprocess.run([str(exe)], env=env, check=True, capture_output=True)
    return compiled - start, time.monotonic() - linked


def main():
    plain, sanitized = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        p = measure(plain, False, pathlib.Path(scratch))
        s = measure(sanitized, True, pathlib.Path(scratch))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"compile: plain {p[0]:.1f} s, sanitized {s[0]:.1f} s ({s[0] / p[0]:.1f}x)")
    print(f"run:     plain {p[1]:.1f} s, sanitized {s[1]:.1f} s ({s[1] / p[1]:.1f}x)")


if __name__ == "__main__":
    main()
