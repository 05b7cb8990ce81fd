#!/usr/bin/env python3
"""Write tokenizer-only GGUF files (no tensors) from Hugging Face tokenizer.json files.

They carry exactly the tokenizer.ggml.* keys llama.cpp reads, so llama.cpp (vocab_only) and
forge can tokenize with the same vocabulary. Used to make the committed fixtures in
test/data/llm_text/ (see docs/LLM.md); needs only the Python standard library.

  python3 make_tokenizer_gguf.py --kind qwen3 --pre qwen2 --tokenizer-dir DIR -o out.gguf
  python3 make_tokenizer_gguf.py --kind llama3 --pre llama-bpe --tokenizer-dir DIR -o out.gguf
  python3 make_tokenizer_gguf.py --kind spm --tokenizer-dir DIR(llama2) -o out.gguf

--kind spm turns a Llama-2 style tokenizer.json (BPE with byte_fallback over "▁" pieces) into a
SentencePiece vocabulary: <0xXX> byte tokens (type 6), <unk> (2), <s> </s> (3), and a score of
-id for every other piece (SentencePiece BPE models score pieces by merge order, so earlier =
higher). A few user-defined tokens can be appended with --user-token.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gguf_writer  # noqa: E402  (tools/gguf_writer.py)
from gguf_writer import ARRAY as T_ARRAY, BOOL as T_BOOL, F32 as T_F32, I32 as T_I32, STRING as T_STRING, U32 as T_U32  # noqa: E402

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, BYTE = 1, 2, 3, 4, 6


def load(tok_dir):
    with open(os.path.join(tok_dir, "tokenizer.json"), encoding="utf-8") as f:
        tj = json.load(f)
    with open(os.path.join(tok_dir, "tokenizer_config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    return tj, cfg


def vocab_list(tj):
    vocab = dict(tj["model"]["vocab"])
    for t in tj["added_tokens"]:
        vocab[t["content"]] = t["id"]
    n = max(vocab.values()) + 1
    tokens = ["[PAD%d]" % i for i in range(n)]
    for text, i in vocab.items():
        tokens[i] = text
    return tokens


def merges_list(tj):
    return [m if isinstance(m, str) else " ".join(m) for m in tj["model"]["merges"]]


# llama.cpp reads the architecture's hyperparameters even for a vocab-only load.
ARCH_KVS = [
    ("general.architecture", T_STRING, "llama"),
    ("llama.context_length", T_U32, 4096),
    ("llama.embedding_length", T_U32, 64),
    ("llama.block_count", T_U32, 1),
    ("llama.feed_forward_length", T_U32, 128),
    ("llama.attention.head_count", T_U32, 1),
    ("llama.attention.layer_norm_rms_epsilon", T_F32, 1e-6),
]


def bpe_kvs(tj, cfg, pre, bos, eos, add_bos):
    tokens = vocab_list(tj)
    types = [NORMAL] * len(tokens)
    for t in tj["added_tokens"]:
        # As make_gguf.py in the oracle kit and llama.cpp's converter: "special" added tokens
        # are control tokens, the others user-defined (matched even without parse_special).
        control = t["special"] or (t["content"].startswith("<|") and t["content"].endswith("|>"))
        types[t["id"]] = CONTROL if control else USER_DEFINED
    kvs = ARCH_KVS + [
        ("tokenizer.ggml.model", T_STRING, "gpt2"),
        ("tokenizer.ggml.pre", T_STRING, pre),
        ("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens)),
        ("tokenizer.ggml.token_type", T_ARRAY, (T_I32, types)),
        ("tokenizer.ggml.merges", T_ARRAY, (T_STRING, merges_list(tj))),
        ("tokenizer.ggml.bos_token_id", T_U32, tokens.index(bos)),
        ("tokenizer.ggml.eos_token_id", T_U32, tokens.index(eos)),
        ("tokenizer.ggml.add_bos_token", T_BOOL, add_bos),
    ]
    if isinstance(cfg.get("chat_template"), str):
        kvs.append(("tokenizer.chat_template", T_STRING, cfg["chat_template"]))
    return kvs


def spm_kvs(tj, user_tokens):
    tokens = vocab_list(tj) + list(user_tokens)
    scores, types = [], []
    for i, text in enumerate(tokens):
        if text == "<unk>":
            types.append(UNKNOWN); scores.append(0.0)
        elif text in ("<s>", "</s>"):
            types.append(CONTROL); scores.append(0.0)
        elif text.startswith("<0x") and len(text) == 6:
            types.append(BYTE); scores.append(0.0)
        elif i >= len(tokens) - len(user_tokens):
            types.append(USER_DEFINED); scores.append(0.0)
        else:
            types.append(NORMAL); scores.append(-float(i))
    return ARCH_KVS + [
        ("tokenizer.ggml.model", T_STRING, "llama"),
        ("tokenizer.ggml.pre", T_STRING, "default"),
        ("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens)),
        ("tokenizer.ggml.scores", T_ARRAY, (T_F32, scores)),
        ("tokenizer.ggml.token_type", T_ARRAY, (T_I32, types)),
        ("tokenizer.ggml.bos_token_id", T_U32, tokens.index("<s>")),
        ("tokenizer.ggml.eos_token_id", T_U32, tokens.index("</s>")),
        ("tokenizer.ggml.unknown_token_id", T_U32, tokens.index("<unk>")),
        ("tokenizer.ggml.add_bos_token", T_BOOL, True),
        ("tokenizer.ggml.add_eos_token", T_BOOL, False),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", choices=["qwen3", "llama3", "spm"], required=True)
    ap.add_argument("--pre", default=None, help="tokenizer.ggml.pre (BPE kinds)")
    ap.add_argument("--tokenizer-dir", required=True)
    ap.add_argument("--user-token", action="append", default=[])
    ap.add_argument("-o", "--out", required=True, help="output path; .gz compresses")
    a = ap.parse_args()
    tj, cfg = load(a.tokenizer_dir)
    if a.kind == "qwen3":
        kvs = bpe_kvs(tj, cfg, a.pre or "qwen2", "<|endoftext|>", "<|im_end|>", False)
    elif a.kind == "llama3":
        kvs = bpe_kvs(tj, cfg, a.pre or "llama-bpe", "<|begin_of_text|>", "<|eot_id|>", True)
    else:
        kvs = spm_kvs(tj, a.user_token)
    gguf_writer.write(a.out, kvs)
    print(a.out, os.path.getsize(a.out))


if __name__ == "__main__":
    main()
