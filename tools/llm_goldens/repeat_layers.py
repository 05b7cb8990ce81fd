#!/usr/bin/python3
"""Write a deeper copy of a GGUF model by repeating its layers: blk.N of the output is blk.(N % n)
of the input, for a model with n layers, every other key and tensor unchanged except
`<arch>.block_count`. Streams the tensor bytes, so an 18 GB output needs no more memory than a
few MiB; for full-depth benchmark files (a Qwen3-30B-A3B shape with 48 layers) when generating
that many random weights would take hours. The output's weights repeat every n layers, which
changes nothing a speed, memory or load-time figure measures.

  /usr/bin/python3 tools/llm_goldens/repeat_layers.py IN.gguf OUT.gguf --layers 48
"""
import argparse
import mmap
import os
import struct

VALUE_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
STRING, ARRAY, U32 = 8, 9, 4


class Cursor:
    def __init__(self, data, at=0):
        self.data, self.at = data, at

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def string(self):
        n = self.take("Q")
        text = bytes(self.data[self.at:self.at + n]).decode("utf-8")
        self.at += n
        return text

    def skip_value(self, vtype):
        if vtype == STRING:
            n = self.take("Q")
            self.at += n
        elif vtype == ARRAY:
            elem, count = self.take("IQ")
            for _ in range(count):
                self.skip_value(elem)
        else:
            self.at += VALUE_SIZES[vtype]


def packed_string(text):
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def align(n, alignment):
    return (n + alignment - 1) // alignment * alignment


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, required=True)
    a = ap.parse_args()
    with open(a.src, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    c = Cursor(mm)
    magic, version, n_tensors, n_kv = c.take("4sIQQ")
    assert magic == b"GGUF" and version == 3, "%s: not a GGUF v3 file" % a.src
    entries, arch, n_layer, alignment = [], None, None, 32
    for _ in range(n_kv):
        start = c.at
        key = c.string()
        vtype = c.take("I")
        value_at = c.at
        c.skip_value(vtype)
        if key == "general.architecture":
            arch = Cursor(mm, value_at).string()
        if key == "general.alignment":
            alignment = Cursor(mm, value_at).take("I")
        if key.endswith(".block_count"):
            n_layer = Cursor(mm, value_at).take("I")
        entries.append((key, bytes(mm[start:c.at])))
    infos = []
    for _ in range(n_tensors):
        name = c.string()
        rank = c.take("I")
        dims = [c.take("Q") for _ in range(rank)]
        ggml_type, offset = c.take("IQ")
        infos.append((name, dims, ggml_type, offset))
    data_start = align(c.at, alignment)
    ends = sorted(offset for _, _, _, offset in infos)[1:] + [len(mm) - data_start]
    size_of = {offset: end - offset for offset, end in zip(sorted(o for *_, o in infos), ends)}
    assert arch and n_layer, "%s: no general.architecture or block_count" % a.src

    # Output tensors: the non-layer ones where they were, all the layers where the first was.
    def layer_of(name):
        return int(name.split(".")[1]) if name.startswith("blk.") else None
    out_infos, layers_done = [], False
    for name, dims, gtype, offset in infos:
        if layer_of(name) is None:
            out_infos.append((name, dims, gtype, offset))
        elif not layers_done:
            layers_done = True
            for layer in range(a.layers):
                for n2, d2, t2, o2 in infos:
                    if layer_of(n2) == layer % n_layer:
                        out_infos.append(("blk.%d.%s" % (layer, n2.split(".", 2)[2]), d2, t2, o2))
    out = bytearray(struct.pack("<4sIQQ", b"GGUF", 3, len(out_infos), n_kv))
    for key, raw in entries:
        out += packed_string(key) + struct.pack("<II", U32, a.layers) if key == "%s.block_count" % arch else raw
    offsets, at = [], 0
    for name, dims, gtype, src_offset in out_infos:
        out += packed_string(name) + struct.pack("<I", len(dims)) + struct.pack("<%dQ" % len(dims), *dims)
        out += struct.pack("<IQ", gtype, at)
        offsets.append(at)
        at = align(at + size_of[src_offset], alignment)
    out += bytes(align(len(out), alignment) - len(out))
    tmp = a.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
        written = 0
        for (name, dims, gtype, src_offset), offset in zip(out_infos, offsets):
            assert written == offset
            n = size_of[src_offset]
            begin = data_start + src_offset
            for chunk in range(begin, begin + n, 1 << 26):
                f.write(mm[chunk:min(begin + n, chunk + (1 << 26))])
            written = align(offset + n, alignment)
            f.write(bytes(written - offset - n))
    os.replace(tmp, a.out)
    print("%s: %d layers from %d, %.2f GB" % (a.out, a.layers, n_layer, os.path.getsize(a.out) / 1e9))


if __name__ == "__main__":
    main()
