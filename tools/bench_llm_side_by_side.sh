#!/bin/sh
# forge and llama.cpp (node-llama-cpp's prebuilt CPU build) on the same GGUF files, side by side:
# for each file, --rounds A/B rounds alternating who goes first (forge first in odd rounds),
# each side one warm-up and one timed run of ppP (prefill) and tgG (decode) per round; the
# table shows the median over the rounds, the ratios forge / llama.cpp, and forge's decode
# as a fraction of the memory bound: (bytes of the matrices multiplied per token / the read
# bandwidth `forge bench ops --machine` measures at the same threads just before forge's run
# in that round) / decode time per token, the median over the rounds. (One probe for the
# whole run read 21-28 GB/s on this VM depending on the minute, and moved every fraction.)
# The load average and llama_bench's foreign_cpu_cores (CPU used by other processes) are
# printed: on a shared machine read the ratios, not the absolute numbers.
#
# usage: tools/bench_llm_side_by_side.sh [--forge PATH] [--kit DIR] [--threads 2] [--pp 128]
#            [--tg 32] [--rounds 3] [--bandwidth GB/s] [--json FILE] MODEL.gguf...
#   --forge      the forge program (default: build/app/forge)
#   --kit        the llama.cpp oracle kit with node_modules set up (default: $LLM_ORACLE_KIT,
#                else /tmp/llm-oracles, else /work/oracle-llm; see ../shared/ORACLES.md)
#   --bandwidth  a fixed read bandwidth in GB/s (default: measured beside every forge run)
#   --json       also write every round's numbers and the medians to FILE
set -eu

forge=build/app/forge
kit=${LLM_ORACLE_KIT:-}
threads=2
pp=128
tg=32
rounds=3
bandwidth=
json_out=
while [ $# -gt 0 ]; do
    case $1 in
        --forge) forge=$2; shift 2 ;;
        --kit) kit=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --pp) pp=$2; shift 2 ;;
        --tg) tg=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --bandwidth) bandwidth=$2; shift 2 ;;
        --json) json_out=$2; shift 2 ;;
        -*) echo "bench_llm_side_by_side.sh: unknown option $1" >&2; exit 1 ;;
        *) break ;;
    esac
