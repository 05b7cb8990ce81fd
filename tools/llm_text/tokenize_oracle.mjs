// Token ids from llama.cpp (node-llama-cpp's prebuilt binary, vocab only) for every text of a
// corpus, with and without special-token parsing, never adding BOS/EOS: the goldens that
// test/models/llm/tokenizer_test.cpp compares forge against.
//
// ESM resolves node-llama-cpp next to the script, so run a copy inside the oracle kit
// (../shared/oracles/llm copied to /tmp/llm-oracles, after its setup.sh):
//   cp tools/llm_text/tokenize_oracle.mjs /tmp/llm-oracles/ && cd /tmp/llm-oracles
//   node tokenize_oracle.mjs CORPUS.json OUT.json NAME=MODEL.gguf ...
//
// OUT.json: {"<NAME>": [{"text": ..., "no_special": [...], "special": [...]}, ...], ...}
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import fs from "node:fs";

const [corpusPath, outPath, ...models] = process.argv.slice(2);
const corpus = JSON.parse(fs.readFileSync(corpusPath, "utf8"));
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const result = {};
for (const spec of models) {
    const [name, path] = spec.split("=");
    const model = await llama.loadModel({modelPath: path, vocabOnly: true, gpuLayers: 0});
    result[name] = corpus.map((text) => ({
        text,
        no_special: Array.from(model.tokenize(text, false)),
        special: Array.from(model.tokenize(text, true)),
    }));
    await model.dispose();
}
fs.writeFileSync(outPath, JSON.stringify(result, null, 0).replaceAll("},{", "},\n{") + "\n");
console.log(`wrote ${outPath}: ${models.length} vocabularies x ${corpus.length} texts`);
