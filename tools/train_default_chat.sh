#!/usr/bin/env bash
# Rebuilds forge's bundled chat model (models/llm/bundled/forge-chat.gguf) from scratch, with
# forge alone: corpus and conversations from packages -> tokenizer -> GPT pretraining -> SFT
# -> Q8_0 -> evaluation. Prints the wall time of each stage and of the whole.
#
#   bash tools/train_default_chat.sh [WORK_DIR]     # default WORK_DIR: runs/default-chat
#
# Environment: FORGE (default build/app/forge), THREADS (default 2), INSTALL=0 to leave the
# committed model alone (the result stays in WORK_DIR/forge-chat.gguf).
# On the shared 2-core dev machine it took about 75 minutes (see models/llm/bundled/MODEL_CARD.md).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$root/runs/default-chat}
forge=${FORGE:-$root/build/app/forge}
threads=${THREADS:-2}
install=${INSTALL:-1}
python=/usr/bin/python3
mkdir -p "$work"
STAGE_PREFIX=train_default_chat
source "$root/tools/stage_timer.sh"

[[ -f "$root/corpus/PROVENANCE.md" ]] || bash "$root/tools/get_corpus.sh"
if [[ ! -f /usr/share/wordnet/data.noun ]]; then  # WordNet's glosses for the definition questions
    if [[ $(id -u) -eq 0 ]]; then apt-get install -y -qq wordnet-base; else sudo apt-get install -y -qq wordnet-base; fi
fi
corpus=("$root"/corpus/moby-dick.txt "$root"/corpus/jargon.txt "$root"/corpus/sotu/*.txt "$root"/corpus/fortunes/*.txt)
"$python" "$root/tools/make_chat_data.py" --corpus "$root/corpus" --out "$work/chat-data"
stage "data"

"$forge" --threads "$threads" train tokenizer --data "${corpus[@]}" --vocab-size 4096 --pre qwen2 \
    --out "$work/tokenizer.gguf"
stage "tokenizer"

# Width 256 (depth 4), 5.3M parameters, 460 steps of 16 x 256 tokens (1.9M tokens). The short
# warmdown (the last 10 steps) is how the bundled run went: it was planned for 600 steps and cut
# at the checkpoint of step 450 for time, then resumed with these flags, which `--resume`
# accepts because they give the same rates for every step already taken (the result is this
# command's, bit for bit).
"$forge" --threads "$threads" train gpt --data "${corpus[@]}" --tokenizer "$work/tokenizer.gguf" \
    --out "$work/base" --depth 4 --seq-len 256 --batch 16 --steps 460 --warmdown-ratio 0.0217 --eval-every 100 --checkpoint-every 50 \
    --eval-tokens 16384 --matrix-lr 0.3 --embedding-lr 3 --unembedding-lr 0.06 --sample-prompt "The meaning of" --json
stage "pretraining"

# Two rounds of 218 steps of 16 rows of 256 tokens (0.75 epochs each; the second starts from the
# first's export with a fresh schedule and another data order).
"$forge" --threads "$threads" train sft --model "$work/base" --data "$work/chat-data/train.jsonl" \
    --val-data "$work/chat-data/val.jsonl" --out "$work/sft" --epochs 0.75 --batch 16 \
    --eval-every 50 --checkpoint-every 50 --matrix-lr 0.2 --embedding-lr 2 --unembedding-lr 0.04 --json
"$forge" --threads "$threads" train sft --model "$work/sft" --data "$work/chat-data/train.jsonl" \
    --val-data "$work/chat-data/val.jsonl" --out "$work/sft2" --epochs 0.75 --batch 16 --seed 1 \
    --eval-every 50 --checkpoint-every 50 --matrix-lr 0.2 --embedding-lr 2 --unembedding-lr 0.04 --json
stage "sft"

# The drill round: two epochs of drill.jsonl (every training conversation of arithmetic and
# spelling, the skills with one exact answer, plus 4,000 of the other kinds so the round does
# not erase them): 358 steps of 16 rows of 256 tokens. It took held-out arithmetic from 24% to 95%.
"$forge" --threads "$threads" train sft --model "$work/sft2" --data "$work/chat-data/drill.jsonl" \
    --val-data "$work/chat-data/val.jsonl" --out "$work/sft3" --epochs 2 --batch 16 --seed 2 \
    --eval-every 50 --checkpoint-every 50 --matrix-lr 0.2 --embedding-lr 2 --unembedding-lr 0.04 --json
stage "drill"

"$forge" quantize "$work/sft3/model.gguf" "$work/forge-chat.gguf" Q8_0
stage "quantize"

"$python" "$root/tools/eval_chat.py" --forge "$forge" --model "$work/base/model.gguf" --data "$work/chat-data" \
    --limit 100 --json "$work/base.eval.json"
"$python" "$root/tools/eval_chat.py" --forge "$forge" --model "$work/forge-chat.gguf" --bpb-model "$work/sft3/model.gguf" \
    --data "$work/chat-data" --limit 100 --json "$work/sft.eval.json"
stage "evaluation"

if [[ "$install" == 1 ]]; then
    cp "$work/forge-chat.gguf" "$root/models/llm/bundled/forge-chat.gguf"
fi
stages_done "model $work/forge-chat.gguf"
