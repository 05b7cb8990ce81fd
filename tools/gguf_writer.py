"""A small GGUF (version 3) writer for the tools that make test fixtures and goldens.

GGUF: "GGUF", version, tensor count, metadata count; each metadata entry as key, value type,
value; each tensor's name, dims, ggml type and offset; then the tensor data, every piece
aligned (general.alignment, 32 by default). Only the standard library; the callers bring the
tensor bytes (numpy's .tobytes() or struct).

Used by tools/asr_oracle.py (models and goldens) and tools/llm_text/make_tokenizer_gguf.py
(tokenizer-only files). Metadata is a list of (key, type, value); an array's value is
(element type, items). infer_type() picks a type for plain Python values.
"""
import gzip
import os
import struct

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
GGML_F32 = 0  # ggml type id of f32 tensors

SCALAR_FORMAT = {U8: "B", I8: "b", U16: "H", I16: "h", U32: "I", I32: "i", F32: "f", BOOL: "?",
                 U64: "Q", I64: "q", F64: "d"}


def string(text):
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def value(vtype, v):
    """The bytes of one metadata value of type `vtype`; an ARRAY's v is (element type, items)."""
    if vtype == STRING:
        return string(v)
    if vtype == ARRAY:
        elem, items = v
        if elem == STRING:
            return struct.pack("<IQ", elem, len(items)) + b"".join(string(s) for s in items)
        return struct.pack("<IQ", elem, len(items)) + struct.pack("<%d%s" % (len(items), SCALAR_FORMAT[elem]), *items)
    return struct.pack("<" + SCALAR_FORMAT[vtype], v)


def infer_type(v):
    """(type, value) for a plain Python value: bool, int (u32), float (f32), str, a list of str,
    or ("i32", [ints]) for an i32 array."""
    if isinstance(v, bool):
        return BOOL, v
    if isinstance(v, int):
        return U32, v
    if isinstance(v, float):
        return F32, v
    if isinstance(v, str):
        return STRING, v
    if isinstance(v, tuple) and v[0] == "i32":
        return ARRAY, (I32, v[1])
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return ARRAY, (STRING, v)
    raise TypeError(f"no GGUF encoding for {v!r}")


def gguf_bytes(metadata, tensors=(), alignment=32):
    """metadata: [(key, type, value)]; tensors: [(name, dims (ggml order: fastest first),
    ggml type, data bytes)]."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata)))
    for key, vtype, v in metadata:
        out += string(key) + struct.pack("<I", vtype) + value(vtype, v)
    offset = 0
    for name, dims, ggml_type, data in tensors:
        out += string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ggml_type, offset)
        offset += (len(data) + alignment - 1) // alignment * alignment
    out += b"\0" * (-len(out) % alignment)
    for _, _, _, data in tensors:
        out += data + b"\0" * (-len(data) % alignment)
    return bytes(out)


def write(path, metadata, tensors=(), alignment=32):
    """Write the file atomically (a temporary file, then a rename); a path ending in .gz is
    gzip-compressed."""
    data = gguf_bytes(metadata, tensors, alignment)
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        if path.endswith(".gz"):
            with gzip.GzipFile(filename=os.path.basename(path), mode="wb", fileobj=raw) as f:
                f.write(data)
        else:
            raw.write(data)
    os.replace(tmp, path)