done
if [ $# -eq 0 ]; then
    echo "bench_llm_side_by_side.sh: no model given (usage: tools/bench_llm_side_by_side.sh [options] MODEL.gguf...)" >&2
    exit 1
fi
if [ -z "$kit" ]; then
    for d in /tmp/llm-oracles /work/oracle-llm; do
        if [ -f "$d/llama_bench.mjs" ] && [ -d "$d/node_modules" ]; then kit=$d; break; fi
    done
fi
if [ -z "$kit" ] || [ ! -f "$kit/llama_bench.mjs" ]; then
    echo "bench_llm_side_by_side.sh: no llama.cpp oracle kit found: cp -r ../shared/oracles/llm /tmp/llm-oracles && bash /tmp/llm-oracles/setup.sh, or pass --kit" >&2
    exit 1
fi
if [ ! -x "$forge" ]; then
    echo "bench_llm_side_by_side.sh: $forge is not built (meson compile -C build app/forge)" >&2
    exit 1
fi
for model in "$@"; do
    if [ ! -f "$model" ]; then echo "bench_llm_side_by_side.sh: no such model file: $model" >&2; exit 1; fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load before: $(cat /proc/loadavg)" >&2

forge_run() {  # model round
    if [ -z "$bandwidth" ]; then
        # bench ops --json prints the benchmark record's rows (docs/BENCHMARKS.md).
        "$forge" --quiet --threads "$threads" bench ops --machine --reps 3 --json > "$work/ops.json"
        /usr/bin/python3 -c "import json,sys; print(next(r['median'] for r in json.load(open(sys.argv[1])) if r['name'] == 'machine/read bandwidth'))" \
            "$work/ops.json" > "$work/bandwidth.$3.$2"
    else
        echo "$bandwidth" > "$work/bandwidth.$3.$2"
    fi
    "$forge" --quiet --threads "$threads" bench llm "$1" --prompt "$pp" --gen "$tg" --reps 1 --json > "$work/forge.$3.$2.json"
}
llama_run() {  # model round
    node "$kit/llama_bench.mjs" --model "$1" --pp "$pp" --tg "$tg" --threads "$threads" --reps 1 --warmup 1 \
        --out "$work/llama.$3.$2.json" > /dev/null
}

i=0
for model in "$@"; do
    i=$((i + 1))
    "$forge" --quiet gguf info --json "$model" > "$work/info.$i.json"
    r=1
    while [ "$r" -le "$rounds" ]; do
        if [ $((r % 2)) -eq 1 ]; then
            forge_run "$model" "$r" "$i"; llama_run "$model" "$r" "$i"
        else
            llama_run "$model" "$r" "$i"; forge_run "$model" "$r" "$i"
        fi
        echo "$(basename "$model") round $r/$rounds done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
        r=$((r + 1))
    done
done
echo "load after: $(cat /proc/loadavg)" >&2

/usr/bin/python3 - "$work" "$rounds" "$pp" "$tg" "$threads" "$json_out" "$@" <<'EOF'
import json, os, statistics, sys

work, rounds, pp, tg, threads, json_out = sys.argv[1:7]
models = sys.argv[7:]
rounds = int(rounds)


def load(path):
    with open(path) as f:
        return json.load(f)


def bytes_per_token(info):
    """The matrices one decoded token multiplies: every 2-D weight, except token_embd when the
    file has a separate output head (then only one embedding row is read); of a mixture of
    experts' 3-D expert tensors, the active share, {arch}.expert_used_count of expert_count."""
    tensors = {t["name"]: t for t in info["tensors"]}
    untied = "output.weight" in tensors
    meta = info["metadata"]
    arch = meta.get("general.architecture", "")
    used, experts = meta.get(f"{arch}.expert_used_count", 0), meta.get(f"{arch}.expert_count", 0)
    dense = sum(t["bytes"] for t in tensors.values()
                if len(t["shape"]) == 2 and not (untied and t["name"] == "token_embd.weight"))
    active = sum(t["bytes"] * used // experts for t in tensors.values() if len(t["shape"]) == 3 and experts)
    return dense + active


def types(info):
    counts = {}
    for t in info["tensors"]:
        if len(t["shape"]) >= 2:
            counts[t["type"]] = counts.get(t["type"], 0) + 1
    return "+".join(f"{k}" for k, _ in sorted(counts.items(), key=lambda kv: -kv[1]))


rows, report = [], []
for i, model in enumerate(models, 1):
    info = load(f"{work}/info.{i}.json")
    forge = [load(f"{work}/forge.{i}.{r}.json") for r in range(1, rounds + 1)]
    llama = [load(f"{work}/llama.{i}.{r}.json") for r in range(1, rounds + 1)]
    fp = statistics.median(f["prefill_tok_s"] for f in forge)
    fd = statistics.median(f["decode_tok_s"] for f in forge)
    lp = statistics.median(next(t["median_tps"] for t in l["results"] if t["test"] == f"pp{pp}") for l in llama)
    ld = statistics.median(next(t["median_tps"] for t in l["results"] if t["test"] == f"tg{tg}") for l in llama)
    weights = bytes_per_token(info)
    # The bound of each round: tokens/s if decoding only streamed the weights at the bandwidth
    # measured just before forge's run.
    bandwidths = [float(open(f"{work}/bandwidth.{i}.{r}").read()) * 1e9 for r in range(1, rounds + 1)]
    fractions = [f["decode_tok_s"] * weights / b for f, b in zip(forge, bandwidths)]
    llama_fractions = [next(t["median_tps"] for t in l["results"] if t["test"] == f"tg{tg}") * weights / b
                       for l, b in zip(llama, bandwidths)]
    entry = {"model": model, "types": types(info), "weight_bytes_per_token": weights,
             "forge_prefill_tok_s": fp, "llama_prefill_tok_s": lp, "forge_decode_tok_s": fd, "llama_decode_tok_s": ld,
             "prefill_ratio": fp / lp, "decode_ratio": fd / ld, "decode_bandwidth_fraction": statistics.median(fractions),
             "llama_decode_bandwidth_fraction": statistics.median(llama_fractions),
             "read_bandwidth_gbs": [b / 1e9 for b in bandwidths],
             "foreign_cpu_cores": [l["foreign_cpu_cores"] for l in llama],
             "forge_rounds": [[f["prefill_tok_s"], f["decode_tok_s"]] for f in forge],
             "llama_rounds": [[next(t["median_tps"] for t in l["results"] if t["test"] == f"pp{pp}"),
                               next(t["median_tps"] for t in l["results"] if t["test"] == f"tg{tg}")] for l in llama],
             "forge_peak_rss_mib": max(f["peak_rss_mib"] for f in forge)}
    report.append(entry)
    rows.append(entry)

print(f"{threads} threads, pp{pp} / tg{tg}, median of {rounds} A/B rounds; decode / bound: the median of the rounds' "
      f"tokens/s x bytes/token / read bandwidth (measured before each forge run)")
print(f"| file | weights | forge pp{pp} | llama.cpp pp{pp} | prefill | forge tg{tg} | llama.cpp tg{tg} | decode "
      f"| forge decode / bound | llama.cpp / bound | read GB/s | foreign cores |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for e in rows:
    print(f"| {os.path.basename(e['model'])} | {e['types']}, {e['weight_bytes_per_token'] / 2**20:.1f} MiB/token "
          f"| {e['forge_prefill_tok_s']:.1f} | {e['llama_prefill_tok_s']:.1f} | {e['prefill_ratio']:.2f}x "
          f"| {e['forge_decode_tok_s']:.1f} | {e['llama_decode_tok_s']:.1f} | {e['decode_ratio']:.2f}x "
          f"| {100 * e['decode_bandwidth_fraction']:.0f}% | {100 * e['llama_decode_bandwidth_fraction']:.0f}% "
          f"| {min(e['read_bandwidth_gbs']):.1f}-{max(e['read_bandwidth_gbs']):.1f} "
          f"| {', '.join(f'{c:.2f}' for c in e['foreign_cpu_cores'])} |")
if json_out:
    with open(json_out, "w") as f:
        json.dump({"threads": int(threads), "pp": int(pp), "tg": int(tg), "rounds": rounds, "models": report}, f, indent=1)
EOF
