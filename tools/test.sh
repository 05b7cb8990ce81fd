#!/usr/bin/env bash
# Install what is missing, build forge with both kernel backends, run every test, then the
# sanitized stage, and end with one line "N passed, N failed" summed over all three. A test
# that skipped where CI can run it (anything not in tools/allowed_skips.txt) counts as failed.
#
#   bash tools/test.sh                  # scalar, simd, sanitize (what CI runs)
#   BACKENDS=simd bash tools/test.sh
#   BACKENDS=sanitize bash tools/test.sh
#   SANITIZE=1 bash tools/test.sh       # the whole scalar build under AddressSanitizer + UBSan
#
# The sanitize stage (build-test-sanitize) builds the scalar backend under AddressSanitizer +
# UBSan, every finding fatal, leaks included, at -O1 (ASan's advice; 0.6x the compile time of
# -O3), and compiles and runs only the tests in `sanitized_tests` below: the whole suite does
# not fit CI's 40 minutes on 2 cores (docs/TESTING.md "Sanitizers in CI" has the choice and
# its measured cost). SANITIZE=1 instead sanitizes the whole scalar build (opt-in, slow).
# Sanitized tests get 3x their timeouts.
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh || { echo "0 passed, 1 failed"; exit 1; }

# The sanitized stage, chosen by value per minute of CI (docs/TESTING.md): what parses files,
# templates and requests from strangers, and the arithmetic under it.
# SANITIZED_TESTS="..." runs another list.
sanitized_tests=(
    kernels core checkpoint                 # kernels, tensors, GGUF reader/writer, safetensors
    llm_text llm_grammar                    # tokenizers, chat templates (the interpreter), grammars
    robustness serve_request                # the hostile-input suite (forge itself), serve's request parsing
    fuzz_gguf fuzz_nam fuzz_audio fuzz_safetensors fuzz_chat_template fuzz_tokenizer fuzz_serve_request fuzz_grammar
)
[[ -n "${SANITIZED_TESTS:-}" ]] && read -r -a sanitized_tests <<< "$SANITIZED_TESTS"

backends=(${BACKENDS:-scalar simd sanitize})
jobs=$(nproc)
builds=()
build_failures=0
for backend in "${backends[@]}"; do
    build="build-test-$backend"
    options=(-Dkernel_backend="$backend" -Db_sanitize=none -Doptimization=3 -Dcpp_args=)
    targets=()
    tests=()
    sanitized=0
    if [[ "$backend" == "scalar" && "${SANITIZE:-0}" == "1" ]]; then
        options=(-Dkernel_backend=scalar -Db_sanitize=address,undefined -Doptimization=3 -Dcpp_args=-fno-sanitize-recover=all)
        sanitized=1
    elif [[ "$backend" == "sanitize" ]]; then
        options=(-Dkernel_backend=scalar -Db_sanitize=address,undefined -Doptimization=1 -Dcpp_args=-fno-sanitize-recover=all)
        sanitized=1
        tests=("${sanitized_tests[@]}")
    fi
    echo "=== backend: $backend ($build ${options[*]})"
    if [[ -d "$build" ]]; then
        # Store the options first, then regenerate: meson 1.0's `setup --reconfigure -D...` writes
        # build.ninja with the options stored before it, so a change of b_sanitize (SANITIZE=1
        # after a plain run, or back) would take effect only one run later.
        meson configure "$build" "${options[@]}" >/dev/null && meson setup --reconfigure "$build" >/dev/null
    else
        meson setup "$build" "${options[@]}" >/dev/null
    fi || { build_failures=$((build_failures + 1)); continue; }
    if [[ ${#tests[@]} -gt 0 ]]; then
        needed=$(python3 tools/test_targets.py "$build" "${tests[@]}") || { build_failures=$((build_failures + 1)); continue; }
        mapfile -t targets <<< "$needed"
    fi
    if ! meson compile -C "$build" -j "$jobs" "${targets[@]}"; then
        echo "build failed for backend $backend"
        build_failures=$((build_failures + 1))
        continue
    fi
    rm -f "$build"/*.xml
    if [[ $sanitized -eq 1 ]]; then
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            meson test -C "$build" --num-processes "$jobs" --print-errorlogs --timeout-multiplier 3 --no-rebuild "${tests[@]}"
    else
        meson test -C "$build" --num-processes "$jobs" --print-errorlogs
    fi
    builds+=("$build")
done

# The failures by name, then the counts (count_tests.py's last line).
counts=$(python3 tools/count_tests.py --allowed-skips tools/allowed_skips.txt "${builds[@]}")
echo
if [[ "$counts" == *$'\n'* ]]; then echo "${counts%$'\n'*}"; fi
read -r passed failed skipped <<< "${counts##*$'\n'}"
failed=$((failed + build_failures))
if [[ "$skipped" -gt 0 ]]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[[ "$failed" -eq 0 ]]
