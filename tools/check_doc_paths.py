#!/usr/bin/env python3
"""Fail on a repository path named in README.md or docs/*.md that does not exist.

Docs that name files are a map of the tree; a renamed or moved file leaves the map wrong
without anyone noticing. Every token that starts with one of the repository's top-level
folders (app/, core/, docs/, ...) must name
something in the tree. Brace lists expand (`app/serve/http_server.{h,cpp}` is two paths);
tokens with placeholders or wildcards (`<target>`, `NAME`, `*`) are patterns, not paths, and
are skipped. A meson target (`app/forge`, as `meson compile -C build app/forge` names it)
counts as existing, and so do the few paths of other repositories the docs describe.

usage: check_doc_paths.py [SOURCE_ROOT]
"""
import itertools
import pathlib
import re
import sys

TOP_FOLDERS = ["app", "bench", "core", "docs", "kernels", "models", "nn", "subprojects", "test", "tools", ".ci"]

# A path-like token: a top-level folder, then path characters (braces and commas for brace lists).
PATH_TOKEN = re.compile(r"(?<![\w./-])((?:%s)/[\w./{},+-]*)" % "|".join(re.escape(f) for f in TOP_FOLDERS))
# `<target>`, `*.cpp`, `...`, and components in capitals (`corpus/T`, `models/NAME`).
PLACEHOLDER = re.compile(r"[<>*?\[\]]|\.\.\.|(?:^|/)[A-Z_]+(?:/|$)")

# Paths inside other repositories that the docs name while describing them (a checkout of
# NeuralAmpModelerCore at core/, parakeet.cpp's own docs/).
OTHER_REPOSITORIES = {
    "core/build-": "a NeuralAmpModelerCore checkout's build folders (docs/NAM.md)",
    "tools/benchmodel": "NeuralAmpModelerCore's benchmark program (docs/NAM.md)",
    "docs/conversion.md": "mudler/parakeet.cpp's conversion notes",
}
EXECUTABLE = re.compile(r"executable\(\s*'([^']+)'")


def expand_braces(token: str):
    """`a/{b,c}.{h,cpp}` -> a/b.h, a/b.cpp, a/c.h, a/c.cpp."""
    parts = re.split(r"(\{[^{}]*\})", token)
    choices = [p[1:-1].split(",") if p.startswith("{") else [p] for p in parts]
    return ["".join(c) for c in itertools.product(*choices)]


def named_paths(text: str):
    for match in PATH_TOKEN.finditer(text):
        token = match.group(1).rstrip(".,:;)")
        end = match.end()
        # `tools/foo.py` followed by a placeholder (`test/fuzz/corpus/<target>/`) is a pattern.
        if end < len(text) and text[end] in "<*":
            continue
        if PLACEHOLDER.search(token) or token.count("{") != token.count("}"):
            continue
        for path in expand_braces(token):
            yield path.rstrip("/")


def meson_targets(root: pathlib.Path):
    """`app/forge`, `tools/bench_alloc`: what `meson compile -C build DIR/NAME` builds."""
    targets = set()
    for build_file in root.rglob("meson.build"):
        if build_file.relative_to(root).parts[0].startswith("build"):
            continue
        folder = build_file.parent.relative_to(root)
        for name in EXECUTABLE.findall(build_file.read_text(encoding="utf-8")):
            targets.add(str(folder / name))
    return targets


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    documents = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    targets = meson_targets(root)
    problems = []
    checked = 0
    for document in documents:
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
            for path in named_paths(line):
                checked += 1
                if path in targets or any(path.startswith(p) for p in OTHER_REPOSITORIES):
                    continue
                if not (root / path).exists():
                    problems.append(f"{document.relative_to(root)}:{number}: {path} does not exist")
    for problem in problems:
        print(problem)
    print(f"check_doc_paths: {checked} paths named in {len(documents)} documents, {len(problems)} missing")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
