#!/usr/bin/python3
"""Regenerate the LLM oracle goldens in test/data/llm/ (needs the llama.cpp oracle kit, set up).

  cp -r ../shared/oracles/llm /tmp/llm-oracles && bash /tmp/llm-oracles/setup.sh
  /usr/bin/python3 tools/llm_goldens/regen.py --kit /tmp/llm-oracles --forge build-llm-simd/app/forge

For each model: NAME.gguf (random weights, 511-token vocab), NAME.logits.f32 (llama.cpp's raw
logits for every prompt position, f32 KV cache, little-endian [n_tokens, n_vocab]) and
NAME.json (prompt tokens, llama.cpp's argmax at each position and its 32-token greedy
continuation); NAME.kv-f16.logits.f32 and NAME.kv-f16.json are the same with llama.cpp's
default f16 KV cache, NAME.kv-q8_0.* with its Q8_0 cache (flash attention, one model). The
tests compare forge against these files and need neither node nor the network. --oracle-only
reruns llama.cpp on the committed .gguf files (the models stay).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
# A fixed prompt over the tiny vocabulary: bytes, merges and a special token (503+).
PROMPT = [72, 101, 108, 108, 111, 44, 256, 300, 350, 400, 450, 500, 12, 33, 261, 270, 280, 290, 310, 320,
          330, 340, 509, 77]
SMALL = ["--n-layer", "2", "--n-embd", "64", "--n-head", "4", "--n-head-kv", "2", "--n-ff", "128"]
# K-quants need rows of whole 256-value super-blocks.
WIDE = ["--n-layer", "1", "--n-embd", "256", "--n-head", "4", "--n-head-kv", "2", "--n-ff", "256"]
# A Q8_0 KV cache needs heads of whole 32-value blocks: SMALL with two heads of 32.
HEAD32 = ["--n-layer", "2", "--n-embd", "64", "--n-head", "2", "--n-head-kv", "1", "--n-ff", "128"]

# Four layers: smollm3 leaves RoPE out of layer 3 (every 4th).
FOUR_LAYERS = ["--n-layer", "4", "--n-embd", "64", "--n-head", "4", "--n-head-kv", "2", "--n-ff", "128"]
# The context llama.cpp runs with (its default here). LongRoPE's choice depends on it: phi3-f32's
# original context 256 < 512 takes the long factors, phi3-q8_0's 4096 >= 512 the short ones.
ORACLE_CTX = 512
# qwen3moe: SMALL's attention with 8 experts of width 32, 3 chosen per token (the kit writes
# llama.cpp's expert_count / expert_used_count / expert_feed_forward_length and the 3-D
# ffn_{gate,up,down}_exps with an f32 router ffn_gate_inp).
MOE = SMALL + ["--n-expert", "8", "--n-expert-used", "3", "--n-ff-exp", "32"]
# ... and WIDE's with 4 experts of width 256, 2 used, for the K-quant mixture.
MOE_WIDE = WIDE + ["--n-expert", "4", "--n-expert-used", "2", "--n-ff-exp", "256"]
# gemma3: 7 layers, so that layer 5 is global and the others (0-4, 6) slide over a window of 8,
# shorter than the 24-token prompt; two heads of 32 (kv 1) so the Q8_0 KV cache applies.
GEMMA = ["--n-layer", "7", "--n-embd", "64", "--n-head", "2", "--n-head-kv", "1", "--n-ff", "128",
         "--sliding-window", "8", "--tie-embeddings"]

# name: (arch, shape, seed, make_gguf dtype, extra args, forge quantize type or None[, rope_scaling.py args])
# forge quantize runs with --pure except for the names in MIXTURES.
MODELS = {
    "llama-f32": ("llama", SMALL, 1, "f32", [], None),
    "qwen2-f32": ("qwen2", SMALL, 3, "f32", [], None),
    "qwen3-f32": ("qwen3", SMALL, 2, "f32", ["--tie-embeddings"], None),
    "qwen3-f16": ("qwen3", SMALL, 2, "f16", ["--tie-embeddings"], None),
    "qwen3-q8_0": ("qwen3", SMALL, 2, "q8_0", ["--tie-embeddings"], None),
    "qwen3-q4_0": ("qwen3", SMALL, 2, "q4_0", ["--tie-embeddings"], None),
    "llama-q8_0": ("llama", SMALL, 1, "q8_0", [], None),
    "qwen2-q4_0": ("qwen2", SMALL, 3, "f32", [], "Q4_0"),
    "llama-q4_k": ("llama", WIDE, 4, "f32", [], "Q4_K_M"),
    "qwen3-q6_k": ("qwen3", WIDE, 5, "f32", [], "Q6_K"),
    # llama.cpp's mixtures (not --pure): Q4_K / Q5_K layers with Q6_K attn_v, ffn_down and head;
    # a tied head (the Q6_K token_embd) and an untied one.
    "qwen3-q4_k_m": ("qwen3", WIDE, 8, "f32", ["--tie-embeddings"], "Q4_K_M"),
    "llama-q5_k_m": ("llama", WIDE, 9, "f32", [], "Q5_K_M"),
    # Llama 3.1-style per-pair frequency divisors (rope_freqs.weight) and YaRN metadata.
    "llama-rope-freqs": ("llama", SMALL, 6, "f32", [], None, ["--llama3-freqs", "8,1,4,1024"]),
    "qwen3-yarn": ("qwen3", SMALL, 7, "f32", ["--tie-embeddings"], None, ["--yarn", "4,256", "--attn-factor", "1.1"]),
    # Q8_0 weights and llama.cpp's Q8_0 KV cache (its only golden: see KV_TYPES).
    "qwen3-q8_0-head32": ("qwen3", HEAD32, 10, "q8_0", ["--tie-embeddings"], None),
    # Mixture of experts: the same model in f32, Q8_0 and Q4_0 (experts quantized, router f32).
    "qwen3moe-f32": ("qwen3moe", MOE, 11, "f32", [], None),
    "qwen3moe-q8_0": ("qwen3moe", MOE, 11, "q8_0", [], None),
    "qwen3moe-q4_0": ("qwen3moe", MOE, 11, "q4_0", [], None),
    "qwen3moe-q4_k_m": ("qwen3moe", MOE_WIDE, 13, "f32", [], "Q4_K_M"),
    # smollm3 and phi3 (Phi-4-mini's layout), made from llama files by to_family.py (FAMILIES).
    "smollm3-f32": ("smollm3", FOUR_LAYERS, 11, "f32", [], None),
    "smollm3-q8_0": ("smollm3", FOUR_LAYERS, 11, "q8_0", [], None),
    "phi3-f32": ("phi3", SMALL, 12, "f32", [], None),
    "phi3-q8_0": ("phi3", SMALL, 12, "q8_0", [], None),
    # gpt-oss, made from an f32 qwen3moe file by to_gpt_oss.py (GPT_OSS): MOE's shape with
    # biases, attention sinks, YaRN and a 128-position sliding window on even layers; the
    # experts in f32 or in MXFP4 (ggml's encoder), everything else f32.
    "gpt-oss-f32": ("gpt-oss", MOE, 14, "f32", [], None),
    "gpt-oss-mxfp4": ("gpt-oss", MOE, 14, "f32", [], None),
    # the same with an 8-position window: the prompt and its continuation pass it.
    "gpt-oss-window8": ("gpt-oss", MOE, 14, "f32", [], None),
    # gemma3 (the kit writes it): sliding-window layers, post-norms, GELU-gated feed-forward.
    "gemma3-f32": ("gemma3", GEMMA, 14, "f32", [], None),
    "gemma3-q8_0": ("gemma3", GEMMA, 14, "q8_0", [], None),
}

# to_family.py's arguments: phi3 with partial rotary (12 of 16 dims) and LongRoPE.
FAMILIES = {
    "smollm3-f32": ["--arch", "smollm3"],
    "smollm3-q8_0": ["--arch", "smollm3"],
    "phi3-f32": ["--arch", "phi3", "--rot-dims", "12", "--orig-ctx", "256", "--seed", "12"],
    "phi3-q8_0": ["--arch", "phi3", "--rot-dims", "12", "--orig-ctx", "4096", "--seed", "12"],
}

# to_gpt_oss.py's arguments.
GPT_OSS = {
    "gpt-oss-f32": ["--experts", "f32", "--seed", "14"],
    "gpt-oss-mxfp4": ["--experts", "mxfp4", "--seed", "14"],
    "gpt-oss-window8": ["--experts", "f32", "--seed", "14", "--sliding-window", "8"],
}

MIXTURES = {"qwen3-q4_k_m", "llama-q5_k_m", "qwen3moe-q4_k_m"}


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def make_model(name, spec, kit, forge, out, tmp):
    arch, shape, seed, dtype, extra, qtype = spec[:6]
    base_arch = {"qwen2": "llama", "smollm3": "llama", "phi3": "llama", "gpt-oss": "qwen3moe"}.get(arch, arch)
    src = os.path.join(tmp, name + ".src.gguf")
    run([PY, os.path.join(kit, "make_gguf.py"), "-q", "-o", src, "--arch", base_arch, "--tokenizer", "tiny",
         "--seed", str(seed), "--dtype", dtype, *shape, *extra])
    if arch == "qwen2":
        converted = os.path.join(tmp, name + ".qwen2.gguf")
        run([PY, os.path.join(HERE, "to_qwen2.py"), kit, src, converted, "--seed", str(seed)])
        src = converted
    if name in FAMILIES:
        converted = os.path.join(tmp, name + ".family.gguf")
        run([PY, os.path.join(HERE, "to_family.py"), kit, src, converted, *FAMILIES[name]])
        src = converted
    if name in GPT_OSS:
        converted = os.path.join(tmp, name + ".gpt-oss.gguf")
        run([PY, os.path.join(HERE, "to_gpt_oss.py"), kit, src, converted, *GPT_OSS[name]])
        src = converted
    if len(spec) > 6:
        scaled = os.path.join(tmp, name + ".scaled.gguf")
        run([PY, os.path.join(HERE, "rope_scaling.py"), kit, src, scaled, *spec[6]])
        src = scaled
    dst = os.path.join(out, name + ".gguf")
    if qtype:
        pure = [] if name in MIXTURES else ["--pure"]
        run([forge, "--quiet", "quantize", *pure, src, dst, qtype])
    else:
        os.replace(src, dst)
    return dst


# llama.cpp's KV cache type -> the suffix of its golden files.
KV_SUFFIX = {"f32": "", "f16": ".kv-f16", "q8_0": ".kv-q8_0"}
# The caches each model is run with (default: f32 and f16). A Q8_0 cache needs a head size that
# is a multiple of 32; one small model is enough to test it, so the others skip it.
KV_TYPES = {"qwen3-q8_0-head32": ["q8_0"], "gemma3-q8_0": ["f32", "f16", "q8_0"]}


def oracle(model, name, kit, out, kv_type):
    stem = os.path.join(out, name + KV_SUFFIX[kv_type])
    js = stem + ".oracle.json"
    run(["node", os.path.join(kit, "llama_oracle.mjs"), "--model", model, "--tokens", ",".join(map(str, PROMPT)),
         "--gen", "32", "--top", "1", "--kv-type", kv_type, "--threads", "2", "--add-bos", "no", "--ctx", str(ORACLE_CTX),
         "--logits-out", stem + ".logits.f32", "--out", js,
         # llama.cpp stores a quantized V cache only with flash attention.
         *(["--flash-attn"] if kv_type == "q8_0" else [])])
    with open(js) as f:
        r = json.load(f)
    os.remove(js)
    golden = {"prompt": PROMPT, "eval_tokens": r["eval_tokens"], "greedy": r["greedy"]["tokens"],
              "argmax": [p["argmax"] for p in r["positions"]]}
    with open(stem + ".json", "w") as f:
        json.dump(golden, f)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kit", default="/tmp/llm-oracles")
    ap.add_argument("--forge", help="a forge binary (for forge quantize; not needed with --oracle-only)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "test", "data", "llm"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--oracle-only", action="store_true", help="keep the committed models, rerun llama.cpp")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in MODELS.items():
            if a.only and name not in a.only:
                continue
            if a.oracle_only:
                model = os.path.join(a.out, name + ".gguf")
            else:
                model = make_model(name, spec, a.kit, a.forge and os.path.abspath(a.forge), a.out, tmp)
            for kv_type in KV_TYPES.get(name, ["f32", "f16"]):
                oracle(model, name, a.kit, a.out, kv_type)
            print(name, os.path.getsize(model), file=sys.stderr)


if __name__ == "__main__":
    main()
