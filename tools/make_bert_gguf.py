#!/usr/bin/python3
"""Writes a random-weight BERT-family embedding model as GGUF, laid out as llama.cpp reads it
(src/llama-model.cpp: LLM_ARCH_BERT / LLM_ARCH_NOMIC_BERT), with a small WordPiece vocabulary
made here: the oracle files for forge's models/bert (see tools/make_bert_goldens.py).

  /usr/bin/python3 tools/make_bert_gguf.py --kit /tmp/llm-oracles -o out/bert.gguf --arch bert --pooling mean

  bert:       token + token-type + absolute position embeddings, LayerNorm; per layer q/k/v/o
              with biases, post-LayerNorms, GELU feed-forward with biases. --pooling rank adds
              the classifier head cls.{weight,bias} (tanh) and cls.output.{weight,bias} (one score).
  nomic-bert: no position table (rotary positions, NEOX pairs), fused attn_qkv and the other
              matrices without bias, SwiGLU feed-forward.

The vocabulary follows BERT's vocab.txt at its special ids ([PAD] 0, [UNK] 100, [CLS] 101,
[SEP] 102, [MASK] 103) as the GGUF converter writes it: a word-initial piece is "▁piece", a
continuation ("##ing") is "ing". Weights depend only on --seed and the tensor's name.
"""
import argparse
import hashlib
import os
import sys

import numpy as np

WORDS = ("the quick brown fox jump over lazy dog hello world cafe naive resume embed search token model "
         "un believ play read write test text vector query document rank score small large fast slow "
         "what is a an of in on to and or for with this that it be are was were i you we they he she "
         "straße uber zurich tokyo data base").split()
SUFFIXES = "ing ed s er est ly tion able ness ment ize al ful".split()
CJK = "中文字東京日本語"
PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¿¡«»—…"


def vocabulary():
    tokens = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    types = [3] + [5] * 99 + [3, 3, 3, 3]
    seen = set(tokens)

    def add(text):
        if text not in seen:
            seen.add(text)
            tokens.append(text)
            types.append(1)

    for c in "abcdefghijklmnopqrstuvwxyz0123456789" + PUNCT + CJK + "ßéü":
        add("\u2581" + c)  # a character starting a word
        add(c)             # the same character continuing one
    for w in WORDS:
        add("\u2581" + w)
    for s in SUFFIXES:
        add(s)
    return tokens, types


