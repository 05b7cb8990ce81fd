#!/usr/bin/env bash
# Crash safety: kill -9 forge's writers at random moments and check that the file they were
# replacing is either intact or replaced by the complete new one — never torn, never gone.
#
#   bash tools/crash_safety.sh [BUILD] [RUNS]      # default: build, 50 kills per writer
#   WRITERS="quantize checkpoint" bash tools/crash_safety.sh build 50
#
# Writers (each a function below; add one for a new writer):
#   quantize    forge quantize IN OUT Q4_0 over an OUT that holds a Q8_0 quantization
#   nam_export  forge nam profile --simulate --short --epochs 1 (the trainer's .nam export)
#               over a .nam from another seed
#   nam_train   forge nam train --input DI --output REAMP (a short nano training and its
#               export) over a .nam from another seed
#   checkpoint  tools/crash_safety/checkpoint_writer: checkpoint writes (8 MiB) over the
#               previous step's; a torn checkpoint (new tensors, old step) fails verification
#   train_gpt   forge train gpt (a tiny GPT, a checkpoint every step), killed and resumed with
#               --resume again and again: every resume must start (the checkpoint is the old
#               one or a complete new one), a model.gguf left behind must be the finished
#               one, and the run resumed to its end must give the uninterrupted run's losses
#               and model.gguf, bit for bit
# Each run measures one uncut write first (d seconds, measured again every 10 kills as the
# load changes), then kills at a uniformly random moment in [0, 1.2 d] — half the time in the last 20 % of it, where the file is written. Each kill
# prints its outcome as it happens (a long run shows its progress); the script ends with one
# line per writer: "W: N kills, K old intact, M new complete, F failures".
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
runs="${2:-50}"
forge="$build/app/forge"
work="$(mktemp -d /tmp/forge_crash_safety.XXXXXX)"
trap 'rm -rf "$work"' EXIT
summary=()
failed=0

now() { date +%s.%N; }
# A random delay in [0, 1.2 d], half the time in [0.8 d, 1.2 d].
random_delay() {
    awk -v d="$1" -v r1="$RANDOM" -v r2="$RANDOM" 'BEGIN {
        u = r2 / 32768.0; if (r1 % 2) print u * 1.2 * d; else print (0.8 + 0.4 * u) * d }'
}
hash_of() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }

