#!/usr/bin/python3
"""Regenerate the BERT-family oracle goldens in test/data/bert/ (needs the llama.cpp oracle kit).

  cp -r /work/shared/oracles/llm /tmp/llm-oracles && bash /tmp/llm-oracles/setup.sh
  /usr/bin/python3 tools/make_bert_goldens.py --kit /tmp/llm-oracles

For each model: NAME.gguf (tools/make_bert_gguf.py: random weights, 2 layers, n_embd 64, the
script's own WordPiece vocabulary) and NAME.json (tools/bert_oracle.mjs: llama.cpp's token ids
and pooled vectors for TEXTS, or raw classifier scores for PAIRS). test/models/bert/ compares
forge against these files and needs neither node nor the network.
"""
import argparse
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"
# Cased, accented, CJK, punctuation, symbols, whitespace runs, an emoji (no token: [UNK]),
# a control character, special-token text (not parsed) and a word split into pieces.
TEXTS = ["Hello, world!", "The quick brown fox jumps over the lazy dog.", "Café naïve résumé ÜBER Zürich",
         "東京は日本語の中文字", "unbelievable playfulness", "what is a vector search?!", "  tabs\tand\nnewlines  ",
         "straße ß", "emoji \U0001F642 and control\u0007 chars", "[CLS] not special [SEP]", "x",
         "a$b^c~d…e—f«g»"]
PAIRS = [["what is a vector search?", "a vector search ranks documents by score"],
         ["what is a vector search?", "the quick brown fox"], ["hello", "hello world"]]
# name: make_bert_gguf.py arguments
MODELS = {
    "bert-mean": ["--arch", "bert", "--pooling", "mean", "--seed", "1"],
    "bert-cls": ["--arch", "bert", "--pooling", "cls", "--seed", "2"],
    "nomic-bert-mean": ["--arch", "nomic-bert", "--pooling", "mean", "--seed", "3"],
    "bert-rank": ["--arch", "bert", "--pooling", "rank", "--seed", "4"],
    # The formats embedding GGUFs are downloaded in: every matrix and table f16, or Q8_0.
    "bert-f16-mean": ["--arch", "bert", "--pooling", "mean", "--seed", "5", "--dtype", "f16"],
    "nomic-bert-q8_0-mean": ["--arch", "nomic-bert", "--pooling", "mean", "--seed", "6", "--dtype", "q8_0"],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kit", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "test", "data", "bert"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        texts, pairs = os.path.join(tmp, "texts.json"), os.path.join(tmp, "pairs.json")
        with open(texts, "w", encoding="utf-8") as f:
            json.dump(TEXTS, f, ensure_ascii=False)
        with open(pairs, "w", encoding="utf-8") as f:
            json.dump(PAIRS, f, ensure_ascii=False)
        for name, make_args in MODELS.items():
            gguf = os.path.join(a.out, name + ".gguf")
            subprocess.run([PY, os.path.join(HERE, "make_bert_gguf.py"), "--kit", a.kit, "-o", gguf, *make_args], check=True)
            inputs = ["--pairs", pairs] if "rank" in name else ["--texts", texts]
            result = subprocess.run(["node", os.path.join(HERE, "bert_oracle.mjs"), "--kit", a.kit, "--model", gguf, *inputs],
                                    check=True, capture_output=True, text=True)
            with open(os.path.join(a.out, name + ".json"), "w", encoding="utf-8") as f:
                json.dump(json.loads(result.stdout), f, ensure_ascii=False, indent=0)
            print(f"wrote {name}.gguf and {name}.json")


if __name__ == "__main__":
    main()
