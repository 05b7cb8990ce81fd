#!/usr/bin/env python3
"""Greedy answers of llama.cpp for the bundled chat model: the golden of test/app/bundled_chat_test.cpp.

    /usr/bin/python3 tools/make_bundled_chat_golden.py [--oracle /work/oracle-llm] [--forge build/app/forge]

Renders each question with the model's chat template (forge's: <|user_start|>Q<|user_end|><|assistant_start|>),
lets llama.cpp (node-llama-cpp 3.22.1, /work/oracle-llm's llama_oracle.mjs, f32 KV cache) continue greedily
and keeps the text up to <|assistant_end|>. With --forge, also prints forge's greedy answer beside it.
Writes test/data/llm/bundled_chat_golden.json.
"""
import argparse
import hashlib
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "models", "llm", "bundled", "forge-chat.gguf")
OUT = os.path.join(ROOT, "test", "data", "llm", "bundled_chat_golden.json")
QUESTIONS = ["Hello! Who are you?", "What is 23 + 45?", "What is 81 - 37?", "What does whale mean?",
             "How do you spell ship?", "What time is it?", "Hi!", "What can you do?", "Thank you.",
             "Will it rain tomorrow?", "Who wrote Moby Dick?"]
END = "<|assistant_end|>"
MAX_TOKENS = 48
MIN_MARGIN = 0.5  # logits; 5x the ~0.1 that llama.cpp's Q8_0 activation rounding can move them


def llama_answer(oracle, question):
    prompt = f"<|user_start|>{question}<|user_end|><|assistant_start|>"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        subprocess.run(["node", os.path.join(oracle, "llama_oracle.mjs"), "--model", MODEL, "--prompt", prompt,
                        "--gen", str(MAX_TOKENS), "--kv-type", "f32", "--last", "1", "--top", "1", "--out", out],
                       check=True, capture_output=True)
        greedy = json.load(open(out))["greedy"]
    text = greedy["text"]
    # The smallest gap between the best and second-best logit on the way to the answer's end:
    # llama.cpp rounds activations to Q8_0 before Q8_0 matmuls and forge does not, which moves
    # logits by up to ~0.1 (oracle README), so a closer race may go either way.
    margins = []
    for step in greedy["steps"]:
        top = step["next_top5"]
        margins.append(top[0][1] - top[1][1])
        if step["piece"] == END:
            break
    return text.split(END)[0], END in text, min(margins)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", default="/work/oracle-llm")
    parser.add_argument("--forge", help="also print forge's answers")
    args = parser.parse_args()
    sha = hashlib.sha256(open(MODEL, "rb").read()).hexdigest()
    entries = []
    for q in QUESTIONS:
        answer, ended, margin = llama_answer(args.oracle, q)
        line = f"{q!r}: llama.cpp {answer!r} (smallest top-2 logit gap {margin:.3f})"
        if margin >= MIN_MARGIN:
            entries.append({"question": q, "answer": answer, "ended": ended, "min_margin": round(margin, 3)})
        else:
            line += f": left out, a near tie (< {MIN_MARGIN})"
        if args.forge:
            forge = subprocess.run([args.forge, "chat", MODEL, "-p", q, "--temp", "0", "-n", str(MAX_TOKENS),
                                    "--kv-type", "f32"], capture_output=True, text=True, check=True).stdout
            line += f"\n    forge {forge!r} {'SAME' if forge.rstrip(chr(10)) == answer else 'DIFFERENT'}"
        print(line)
    golden = {"model_sha256": sha, "max_tokens": MAX_TOKENS,
              "source": "llama.cpp via node-llama-cpp 3.22.1 (llama_oracle.mjs), greedy, f32 KV cache",
              "answers": entries}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(golden, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
