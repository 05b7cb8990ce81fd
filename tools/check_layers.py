#!/usr/bin/env python3
"""Fail on an #include that points the wrong way through forge's layers.

The layers, bottom up: kernels <- core <- nn <- models <- app. A file may include headers of its
own layer and of the layers below it, never above. Tests and tools may include anything.

usage: check_layers.py [SOURCE_ROOT]
"""
import pathlib
import re
import sys

LAYERS = ["kernels", "core", "nn", "models", "app"]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def layer_of(path: str):
    top = path.split("/", 1)[0]
    return LAYERS.index(top) if top in LAYERS else None


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = []
    checked = 0
    for layer in LAYERS:
        for source in sorted((root / layer).rglob("*")):
            if source.suffix not in {".h", ".hpp", ".cpp", ".cc"}:
                continue
            checked += 1
            here = LAYERS.index(layer)
            text = source.read_text(encoding="utf-8", errors="replace")
            for match in INCLUDE.finditer(text):
                target = match.group(1)
                there = layer_of(target)
                if there is not None and there > here:
                    line = text.count("\n", 0, match.start()) + 1
                    problems.append(f"{source.relative_to(root)}:{line}: {layer}/ must not include "
                                    f'"{target}" ({LAYERS[there]}/ is above it)')
    for problem in problems:
        print(problem)
    print(f"check_layers: {checked} files, {len(problems)} wrong-way includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
