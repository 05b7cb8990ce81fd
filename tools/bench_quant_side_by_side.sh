#!/bin/sh
# forge's block-format kernels side by side with llama.cpp's (ggml): builds
# tools/bench_quant_ggml.cpp against nothing but libc (it dlopens the prebuilt ggml of the npm
# package @node-llama-cpp/linux-x64, see ../shared/ORACLES.md), times ggml on forge's shapes,
# then runs `forge bench quant --ggml-json` so one table shows both and the ratios
# forge simd / ggml. ggml runs first, forge right after; the machine's load is printed.
#
# usage: tools/bench_quant_side_by_side.sh [--forge PATH] [--lib-dir DIR] [--json]
#   --forge    the forge program (default: build/app/forge)
#   --lib-dir  folder with libggml-base.so and libggml-cpu-*.so (default: $GGML_LIB_DIR, else
#              the first node_modules/@node-llama-cpp/linux-x64/bins/linux-x64 under /tmp or ../shared)
#   --json     forge's JSON output (with ggml_* and *_over_ggml fields) instead of the table
set -eu

forge=build/app/forge
lib_dir=${GGML_LIB_DIR:-}
json=
while [ $# -gt 0 ]; do
    case $1 in
        --forge) forge=$2; shift 2 ;;
        --lib-dir) lib_dir=$2; shift 2 ;;
        --json) json=--json; shift ;;
        *) echo "bench_quant_side_by_side.sh: unknown option $1" >&2; exit 1 ;;
    esac
done

if [ -z "$lib_dir" ]; then
    for d in /tmp/*/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64 \
             ../shared/oracles/llm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64; do
        if [ -f "$d/libggml-base.so" ]; then lib_dir=$d; break; fi
    done
fi
if [ -z "$lib_dir" ] || [ ! -f "$lib_dir/libggml-base.so" ]; then
    echo "bench_quant_side_by_side.sh: no libggml-base.so found: install ../shared/oracles/llm (setup.sh) and pass --lib-dir" >&2
    exit 1
fi
if [ ! -x "$forge" ]; then
    echo "bench_quant_side_by_side.sh: $forge is not built (ninja -C build app/forge)" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
here=$(dirname "$0")
c++ -std=c++17 -O2 -Wall -Wextra -o "$work/bench_quant_ggml" "$here/bench_quant_ggml.cpp" -ldl

echo "load: $(uptime)" >&2
"$work/bench_quant_ggml" --lib-dir "$lib_dir" > "$work/ggml.json"
"$forge" bench quant --ggml-json "$work/ggml.json" $json
echo "load: $(uptime)" >&2
