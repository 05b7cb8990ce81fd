#!/usr/bin/env bash
# Install what is missing, build forge with both kernel backends, run every test, and end with
# one line "N passed, N failed" summed over both backends. A test that skipped where CI can
# run it (anything not in tools/allowed_skips.txt) counts as failed.
#
#   bash tools/test.sh              # both backends (what CI runs)
#   BACKENDS=simd bash tools/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh || { echo "0 passed, 1 failed"; exit 1; }

backends=(${BACKENDS:-scalar simd})
jobs=$(nproc)
builds=()
build_failures=0
for backend in "${backends[@]}"; do
    build="build-test-$backend"
    echo "=== backend: $backend ($build)"
    if [[ -d "$build" ]]; then
        meson setup --reconfigure "$build" -Dkernel_backend="$backend" >/dev/null
    else
        meson setup "$build" -Dkernel_backend="$backend" >/dev/null
    fi || { build_failures=$((build_failures + 1)); continue; }
    if ! meson compile -C "$build" -j "$jobs"; then
        echo "build failed for backend $backend"
        build_failures=$((build_failures + 1))
        continue
    fi
    rm -f "$build"/*.xml
    meson test -C "$build" --num-processes "$jobs" --print-errorlogs
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
