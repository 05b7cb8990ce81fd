#!/usr/bin/python3
"""A model whose vocabulary differs from the goldens' in one token's text, for the draft-model
vocabulary check (forge refuses it as a --model-draft of a golden, naming that token).

Copies a golden GGUF, tensors byte for byte, with tokenizer.ggml.tokens[ID] renamed.
Usage: other_vocab.py KIT_DIR IN.gguf OUT.gguf [--token ID] [--text T]
  /usr/bin/python3 tools/llm_goldens/other_vocab.py /tmp/llm-oracles test/data/llm/llama-q8_0.gguf \\
      test/data/llm/llama-q8_0-other-vocab.gguf
"""
import argparse

from gguf_copy import copy_metadata, load_kit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kit")
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--token", type=int, default=300)
    ap.add_argument("--text", default="<other>")
    a = ap.parse_args()
    G = load_kit(a.kit)

    r = G.GGUFReader(a.src)
    w = G.GGUFWriter(a.dst)

    def rename(key, value):
        if key == "tokenizer.ggml.tokens":
            value = list(value)
            value[a.token] = a.text
        return key, value

    copy_metadata(G, r, w, rename)
    for name, (ne, gt, _) in r.tensors.items():
        w.add_tensor(name, ne, gt, lambda name=name: r.raw(name))
    w.write()


if __name__ == "__main__":
    main()
