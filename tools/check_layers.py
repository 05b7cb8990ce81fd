#!/usr/bin/env python3
"""Fail on an #include that points the wrong way through forge's layers.

The layers, bottom up: kernels <- core <- nn <- models <- app. A file may include headers of its
own layer and of the layers below it, never above. Tests and tools may include anything.

One more rule: models reach the kernels only through a documented front-end in core (core/infer
for the raw-buffer inference paths, the Tensor ops and nn/ otherwise), so a file under models/
neither includes a kernels/ header nor names the forge::kernels namespace in its code.

usage: check_layers.py [SOURCE_ROOT]
"""
import pathlib
import re
import sys

LAYERS = ["kernels", "core", "nn", "models", "app"]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
# Layers that may not skip core on their way to the kernels.
THROUGH_CORE = {"models"}
KERNELS_NAME = re.compile(r"\bkernels::")
COMMENT = re.compile(r"//.*?$|/\*.*?\*/", re.MULTILINE | re.DOTALL)


def layer_of(path: str):
    top = path.split("/", 1)[0]
    return LAYERS.index(top) if top in LAYERS else None


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def wrong_way_includes(layer: str, text: str):
    here = LAYERS.index(layer)
    for match in INCLUDE.finditer(text):
        target = match.group(1)
        there = layer_of(target)
        if there is not None and there > here:
            yield line_of(text, match.start()), f'{layer}/ must not include "{target}" ({LAYERS[there]}/ is above it)'
        elif layer in THROUGH_CORE and there == 0:
            yield line_of(text, match.start()), f'{layer}/ must not include "{target}" (reach kernels/ through core/)'


def kernel_names(layer: str, text: str):
    if layer not in THROUGH_CORE:
        return
    # Blank the comments (keeping their newlines, so line numbers stay right).
    code = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for match in KERNELS_NAME.finditer(code):
        yield line_of(code, match.start()), f"{layer}/ must not name kernels:: (reach kernels/ through core/)"


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = []
    checked = 0
    for layer in LAYERS:
        for source in sorted((root / layer).rglob("*")):
            if source.suffix not in {".h", ".hpp", ".cpp", ".cc"}:
                continue
            checked += 1
            text = source.read_text(encoding="utf-8", errors="replace")
            for line, problem in [*wrong_way_includes(layer, text), *kernel_names(layer, text)]:
                problems.append(f"{source.relative_to(root)}:{line}: {problem}")
    for problem in problems:
        print(problem)
    print(f"check_layers: {checked} files, {len(problems)} wrong-way includes or kernel names")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
