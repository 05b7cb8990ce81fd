#!/usr/bin/env python3
"""Count individual test results across meson build directories.

GoogleTest executables (meson protocol 'gtest') leave a JUnit XML file per run; each test
case in it counts once. Every other meson test (compile-fail checks, scripts) counts once from
meson's testlog.json. A gtest executable that crashed before writing its XML counts as one
failure, so a crash can never hide.

A skip is only allowed where the machine decides it (audio hardware, an optional local file):
with --allowed-skips FILE (tools/allowed_skips.txt: one fnmatch pattern of "Suite.Test" per
line, # comments), every other skipped test counts as failed, so a test that CI can run never
goes quietly unrun.

Every failure is named on a line of its own before the counts ("failed: BUILD Suite.Test", or
"skipped, but CI can run it: ..."), on standard output: CI keeps only the tail of the log, and
the counts alone do not say which test to look at.

usage: count_tests.py [--allowed-skips FILE] BUILD_DIR [BUILD_DIR ...]
prints: the failures, a line each, then "passed failed skipped"
"""
import fnmatch
import json
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET


def gtest_names(build: pathlib.Path):
    tests = json.loads(subprocess.run(["meson", "introspect", str(build), "--tests"],
                                      check=True, capture_output=True, text=True).stdout)
    return {t["name"] for t in tests if t.get("protocol") == "gtest"}


def count_build(build: pathlib.Path, skipped_names: list, failed_names: list):
    passed = failed = skipped = 0
    gtests = gtest_names(build)
    log = build / "meson-logs" / "testlog.json"
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        result = entry["result"]
        name = entry["name"]
        if name in gtests:
            xml = build / f"{name}.xml"
            fresh = xml.exists() and xml.stat().st_mtime >= entry["starttime"] - 1
            if fresh:
                root = ET.parse(xml).getroot()
                for case in root.iter("testcase"):
                    if case.find("failure") is not None or case.find("error") is not None:
                        failed += 1
                        failed_names.append(f"{build.name} {case.get('classname')}.{case.get('name')}")
                    elif case.get("result") == "skipped" or case.find("skipped") is not None:
                        skipped += 1
                        skipped_names.append(f"{case.get('classname')}.{case.get('name')}")
                    else:
                        passed += 1
                if result not in ("OK", "EXPECTEDFAIL") and not any(True for _ in root.iter("failure")):
                    failed += 1  # the executable failed without a failing case: a crash or exit code
                    failed_names.append(f"{build.name} {name} (exited {result} without a failing case)")
                continue
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
            skipped_names.append(name)
        else:
            failed += 1
            failed_names.append(f"{build.name} {name} ({result})")
    return passed, failed, skipped


def allowed_patterns(path: str):
    lines = pathlib.Path(path).read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def main() -> int:
    args = sys.argv[1:]
    allowed = None
    if args[:1] == ["--allowed-skips"]:
        allowed = allowed_patterns(args[1])
        args = args[2:]
    totals = [0, 0, 0]
    skipped_names = []
    failed_names = []
    for build in args:
        for i, n in enumerate(count_build(pathlib.Path(build), skipped_names, failed_names)):
            totals[i] += n
    for name in failed_names:
        print(f"failed: {name}")
    if allowed is not None:
        unexpected = [n for n in skipped_names if not any(fnmatch.fnmatchcase(n, p) for p in allowed)]
        for name in unexpected:
            print(f"skipped, but CI can run it (not in the allowed skips): {name}")
        totals[1] += len(unexpected)
        totals[2] -= len(unexpected)
    print(*totals)
    return 0


if __name__ == "__main__":
    sys.exit(main())
