#!/usr/bin/env python3
"""Count individual test results across meson build directories.

GoogleTest executables (meson protocol 'gtest') leave a JUnit XML file per run; each test
case in it counts once. Every other meson test (compile-fail checks, scripts) counts once from
meson's testlog.json. A gtest executable that crashed before writing its XML counts as one
failure, so a crash can never hide.

usage: count_tests.py BUILD_DIR [BUILD_DIR ...]
prints: passed failed skipped
"""
import json
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET


def gtest_names(build: pathlib.Path):
    tests = json.loads(subprocess.run(["meson", "introspect", str(build), "--tests"],
                                      check=True, capture_output=True, text=True).stdout)
    return {t["name"] for t in tests if t.get("protocol") == "gtest"}


def count_build(build: pathlib.Path):
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
                    elif case.get("result") == "skipped" or case.find("skipped") is not None:
                        skipped += 1
                    else:
                        passed += 1
                if result not in ("OK", "EXPECTEDFAIL") and not any(True for _ in root.iter("failure")):
                    failed += 1  # the executable failed without a failing case: a crash or exit code
                continue
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
    return passed, failed, skipped


def main() -> int:
    totals = [0, 0, 0]
    for build in sys.argv[1:]:
        for i, n in enumerate(count_build(pathlib.Path(build))):
            totals[i] += n
    print(*totals)
    return 0


if __name__ == "__main__":
    sys.exit(main())
