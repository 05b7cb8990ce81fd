#!/usr/bin/python3
"""Check a GPT that `forge train gpt` trained against llama.cpp, and write the goldens the CI
test (test/models/gpt/llama_golden_test.cpp) compares a re-trained copy with.

1. trains the tiny run of test/models/gpt/tiny_run.h on the command line,
2. runs the exported model.gguf in llama.cpp (node-llama-cpp, /work/oracle-llm's
   llama_oracle.mjs: tokenization, raw logits at every prompt position, greedy continuation),
3. runs `forge logits` on the same file and prints how far the two are apart,
4. writes test/data/gpt/llama_tiny.json (prompt, token ids, greedy continuation) and
   test/data/gpt/llama_tiny.logits.f32 (llama.cpp's logits, float32 [positions, vocab]).

usage: /usr/bin/python3 tools/make_gpt_llama_goldens.py --forge build/app/forge [--oracle /work/oracle-llm]
"""
import argparse
import json
import os
import struct
import subprocess
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DATA = os.path.join(ROOT, "test", "data")
PROMPT = "The old smith heats the iron"
GEN = 12

# Keep in step with tiny_config() in test/models/gpt/tiny_run.h.
TINY_RUN = ["--depth", "1", "--seq-len", "32", "--batch", "4", "--steps", "12", "--seed", "1", "--eval-every", "6",
            "--checkpoint-every", "3", "--eval-tokens", "256", "--matrix-lr", "2", "--embedding-lr", "20",
            "--unembedding-lr", "0.4"]


def read_f32(path):
    with open(path, "rb") as f:
        raw = f.read()
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--forge", required=True)
    ap.add_argument("--oracle", default="/work/oracle-llm")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="forge_gpt_goldens_")
    run = os.path.join(work, "run")
    subprocess.run([a.forge, "train", "gpt", "--data", os.path.join(DATA, "gpt", "corpus.txt"), "--tokenizer",
                    os.path.join(DATA, "llm", "qwen3-f32.gguf"), "--out", run, "--json"] + TINY_RUN, check=True)
    model = os.path.join(run, "model.gguf")
    oracle_json = os.path.join(work, "llama.json")
    logits_path = os.path.join(DATA, "gpt", "llama_tiny.logits.f32")
    subprocess.run(["node", os.path.join(a.oracle, "llama_oracle.mjs"), "--model", model, "--prompt", PROMPT,
                    "--add-bos", "yes", "--gen", str(GEN), "--top", "4", "--kv-type", "f32", "--threads", "2",
                    "--logits-out", logits_path, "--out", oracle_json], check=True, cwd=a.oracle)
    with open(oracle_json) as f:
        oracle = json.load(f)
    tokens = oracle["eval_tokens"]
    llama_logits = read_f32(logits_path)
    vocab = len(llama_logits) // len(tokens)

    forge_logits_path = os.path.join(work, "forge.f32")
    subprocess.run([a.forge, "logits", model, "--tokens", ",".join(map(str, tokens)), "--out", forge_logits_path],
                   check=True)
    forge_logits = read_f32(forge_logits_path)
    scale = max(abs(v) for v in llama_logits)
    worst = max(abs(x - y) for x, y in zip(forge_logits, llama_logits))
    argmax_same = all(
        max(range(vocab), key=lambda i: forge_logits[p * vocab + i]) ==
        max(range(vocab), key=lambda i: llama_logits[p * vocab + i]) for p in range(len(tokens)))
    print(f"forge logits vs llama.cpp: max |diff| {worst:.3g} = {worst / scale:.3g} of the max |logit| {scale:.3g}; "
          f"argmax equal at every position: {argmax_same}")

    golden = {"prompt": PROMPT, "eval_tokens": tokens, "tokens_no_special": oracle["tokens_no_special"],
              "greedy": oracle["greedy"]["tokens"], "greedy_text": oracle["greedy"]["text"], "vocab": vocab,
              "forge_logits_max_abs_diff": worst, "max_abs_logit": scale}
    with open(os.path.join(DATA, "gpt", "llama_tiny.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
    print(f"wrote test/data/gpt/llama_tiny.json and llama_tiny.logits.f32 ({len(tokens)} x {vocab}); "
          f"greedy {golden['greedy_text']!r}")


if __name__ == "__main__":
    main()
