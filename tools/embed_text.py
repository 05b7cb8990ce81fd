#!/usr/bin/env python3
"""Turn a text file into a C++ header holding it as a std::string_view constant, so a binary
carries the file (forge serve's chat page) without reading it at run time.

usage: embed_text.py INPUT OUTPUT NAME
"""
import pathlib
import sys


def main() -> int:
    source, target, name = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
    text = pathlib.Path(source).read_text(encoding="utf-8")
    delimiter = "forge_embed"
    if f"){delimiter}\"" in text:
        sys.exit(f"embed_text.py: {source} contains the raw-string delimiter ){delimiter}\"")
    # Raw string literals have a length limit in some compilers: split into pieces of 16 KiB
    # that the compiler concatenates.
    pieces = [text[i:i + 16384] for i in range(0, len(text), 16384)] or [""]
    body = "\n".join(f'R"{delimiter}({piece}){delimiter}"' for piece in pieces)
    target.write_text(
        f"// Generated from {pathlib.Path(source).name} by tools/embed_text.py: do not edit.\n"
        "#pragma once\n#include <string_view>\n"
        f"inline constexpr std::string_view {name} =\n{body};\n",
        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
