#!/usr/bin/env bash
# Install what is missing, build forge with both kernel backends, run every test, and end with
# one line "N passed, N failed" summed over both backends. A test that skipped where CI can
# run it (anything not in tools/allowed_skips.txt) counts as failed.
#
#   bash tools/test.sh              # both backends (what CI runs)
#   BACKENDS=simd bash tools/test.sh
#   SANITIZE=1 bash tools/test.sh   # the scalar build under AddressSanitizer + UBSan
#
# With SANITIZE=1 the scalar build (the reference backend) runs under AddressSanitizer and
# UBSan, every finding fatal: the whole suite, the hostile-input tests and the fuzz corpora's
# replays included (docs/RELIABILITY.md); the simd build runs plain, at full speed. Not yet
# the default: a full sanitized run has not been timed on CI's 2 cores (docs/RELIABILITY.md
# has the measured slowdowns and the projection). Sanitized tests get 3x their timeouts.
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh || { echo "0 passed, 1 failed"; exit 1; }

backends=(${BACKENDS:-scalar simd})
jobs=$(nproc)
builds=()
build_failures=0
for backend in "${backends[@]}"; do
    build="build-test-$backend"
    options=(-Dkernel_backend="$backend" -Db_sanitize=none -Dcpp_args=)
    if [[ "$backend" == "scalar" && "${SANITIZE:-0}" == "1" ]]; then
        options=(-Dkernel_backend="$backend" -Db_sanitize=address,undefined -Dcpp_args=-fno-sanitize-recover=all)
        export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
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
    if ! meson compile -C "$build" -j "$jobs"; then
        echo "build failed for backend $backend"
        build_failures=$((build_failures + 1))
        continue
    fi
    rm -f "$build"/*.xml
    timeouts=()
    [[ "$backend" == "scalar" && "${SANITIZE:-0}" == "1" ]] && timeouts=(--timeout-multiplier 3)
    meson test -C "$build" --num-processes "$jobs" --print-errorlogs "${timeouts[@]}"
    builds+=("$build")
done

read -r passed failed skipped < <(python3 tools/count_tests.py --allowed-skips tools/allowed_skips.txt "${builds[@]}")
failed=$((failed + build_failures))
echo
if [[ "$skipped" -gt 0 ]]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[[ "$failed" -eq 0 ]]
