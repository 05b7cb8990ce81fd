#!/usr/bin/env bash
# forge's NAM engine side by side with NeuralAmpModelerCore ("Core"), issue 6's speed yardstick.
#
#   tools/bench_nam_vs_core.sh CORE_BENCHMODEL [CORE_BENCHMODEL ...]
#
# Each CORE_BENCHMODEL is Core's tools/benchmodel built outside this repository (e.g. a stock
# Release build and one with -march=native). It processes 2 s of 48 kHz audio in 64-frame
# blocks (1500 blocks, hard-coded in Core) and prints the loop's wall time; `forge nam bench
# --block 64 --seconds 2` does the same work. The two run interleaved, REPS times each, each
# single-threaded (as an audio callback), and the script prints µs per block, the
# real-time factor (RTF = 1333.3 µs / µs per block) and forge's RTF over Core's.
#
# The machine may be shared: "best" is the fastest rep (least disturbed), "median" the middle
# one; with perf available it also prints each process's median CPU time (task-clock) per
# block processed, model load and prewarm included, which waiting for the CPU does not inflate,
# and the same net of process start-up: each rep also runs each tool on a trivial model
# (BASELINE_MODEL, NAM's identity linear_1.nam: start-up, a tiny load, a negligible loop) and
# the "net" figure is (CPU on MODEL - CPU on the baseline) / blocks. forge's start-up (a large
# executable: dynamic linking, MPI, static initialisers; about 35 ms of CPU) is four times
# Core's benchmodel's (about 8 ms), which over 1651 blocks adds some 20 us per block to forge's
# gross figure. `uptime` is printed before and after.
#
# Tanh: Core's benchmodel uses its fast tanh unless given --no-fast-tanh; forge uses exact tanh
# unless given --fast-tanh. TANH=exact (default) compares exact with exact, TANH=fast fast with
# fast, TANH="exact fast" both.
#
# Environment: FORGE (default build/app/forge), MODEL (default the standard WaveNet fixture,
# ../shared/fixtures/nam/wavenet_a1_standard.nam), BASELINE_MODEL, REPS (default 7), TANH.
# Skips (exit 0, with a message) when a Core binary or the model is missing.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
forge="${FORGE:-$root/build/app/forge}"
model="${MODEL:-$root/../shared/fixtures/nam/wavenet_a1_standard.nam}"
baseline="${BASELINE_MODEL:-$root/../shared/fixtures/nam/identity/linear_1.nam}"
reps="${REPS:-7}"
modes="${TANH:-exact}"
blocks=1500          # Core's benchmodel: (48000 / 64) * 2 blocks of 64 frames
forge_blocks=1651    # forge nam bench: the same 1500 plus 151 warm-up blocks
budget_us=1333.333   # 64 frames at 48 kHz

if [ "$#" -lt 1 ]; then
    echo "usage: $0 CORE_BENCHMODEL [CORE_BENCHMODEL ...]   (env: FORGE, MODEL, REPS, TANH)" >&2
    exit 2
fi
for core in "$@"; do
    if [ ! -x "$core" ]; then
        echo "skip: Core benchmark binary '$core' not found (build Core's tools/benchmodel outside the repo)"
        exit 0
    fi
done
if [ ! -f "$model" ]; then echo "skip: model '$model' not found"; exit 0; fi
if [ ! -f "$baseline" ]; then echo "skip: baseline model '$baseline' not found"; exit 0; fi
if [ ! -x "$forge" ]; then echo "error: forge binary '$forge' not found (set FORGE)" >&2; exit 1; fi

have_perf=0
if command -v perf > /dev/null && perf stat -x, -e task-clock true > /dev/null 2>&1; then have_perf=1; fi

# Runs "$@" and prints "WALL_US_PER_BLOCK CPU_MS" (CPU_MS is - without perf). The wall time is
# the tool's own timing of its processing loop.
measure() {
    local kind="$1"; shift
    local out cpu="-" stat
    stat="$(mktemp)"
    if [ "$have_perf" = 1 ]; then
        out="$(perf stat -x, -e task-clock -o "$stat" "$@")"
        cpu="$(awk -F, '/task-clock/ { printf "%.1f", $1 }' "$stat")"
    else
        out="$("$@")"
    fi
    rm -f "$stat"
    if [ "$kind" = core ]; then
        # Core prints the loop's time twice: integer "NNms", then fractional "NN.NNNms".
        echo "$out" | awk -v n="$blocks" -v cpu="$cpu" '/^[0-9.]+ms$/ { ms = $0 } END { sub("ms", "", ms); printf "%.3f %s\n", ms * 1000 / n, cpu }'
    else
        echo "$out" | sed -n 's/.*"us_per_block":\([0-9.e+-]*\).*/\1/p' | awk -v cpu="$cpu" '{ printf "%.3f %s\n", $1, cpu }'
    fi
}

