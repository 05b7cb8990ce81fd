// Text from llama.cpp's detokenizer (node-llama-cpp's prebuilt binary, vocab only) for the ids
// of each golden text (tokenize_oracle.mjs output, the special-parsing ids), with and without
// special tokens printed: the goldens test/models/llm_text/tokenizer_test.cpp compares forge's
// decode() against (gpt-oss: which of its harmony tokens print as text).
//
//   cp tools/llm_text/detokenize_oracle.mjs /tmp/llm-oracles/ && cd /tmp/llm-oracles
//   node detokenize_oracle.mjs IDS.json OUT.json NAME=MODEL.gguf ...
//
// OUT.json: {"<NAME>": [{"ids": [...], "text": ..., "text_special": ...}, ...], ...}
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import fs from "node:fs";

const [idsPath, outPath, ...models] = process.argv.slice(2);
const goldens = JSON.parse(fs.readFileSync(idsPath, "utf8"));
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const result = {};
for (const spec of models) {
    const [name, path] = spec.split("=");
    const model = await llama.loadModel({modelPath: path, vocabOnly: true, gpuLayers: 0});
    result[name] = goldens[name].map(({special: ids}) => ({
        ids,
        text: model.detokenize(ids, false),
        text_special: model.detokenize(ids, true),
    }));
    await model.dispose();
}
fs.writeFileSync(outPath, JSON.stringify(result, null, 0).replaceAll("},{", "},\n{") + "\n");
console.log(`wrote ${outPath}: ${models.length} vocabularies`);
