#!/usr/bin/env bash
# llama.cpp's token ids for tokenizers that `forge train tokenizer` trains on the committed
# test/data/llm_text/bpe_training_text.txt (vocabulary 512, pre-tokenizers llama-bpe and
# qwen2): test/data/llm_text/trained_bpe_ids.json, which bpe_trainer_test.cpp compares with
# the tokenizer it trains itself (training is deterministic, so it is the same tokenizer).
#
#   bash tools/llm_text/make_trained_bpe_golden.sh BUILD_DIR [ORACLE_KIT]
#
# ORACLE_KIT: a folder with node-llama-cpp installed (default /work/oracle-llm; see
# ../shared/ORACLES.md). The texts are corpus.json's plus a few in the trained vocabulary's
# own format (chat turns, numbers, whitespace runs).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: make_trained_bpe_golden.sh BUILD_DIR [ORACLE_KIT]}
kit=${2:-/work/oracle-llm}
data=$root/test/data/llm_text
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for pre in llama-bpe qwen2; do
    "$build/app/forge" train tokenizer --data "$data/bpe_training_text.txt" --vocab-size 512 --pre "$pre" \
        --out "$tmp/trained-$pre.gguf" --json
done

/usr/bin/python3 - "$data/corpus.json" "$tmp/corpus.json" <<'PY'
import json, sys
texts = json.load(open(sys.argv[1], encoding="utf-8"))
texts += [
    "<|bos|><|user_start|>What is 2+2?<|user_end|><|assistant_start|>4<|assistant_end|>",
    "<|user_start|>Be brief.\n\nHi<|user_end|><|assistant_start|>",
    "<|bos|>the tokenizer merges bytes<|bos|>and pairs",
    "<|assistant_end|><|assistant_end|> <|user_end|>\n",
    "Numbers 1 12 123 1234 12345 123456 1234567 and 2026-12-03, 3.14159, $1,000,000",
    "they're HERE'S we'll DON'T I'm you've she'd",
    "Training trained tokenizers:   merging  pairs\t\tof\n\n\nbytes\r\n",
    "naïve café résumé Straße Привет мир 日本語 テキスト 你好 世界 한국어 😀 👍🏽 🇩🇪",
]
json.dump(texts, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)
PY

cp "$root/tools/llm_text/tokenize_oracle.mjs" "$kit/forge_tokenize_oracle.mjs"
(cd "$kit" && node forge_tokenize_oracle.mjs "$tmp/corpus.json" "$data/trained_bpe_ids.json" \
    "llama-bpe=$tmp/trained-llama-bpe.gguf" "qwen2=$tmp/trained-qwen2.gguf")
rm -f "$kit/forge_tokenize_oracle.mjs"
