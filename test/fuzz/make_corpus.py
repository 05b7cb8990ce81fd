#!/usr/bin/python3
"""Seed corpus for test/fuzz/gguf_fuzz: small valid GGUF files covering every metadata type,
nested arrays, versions 2 and 3, a custom alignment and a tensor of every block format forge
decodes. Writes test/fuzz/corpus/*.gguf (plus a copy of the ggml-written test file)."""
import os
import random
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
# ggml type id: (block size, block bytes)
TYPES = {0: (1, 4), 1: (1, 2), 30: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
         10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
         20: (32, 18), 23: (256, 136), 34: (256, 54), 35: (256, 66)}


def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b


def value(tag, v):
    fmt = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
    if tag == 8:
        return s(v)
    if tag == 9:
        elem, items = v
        return struct.pack("<IQ", elem, len(items)) + b"".join(value(elem, i) for i in items)
    return struct.pack("<" + fmt[tag], v)


def gguf(kvs, tensors, version=3, alignment=32):
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, tag, v in kvs:
        out += s(key) + struct.pack("<I", tag) + value(tag, v)
    offset, blobs = 0, []
    for name, gid, dims, data in tensors:
        out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", gid, offset)
        blobs.append(data)
        offset += (len(data) + alignment - 1) // alignment * alignment
    out += b"\0" * (-len(out) % alignment)
    for data in blobs:
        out += data + b"\0" * (-len(data) % alignment)
    return out


def main():
    rnd = random.Random(3)
    corpus = os.path.join(HERE, "corpus")
    os.makedirs(corpus, exist_ok=True)
    every = [("u8", 0, 7), ("i8", 1, -7), ("u16", 2, 700), ("i16", 3, -700), ("u32", 4, 70000), ("i32", 5, -70000),
             ("f32", 6, 1.5), ("bool", 7, True), ("str", 8, "hello"), ("u64", 10, 1 << 40), ("i64", 11, -(1 << 40)),
             ("f64", 12, 2.5), ("arr", 9, (5, [1, 2, 3])), ("strs", 9, (8, ["a", "bc"])),
             ("nested", 9, (9, [(0, [1, 2]), (8, ["x"])]))]
    files = {
        "empty.gguf": gguf([], []),
        "metadata.gguf": gguf(every, []),
        "v2.gguf": gguf(every[:3], [("t", 0, [4], b"\1" * 16)], version=2),
        "aligned64.gguf": gguf([("general.alignment", 4, 64)], [("a", 0, [3], b"\2" * 12), ("b", 1, [5], b"\3" * 10)],
                               alignment=64),
    }
    tensors = []
    for gid, (block, size) in TYPES.items():
        n = block * 2 if block > 1 else 8
        tensors.append((f"t{gid}", gid, [n, 1], bytes(rnd.randrange(256) for _ in range(n // block * size))))
    files["every_type.gguf"] = gguf([("general.architecture", 8, "llama")], tensors)
    for name, data in files.items():
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
    shutil.copy(os.path.join(HERE, "..", "data", "gguf", "ggml_written.gguf"), os.path.join(corpus, "ggml_written.gguf"))


if __name__ == "__main__":
    main()
