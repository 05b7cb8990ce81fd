#!/usr/bin/env bash
# Rebuilds the bundled chat model's draft model (models/llm/bundled/forge-chat-draft.gguf) from
# scratch, with forge alone: the recipe of tools/train_default_chat.sh scaled down to depth 2,
# on the bundled model's own tokenizer (so the two share their vocabulary, which --spec draft
# checks) -> GPT pretraining -> an SFT round and the drill round -> Q8_0 -> how often its
# guesses are kept when it drafts for the bundled model. Prints the wall time of each stage.
#
#   bash tools/train_draft_chat.sh [WORK_DIR]     # default WORK_DIR: runs/draft-chat
#
# Environment: FORGE (default build/app/forge), THREADS (default 2), INSTALL=0 to leave the
# committed draft alone (the result stays in WORK_DIR/forge-chat-draft.gguf).
# On the shared 2-core dev machine it took about 25 minutes (see models/llm/bundled/MODEL_CARD.md).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$root/runs/draft-chat}
forge=${FORGE:-$root/build/app/forge}
threads=${THREADS:-2}
install=${INSTALL:-1}
python=/usr/bin/python3
target=$root/models/llm/bundled/forge-chat.gguf
mkdir -p "$work"
STAGE_PREFIX=train_draft_chat
source "$root/tools/stage_timer.sh"

[[ -f "$root/corpus/PROVENANCE.md" ]] || bash "$root/tools/get_corpus.sh"
if [[ ! -f /usr/share/wordnet/data.noun ]]; then  # WordNet's glosses for the definition questions
    if [[ $(id -u) -eq 0 ]]; then apt-get install -y -qq wordnet-base; else sudo apt-get install -y -qq wordnet-base; fi
fi
corpus=("$root"/corpus/moby-dick.txt "$root"/corpus/jargon.txt "$root"/corpus/sotu/*.txt "$root"/corpus/fortunes/*.txt)
"$python" "$root/tools/make_chat_data.py" --corpus "$root/corpus" --out "$work/chat-data"
stage "data"

# Depth 2 (width 128, one head of 128), 1.47M parameters, on the bundled model's tokenizer (its
# GGUF carries the vocabulary and the chat template): 400 steps of 16 x 256 tokens (1.6M tokens),
# the bundled model's learning rates.
"$forge" --threads "$threads" train gpt --data "${corpus[@]}" --tokenizer "$target" \
    --out "$work/base" --depth 2 --seq-len 256 --batch 16 --steps 400 --eval-every 200 --checkpoint-every 100 \
    --eval-tokens 16384 --matrix-lr 0.3 --embedding-lr 3 --unembedding-lr 0.06 --sample-prompt "The meaning of" --json
stage "pretraining"

# The bundled model's SFT scaled down: one round of 0.75 epochs (where it has two), then the
# drill round for one epoch (where it has two): arithmetic and spelling, whose answers the
# bundled model gives exactly, so a draft that learned them too has its guesses kept there.
"$forge" --threads "$threads" train sft --model "$work/base" --data "$work/chat-data/train.jsonl" \
    --val-data "$work/chat-data/val.jsonl" --out "$work/sft" --epochs 0.75 --batch 16 \
    --eval-every 100 --checkpoint-every 50 --matrix-lr 0.2 --embedding-lr 2 --unembedding-lr 0.04 --json
stage "sft"
"$forge" --threads "$threads" train sft --model "$work/sft" --data "$work/chat-data/drill.jsonl" \
    --val-data "$work/chat-data/val.jsonl" --out "$work/sft3" --epochs 1 --batch 16 --seed 2 \
    --eval-every 100 --checkpoint-every 50 --matrix-lr 0.2 --embedding-lr 2 --unembedding-lr 0.04 --json
stage "drill"

"$forge" quantize "$work/sft3/model.gguf" "$work/forge-chat-draft.gguf" Q8_0
stage "quantize"

# What matters in a draft: how many of its guesses the bundled model keeps (greedy).
"$python" "$root/tools/draft_acceptance.py" --forge "$forge" --target "$target" --draft "$work/forge-chat-draft.gguf" \
    --data "$work/chat-data/val.jsonl" --limit 100 --threads "$threads"
stage "acceptance"

if [[ "$install" == 1 ]]; then
    cp "$work/forge-chat-draft.gguf" "$root/models/llm/bundled/forge-chat-draft.gguf"
fi
stages_done "model $work/forge-chat-draft.gguf"