# Runs "$@" in the background, kills it with SIGKILL after `delay` seconds (if still running).
kill_after() {
    local delay="$1"; shift
    "$@" >/dev/null 2>&1 &
    local pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

# Seconds one uncut run of the command $1 takes (fails if the command does).
uncut_seconds() {
    local start; start=$(now)
    eval "$1" >/dev/null 2>&1 || return 1
    awk -v a="$start" -v b="$(now)" 'BEGIN {print b - a}'
}

# One writer: $1 name, $2 the file, $3 a command restoring the old file, $4 a command writing
# the new one, $5 a command that succeeds when the file is a complete new one.
kill_loop() {
    local name="$1" file="$2" restore="$3" write="$4" complete="$5"
    eval "$restore" || { echo "$name: cannot make the old file"; failed=1; return; }
    local old; old=$(hash_of "$file")
    local d; d=$(uncut_seconds "$write") || { echo "$name: the uncut write failed"; failed=1; return; }
    local kept=0 replaced=0 bad=0
    for ((i = 0; i < runs; i++)); do
        # On a shared machine the load drifts: time an uncut write again every 10 kills, so the
        # kills stay spread over the run and its end (where the file is written).
        if ((i > 0 && i % 10 == 0)); then
            eval "$restore"
            local again; again=$(uncut_seconds "$write") && d=$again
        fi
        eval "$restore"
        kill_after "$(random_delay "$d")" bash -c "$write"
        if [[ "$(hash_of "$file")" == "$old" ]]; then
            kept=$((kept + 1)); echo "$name kill $((i + 1))/$runs: old intact"
        elif eval "$complete" >/dev/null 2>&1; then
            replaced=$((replaced + 1)); echo "$name kill $((i + 1))/$runs: new complete"
        else
            bad=$((bad + 1)); echo "$name kill $((i + 1))/$runs: FAILED (neither the old file nor a complete new one)"
            cp "$file" "$work/$name.torn.$i" 2>/dev/null
        fi
    done
    [[ $bad -eq 0 ]] || failed=1
    summary+=("$name: $runs kills (last uncut write $(printf '%.2f' "$d") s), $kept old intact, $replaced new complete, $bad failures")
}

writer_quantize() {
    local in="test/data/llm/qwen3-f32.gguf"
    "$forge" --quiet quantize "$in" "$work/q4.gguf" Q4_0 || return
    "$forge" --quiet quantize "$in" "$work/q8.gguf" Q8_0 || return
    local new; new=$(hash_of "$work/q4.gguf")
    kill_loop quantize "$work/out.gguf" "cp $work/q8.gguf $work/out.gguf" \
        "$forge --quiet quantize $in $work/out.gguf Q4_0" \
        "[[ \$(hash_of $work/out.gguf) == $new ]] && $forge --quiet gguf info $work/out.gguf"
}

writer_nam_export() {
    local train="$forge --quiet nam profile --simulate --short --epochs 1 --ny 2048"
    $train --seed 1 --out "$work/old.nam" >/dev/null 2>&1 || { echo "nam_export: training failed"; failed=1; return; }
    kill_loop nam_export "$work/model.nam" "cp $work/old.nam $work/model.nam" \
        "$train --seed 2 --out $work/model.nam" \
        "$forge --quiet nam info $work/model.nam"
}

writer_nam_train() {
    local signal="$work/di.wav" reamp="$work/reamp.wav"
    "$forge" --quiet nam capture-signal --short "$signal" && "$forge" --quiet nam run default "$signal" "$reamp" \
        || { echo "nam_train: cannot make the DI / reamp pair"; failed=1; return; }
    local train="$forge --quiet nam train --input $signal --output $reamp --arch nano --epochs 1 --ny 2048"
    $train --seed 1 --out "$work/old.nam" >/dev/null 2>&1 || { echo "nam_train: training failed"; failed=1; return; }
    kill_loop nam_train "$work/model.nam" "cp $work/old.nam $work/model.nam" \
        "$train --seed 2 --out $work/model.nam" \
        "$forge --quiet nam info $work/model.nam"
}

# The losses of a train gpt run folder's log.jsonl, one per line.
losses_of() { python3 -c 'import json, sys; [print(json.loads(l)["loss"]) for l in open(sys.argv[1])]' "$1/log.jsonl"; }

writer_train_gpt() {
    local train="$forge --quiet --threads 1 train gpt --data test/data/gpt/corpus.txt --tokenizer test/data/llm/qwen3-f32.gguf
        --depth 1 --seq-len 32 --batch 4 --steps 8 --seed 3 --eval-every 4 --checkpoint-every 1 --eval-tokens 64
        --matrix-lr 2 --embedding-lr 20 --unembedding-lr 0.4"
    local whole="$work/gpt_whole" run="$work/gpt_run"
    local start; start=$(now)
    $train --out "$whole" >/dev/null 2>&1 || { echo "train_gpt: the uncut run failed"; failed=1; return; }
    local d; d=$(awk -v a="$start" -v b="$(now)" 'BEGIN {print b - a}')
    local model; model=$(hash_of "$whole/model.gguf")
    local want; want=$(losses_of "$whole")
    local kept=0 replaced=0 finished=0 bad=0 resumes=0
    rm -rf "$run"
    # Resumes the run to its end and compares it with the uncut one; then starts over.
    finish_and_compare() {
        resumes=$((resumes + 1))
        if ! $train --out "$run" --resume >/dev/null 2>&1; then
            bad=$((bad + 1)); echo "train_gpt: FAILED: --resume after kill $1 did not finish"
        elif [[ "$(hash_of "$run/model.gguf")" != "$model" || "$(losses_of "$run")" != "$want" ]]; then
            bad=$((bad + 1)); echo "train_gpt: FAILED: resumed after kill $1, the losses or model.gguf differ from the uncut run"
        fi
        rm -rf "$run"
    }
    for ((i = 1; i <= runs; i++)); do
        local resume=()
        [[ -f "$run/checkpoint.safetensors" ]] && resume=(--resume)
        local before; before=$(hash_of "$run/checkpoint.safetensors")
        $train --out "$run" "${resume[@]}" >/dev/null 2>&1 &
        local pid=$!
        # Uniform over a whole run: checkpoints are written all along it, not only at its end.
        sleep "$(awk -v d="$d" -v r="$RANDOM" 'BEGIN {print d * r / 32768.0}')"
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        local status=$?
        if [[ $status -eq 137 ]]; then  # killed
            if [[ -f "$run/model.gguf" && "$(hash_of "$run/model.gguf")" != "$model" ]]; then
                bad=$((bad + 1)); echo "train_gpt kill $i/$runs: FAILED (a torn model.gguf)"
            elif [[ "$(hash_of "$run/checkpoint.safetensors")" == "$before" ]]; then
                kept=$((kept + 1)); echo "train_gpt kill $i/$runs: old checkpoint intact"
            else
                replaced=$((replaced + 1)); echo "train_gpt kill $i/$runs: new checkpoint"
            fi
            # Every few kills, and after the last, the resumed run must reach the uncut run's end.
            if (( i % 5 == 0 || i == runs )); then finish_and_compare "$i"; fi
        elif [[ $status -eq 0 ]]; then  # it ended before the kill, as the uncut run did
            finished=$((finished + 1)); echo "train_gpt kill $i/$runs: finished before the kill"
            [[ "$(hash_of "$run/model.gguf")" == "$model" ]] || { bad=$((bad + 1)); echo "train_gpt: FAILED: the model differs"; }
            rm -rf "$run"
        else  # it failed on its own: the last kill's checkpoint could not be resumed
            bad=$((bad + 1)); echo "train_gpt kill $i/$runs: FAILED (exit $status resuming the last kill's checkpoint)"
            rm -rf "$run"
        fi
    done
    [[ $bad -eq 0 ]] || failed=1
    summary+=("train_gpt: $runs runs (uncut run $(printf '%.2f' "$d") s), $((kept + replaced)) killed: $kept old checkpoint intact, $replaced new checkpoint; $finished finished before the kill; $resumes resumed to the end and compared; $bad failures")
}

writer_checkpoint() {
    local tool="$build/tools/checkpoint_writer"
    local base="$work/ckpt"
    # Old = step 1; each write is step 2. verify fails on a torn mix, and must say 1 or 2.
    kill_loop checkpoint "$base.json" "rm -f $base.*; $tool write $base 1 8" \
        "$tool write $base 2 8" \
        "[[ \$($tool verify $base) == 2 ]]"
    # kill_loop compares the JSON only; check the tensors behind the kept JSONs too.
    for ((i = 0; i < runs; i++)); do
        rm -f "$base".*
        "$tool" write "$base" 1 8
        kill_after "$(random_delay 0.3)" "$tool" write "$base" 2 8
        step=$("$tool" verify "$base") || { echo "checkpoint: torn after kill $i"; failed=1; continue; }
        [[ "$step" == 1 || "$step" == 2 ]] || { echo "checkpoint: step $step"; failed=1; }
    done
}

for writer in ${WRITERS:-quantize checkpoint nam_export nam_train train_gpt}; do
    echo "=== $writer: $runs kills"
    "writer_$writer"
done
printf '%s\n' "${summary[@]}"
exit $failed
