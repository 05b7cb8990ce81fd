#!/usr/bin/env bash
# Builds forge's bundled speech model (models/asr/bundled/forge-asr.gguf) from scratch, with
# forge alone: synthetic speech from packages -> `forge train asr` (subword vocabulary, log-mel,
# FastConformer-CTC training, Parakeet GGUF export) -> Q8_0 -> evaluation (WER on the held-out voice and
# on the real LibriVox clips beside pocketsphinx, real-time factor). Prints the wall time of
# each stage and of the whole.
#
#   bash tools/train_default_asr.sh [WORK_DIR]      # default WORK_DIR: runs/default-asr
#
# Environment: FORGE (default build/app/forge), THREADS (default 2), STEPS (default 6000), DATA (an existing tools/make_asr_data.sh output to reuse instead of making
# WORK_DIR/asr-data), INSTALL=0 to leave the committed model alone (the result stays in
# WORK_DIR/forge-asr.gguf). A run stopped during training continues where it stopped when the
# script is started again (`forge train asr --resume`, which gives the uninterrupted result).
# The committed model (models/asr/bundled/MODEL_CARD.md) is this recipe's run: 2.6 hours on the
# shared 2 cores, WER 93% on the held-out voice and 96% on the LibriVox clips (a toy).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$root/runs/default-asr}
forge=${FORGE:-$root/build/app/forge}
threads=${THREADS:-2}
steps=${STEPS:-6000}
install=${INSTALL:-1}
data=${DATA:-$work/asr-data}
mkdir -p "$work"
STAGE_PREFIX=train_default_asr
source "$root/tools/stage_timer.sh"

# 6000 training utterances (about 8 h: espeak-ng and flite voices, sox augmentation) and 300
# evaluation ones in flite's slt voice, which never speaks in training.
if [[ ! -f "$data/train.jsonl" || ! -f "$data/eval.jsonl" ]]; then
    [[ -f "$root/corpus/PROVENANCE.md" ]] || bash "$root/tools/get_corpus.sh"
    bash "$root/tools/make_asr_data.sh" --out "$data" --corpus "$root/corpus" --train 6000 --eval 300 --jobs 2
fi
stage "data"

# The default model (2.3 M parameters: 80 mels, d_model 144, 4 layers, 4 heads, ff 576, 256
# subword pieces learned from the transcripts). SpecAugment off: a run of about two epochs
# underfits, and the masks slow it further (the data is already augmented by sox). The first
# epoch from the shortest utterances to the longest (--shortest-first, SortaGrad). Batches of
# 40 s of padded audio; peak learning rate 5e-4 after 100 warmup steps, cosine to 1/20 of it
# (2e-3, the trainer's default, kept this model on the CTC plateau for 1400 steps).
resume=()
[[ -f "$work/run/checkpoint.json" ]] && resume=(--resume)
"$forge" --threads "$threads" train asr --manifest "$data/train.jsonl" --out "$work/run" --vocab 256 \
    --steps "$steps" --lr 5e-4 --batch-seconds 40 --no-spec-augment --shortest-first --checkpoint-every 50 --log-every 50 "${resume[@]}"
stage "vocabulary, log-mel, training and export (forge train asr)"

# Q8_0 where the rows allow it (f16 elsewhere): 3.9 MB instead of 9.3, the same transcripts on every evaluation clip.
"$forge" quantize "$work/run/model.gguf" "$work/forge-asr.gguf" Q8_0
stage "quantize"

meson compile -C "$root/build" asr_wer > /dev/null  # the scorer of eval_asr_librivox.sh
transcriber=("$forge" --threads "$threads" transcribe --model "$work/forge-asr.gguf")
bash "$root/tools/eval_asr_librivox.sh" --manifest "$data/eval.jsonl" -- "${transcriber[@]}" \
    | tee "$work/eval-synthetic.txt" | tail -n 1
bash "$root/tools/eval_asr_librivox.sh" -- "${transcriber[@]}" | tee "$work/eval-librivox.txt" | tail -n 2
"$forge" bench transcribe "$work/forge-asr.gguf" --seconds 10 --reps 5 --threads "$threads" | tee "$work/bench.txt"
stage "evaluation"

if [[ "$install" == 1 ]]; then
    mkdir -p "$root/models/asr/bundled"
    cp "$work/forge-asr.gguf" "$root/models/asr/bundled/forge-asr.gguf"
    # The test's golden: the PyTorch reference's transcripts of the LibriVox clips with the new
    # model, put beside forge's (and checked on 100 held-out clips). Debian's PyTorch, the tools'
    # oracle (not a build or test dependency, so not in tools/bootstrap.sh).
    if ! /usr/bin/python3 -c "import torch" 2> /dev/null; then
        if [[ $(id -u) -eq 0 ]]; then apt-get install -y -qq python3-torch; else sudo apt-get install -y -qq python3-torch; fi
    fi
    /usr/bin/python3 "$root/tools/make_bundled_asr_golden.py" --forge "$forge" --manifest "$data/eval.jsonl" --limit 100 \
        | tee "$work/golden.txt"
    stage "golden (tools/make_bundled_asr_golden.py)"
fi
stages_done "model $work/forge-asr.gguf"
