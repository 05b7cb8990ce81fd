#!/usr/bin/env bash
# Build the GGUF fuzzer with clang-14's libFuzzer, AddressSanitizer and UBSan (Debian:
# apt-get install clang-14 libclang-rt-14-dev). Compiles just the sources the reader needs,
# so it does not depend on the rest of the project building under clang.
#   test/fuzz/build.sh [OUT_DIR]          -> OUT_DIR/gguf_fuzz (default build-fuzz)
#   build-fuzz/gguf_fuzz -runs=1000000 build-fuzz/corpus test/fuzz/corpus
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/build-fuzz}"
mkdir -p "$out"
sources=(
  test/fuzz/gguf_fuzz.cpp
  core/gguf/gguf_file.cpp core/gguf/gguf_reader.cpp core/gguf/gguf_writer.cpp core/gguf/mapped_file.cpp
  core/gguf/value.cpp core/quant/quantize.cpp core/dtype.cpp core/tensor.cpp core/tensor_print.cpp
  core/storage.cpp core/buffer_pool.cpp core/shape.cpp core/thread_pool.cpp core/ops/copy.cpp
  kernels/backend.cpp kernels/scalar/convert.cpp kernels/scalar/copy.cpp kernels/scalar/dequantize.cpp
  kernels/scalar/quantize.cpp kernels/scalar/quantize_k.cpp
)
cd "$root"
clang++-14 -std=c++20 -O1 -g -I. -DFORGE_BACKEND_SCALAR=1 -DFORGE_VERSION='"fuzz"' -ffp-contract=off \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  "${sources[@]}" -lfmt -lpthread -o "$out/gguf_fuzz"
echo "built $out/gguf_fuzz"
