#!/usr/bin/python3
"""Turn an f32 qwen3moe GGUF from the oracle kit's make_gguf.py into a gpt-oss one, laid out the
way llama.cpp's converter writes gpt-oss (conversion/gpt_oss.py) and llama.cpp reads it
(src/models/openai-moe.cpp):

  to_gpt_oss.py KIT IN.gguf OUT.gguf [--experts f32|mxfp4] [--dense q8_0] [--sliding-window W] [--seed S]

- metadata "qwen3moe.*" becomes "gpt-oss.*", plus attention.sliding_window W (llama.cpp: even
  layers slide, odd ones see everything) and gpt-oss's YaRN: rope.freq_base 150000,
  rope.scaling.type yarn, factor 32, original_context_length 4096, yarn_beta_fast 32,
  yarn_beta_slow 1 (what the converter writes from gpt-oss-20b's config.json);
- blk.N.ffn_norm becomes blk.N.post_attention_norm; qwen3's attn_q_norm / attn_k_norm go;
- random biases are added: attn_{q,k,v,output}.bias, ffn_gate_inp.bias [n_expert],
  ffn_{gate,up}_exps.bias [n_expert, n_ff_exp], ffn_down_exps.bias [n_expert, n_embd]; and
  attn_sinks.weight [n_head] (one logit per head, N(0, 1));
- the experts' gate and up are scaled by 4 so that gpt-oss's clamped SwiGLU (gate <= 7,
  |up| <= 7) clamps some values; with --experts mxfp4 the three expert tensors are encoded by
  ggml's own MXFP4 quantizer (ggml_quantize_chunk in the kit's libggml-base.so, via ctypes).

Everything else is copied byte for byte (f32 for the goldens), except that --dense q8_0 encodes
the attention matrices, the token embeddings and the output head with ggml's Q8_0 quantizer, as
in the published gpt-oss-20b-mxfp4.gguf. A benchmark-sized source is best made f16 (its f32
experts would not fit on disk: gpt-oss-20b's 6 layers are 19 GB); its experts are decoded before
the MXFP4 encoder sees them.
"""
import argparse
import ctypes
import glob
import os

import numpy as np

from gguf_copy import copy_metadata, load_kit

GGML_Q8_0 = 8    # ggml_type; blocks of 32 values in 34 bytes (an f16 scale and 32 int8)
GGML_MXFP4 = 39  # ggml_type; blocks of 32 values in 17 bytes (an E8M0 scale and 16 bytes of E2M1 pairs)
BLOCK_BYTES = {GGML_Q8_0: 34, GGML_MXFP4: 17}


def ggml_encoder(kit, ggml_type):
    """ggml's own quantizer for ggml_type (ggml_quantize_chunk in the kit's libggml-base.so)."""
    lib_path = glob.glob(os.path.join(kit, "node_modules/@node-llama-cpp/linux-x64/bins/*/libggml-base.so"))[0]
    lib = ctypes.CDLL(lib_path)
    lib.ggml_quantize_chunk.restype = ctypes.c_size_t
    lib.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                        ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]

    def encode(values):
        rows = np.ascontiguousarray(values, dtype=np.float32).reshape(-1, values.shape[-1])
        out = np.zeros(rows.size // 32 * BLOCK_BYTES[ggml_type], dtype=np.uint8)
        written = lib.ggml_quantize_chunk(ggml_type, rows.ctypes.data, out.ctypes.data, 0, rows.shape[0],
                                          rows.shape[1], None)
        assert written == out.size
        return out.tobytes()
    return encode


# gpt-oss-20b's RoPE base and trained context.
OVERRIDES = {"gpt-oss.rope.freq_base": 150000.0, "gpt-oss.context_length": 131072}


def rename(key, value):
    if key == "general.architecture":
        return key, "gpt-oss"
    if key.startswith("qwen3moe."):
        key = "gpt-oss." + key[len("qwen3moe."):]
    return key, OVERRIDES.get(key, value)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kit")
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--experts", choices=["f32", "mxfp4"], default="f32")
    ap.add_argument("--dense", choices=["q8_0"], default=None, help="encode the dense matrices (default: copy)")
    ap.add_argument("--sliding-window", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    G = load_kit(a.kit)
    G.GGML_BLOCK[GGML_MXFP4] = (32, 17)
    r = G.GGUFReader(a.src)
    assert r.kv["general.architecture"] == "qwen3moe"
    w = G.GGUFWriter(a.dst)
    copy_metadata(G, r, w, rename)
    w.add_u32("gpt-oss.attention.sliding_window", a.sliding_window)
    w.add_string("gpt-oss.rope.scaling.type", "yarn")
    w.add_f32("gpt-oss.rope.scaling.factor", 32.0)
    w.add_u32("gpt-oss.rope.scaling.original_context_length", 4096)
    w.add_f32("gpt-oss.rope.scaling.yarn_beta_fast", 32.0)
    w.add_f32("gpt-oss.rope.scaling.yarn_beta_slow", 1.0)

    rng = np.random.default_rng(a.seed)
    encode_mxfp4 = ggml_encoder(a.kit, GGML_MXFP4) if a.experts == "mxfp4" else None
    encode_dense = ggml_encoder(a.kit, GGML_Q8_0) if a.dense == "q8_0" else None
    G.GGML_BLOCK[GGML_Q8_0] = (32, BLOCK_BYTES[GGML_Q8_0])
    dense = ("attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight", "token_embd.weight",
             "output.weight")
    f32 = lambda values: np.ascontiguousarray(values, dtype="<f4").tobytes()  # noqa: E731

    def add_f32(name, values):
        values = np.asarray(values, dtype=np.float32)
        w.add_tensor(name, list(reversed(values.shape)), G.GGML_F32, lambda v=values: f32(v))

    n_head = int(r.kv["qwen3moe.attention.head_count"])
    for name, (ne, gt, _) in r.tensors.items():
        if name.endswith(("attn_q_norm.weight", "attn_k_norm.weight")):
            continue
        if name.endswith("ffn_norm.weight"):
            w.add_tensor(name.replace("ffn_norm", "post_attention_norm"), ne, gt, lambda name=name: r.raw(name))
            continue
        if name.endswith("_exps.weight"):
            # Any type the kit decodes: f32 for the goldens, f16 for a benchmark-sized file.
            values = r.tensor(name) * (4.0 if "down" not in name else 1.0)
            if encode_mxfp4:
                w.add_tensor(name, ne, GGML_MXFP4, lambda v=values: encode_mxfp4(v))
            else:
                add_f32(name, values)
            # The bias of each expert's rows: [n_expert, n_out].
            add_f32(name.replace(".weight", ".bias"), 0.5 * rng.standard_normal((ne[2], ne[1])))
            continue
        if encode_dense and name.endswith(dense):
            w.add_tensor(name, ne, GGML_Q8_0, lambda name=name: encode_dense(r.tensor(name)))
        else:
            w.add_tensor(name, ne, gt, lambda name=name: r.raw(name))
        if name.startswith("blk.") and name.endswith(("attn_q.weight", "attn_k.weight", "attn_v.weight",
                                                      "attn_output.weight", "ffn_gate_inp.weight")):
            add_f32(name.replace(".weight", ".bias"), 0.2 * rng.standard_normal(ne[1]))
        if name.endswith("attn_output.weight"):
            add_f32(name.replace("attn_output", "attn_sinks"), rng.standard_normal(n_head))
    w.write()


if __name__ == "__main__":
    main()
