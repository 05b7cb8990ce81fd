#!/usr/bin/env bash
# Word error rate of a speech recogniser on real speech: the five LibriVox clips of Debian
# pocketsphinx-testdata (Jane Austen, *Sense and Sensibility*, read by a human, 16 kHz, 71
# words), printed beside pocketsphinx's own result on them (its test-lm.match: 28.17%, 20
# errors in 71 words). Never train on these clips or their sentences.
#
#   bash tools/eval_asr_librivox.sh [--asr-wer PATH] [--manifest FILE.jsonl] -- COMMAND [ARGS...]
#
# COMMAND ARGS... CLIP.wav must print the clip's transcript on stdout (one line; extra lines
# are joined by spaces), e.g.
#   bash tools/eval_asr_librivox.sh -- ./build/app/forge transcribe
# With --manifest, the utterances of a JSONL manifest of tools/make_asr_data.sh (its "audio"
# relative to the manifest's folder, its "text") are scored instead, without the pocketsphinx
# column: the held-out-voice synthetic set is  --manifest data/asr/eval.jsonl.
# Scoring: build/tools/asr_wer (models/asr/wer.h: lower case, punctuation removed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
asr_wer=$root/build/tools/asr_wer
manifest=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --asr-wer) asr_wer=$2; shift 2 ;;
        --manifest) manifest=$2; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
if [[ $# -eq 0 ]]; then
    echo "eval_asr_librivox: no transcriber command (see --help)" >&2
    exit 2
fi
[[ -x "$asr_wer" ]] || { echo "eval_asr_librivox: no scorer at $asr_wer (build forge first, or --asr-wer)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ID<TAB>AUDIO<TAB>REFERENCE lines of the clips to score.
if [[ -n "$manifest" ]]; then
    [[ -f "$manifest" ]] || { echo "eval_asr_librivox: no manifest $manifest" >&2; exit 2; }
    /usr/bin/python3 - "$manifest" > "$work/clips" <<'PY'
import json, os, sys
base = os.path.dirname(os.path.abspath(sys.argv[1]))
with open(sys.argv[1], encoding="utf-8") as f:
    for number, line in enumerate(f, 1):
        if line.strip():
            entry = json.loads(line)
            print(f"{os.path.splitext(os.path.basename(entry['audio']))[0]}\t{os.path.join(base, entry['audio'])}\t{entry['text']}")
PY
else
    data=/usr/share/pocketsphinx/test/data/librivox
    [[ -f "$data/transcription" ]] || { echo "eval_asr_librivox: $data missing: apt-get install pocketsphinx-testdata" >&2; exit 2; }
    # "<s> words </s> (ID)" -> ID, clip, words
    sed -E 's#^<s> (.*) </s> \((.*)\)$#\2\t'"$data"'/\2.wav\t\1#' "$data/transcription" > "$work/clips"
    # "words (ID SCORE)" -> ID<TAB>words
    sed -E 's#^(.*) \(([^ ]+) [-0-9]+\)$#\2\t\1#' "$data/test-lm.match" > "$work/pocketsphinx"
fi
cut -f1,3 "$work/clips" > "$work/references"

while IFS=$'\t' read -r id audio _; do
    text=$("$@" "$audio" < /dev/null | tr '\n' ' ') || { echo "eval_asr_librivox: '$*' failed on $audio" >&2; exit 1; }
    printf '%s\t%s\n' "$id" "$text" >> "$work/hypotheses"
done < "$work/clips"

echo "== $*"
"$asr_wer" "$work/references" "$work/hypotheses"
if [[ -z "$manifest" ]]; then
    echo "== pocketsphinx (test-lm.match)"
    "$asr_wer" "$work/references" "$work/pocketsphinx" | tail -1
fi
