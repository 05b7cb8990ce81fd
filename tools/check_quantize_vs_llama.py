#!/usr/bin/python3
"""Compare `forge quantize` with llama.cpp's own llama_model_quantize, tensor by tensor.

Runs llama_model_quantize from the prebuilt libllama of npm @node-llama-cpp/linux-x64@3.22.1
(through ctypes; see ../shared/ORACLES.md) and `forge quantize` on the same input, then checks
that every tensor has the same name, type, shape and bytes, and that the metadata agree.

usage: /usr/bin/python3 tools/check_quantize_vs_llama.py --forge build/app/forge --model in.gguf \
           --type Q4_K_M [--pure] [--lib-dir .../bins/linux-x64]
"""
import argparse
import ctypes
import glob
import os
import subprocess
import sys
import tempfile

FTYPES = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q8_0": 7, "Q5_0": 8, "Q5_1": 9, "Q2_K": 10, "Q3_K_S": 11,
          "Q3_K_M": 12, "Q3_K_L": 13, "Q4_K_S": 14, "Q4_K_M": 15, "Q5_K_S": 16, "Q5_K_M": 17, "Q6_K": 18,
          "Q2_K_S": 21, "BF16": 32, "TQ1_0": 36, "TQ2_0": 37}


class QuantizeParams(ctypes.Structure):
    # llama.h's llama_model_quantize_params (leading fields; the tail is padding we never touch).
    _fields_ = [("nthread", ctypes.c_int32), ("ftype", ctypes.c_int32), ("output_tensor_type", ctypes.c_int32),
                ("token_embedding_type", ctypes.c_int32), ("allow_requantize", ctypes.c_bool),
                ("quantize_output_tensor", ctypes.c_bool), ("only_copy", ctypes.c_bool), ("pure", ctypes.c_bool),
                ("rest", ctypes.c_uint8 * 256)]


def llama_quantize(lib_dir, src, dst, ftype, pure):
    ctypes.CDLL(os.path.join(lib_dir, "libggml-base.so"), mode=ctypes.RTLD_GLOBAL)
    ctypes.CDLL(glob.glob(os.path.join(lib_dir, "libggml.*so"))[0], mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(glob.glob(os.path.join(lib_dir, "libllama.*so"))[0])
    lib.llama_model_quantize_default_params.restype = QuantizeParams
    lib.llama_model_quantize.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(QuantizeParams)]
    lib.llama_model_quantize.restype = ctypes.c_uint32
    p = lib.llama_model_quantize_default_params()
    # The defaults identify the layout: both type overrides are GGML_TYPE_COUNT, output quantized.
    assert p.output_tensor_type == p.token_embedding_type and p.output_tensor_type > 30, "unexpected struct layout"
    assert p.quantize_output_tensor and not p.pure, "unexpected struct layout"
    p.ftype = ftype
    p.pure = pure
    p.nthread = 2
    rc = lib.llama_model_quantize(src.encode(), dst.encode(), ctypes.byref(p))
    assert rc == 0, f"llama_model_quantize failed: {rc}"


def read_gguf(path):
    sys.path.insert(0, "/tmp/q-oracles")
    import gguf_io  # the kit's reader
    return gguf_io.read_gguf(path) if hasattr(gguf_io, "read_gguf") else gguf_io.GGUFReader(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--forge", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--type", required=True)
    ap.add_argument("--pure", action="store_true")
    ap.add_argument("--lib-dir", default=glob.glob("/tmp/q-oracles/node_modules/@node-llama-cpp/linux-x64/bins/*")[0])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ours, theirs = os.path.join(tmp, "forge.gguf"), os.path.join(tmp, "llama.gguf")
        subprocess.run([a.forge, "--quiet", "quantize", a.model, ours, a.type] + (["--pure"] if a.pure else []), check=True)
        llama_quantize(a.lib_dir, a.model, theirs, FTYPES[a.type.upper()], a.pure)
        info = lambda p: __import__("json").loads(subprocess.run([a.forge, "gguf", "info", "--json", p],
                                                                 capture_output=True, check=True, text=True).stdout)
        mine, ref = info(ours), info(theirs)
        ok = True
        if sorted(t["name"] for t in mine["tensors"]) != sorted(t["name"] for t in ref["tensors"]):
            print("tensor sets differ"); ok = False
        same_order = [t["name"] for t in mine["tensors"]] == [t["name"] for t in ref["tensors"]]
        data_mine, data_ref = open(ours, "rb").read(), open(theirs, "rb").read()
        same = 0
        by_name = {t["name"]: t for t in ref["tensors"]}
        for tm in mine["tensors"]:
            tr = by_name[tm["name"]]
            bm = data_mine[mine["data_offset"] + tm["offset"]:][:tm["bytes"]]
            br = data_ref[ref["data_offset"] + tr["offset"]:][:tr["bytes"]]
            if tm["type"] != tr["type"] or tm["shape"] != tr["shape"] or bm != br:
                print(f"  {tm['name']}: forge {tm['type']} {tm['shape']} vs llama.cpp {tr['type']} {tr['shape']}"
                      f"{'' if tm['type'] != tr['type'] else ' (bytes differ)'}")
                ok = False
            else:
                same += 1
        for k, v in ref["metadata"].items():
            if mine["metadata"].get(k) != v:
                print(f"  metadata {k}: forge {mine['metadata'].get(k)!r} vs llama.cpp {v!r}"); ok = False
        for k in mine["metadata"]:
            if k not in ref["metadata"]:
                print(f"  metadata {k}: only in forge's file"); ok = False
        print(f"{a.type}{' --pure' if a.pure else ''}: {same}/{len(ref['tensors'])} tensors identical "
              f"(type and bytes), tensor order {'same' if same_order else 'differs'}, files "
              f"{'identical' if data_mine == data_ref else 'not byte-identical'}: "
              f"{'OK' if ok else 'MISMATCH'}")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
