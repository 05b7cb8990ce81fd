#!/usr/bin/env bash
# The live callback's CPU load of `forge nam live` for each model, on a real audio server
# without a sound card: jackd's dummy driver at 48 kHz, 64-frame periods (a private server
# name), jack_metro's click track into forge's input, 10 s per model. Prints forge's summary
# line per model (mean and worst-block CPU load, xruns, latency). Needs jackd2.
#
#   FORGE=build/app/forge SECONDS_EACH=10 tools/nam_live_load.sh MODEL.nam|default [...]
set -euo pipefail

forge=${FORGE:-build/app/forge}
seconds=${SECONDS_EACH:-10}
[[ $# -ge 1 ]] || { echo "usage: $0 MODEL.nam|default [...]" >&2; exit 2; }
command -v jackd >/dev/null || { echo "$0: jackd is not installed (Debian's jackd2)" >&2; exit 1; }

export JACK_DEFAULT_SERVER=forge_live_load_$$ JACK_NO_START_SERVER=1
log=$(mktemp -d)
jackd -d dummy -r 48000 -p 64 >"$log/jackd.log" 2>&1 &
jackd_pid=$!
metro_pid=""
cleanup() {
    [[ -n "$metro_pid" ]] && kill "$metro_pid" 2>/dev/null || true
    kill "$jackd_pid" 2>/dev/null || true
    wait "$jackd_pid" 2>/dev/null || true
    rm -rf "$log"
}
trap cleanup EXIT
timeout 10 jack_wait -w >/dev/null
jack_metro -n metro -b 200 -f 220 -A 0.7 -D 150 >/dev/null 2>&1 &
metro_pid=$!

echo "uptime: $(uptime)"
for model in "$@"; do
    timeout $((seconds + 30)) "$forge" nam live "$model" --input system --output system --seconds "$seconds" \
        2>"$log/forge.log" &
    forge_pid=$!
    port=""
    for _ in $(seq 100); do
        port=$(jack_lsp 2>/dev/null | grep -m1 '^PortAudio.*:in' || true)
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    [[ -n "$port" ]] && jack_connect metro:200_bpm "$port"
    wait "$forge_pid" || { cat "$log/forge.log" >&2; exit 1; }
    echo "$model: $(grep -o 'played.*' "$log/forge.log")"
done
echo "uptime: $(uptime)"
