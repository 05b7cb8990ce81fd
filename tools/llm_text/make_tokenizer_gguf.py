#!/usr/bin/env python3
"""Write tokenizer-only GGUF files (no tensors) from Hugging Face tokenizer.json files.

They carry exactly the tokenizer.ggml.* keys llama.cpp reads, so llama.cpp (vocab_only) and
forge can tokenize with the same vocabulary. Used to make the committed fixtures in
test/data/llm_text/ (see docs/LLM.md); needs only the Python standard library.

  python3 make_tokenizer_gguf.py --kind qwen3 --pre qwen2 --tokenizer-dir DIR -o out.gguf
  python3 make_tokenizer_gguf.py --kind llama3 --pre llama-bpe --tokenizer-dir DIR -o out.gguf
  python3 make_tokenizer_gguf.py --kind spm --tokenizer-dir DIR(llama2) -o out.gguf
  python3 make_tokenizer_gguf.py --kind o200k --tokenizer-dir DIR(gpt4o) --chat-template T.jinja -o out.gguf
  python3 make_tokenizer_gguf.py --kind gemma3 --tokenizer-dir DIR(gemma3) -o out.gguf

--kind spm turns a Llama-2 style tokenizer.json (BPE with byte_fallback over "▁" pieces) into a
SentencePiece vocabulary: <0xXX> byte tokens (type 6), <unk> (2), <s> </s> (3), and a score of
-id for every other piece (SentencePiece BPE models score pieces by merge order, so earlier =
higher). A few user-defined tokens can be appended with --user-token.

--kind o200k makes gpt-oss's vocabulary (o200k_harmony) from GPT-4o's tokenizer.json: the
199,998 o200k_base tokens and merges, then gpt-oss's special tokens at their published ids
(<|startoftext|> 199998 ... <|call|> 200012, <|reserved_N|> up to 201087), pre "gpt-4o".

--kind gemma3 makes Gemma 3's SentencePiece vocabulary as llama.cpp's converter does
(convert_hf_to_gguf.py, _create_vocab_sentencepiece + added_tokens_decoder): 262,144 pieces,
byte pieces type 6, special added tokens control (3, also <unusedN>), the other added tokens
user-defined (4) with "▁" written as a space (Gemma's whitespace-run and "\n" tokens),
add_space_prefix false, <bos> added. Scores: -id per piece (no sentencepiece scores in the
package), -1000 for added tokens as the converter writes.

--keep-ids IDS.json:NAME cuts a big vocabulary down to a small committed fixture that tokenizes the
texts of IDS.json (tokenize_oracle.mjs output, the vocabulary NAME in it) exactly as the whole one
does, with the same ids: it keeps the tokens llama.cpp produced, every piece they are merged
from (recursively, through the tokenizer.json merges), the byte tokens and all non-normal
tokens; every other id becomes an unused "[PADn]" (type 5) and merges that make no kept token
are dropped. Why the ids cannot change: a merge llama.cpp applied makes a kept piece and stays,
and dropping merges that were never applied leaves the best applicable merge the same at every
step (both for BPE ranks and SentencePiece scores). tokenize_oracle.mjs on the cut file must
give the same ids as on the whole one (docs/LLM.md shows the check).
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


# gpt-oss's special tokens (o200k_harmony, openai/harmony); every other id from 199998 to
# 201087 is <|reserved_N|>.
HARMONY_SPECIALS = {
    199998: "<|startoftext|>", 199999: "<|endoftext|>", 200002: "<|return|>", 200003: "<|constrain|>",
    200005: "<|channel|>", 200006: "<|start|>", 200007: "<|end|>", 200008: "<|message|>",
    200012: "<|call|>", 200018: "<|endofprompt|>",
}
HARMONY_VOCAB_SIZE = 201088


def o200k_kvs(tj, chat_template):
    base = {text: i for text, i in tj["model"]["vocab"].items() if i < 199998}
    tokens = [None] * HARMONY_VOCAB_SIZE
    for text, i in base.items():
        tokens[i] = text
    types = [NORMAL] * HARMONY_VOCAB_SIZE
    for i in range(199998, HARMONY_VOCAB_SIZE):
        tokens[i] = HARMONY_SPECIALS.get(i, "<|reserved_%d|>" % i)
        types[i] = CONTROL
    assert None not in tokens, "o200k_base must fill ids 0..199997"
    kvs = ARCH_KVS + [
        ("tokenizer.ggml.model", T_STRING, "gpt2"),
        ("tokenizer.ggml.pre", T_STRING, "gpt-4o"),
        ("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens)),
        ("tokenizer.ggml.token_type", T_ARRAY, (T_I32, types)),
        ("tokenizer.ggml.merges", T_ARRAY, (T_STRING, merges_list(tj))),
        ("tokenizer.ggml.bos_token_id", T_U32, 199998),
        ("tokenizer.ggml.eos_token_id", T_U32, 200002),
        ("tokenizer.ggml.padding_token_id", T_U32, 199999),
        ("tokenizer.ggml.add_bos_token", T_BOOL, False),
    ]
    if chat_template:
        kvs.append(("tokenizer.chat_template", T_STRING, chat_template))
    return kvs


def looks_special(text):
    # convert_hf_to_gguf.py's does_token_look_special
    return (text in ("<pad>", "<mask>", "<2mass>", "[@BOS@]") or (text.startswith("<|") and text.endswith("|>"))
            or (text.startswith("<unused") and text.endswith(">")))


def gemma3_kvs(tj, cfg):
    n = 262144  # Gemma 3's vocab_size; <image_soft_token> (262144) lies beyond it, as in the converter
    tokens = [None] * n
    for text, i in tj["model"]["vocab"].items():
        if i < n:
            tokens[i] = text
    types, scores = [NORMAL] * n, [-float(i) for i in range(n)]
    for i, text in enumerate(tokens):
        if text.startswith("<0x") and len(text) == 6:
            types[i], scores[i] = BYTE, 0.0
    for t in tj["added_tokens"]:
        i, text = t["id"], t["content"]
        if i >= n:
            continue
        if t["special"] or looks_special(text):
            types[i] = CONTROL
        else:
            types[i], text = USER_DEFINED, text.replace("\u2581", " ")
        tokens[i], scores[i] = text, -1000.0
    assert None not in tokens
    kvs = ARCH_KVS + [
        ("tokenizer.ggml.model", T_STRING, "llama"),
        ("tokenizer.ggml.pre", T_STRING, "default"),
        ("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens)),
        ("tokenizer.ggml.scores", T_ARRAY, (T_F32, scores)),
        ("tokenizer.ggml.token_type", T_ARRAY, (T_I32, types)),
        ("tokenizer.ggml.bos_token_id", T_U32, tokens.index("<bos>")),
        ("tokenizer.ggml.eos_token_id", T_U32, tokens.index("<eos>")),
        ("tokenizer.ggml.unknown_token_id", T_U32, tokens.index("<unk>")),
        ("tokenizer.ggml.padding_token_id", T_U32, tokens.index("<pad>")),
        ("tokenizer.ggml.add_bos_token", T_BOOL, True),
        ("tokenizer.ggml.add_eos_token", T_BOOL, False),
        ("tokenizer.ggml.add_space_prefix", T_BOOL, False),
    ]
    if isinstance(cfg.get("chat_template"), str):
        kvs.append(("tokenizer.chat_template", T_STRING, cfg["chat_template"]))
    return kvs


def kv_index(kvs, key):
    return next(i for i, kv in enumerate(kvs) if kv[0] == key)


def cut_to(kvs, tj, keep_ids):
    """Keeps what tokenizing the golden texts needs (see --keep-ids)."""
    path, name = keep_ids.rsplit(":", 1)
    with open(path, encoding="utf-8") as f:
        goldens = {name: json.load(f)[name]}
    tokens = list(kvs[kv_index(kvs, "tokenizer.ggml.tokens")][2][1])
    types = list(kvs[kv_index(kvs, "tokenizer.ggml.token_type")][2][1])
    keep = {i for i, t in enumerate(types) if t != NORMAL}
    if any(kv[0] == "tokenizer.ggml.merges" for kv in kvs):
        keep |= {i for i, text in enumerate(tokens) if len(text) == 1}  # byte-level BPE: the 256 bytes
    for entries in goldens.values():
        for e in entries:
            keep.update(e["no_special"])
            keep.update(e["special"])
    made_by = {}  # piece -> the merges that make it
    for m in merges_list(tj):
        left, right = m.split(" ", 1)
        made_by.setdefault(left + right, []).append((left, right))
    ids = {text: i for i, text in enumerate(tokens)}
    todo = [tokens[i] for i in keep]
    kept_text = set(todo)
    while todo:
        for left, right in made_by.get(todo.pop(), []):
            for part in (left, right):
                if part in ids and part not in kept_text:
                    kept_text.add(part)
                    keep.add(ids[part])
                    todo.append(part)
    for i in range(len(tokens)):
        if i not in keep:
            tokens[i], types[i] = "[PAD%d]" % i, 5
    out = list(kvs)
    out[kv_index(out, "tokenizer.ggml.tokens")] = ("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens))
    out[kv_index(out, "tokenizer.ggml.token_type")] = ("tokenizer.ggml.token_type", T_ARRAY, (T_I32, types))
    if any(kv[0] == "tokenizer.ggml.merges" for kv in out):
        merges = [m for m in merges_list(tj) if m.replace(" ", "", 1) in kept_text]
        out[kv_index(out, "tokenizer.ggml.merges")] = ("tokenizer.ggml.merges", T_ARRAY, (T_STRING, merges))
    if any(kv[0] == "tokenizer.ggml.scores" for kv in out):
        scores = list(out[kv_index(out, "tokenizer.ggml.scores")][2][1])
        scores = [s if i in keep else 0.0 for i, s in enumerate(scores)]
        out[kv_index(out, "tokenizer.ggml.scores")] = ("tokenizer.ggml.scores", T_ARRAY, (T_F32, scores))
    print("kept %d of %d tokens" % (len(keep), len(tokens)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", choices=["qwen3", "llama3", "spm", "o200k", "gemma3"], required=True)
    ap.add_argument("--pre", default=None, help="tokenizer.ggml.pre (BPE kinds)")
    ap.add_argument("--tokenizer-dir", required=True)
    ap.add_argument("--user-token", action="append", default=[])
    ap.add_argument("--keep-ids", help="IDS.json:NAME, cut to what these goldens' texts need (see above)")
    ap.add_argument("--chat-template", help="a .jinja file for tokenizer.chat_template (o200k)")
    ap.add_argument("-o", "--out", required=True, help="output path; .gz compresses")
    a = ap.parse_args()
    tj, cfg = load(a.tokenizer_dir)
    if a.kind == "qwen3":
        kvs = bpe_kvs(tj, cfg, a.pre or "qwen2", "<|endoftext|>", "<|im_end|>", False)
    elif a.kind == "llama3":
        kvs = bpe_kvs(tj, cfg, a.pre or "llama-bpe", "<|begin_of_text|>", "<|eot_id|>", True)
    elif a.kind == "o200k":
        kvs = o200k_kvs(tj, open(a.chat_template, encoding="utf-8").read() if a.chat_template else None)
    elif a.kind == "gemma3":
        kvs = gemma3_kvs(tj, cfg)
    else:
        kvs = spm_kvs(tj, a.user_token)
    if a.keep_ids:
        kvs = cut_to(kvs, tj, a.keep_ids)
    gguf_writer.write(a.out, kvs)
    print(a.out, os.path.getsize(a.out))


if __name__ == "__main__":
    main()
