#!/usr/bin/env python3
"""Print the build targets that some meson tests need, so a build folder can compile only those.

tools/test.sh's sanitized stage builds a chosen set of tests under AddressSanitizer + UBSan;
building everything does not fit CI's time. For each named test this prints the target of its
executable and of everything it `depends:` on (forge itself, for the CLI tests), one per line,
as `meson compile -C BUILD TARGET...` takes them (path/name). A name that is not a test of the
build is an error, so a renamed test cannot silently drop out of the stage.

usage: test_targets.py BUILD_DIR TEST [TEST ...]
"""
import json
import os
import subprocess
import sys


def introspect(build: str, what: str):
    out = subprocess.run(["meson", "introspect", build, what], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> int:
    build, names = sys.argv[1], sys.argv[2:]
    build_root = os.path.realpath(build)
    targets = introspect(build, "--targets")
    by_file = {os.path.realpath(t["filename"][0]): t for t in targets}
    by_id = {t["id"]: t for t in targets}
    tests = {t["name"]: t for t in introspect(build, "--tests")}
    needed = []
    for name in names:
        if name not in tests:
            print(f"test_targets.py: no test named '{name}' in {build}", file=sys.stderr)
            return 1
        test = tests[name]
        found = [by_file.get(os.path.realpath(test["cmd"][0]))]
        found += [by_id.get(d) for d in test.get("depends", [])]
        for target in found:
            if target is None:
                continue  # a program of the system (python3, node, c++), not built here
            path = os.path.relpath(os.path.realpath(target["filename"][0]), build_root)
            if path not in needed:
                needed.append(path)
    print("\n".join(needed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
