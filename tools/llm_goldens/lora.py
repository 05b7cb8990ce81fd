#!/usr/bin/python3
"""Regenerate the LoRA goldens in test/data/llm/lora/ (needs the llama.cpp oracle kit, set up).

  cp -r ../shared/oracles/llm /tmp/llm-oracles && bash /tmp/llm-oracles/setup.sh
  /usr/bin/python3 tools/llm_goldens/lora.py --kit /tmp/llm-oracles --forge build/app/forge

Random adapters for two committed base goldens (test/data/llm/llama-f32.gguf and qwen3-q8_0.gguf),
written by the kit's make_lora.py in llama.cpp's adapter format, one of them again with f16
factors, one adapter trained by `forge train lora` itself (so that llama.cpp reads what forge's
trainer writes, not only what the kit writes), and llama.cpp's raw logits with the adapters applied at run time (f32 KV cache, the
prompt of regen.py): CASE.logits.f32 ([n_tokens, n_vocab] little-endian) and CASE.json (the
prompt, the adapters with their scales, llama.cpp's argmax at each position).
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from regen import ORACLE_CTX, PROMPT  # noqa: E402  the base goldens' prompt and context

PY = "/usr/bin/python3"
BASE_DIR = os.path.join(HERE, "..", "..", "test", "data", "llm")

# adapter file: (base golden, make_lora.py arguments)
ADAPTERS = {
    "llama-f32.lora-a.gguf": ("llama-f32", ["--rank", "4", "--alpha", "8", "--seed", "1", "--std", "0.1"]),
    "llama-f32.lora-b.gguf": ("llama-f32", ["--rank", "2", "--alpha", "3", "--seed", "2", "--std", "0.1",
                                            "--targets", "attn_q,attn_output,ffn_down"]),
    "qwen3-q8_0.lora.gguf": ("qwen3-q8_0", ["--rank", "4", "--alpha", "8", "--seed", "3", "--std", "0.1"]),
}
# adapter file: (base golden, `forge train lora` arguments): continued pretraining on a fixed
# seeded word salad, long enough that B has moved far from its zero start (val loss 6.38 -> 4.89).
TRAINED = {
    "qwen3-f32.lora-trained.gguf": ("qwen3-f32", ["--rank", "4", "--alpha", "8", "--lr", "1e-2", "--steps", "30",
                                                  "--seq-len", "32", "--batch", "4", "--seed", "3"]),
}
TRAINING_WORDS = "the amp the cab the tone the speaker the string the pick the fret the neck the bridge".split()
# The same adapter with f16 factors (llama.cpp accepts them; forge widens them).
F16_COPIES = {"llama-f32.lora-a.f16.gguf": "llama-f32.lora-a.gguf"}
# case: (base golden, [(adapter file, scale)])
CASES = {
    "llama-f32.lora-a": ("llama-f32", [("llama-f32.lora-a.gguf", 1.0)]),
    "llama-f32.lora-ab": ("llama-f32", [("llama-f32.lora-a.gguf", 0.5), ("llama-f32.lora-b.gguf", 2.0)]),
    "qwen3-q8_0.lora": ("qwen3-q8_0", [("qwen3-q8_0.lora.gguf", 1.0)]),
    "qwen3-f32.lora-trained": ("qwen3-f32", [("qwen3-f32.lora-trained.gguf", 1.0)]),
}


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def f16_copy(kit, src, dst):
    sys.path.insert(0, kit)
    import gguf_io as G
    r = G.GGUFReader(src)
    w = G.GGUFWriter(dst)
    for key in ("general.architecture", "general.type", "adapter.type"):
        w.add_string(key, r.kv[key])
    w.add_f32("adapter.lora.alpha", r.kv["adapter.lora.alpha"])
    for name, (ne, gt, off) in r.tensors.items():
        assert gt == G.GGML_F32
        n = int(np.prod(ne))
        values = np.frombuffer(bytes(r.mm[r.data_start + off:r.data_start + off + 4 * n]), dtype="<f4")
        w.add_tensor(name, [int(x) for x in ne], G.GGML_F16, (lambda v: lambda: v.astype("<f2").tobytes())(values))
    w.write()


def train_with_forge(forge, base, args, dst):
    """Train an adapter with forge on a fixed text and keep its adapter.gguf as dst."""
    import random
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        rng = random.Random(7)
        text = os.path.join(tmp, "words.txt")
        with open(text, "w") as f:
            f.write(" ".join(rng.choice(TRAINING_WORDS) for _ in range(600)))
        run_dir = os.path.join(tmp, "run")
        run([forge, "train", "lora", "--model", base, "--text", text, *args, "--out", run_dir])
        shutil.copyfile(os.path.join(run_dir, "adapter.gguf"), dst)


def oracle(kit, base, adapters, out, stem):
    lora = ",".join(f"{os.path.join(out, f)}:{s}" for f, s in adapters)
    js = stem + ".oracle.json"
    run(["node", os.path.join(kit, "llama_oracle.mjs"), "--model", base, "--tokens", ",".join(map(str, PROMPT)),
         "--top", "1", "--kv-type", "f32", "--threads", "2", "--add-bos", "no", "--ctx", str(ORACLE_CTX),
         "--lora", lora, "--logits-out", stem + ".logits.f32", "--out", js])
    with open(js) as f:
        r = json.load(f)
    os.remove(js)
    golden = {"base": os.path.basename(base), "adapters": [{"path": f, "scale": s} for f, s in adapters],
              "prompt": PROMPT, "eval_tokens": r["eval_tokens"], "argmax": [p["argmax"] for p in r["positions"]]}
    with open(stem + ".json", "w") as f:
        f.write(json.dumps(golden) + "\n")


def main():
    ap = argparse.ArgumentParser(description="LoRA goldens: adapters and llama.cpp's logits with them")
    ap.add_argument("--out", default=os.path.join(BASE_DIR, "lora"))
    ap.add_argument("--kit", default="/tmp/llm-oracles")
    ap.add_argument("--forge", default=os.path.join(HERE, "..", "..", "build", "app", "forge"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for file, (base, args) in ADAPTERS.items():
        run([PY, os.path.join(a.kit, "make_lora.py"), "--base", os.path.join(BASE_DIR, base + ".gguf"),
             "-o", os.path.join(a.out, file), *args])
    for file, (base, args) in TRAINED.items():
        train_with_forge(a.forge, os.path.join(BASE_DIR, base + ".gguf"), args, os.path.join(a.out, file))
    for dst, src in F16_COPIES.items():
        f16_copy(a.kit, os.path.join(a.out, src), os.path.join(a.out, dst))
    for case, (base, adapters) in CASES.items():
        oracle(a.kit, os.path.join(BASE_DIR, base + ".gguf"), adapters, a.out, os.path.join(a.out, case))
        print(case, file=sys.stderr)


if __name__ == "__main__":
    main()
