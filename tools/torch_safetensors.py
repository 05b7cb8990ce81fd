"""Writing torch tensors as a safetensors file (header JSON padded to 8 bytes, then the raw
little-endian data), the format forge's goldens of training steps are read from
(core/checkpoint/safetensors.h). Shared by make_gpt_step_golden.py and make_lora_step_golden.py."""
import json

import torch

DTYPES = {torch.float32: "F32", torch.int32: "I32", torch.int64: "I64"}


def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))
