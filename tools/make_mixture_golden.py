#!/usr/bin/python3
"""Write the quantization-mixture golden (test/data/quant/mixture_golden.json) with llama.cpp.

For three random-weight f32 models (made by the llama.cpp oracle kit's make_gguf.py: an
8-layer llama with an untied output and 256-wide rows, a 4-layer qwen3 with tied embeddings,
and a 2-layer llama with 64-wide rows, where the K-quants fall back) and every file type forge
quantizes to, plain and --pure, llama.cpp's own llama_model_quantize (tools/
check_quantize_vs_llama.py) writes the model, and ggml's GGUF reader (gguf_* in libggml-base,
via ctypes) reads back the type of every tensor. The golden keeps what forge's policy needs
(architecture facts, tensor names and dims in file order) and llama.cpp's type per tensor:
test/core/quant_mixture_golden_test.cpp asks core/quant/mixture.h for the same choices, so
the policy is checked against llama.cpp in the suite, without the oracle.

  cp -r ../shared/oracles/llm /tmp/llm-oracles && bash /tmp/llm-oracles/setup.sh
  /usr/bin/python3 tools/make_mixture_golden.py --kit /tmp/llm-oracles
"""
import argparse
import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_quantize_vs_llama import FTYPES, llama_quantize  # noqa: E402

OUT = os.path.join(HERE, "..", "test", "data", "quant", "mixture_golden.json")
PY = "/usr/bin/python3"
MODELS = {
    "llama-8-layers": ["--arch", "llama", "--n-layer", "8", "--n-embd", "256", "--n-head", "8", "--n-head-kv", "2",
                       "--n-ff", "512"],
    "qwen3-tied": ["--arch", "qwen3", "--n-layer", "4", "--n-embd", "256", "--n-head", "4", "--n-head-kv", "2",
                   "--n-ff", "256", "--tie-embeddings"],
    "llama-narrow": ["--arch", "llama", "--n-layer", "2", "--n-embd", "64", "--n-head", "4", "--n-head-kv", "2",
                     "--n-ff", "128"],
}
# The file types forge's policy knows (core/quant/mixture.cpp), by llama-quantize's names; not Q2_K_S,
# which llama.cpp refuses without an importance matrix.
TYPES = ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M",
         "Q5_K_S", "Q5_K_M", "Q6_K", "TQ1_0", "TQ2_0"]


class GgufInitParams(ctypes.Structure):
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]


def gguf_reader(lib_dir):
    lib = ctypes.CDLL(os.path.join(lib_dir, "libggml-base.so"), mode=ctypes.RTLD_GLOBAL)
    lib.gguf_init_from_file.argtypes = [ctypes.c_char_p, GgufInitParams]
    lib.gguf_init_from_file.restype = ctypes.c_void_p
    lib.gguf_get_n_tensors.argtypes = [ctypes.c_void_p]
    lib.gguf_get_n_tensors.restype = ctypes.c_int64
    lib.gguf_get_tensor_name.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    lib.gguf_get_tensor_name.restype = ctypes.c_char_p
    lib.gguf_get_tensor_type.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    lib.gguf_get_tensor_type.restype = ctypes.c_int
    lib.gguf_free.argtypes = [ctypes.c_void_p]

    def tensor_types(path):
        """{name: ggml type id} as ggml reads the file."""
        ctx = lib.gguf_init_from_file(path.encode(), GgufInitParams(True, None))
        assert ctx, f"ggml cannot read {path}"
        types = {lib.gguf_get_tensor_name(ctx, i).decode(): lib.gguf_get_tensor_type(ctx, i)
                 for i in range(lib.gguf_get_n_tensors(ctx))}
        lib.gguf_free(ctx)
        return types
    return tensor_types


def model_facts(forge_info):
    """What the policy reads from the metadata (as app/quantize.cpp's model_facts)."""
    meta = forge_info["metadata"]
    arch = meta["general.architecture"]
    n_head = meta.get(f"{arch}.attention.head_count", 0)
    return {"arch": arch, "n_layer": meta.get(f"{arch}.block_count", 0), "n_head": n_head,
            "n_head_kv": meta.get(f"{arch}.attention.head_count_kv", n_head),
            "n_expert": meta.get(f"{arch}.expert_count", 0)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kit", default="/tmp/llm-oracles")
    ap.add_argument("--forge", default=os.path.join(HERE, "..", "build", "app", "forge"),
                    help="a forge binary, for `forge gguf info --json` of the inputs")
    ap.add_argument("--lib-dir", default=None)
    a = ap.parse_args()
    lib_dir = a.lib_dir or glob.glob(os.path.join(a.kit, "node_modules/@node-llama-cpp/linux-x64/bins/*"))[0]
    tensor_types = gguf_reader(lib_dir)
    out = {"source": "llama.cpp llama_model_quantize (libllama of @node-llama-cpp/linux-x64 3.22.1), types read "
                     "back with ggml's gguf reader", "models": {}, "results": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape in MODELS.items():
            src = os.path.join(tmp, name + ".gguf")
            subprocess.run([PY, os.path.join(a.kit, "make_gguf.py"), "-q", "-o", src, "--tokenizer", "tiny",
                            "--dtype", "f32", "--seed", "11", *shape], check=True, stdout=subprocess.DEVNULL)
            info = json.loads(subprocess.run([a.forge, "gguf", "info", "--json", src], capture_output=True, check=True,
                                             text=True).stdout)
            out["models"][name] = {"facts": model_facts(info),
                                   # GGUF order (dims[0] = row length): forge prints shapes outermost first.
                                   "tensors": [[t["name"], t["shape"][::-1]] for t in info["tensors"]]}
            for type_name in TYPES:
                for pure in (False, True):
                    dst = os.path.join(tmp, "out.gguf")
                    llama_quantize(lib_dir, src, dst, FTYPES[type_name], pure)
                    out["results"].append({"model": name, "type": type_name, "pure": pure,
                                           "ggml_types": tensor_types(dst)})
            print(name, len(info["tensors"]), "tensors", file=sys.stderr)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out['results'])} quantizations -> {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
