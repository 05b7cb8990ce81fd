"""A small GGUF (version 2 and 3) reader for the tools that check forge's own files against a
reference: the metadata as Python values and the tensors as float64 numpy arrays.

The layout is the one tools/gguf_writer.py writes (and docs/ARCHITECTURE.md describes): magic,
version, tensor count, metadata count; the metadata; each tensor's name, dims (fastest first),
ggml type and offset; the data, aligned to general.alignment (32 unless the file says otherwise).
Tensor types read: F32, F16 and Q8_0 (blocks of 32 weights: an f16 scale, then 32 int8), the
types `forge quantize ... Q8_0` leaves in a speech model. Only the standard library and numpy.

    meta, tensors = gguf_reader.read("model.gguf")     # tensors: name -> array in PyTorch order
    meta, infos = gguf_reader.read_header("model.gguf")  # (name, dims, ggml type, file offset) each
"""
import mmap
import struct

import numpy as np

import gguf_writer  # the metadata type ids, named once

GGML_F32, GGML_F16, GGML_Q8_0 = 0, 1, 8
Q8_0_BLOCK = 32


class _Cursor:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values[0] if len(values) == 1 else values

    def string(self):
        n = self.take("Q")
        text = self.data[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return text

    def value(self, vtype):
        if vtype == gguf_writer.STRING:
            return self.string()
        if vtype == gguf_writer.ARRAY:
            elem, n = self.take("I"), self.take("Q")
            return [self.value(elem) for _ in range(n)]
        return self.take(gguf_writer.SCALAR_FORMAT[vtype])


def _tensor(raw, ggml_type, count):
    if ggml_type == GGML_F32:
        return np.frombuffer(raw, dtype="<f4", count=count).astype(np.float64)
    if ggml_type == GGML_F16:
        return np.frombuffer(raw, dtype="<f2", count=count).astype(np.float64)
    if ggml_type == GGML_Q8_0:
        blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("q", "i1", Q8_0_BLOCK)]),
                               count=count // Q8_0_BLOCK)
        return (blocks["d"].astype(np.float64)[:, None] * blocks["q"].astype(np.float64)).reshape(-1)
    raise ValueError(f"ggml type {ggml_type} is not read by tools/gguf_reader.py")


def _nbytes(ggml_type, count):
    return {GGML_F32: 4 * count, GGML_F16: 2 * count, GGML_Q8_0: count // Q8_0_BLOCK * (2 + Q8_0_BLOCK)}[ggml_type]


def _header(data, path):
    """(metadata dict, [(name, dims, ggml type, offset of the data from the file's start)])."""
    c = _Cursor(data)
    if data[:4] != b"GGUF":
        raise ValueError(f"{path}: not a GGUF file")
    c.pos = 4
    version, n_tensors, n_kv = c.take("IQQ")
    if version not in (2, 3):
        raise ValueError(f"{path}: GGUF version {version}")
    meta = {}
    for _ in range(n_kv):
        key = c.string()
        meta[key] = c.value(c.take("I"))
    infos = []
    for _ in range(n_tensors):
        name = c.string()
        dims = [c.take("Q") for _ in range(c.take("I"))]
        ggml_type, offset = c.take("IQ")
        infos.append((name, dims, ggml_type, offset))
    alignment = meta.get("general.alignment", 32)
    base = (c.pos + alignment - 1) // alignment * alignment
    return meta, [(name, dims, ggml_type, base + offset) for name, dims, ggml_type, offset in infos]


def read_header(path):
    """The metadata and the tensors' (name, dims fastest first, ggml type, file offset), without
    reading the tensor data: for files too large to hold as float64 (bench_lora_torch.py)."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return _header(data, path)


def read(path):
    """(metadata dict, tensors dict name -> float64 array with the dims reversed: PyTorch order)."""
    with open(path, "rb") as f:
        data = f.read()
    meta, infos = _header(data, path)
    tensors = {}
    for name, dims, ggml_type, start in infos:
        count = int(np.prod(dims)) if dims else 1
        raw = data[start:start + _nbytes(ggml_type, count)]
        tensors[name] = _tensor(raw, ggml_type, count).reshape(list(reversed(dims)))
    return meta, tensors