def rng_for(seed, name):
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kit", required=True, help="the llama.cpp oracle kit (its gguf_io.py writes the file)")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--arch", choices=["bert", "nomic-bert"], default="bert")
    ap.add_argument("--pooling", choices=["none", "mean", "cls", "rank"], default="mean")
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-embd", type=int, default=64)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-ff", type=int, default=128)
    ap.add_argument("--ctx", type=int, default=128, help="{arch}.context_length (bert: position table rows)")
    ap.add_argument("--n-vocab", type=int, default=None, help="pad the vocabulary with [unusedN] to this size")
    ap.add_argument("--eps", type=float, default=1e-12)
    ap.add_argument("--rope-base", type=float, default=1000.0, help="nomic-bert")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", choices=["f32", "f16", "q8_0"], default="f32",
                    help="matrices and token_embd; norms, biases and the type / position tables stay f32")
    a = ap.parse_args()
    sys.path.insert(0, a.kit)
    import gguf_io as G

    if a.pooling == "rank" and a.arch != "bert":
        sys.exit("--pooling rank: only bert has the classifier head in llama.cpp")
    tokens, types = vocabulary()
    if a.n_vocab:
        for i in range(len(tokens), a.n_vocab):
            tokens.append(f"[unused{i}]")
            types.append(5)
    arch, E, F, V = a.arch, a.n_embd, a.n_ff, len(tokens)
    w = G.GGUFWriter(a.out)
    w.add_string("general.architecture", arch)
    w.add_string("general.name", f"random-{arch}-{a.pooling}-L{a.n_layer}-E{E}-s{a.seed}" + ("" if a.dtype == "f32" else f"-{a.dtype}"))
    w.add_u32("general.file_type", {"f32": 0, "f16": 1, "q8_0": 7}[a.dtype])
    w.add_u32("general.alignment", G.DEFAULT_ALIGNMENT)
    w.add_u32(f"{arch}.context_length", a.ctx)
    w.add_u32(f"{arch}.embedding_length", E)
    w.add_u32(f"{arch}.feed_forward_length", F)
    w.add_u32(f"{arch}.block_count", a.n_layer)
    w.add_u32(f"{arch}.attention.head_count", a.n_head)
    w.add_f32(f"{arch}.attention.layer_norm_epsilon", a.eps)
    w.add_bool(f"{arch}.attention.causal", False)
    if a.pooling != "none":
        w.add_u32(f"{arch}.pooling_type", {"mean": 1, "cls": 2, "rank": 4}[a.pooling])
    if arch == "nomic-bert":
        w.add_f32(f"{arch}.rope.freq_base", a.rope_base)
    w.add_string("tokenizer.ggml.model", "bert")
    w.add_array("tokenizer.ggml.tokens", G.T_STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", G.T_INT32, types)
    w.add_u32("tokenizer.ggml.token_type_count", 2)
    w.add_u32("tokenizer.ggml.bos_token_id", 101)
    w.add_u32("tokenizer.ggml.seperator_token_id", 102)
    w.add_u32("tokenizer.ggml.unknown_token_id", 100)
    w.add_u32("tokenizer.ggml.padding_token_id", 0)
    w.add_u32("tokenizer.ggml.mask_token_id", 103)

    matrix_type = {"f32": G.GGML_F32, "f16": G.GGML_F16, "q8_0": G.GGML_Q8_0}[a.dtype]

    # llama.cpp adds the token-type and position rows to f32 activations as they are stored, and
    # the converter keeps them f32: only the matrices and token_embd take --dtype.
    keep_f32 = ("token_types.weight", "position_embd.weight")

    def add(name, shape, gen):
        gtype = matrix_type if len(shape) == 2 and name not in keep_f32 else G.GGML_F32
        w.add_tensor(name, list(reversed(shape)), gtype, lambda: G.encode_tensor(gen(), gtype))

    def normal(name, shape, std):
        add(name, shape, lambda: rng_for(a.seed, name).standard_normal(shape, dtype=np.float32) * np.float32(std))

    def norm(prefix):
        add(prefix + ".weight", (E,), lambda: 1 + 0.1 * rng_for(a.seed, prefix + ".weight").standard_normal(E, dtype=np.float32))
        normal(prefix + ".bias", (E,), 0.1)

    def linear(prefix, n_out, n_in, bias):
        normal(prefix + ".weight", (n_out, n_in), 1 / np.sqrt(n_in))
        if bias:
            normal(prefix + ".bias", (n_out,), 0.1)

    normal("token_embd.weight", (V, E), 0.5)
    normal("token_types.weight", (2, E), 0.5)
    if arch == "bert":
        normal("position_embd.weight", (a.ctx, E), 0.5)
    norm("token_embd_norm")
    bert = arch == "bert"
    for i in range(a.n_layer):
        p = f"blk.{i}."
        if bert:
            for m in ("attn_q", "attn_k", "attn_v"):
                linear(p + m, E, E, True)
        else:
            linear(p + "attn_qkv", 3 * E, E, False)
        linear(p + "attn_output", E, E, bert)
        norm(p + "attn_output_norm")
        if not bert:
            linear(p + "ffn_gate", F, E, False)
        linear(p + "ffn_up", F, E, bert)
        linear(p + "ffn_down", E, F, bert)
        norm(p + "layer_output_norm")
    if a.pooling == "rank":
        linear("cls", E, E, True)
        linear("cls.output", 1, E, True)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    w.write()
    print(f"wrote {a.out}: {arch}, pooling {a.pooling}, {V} tokens, {os.path.getsize(a.out)} bytes")


if __name__ == "__main__":
    main()
