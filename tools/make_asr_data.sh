#!/usr/bin/env bash
# Synthetic labelled speech for training forge's bundled ASR model, only from Debian packages
# (espeak-ng, flite, sox) and the prose corpus of tools/get_corpus.sh, with provenance.
# Never commit what this writes: data/ is git-ignored. docs/ASR_TRAINING.md describes it.
#
#   bash tools/make_asr_data.sh [--out DIR] [--corpus DIR] [--train N] [--eval N] [--seed S] [--jobs J]
#
# Defaults: --out data/asr, --corpus corpus (made by tools/get_corpus.sh when missing),
# --train 2000, --eval 200, --seed 17, --jobs 2. It runs under `nice -n 15`.
#
# What it writes:
#   DIR/wav/train/NNNNNN.wav   16 kHz mono 16-bit, many voices, augmented with sox
#   DIR/wav/eval/NNNNNN.wav    the held-out voice (flite slt), held-out sentences, clean
#   DIR/train.jsonl, eval.jsonl {"audio", "text", "duration", "voice", "rate", "pitch", "augment", "source"}
#   DIR/PROVENANCE.md          package versions, sentence counts and filters, CPU cost
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/data/asr
corpus=$root/corpus
args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --corpus) corpus=$2; shift 2 ;;
        --train|--eval|--seed|--jobs) args+=("$1" "$2"); shift 2 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "make_asr_data: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

sudo_if_needed() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

missing=()
for package in espeak-ng flite sox libsox-fmt-all pocketsphinx-testdata; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "make_asr_data: installing ${missing[*]}"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

if [[ ! -d "$corpus" ]]; then
    echo "make_asr_data: no corpus at $corpus; running tools/get_corpus.sh"
    bash "$root/tools/get_corpus.sh" "$corpus"
fi

mkdir -p "$out"
exec nice -n 15 /usr/bin/python3 "$root/tools/asr_data/synthesize.py" --corpus "$corpus" --out "$out" "${args[@]}"
