#!/usr/bin/env node
// Golden for serve's /tokenize and /detokenize (test/app/serve/utility_routes_test.mjs): what
// llama.cpp (node-llama-cpp's prebuilt binary, from the oracle kit) makes of a few texts with the
// test models: tokens with special tokens parsed and not, BOS and whether the file asks for it,
// each token's piece, and the text of the tokens detokenized with special tokens rendered.
//
//   cp -r /work/shared/oracles/llm /tmp/kit && bash /tmp/kit/setup.sh
//   node tools/make_serve_tokenize_golden.mjs /tmp/kit > test/data/llm/serve_tokenize_golden.json
import path from "node:path";
import {pathToFileURL} from "node:url";

const kit = process.argv[2];
if (!kit) {
    console.error("usage: node tools/make_serve_tokenize_golden.mjs KIT_DIR");
    process.exit(2);
}
const {loadLlama} = await import(pathToFileURL(path.join(kit, "common.mjs")).href);
const data = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "test", "data", "llm");

const texts = ["Hello, world!", "<|im_start|>user\nhi<|im_end|>", "  two spaces\n\ttab", "caf\u00e9 \u00e1 \u{1F600}"];
const llama = await loadLlama({threads: 1});
const out = {};
for (const file of ["llama-q8_0.gguf", "qwen3-q8_0.gguf"]) {
    const model = await llama.loadModel({modelPath: path.join(data, file), gpuLayers: 0});
    const bos = model.tokens.bos;
    const addBos = model.fileInfo.metadata.tokenizer?.ggml?.add_bos_token ?? null;
    out[file] = {
        bos: bos ?? null,
        add_bos_token: addBos,
        cases: texts.map((text) => {
            const special = Array.from(model.tokenize(text, true));
            return {
                text,
                tokens_parse_special: special,
                tokens_no_parse_special: Array.from(model.tokenize(text, false)),
                pieces: special.map((t) => model.detokenize([t], true)),
                detokenized: model.detokenize(special, true),
            };
        }),
    };
    await model.dispose();
}
console.log(JSON.stringify(out, null, 1));
