#!/usr/bin/python3
"""Dump ggml's GELU table (ggml_table_gelu_f16: for each of the 65536 f16 bit patterns, the f16
GELU that llama.cpp's CPU backend reads for an input that rounds to it, GGML_GELU_FP16) from the
prebuilt llama.cpp of the oracle kit, for test/core/infer/geglu_test.cpp.

usage: /usr/bin/python3 tools/llm_goldens/ggml_gelu_table.py --kit /tmp/llm-oracles \
           -o test/data/llm/ggml_gelu_f16_table.u16 [--variant haswell]

The table is filled by ggml_cpu_init. It depends on how that backend variant was compiled: the
builds with FMA (haswell, skylakex, zen4, ...) agree with each other; sse42 and sandybridge
differ from them in one entry (x = -1.999, its inner 1 + 0.044715 x^2 not fused). The FMA one is
what runs on any x86-64 from 2013 on, and the one forge reproduces.
"""
import argparse
import ctypes
import os

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kit", default="/tmp/llm-oracles")
    ap.add_argument("--variant", default="haswell", help="libggml-cpu-VARIANT.so")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    bins = os.path.join(a.kit, "node_modules", "@node-llama-cpp", "linux-x64", "bins", "linux-x64")
    ctypes.CDLL(os.path.join(bins, "libggml-base.so"), mode=ctypes.RTLD_GLOBAL)
    cpu = ctypes.CDLL(os.path.join(bins, f"libggml-cpu-{a.variant}.so"), mode=ctypes.RTLD_GLOBAL)
    cpu.ggml_cpu_init()
    table = np.frombuffer((ctypes.c_uint16 * 65536).in_dll(cpu, "ggml_table_gelu_f16"), dtype="<u2").copy()
    table.tofile(a.out)


if __name__ == "__main__":
    main()
