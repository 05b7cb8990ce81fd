#!/usr/bin/python3
"""Golden files for forge's block formats and GGUF writer, produced by ggml itself.

Drives the prebuilt libggml-base.so from the npm package @node-llama-cpp/linux-x64@3.22.1 through
ctypes (see ../shared/ORACLES.md and ../shared/oracles/llm/check_quant.py):

  * ggml_quantize_chunk (no importance matrix) -> encode_<type>.bin   (expected encoder bytes)
  * quantize_row_q8_K_ref                       -> encode_q8_K.bin
  * type_traits(type)->to_float / dequantize_row_q8_K / ggml_{fp16,bf16}_to_fp32_row
                                                -> decode_<type>.bin (input) + decode_<type>.f32
  * gguf_write_to_file                          -> ../gguf/ggml_written.gguf

Inputs are adversarial: ramps, constants, zeros, tiny and huge magnitudes, exact ties, f32
denormals, spikes, sign patterns and random rows (encode_input.f32: rows of 256 floats), and for
decoding also random block bytes with finite scales, plus every f16 and bf16 bit pattern.

usage: /usr/bin/python3 tools/gen_quant_goldens.py --lib .../libggml-base.so [--out test/data]
The files are committed; tests never run this script (nor need node or the network).
"""
import argparse
import ctypes
import glob
import hashlib
import os
import sys

import numpy as np

QK_K = 256
# name: (ggml id, block size, block bytes, offsets of f16 scale fields)
TYPES = {
    "q4_0": (2, 32, 18, [0]),
    "q4_1": (3, 32, 20, [0, 2]),
    "q5_0": (6, 32, 22, [0]),
    "q5_1": (7, 32, 24, [0, 2]),
    "q8_0": (8, 32, 34, [0]),
    "q2_K": (10, 256, 84, [80, 82]),
    "q3_K": (11, 256, 110, [108]),
    "q4_K": (12, 256, 144, [0, 2]),
    "q5_K": (13, 256, 176, [0, 2]),
    "q6_K": (14, 256, 210, [208]),
    "q8_K": (15, 256, 292, []),   # f32 scale at 0, handled separately
    "iq4_nl": (20, 32, 18, [0]),
    "iq4_xs": (23, 256, 136, [0]),
    "tq1_0": (34, 256, 54, [52]),
    "tq2_0": (35, 256, 66, [64]),
    "mxfp4": (39, 32, 17, []),    # E8M0 exponent byte at 0: every value is a valid scale
}
ENCODE = ["q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "tq2_0",
          # not required to be byte-exact, but their ggml output makes realistic decode inputs
          "tq1_0", "iq4_nl", "iq4_xs", "mxfp4"]
RANDOM_BLOCKS = 8


class TypeTraits(ctypes.Structure):
    _fields_ = [("type_name", ctypes.c_char_p), ("blck_size", ctypes.c_int64),
                ("blck_size_interleave", ctypes.c_int64), ("type_size", ctypes.c_size_t),
                ("is_quantized", ctypes.c_bool), ("to_float", ctypes.c_void_p),
                ("from_float_ref", ctypes.c_void_p)]


class InitParams(ctypes.Structure):
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p), ("no_alloc", ctypes.c_bool)]


TO_FLOAT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)


def find_lib():
    c = glob.glob("/tmp/q-oracles/node_modules/@node-llama-cpp/linux-x64/bins/*/libggml-base.so")
    if not c:
        sys.exit("libggml-base.so not found: copy ../shared/oracles/llm to /tmp/llm-oracles and run setup.sh, or pass --lib")
    return c[0]


def load(path):
    lib = ctypes.CDLL(path)
    lib.ggml_quantize_chunk.restype = ctypes.c_size_t
    lib.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                        ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    lib.ggml_get_type_traits.restype = ctypes.POINTER(TypeTraits)
    lib.ggml_get_type_traits.argtypes = [ctypes.c_int]
    for f in ("quantize_row_q8_K_ref", "dequantize_row_q8_K", "ggml_fp16_to_fp32_row", "ggml_bf16_to_fp32_row"):
        getattr(lib, f).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        getattr(lib, f).restype = None
    lib.ggml_blck_size.restype = ctypes.c_int64
    lib.ggml_type_size.restype = ctypes.c_size_t
    return lib


