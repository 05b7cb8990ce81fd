#!/usr/bin/env bash
# Install what is missing, build forge (simd backend, tuned for this machine), and run its
# main job on bundled data — no download.
#
#   bash tools/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh
[[ -d build ]] || meson setup build -Dkernel_backend=simd
meson compile -C build app/forge   # just the program; tools/test.sh builds the tests
./build/app/forge --version
echo
# The main job: a question answered by forge's bundled chat model (models/llm/bundled/, trained
# by forge itself: tokenizer, pretraining, SFT), streamed as it is generated. `forge chat` with
# no model starts a conversation with it.
./build/app/forge chat -p "Hello! Who are you?" --temp 0
./build/app/forge chat -p "What can you do?" --temp 0
echo
# Training from scratch on the CPU with every layer of the stack (tensors, kernels, autograd,
# optimizer): a classifier on the two-spirals task.
./build/app/forge train spirals
echo
# Neural amp modeling: a generated guitar clip through the bundled .nam (a profile of forge's
# simulated amp, models/nam/bundled/), printing the real-time factor.
clip_dir=$(mktemp -d)
trap 'rm -rf "$clip_dir"' EXIT
./build/app/forge nam capture-signal --short "$clip_dir/di.wav"
./build/app/forge nam run default "$clip_dir/di.wav" "$clip_dir/amp.wav"
