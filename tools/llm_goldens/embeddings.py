#!/usr/bin/python3
"""Regenerate the embedding and rerank goldens in test/data/llm/embed/ (needs the llama.cpp
oracle kit, set up; see regen.py).

  cp -r ../shared/oracles/llm /tmp/llm-oracles && bash /tmp/llm-oracles/setup.sh
  /usr/bin/python3 tools/llm_goldens/embeddings.py --kit /tmp/llm-oracles

For each model: NAME.gguf (random weights, the kit's 511-token vocabulary, {arch}.pooling_type
set) and NAME.json: the token inputs and llama.cpp's pooled vectors for them (node-llama-cpp's
createEmbeddingContext, not normalised), or, for the reranker, llama.cpp's relevance score of
each input (its softmax over the yes/no head, through node-llama-cpp's ranking context).
The reranker is the kit's qwen3 with pooling_type 4 (rank), a cls.output.weight of two rows
(the "yes" and "no" rows of a Qwen3-Reranker's head) and a rerank template, as
llama.cpp's convert_hf_to_gguf.py writes a Qwen3-Reranker. --oracle-only keeps the models.
"""
import argparse
import json
import os
import subprocess
import tempfile
import zlib

import numpy as np

from gguf_copy import copy_metadata, load_kit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
SMALL = ["--n-layer", "2", "--n-embd", "64", "--n-head", "4", "--n-head-kv", "2", "--n-ff", "128"]
RERANK_TEMPLATE = "<|im_start|>system\nJudge: yes or no.<|im_end|>\n<Query>: {query}\n<Document>: {document}<|im_end|>\n"

# name: (arch, seed, dtype, pooling)
MODELS = {
    "qwen3-embed-last": ("qwen3", 21, "f32", "last"),  # Qwen3-Embedding's pooling
    "llama-embed-mean": ("llama", 22, "q8_0", "mean"),
    "qwen3-embed-cls": ("qwen3", 23, "q8_0", "cls"),
    "qwen3-rerank": ("qwen3", 24, "f32", "rank"),
}

# Token inputs over the tiny vocabulary: one token, short, a special token, and one longer
# than forge's 512-row pass (it continues in the cache).
def inputs(seed):
    rng = np.random.default_rng(seed)
    fixed = [[72], [72, 101, 108, 108, 111], [300, 301, 302, 509, 77, 12, 33], list(range(256, 286))]
    return fixed + [rng.integers(0, 503, size=600).tolist()]

ORACLE_JS = r"""
import fs from "node:fs";
import {getLlama} from "node-llama-cpp";
const [modelPath, inputsPath, outPath, mode] = process.argv.slice(2);
const inputs = JSON.parse(fs.readFileSync(inputsPath, "utf8"));
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath});
const out = {llama_cpp_release: llama.llamaCppRelease, values: []};
if (mode === "rank") {
    const ctx = await model.createRankingContext({contextSize: 1024, batchSize: 1024, threads: 2});
    for (const tokens of inputs) out.values.push(await ctx._evaluateRankingForInput(tokens));
} else {
    const ctx = await model.createEmbeddingContext({contextSize: 1024, batchSize: 1024, threads: 2});
    for (const tokens of inputs) out.values.push(Array.from((await ctx.getEmbeddingFor(tokens)).vector));
}
fs.writeFileSync(outPath, JSON.stringify(out));
process.exit(0);
"""


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def add_rank_head(G, src, dst, seed):
    """pooling_type 4, a rerank template and a [2, n_embd] cls.output.weight (std 2/sqrt(n_embd))."""
    r = G.GGUFReader(src)
    w = G.GGUFWriter(dst)
    copy_metadata(G, r, w)
    w.add_u32("qwen3.pooling_type", 4)
    w.add_array("qwen3.classifier.output_labels", G.T_STRING, ["yes", "no"])  # llama.cpp's n_cls_out
    w.add_string("tokenizer.chat_template.rerank", RERANK_TEMPLATE)
    for name, (ne, gt, _) in r.tensors.items():
        w.add_tensor(name, ne, gt, lambda name=name: r.raw(name))
    n_embd = r.kv["qwen3.embedding_length"]
    rng = np.random.default_rng([seed, zlib.crc32(b"cls.output.weight")])
    head = (rng.standard_normal((2, n_embd), dtype=np.float32) * np.float32(2.0 / np.sqrt(n_embd))).astype("<f4")
    w.add_tensor("cls.output.weight", [n_embd, 2], G.GGML_F32, lambda: head.tobytes())
    w.write()


def make_model(G, kit, name, spec, out, tmp):
    arch, seed, dtype, pooling = spec
    dst = os.path.join(out, name + ".gguf")
    pool = [] if pooling == "rank" else ["--pooling", pooling]
    src = os.path.join(tmp, name + ".src.gguf") if pooling == "rank" else dst
    run([PY, os.path.join(kit, "make_gguf.py"), "-q", "-o", src, "--arch", arch, "--tokenizer", "tiny", "--seed",
         str(seed), "--dtype", dtype, "--tie-embeddings", *SMALL, *pool])
    if pooling == "rank":
        add_rank_head(G, src, dst, seed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kit", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "test", "data", "llm", "embed"))
    ap.add_argument("--oracle-only", action="store_true")
    a = ap.parse_args()
    G = load_kit(a.kit)
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(a.kit, "embedding_oracle.tmp.mjs")  # in the kit: node_modules resolve from there
        with open(script, "w") as f:
            f.write(ORACLE_JS)
        try:
            for name, spec in MODELS.items():
                if not a.oracle_only:
                    make_model(G, a.kit, name, spec, a.out, tmp)
                token_inputs = inputs(spec[1])
                inputs_path, result_path = os.path.join(tmp, name + ".in.json"), os.path.join(tmp, name + ".out.json")
                with open(inputs_path, "w") as f:
                    json.dump(token_inputs, f)
                mode = "rank" if spec[3] == "rank" else "embed"
                run(["node", script, os.path.join(a.out, name + ".gguf"), inputs_path, result_path, mode])
                with open(result_path) as f:
                    result = json.load(f)
                golden = {"model": name + ".gguf", "pooling": spec[3], "llama_cpp_release": result["llama_cpp_release"],
                          "inputs": token_inputs}
                golden["scores" if mode == "rank" else "embeddings"] = [
                    [float(np.float32(x)) for x in v] if isinstance(v, list) else float(v) for v in result["values"]]
                with open(os.path.join(a.out, name + ".json"), "w") as f:
                    json.dump(golden, f)
                print(name, "ok")
        finally:
            os.remove(script)


if __name__ == "__main__":
    main()
