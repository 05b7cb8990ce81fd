"""Copy a GGUF's metadata with the oracle kit's reader/writer (gguf_io.py), for the scripts
here that derive one golden model from another (to_qwen2.py, rope_scaling.py)."""
import sys

import numpy as np


def load_kit(kit):
    """The kit's gguf_io module (the kit folder goes on sys.path)."""
    sys.path.insert(0, kit)
    import gguf_io
    return gguf_io


def copy_metadata(G, reader, writer, edit_key=lambda key, value: (key, value)):
    """Every key/value of `reader` into `writer`, after edit_key(key, value) -> (key, value).
    The reader keeps values, not their tags: restore the tags make_gguf.py writes."""
    for key, value in reader.kv.items():
        key, value = edit_key(key, value)
        if isinstance(value, str):
            writer.add_string(key, value)
        elif isinstance(value, bool):
            writer.add_bool(key, value)
        elif isinstance(value, int):
            writer.add_u32(key, value)
        elif isinstance(value, float):
            writer.add_f32(key, value)
        elif isinstance(value, list):
            writer.add_array(key, G.T_STRING, value)
        elif isinstance(value, np.ndarray):
            writer.add_array(key, G.T_INT32, value.astype(np.int32).tolist())
        else:
            sys.exit(f"unexpected metadata {key}: {type(value)}")