# "best median" of a column of numbers.
summary() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f %.3f\n", v[1], v[int((NR + 1) / 2)] }'; }

# NAME BEST MEDIAN CPU_MS BLOCKS NET_MS: one line of results. CPU time per block is the whole
# process's (model load and prewarm included) over the blocks it processed; net, the same less
# the tool's run on the baseline model (median of the per-rep differences).
report() {
    printf "%-50s best %7.2f us/block = %5.1fx RT, median %7.2f us/block = %5.1fx RT" \
        "$1" "$2" "$(echo "$budget_us / $2" | bc -l)" "$3" "$(echo "$budget_us / $3" | bc -l)"
    if [ "$have_perf" = 1 ]; then
        printf "; cpu %6.1f ms/run = %6.2f us/block = %5.1fx RT" \
            "$4" "$(echo "$4 * 1000 / $5" | bc -l)" "$(echo "$budget_us / ($4 * 1000 / $5)" | bc -l)"
        [ -n "${6:-}" ] && printf "; net of start-up %6.2f us/block = %5.1fx RT" \
            "$(echo "$6 * 1000 / $5" | bc -l)" "$(echo "$budget_us / ($6 * 1000 / $5)" | bc -l)"
    fi
    echo
}

# The CPU ms of column 2 of FILE minus column 2 of BASE, line by line: "net" per rep, median.
net_cpu() { paste -d' ' "$1" "$2" | awk '{ printf "%.3f\n", $2 - $4 }' | summary | cut -d' ' -f2; }

echo "load before: $(uptime)"
echo "model: $model; block 64, 1500 blocks (2 s at 48 kHz) per run, $reps interleaved reps, single-threaded"
echo "forge: $forge"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for mode in $modes; do
    case "$mode" in
        exact) core_flag="--no-fast-tanh"; forge_flag="" ;;
        fast) core_flag=""; forge_flag="--fast-tanh" ;;
        *) echo "error: TANH must be exact and/or fast, got '$mode'" >&2; exit 2 ;;
    esac
    echo
    echo "== $mode tanh =="
    for ((r = 1; r <= reps; ++r)); do
        i=0
        for core in "$@"; do
            # shellcheck disable=SC2086
            measure core "$core" $core_flag "$model" >> "$tmp/$mode.core$i"
            # shellcheck disable=SC2086
            [ "$have_perf" = 1 ] && measure core "$core" $core_flag "$baseline" >> "$tmp/$mode.base$i"
            i=$((i + 1))
        done
        # shellcheck disable=SC2086
        measure forge "$forge" nam bench "$model" --block 64 --seconds 2 --json $forge_flag >> "$tmp/$mode.forge"
        # shellcheck disable=SC2086
        [ "$have_perf" = 1 ] && measure forge "$forge" nam bench "$baseline" --block 64 --seconds 2 --json $forge_flag \
            >> "$tmp/$mode.forgebase"
    done
    read -r forge_best forge_median < <(cut -d' ' -f1 "$tmp/$mode.forge" | summary)
    forge_cpu="$(cut -d' ' -f2 "$tmp/$mode.forge" | summary | cut -d' ' -f2)"
    forge_net=""
    [ "$have_perf" = 1 ] && forge_net="$(net_cpu "$tmp/$mode.forge" "$tmp/$mode.forgebase")"
    report "forge" "$forge_best" "$forge_median" "$forge_cpu" "$forge_blocks" "$forge_net"
    i=0
    for core in "$@"; do
        read -r best median < <(cut -d' ' -f1 "$tmp/$mode.core$i" | summary)
        cpu="$(cut -d' ' -f2 "$tmp/$mode.core$i" | summary | cut -d' ' -f2)"
        net=""
        [ "$have_perf" = 1 ] && net="$(net_cpu "$tmp/$mode.core$i" "$tmp/$mode.base$i")"
        report "core $core" "$best" "$median" "$cpu" "$blocks" "$net"
        printf "  forge RTF / this Core's RTF: best %.2fx, median %.2fx" \
            "$(echo "$best / $forge_best" | bc -l)" "$(echo "$median / $forge_median" | bc -l)"
        if [ "$have_perf" = 1 ]; then
            printf ", by CPU time %.2fx, by CPU time net of start-up %.2fx" \
                "$(echo "($cpu / $blocks) / ($forge_cpu / $forge_blocks)" | bc -l)" \
                "$(echo "($net / $blocks) / ($forge_net / $forge_blocks)" | bc -l)"
        fi
        echo
        i=$((i + 1))
    done
done
echo
echo "load after: $(uptime)"
