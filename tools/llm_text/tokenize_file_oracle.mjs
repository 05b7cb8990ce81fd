// llama.cpp's token ids (node-llama-cpp, vocab only) for the whole text of a file, one line,
// space-separated, without BOS/EOS and without parsing special tokens: compare with
// `forge tokenize MODEL --file FILE --no-special` (which adds BOS where the GGUF asks for it).
//
// ESM resolves node-llama-cpp next to the script, so run a copy inside the oracle kit:
//   cp tools/llm_text/tokenize_file_oracle.mjs /work/oracle-llm/ && cd /work/oracle-llm
//   node tokenize_file_oracle.mjs MODEL.gguf FILE > llama.ids
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import fs from "node:fs";

const [modelPath, textPath] = process.argv.slice(2);
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath, vocabOnly: true, gpuLayers: 0});
const ids = model.tokenize(fs.readFileSync(textPath, "utf8"), false);
process.stdout.write(Array.from(ids).join(" ") + "\n");
await model.dispose();
