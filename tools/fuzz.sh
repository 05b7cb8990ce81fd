#!/usr/bin/env bash
# Fuzz forge's parsers and interpreters with libFuzzer under AddressSanitizer + UBSan.
#
#   bash tools/fuzz.sh                  # every target, 60 s each
#   bash tools/fuzz.sh nam 600          # one target (gguf nam audio safetensors chat_template tokenizer serve_request grammar)
#   bash tools/fuzz.sh "gguf audio" 600 # several, one after the other
#
# Builds build-fuzz/ (clang-14, scalar kernels, -Dfuzz=true; installs clang with
# tools/bootstrap.sh --fuzz), runs each target on its committed seeds (test/fuzz/corpus/T)
# plus what it found before (build-fuzz/corpus/T), and ends with one line per target:
# "T: N executions, C crashes, S s (E exec/s)". A crash leaves its input as build-fuzz/crash-* and makes
# the script exit 1.
set -uo pipefail
cd "$(dirname "$0")/.."

all=(gguf nam audio safetensors chat_template tokenizer serve_request grammar)
target="${1:-all}"
seconds="${2:-60}"
if [[ "$target" == "all" ]]; then targets=("${all[@]}"); else read -ra targets <<< "$target"; fi

# The longest input each target may build, a little above its largest seed: longer inputs
# add nothing a parser has not seen at this length and make every execution slower.
declare -A max_len=([gguf]=16384 [nam]=16384 [audio]=8192 [safetensors]=4096 [chat_template]=8192
                    [tokenizer]=2048 [serve_request]=4096 [grammar]=4096)

bash tools/bootstrap.sh --fuzz || exit 1
build=build-fuzz
if [[ ! -f "$build/build.ninja" ]]; then
    CC=clang-14 CXX=clang++-14 meson setup "$build" -Dfuzz=true -Dtests=false -Dkernel_backend=scalar -Dnative=false \
        -Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false >/dev/null || exit 1
fi
names=()
for t in "${targets[@]}"; do names+=("test/fuzz/${t}_fuzz"); done
meson compile -C "$build" "${names[@]}" || exit 1

# Bounded per input: 2 GiB of memory, 20 s.
summary=()
crashed=0
for t in "${targets[@]}"; do
    [[ -n "${max_len[$t]:-}" ]] || { echo "unknown target $t (${all[*]})"; exit 2; }
    mkdir -p "$build/corpus/$t"
    log="$build/$t.log"
    echo "=== $t: $seconds s"
    start=$(date +%s)
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/test/fuzz/${t}_fuzz" -max_total_time="$seconds" -max_len="${max_len[$t]}" -rss_limit_mb=2048 -timeout=20 \
        -artifact_prefix="$build/crash-$t-" -print_final_stats=1 \
        "$build/corpus/$t" "test/fuzz/corpus/$t" >"$log" 2>&1
    status=$?
    wall=$(($(date +%s) - start))
    runs=$(grep -h "stat::number_of_executed_units" "$log" | awk '{s += $2} END {print s + 0}')
    crashes=$([[ $status -eq 0 ]] && echo 0 || echo 1)
    [[ $status -eq 0 ]] || { crashed=1; tail -40 "$log"; }
    summary+=("$t: $runs executions, $crashes crashes, $wall s ($((runs / (wall > 0 ? wall : 1))) exec/s)")
done
printf '%s\n' "${summary[@]}"
exit $crashed
