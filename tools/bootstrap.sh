#!/usr/bin/env bash
# Install what forge needs to build and test on Debian 12, and nothing that is already there.
# Idempotent: a second run installs nothing and exits quickly.
#
#   bash tools/bootstrap.sh          # what the build and the tests need
#   bash tools/bootstrap.sh --fuzz   # and clang-14 for the GGUF fuzzer
set -euo pipefail

packages=(
    g++ meson ninja-build pkg-config python3   # toolchain (python3 runs the meson helper scripts)
    libcli11-dev                # CLI11: command-line parsing
    libspdlog-dev libfmt-dev    # spdlog + {fmt}: logging and formatting
    libgtest-dev libgmock-dev   # GoogleTest
    libxsimd-dev                # xsimd: portable SIMD for the simd kernel backend
    libcpp-httplib-dev          # cpp-httplib: the HTTP server of `forge serve`
    nlohmann-json3-dev          # nlohmann/json: JSON in and out
    libsndfile1-dev             # libsndfile: WAV and FLAC in and out (forge nam)
    libsamplerate0-dev          # libsamplerate: sample-rate conversion (forge nam)
    portaudio19-dev             # PortAudio: recording through an audio interface (forge nam profile)
    jackd2                      # JACK (jackd, jack_metro, jack_connect): forge nam live's test on a real audio server, dummy driver
    libpcre2-dev                # PCRE2: Unicode regexes of the LLM tokenizers' pre-tokenizers
    zlib1g-dev                  # zlib: reading the gzip-compressed tokenizer test fixtures
    pocketsphinx-testdata       # real LibriVox clips + references: the ASR eval harness and its test
    libopenmpi-dev              # Open MPI: data-parallel training (`mpirun -np P forge train gpt`)
    openmpi-bin                 # Open MPI's mpirun: the -np 2 loss-equality and kill tests
    libkissfft-dev              # KISS FFT (BSD): the log-mel front end of forge transcribe
    chromium                    # headless browser: forge serve's chat page test (driven by playwright-core)
    libedit-dev                 # libedit (BSD editline): line editing and history of the forge chat REPL
    python3-jinja2 python3-jsonschema  # tools/grammar oracles: chat templates rendered as transformers does, JSON Schema validation of the grammar goldens
)

# Only with --fuzz: clang's libFuzzer and sanitizers for the fuzz targets (tools/fuzz.sh).
# Neither the build nor the tests need them.
if [[ "${1:-}" == "--fuzz" ]]; then
    packages+=(clang-14 libclang-rt-14-dev)
fi

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if [[ ${#missing[@]} -eq 0 ]]; then
    echo "bootstrap: all ${#packages[@]} packages are installed"
else
    echo "bootstrap: installing ${missing[*]}"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# forge serve's tests run the official openai, ollama and @anthropic-ai/sdk npm clients, playwright-core and autocannon on Node
# (20 or later; test/app/serve/package.json pins the versions, package-lock.json the tree). npm ci
# installs them into the ignored test/app/serve/node_modules once, and again when the lock changes.
serve_tests="$(dirname "$0")/../test/app/serve"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "bootstrap: installing nodejs and npm"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends nodejs npm
fi
if [[ ! -f "$serve_tests/node_modules/.package-lock.json" || "$serve_tests/package-lock.json" -nt "$serve_tests/node_modules/.package-lock.json" ]]; then
    echo "bootstrap: npm ci in test/app/serve"
    npm ci --prefix "$serve_tests" --no-audit --no-fund --loglevel=error
fi