def encode_inputs(rng):
    """Rows of 256 floats, each an adversarial case (a K-quant super-block, 8 Q8_0 blocks)."""
    n = QK_K
    ramp = np.linspace(-1, 1, n)
    rows = [
        ramp, ramp * 1000, -ramp[::-1] * 0.001,
        np.full(n, 0.5), np.full(n, -3.0), np.zeros(n),
        np.where(np.arange(n) % 32 == 5, 7.0, 0.0),                      # one spike per block
        np.where(np.arange(n) % 2 == 0, 1.0, -1.0),                      # alternating sign
        np.round(rng.uniform(-8, 8, n) * 2) / 2,                          # exact halves: ties
        np.round(rng.uniform(-16, 16, n)),                                # integers
        np.tile([-8, 8] + [0] * 30, n // 32) * 1.0,                       # +a and -a: first max wins
        np.tile(np.arange(-8, 8, 0.5), n // 32),                          # halfway points of q4 steps
        rng.standard_normal(n) * 1e-30,                                   # tiny
        rng.standard_normal(n) * 1e-40,                                   # f32 denormals
        rng.standard_normal(n) * 3e4,                                     # near the f16 limit
        rng.standard_normal(n) * 1e6,                                     # past it: scales overflow f16
        rng.standard_normal(n) * 0.05,
        rng.uniform(-3, 3, n),
        rng.standard_t(2, n),                                             # heavy tails
        np.abs(rng.standard_normal(n)),                                   # all positive
        -np.abs(rng.standard_normal(n)) - 2,                              # all negative, offset
        rng.standard_normal(n) * np.repeat(10.0 ** rng.integers(-6, 4, n // 16), 16),  # per-16 scales
        rng.standard_normal(n) * np.repeat(10.0 ** rng.integers(-6, 4, n // 32), 32),  # per-32 scales
        np.where(rng.random(n) < 0.9, 0.0, rng.standard_normal(n) * 1e3),
    ]
    for scale in (1e-3, 0.1, 1, 10, 100, 1e4):
        rows.append(rng.standard_normal(n) * scale)
    rows.append(np.concatenate([np.zeros(n // 2), rng.standard_normal(n // 2)]))
    rows.append(np.concatenate([rng.standard_normal(n // 2), np.zeros(n // 2)]))
    return np.array(rows, dtype=np.float32)


def quantize(lib, name, x):
    gid, blck, size, _ = TYPES[name]
    nrows, n_per_row = x.shape
    out = np.zeros(nrows * n_per_row // blck * size, dtype=np.uint8)
    if name == "q8_K":
        lib.quantize_row_q8_K_ref(x.ctypes.data, out.ctypes.data, x.size)
        return out
    got = lib.ggml_quantize_chunk(gid, x.ctypes.data, out.ctypes.data, 0, nrows, n_per_row, None)
    assert got == out.size, (name, got, out.size)
    return out


def random_blocks(rng, name, count):
    """Random bytes with finite scales: every quant bit pattern, no NaN/inf scales."""
    _, _, size, f16_offsets = TYPES[name]
    blocks = rng.integers(0, 256, (count, size), dtype=np.uint8)
    for off in f16_offsets:
        # finite f16 of every exponent (subnormals included) and both signs
        h = rng.integers(0, 0x7c00, count, dtype=np.uint16) | (rng.integers(0, 2, count, dtype=np.uint16) << 15)
        blocks[:, off:off + 2] = h.view(np.uint8).reshape(count, 2)
    if name == "q8_K":
        d = (rng.standard_normal(count) * 10.0 ** rng.integers(-8, 3, count)).astype(np.float32)
        blocks[:, 0:4] = d.view(np.uint8).reshape(count, 4)
    return blocks.reshape(-1)


def dequantize(lib, name, blocks):
    gid, blck, size, _ = TYPES[name]
    n = blocks.size // size * blck
    out = np.zeros(n, dtype=np.float32)
    if name == "q8_K":
        lib.dequantize_row_q8_K(blocks.ctypes.data, out.ctypes.data, n)
    else:
        to_float = TO_FLOAT(lib.ggml_get_type_traits(gid).contents.to_float)
        to_float(blocks.ctypes.data, out.ctypes.data, n)
    return out


def write_ggml_gguf(lib, path):
    """A small GGUF written by ggml's own writer: every scalar type, arrays, three tensor types."""
    lib.ggml_init.restype = ctypes.c_void_p
    lib.ggml_init.argtypes = [InitParams]
    lib.ggml_new_tensor_2d.restype = ctypes.c_void_p
    lib.ggml_new_tensor_2d.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    lib.ggml_set_name.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.ggml_get_data.restype = ctypes.c_void_p
    lib.ggml_get_data.argtypes = [ctypes.c_void_p]
    lib.gguf_init_empty.restype = ctypes.c_void_p
    lib.gguf_add_tensor.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.gguf_write_to_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_bool]
    lib.gguf_write_to_file.restype = ctypes.c_bool
    ctx = lib.ggml_init(InitParams(1 << 20, None, False))
    g = lib.gguf_init_empty()
    c = ctypes
    setters = [("u8", c.c_uint8, 200), ("i8", c.c_int8, -100), ("u16", c.c_uint16, 60000),
               ("i16", c.c_int16, -30000), ("u32", c.c_uint32, 4000000000), ("i32", c.c_int32, -2000000000),
               ("f32", c.c_float, 1.5), ("u64", c.c_uint64, 1 << 63), ("i64", c.c_int64, -(1 << 62)),
               ("f64", c.c_double, 2.25), ("bool", c.c_bool, True)]
    lib.gguf_set_val_str.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p]
    lib.gguf_set_val_str(g, b"general.architecture", b"llama")
    for name, ctype, value in setters:
        f = getattr(lib, "gguf_set_val_" + name)
        f.argtypes = [c.c_void_p, c.c_char_p, ctype]
        f(g, ("test." + name).encode(), value)
    lib.gguf_set_val_str(g, b"test.string", "h\u00e9llo\nworld".encode())
    arr = (c.c_int32 * 5)(1, -2, 3, -4, 5)
    lib.gguf_set_arr_data.argtypes = [c.c_void_p, c.c_char_p, c.c_int, c.c_void_p, c.c_size_t]
    lib.gguf_set_arr_data(g, b"test.array_i32", 5, arr, 5)
    strs = (c.c_char_p * 3)(b"a", b"", b"ccc")
    lib.gguf_set_arr_str.argtypes = [c.c_void_p, c.c_char_p, c.c_void_p, c.c_size_t]
    lib.gguf_set_arr_str(g, b"test.array_str", strs, 3)
    rng = np.random.default_rng(7)
    for tname, gid, ne0, ne1 in ((b"weight.f32", 0, 8, 3), (b"weight.q8_0", 8, 64, 2), (b"weight.q4_K", 12, 256, 1)):
        t = lib.ggml_new_tensor_2d(ctx, gid, ne0, ne1)
        lib.ggml_set_name(t, tname)
        _, blck, size = (None, 1, 4) if gid == 0 else [v for v in TYPES.values() if v[0] == gid][0][:3]
        nbytes = ne0 * ne1 // blck * size
        data = rng.integers(0, 256, nbytes, dtype=np.uint8)
        c.memmove(lib.ggml_get_data(t), data.ctypes.data, nbytes)
        lib.gguf_add_tensor(g, t)
    assert lib.gguf_write_to_file(g, path.encode(), False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=None)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "data"))
    a = ap.parse_args()
    lib_path = a.lib or find_lib()
    lib = load(lib_path)
    for name, (gid, blck, size, _) in TYPES.items():  # our table agrees with ggml's traits
        assert lib.ggml_blck_size(gid) == blck and lib.ggml_type_size(gid) == size, name
    qdir = os.path.join(a.out, "quant")
    os.makedirs(qdir, exist_ok=True)
    os.makedirs(os.path.join(a.out, "gguf"), exist_ok=True)
    rng = np.random.default_rng(20240604)
    x = encode_inputs(rng)
    x.tofile(os.path.join(qdir, "encode_input.f32"))
    encoded = {}
    for name in ENCODE + ["q8_K"]:
        encoded[name] = quantize(lib, name, x)
        encoded[name].tofile(os.path.join(qdir, f"encode_{name}.bin"))
    for name in TYPES:
        parts = [encoded[name]] if name in encoded else []
        parts.append(random_blocks(rng, name, RANDOM_BLOCKS))
        if name == "mxfp4":  # every E8M0 exponent (subnormal scales, 2^127 and inf products), every code
            every = np.zeros((256, 17), dtype=np.uint8)
            every[:, 0] = np.arange(256)
            every[:, 1:] = np.arange(16, dtype=np.uint8) | (np.arange(16, dtype=np.uint8)[::-1] << 4)
            parts.append(every.reshape(-1))
        blocks = np.concatenate(parts)
        blocks.tofile(os.path.join(qdir, f"decode_{name}.bin"))
        dequantize(lib, name, blocks).tofile(os.path.join(qdir, f"decode_{name}.f32"))
    every = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    for name, fn in (("f16", lib.ggml_fp16_to_fp32_row), ("bf16", lib.ggml_bf16_to_fp32_row)):
        out = np.zeros(65536, dtype=np.float32)
        fn(every.ctypes.data, out.ctypes.data, 65536)
        out.tofile(os.path.join(qdir, f"decode_{name}.f32"))  # input: every pattern, in order
    write_ggml_gguf(lib, os.path.join(a.out, "gguf", "ggml_written.gguf"))
    sha = hashlib.sha256(open(lib_path, "rb").read()).hexdigest()
    with open(os.path.join(qdir, "PROVENANCE"), "w") as f:
        f.write("Generated by tools/gen_quant_goldens.py from libggml-base.so of npm "
                f"@node-llama-cpp/linux-x64@3.22.1 (sha256 {sha}).\n"
                f"encode_input.f32: {x.shape[0]} rows x {x.shape[1]} f32.\n")
    print(f"wrote goldens to {os.path.abspath(a.out)}")


if __name__ == "__main__":
    main()
