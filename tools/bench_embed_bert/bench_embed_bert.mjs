// llama.cpp's side of tools/bench_embed_bert: the same N short inputs through node-llama-cpp's
// embedding context, one at a time after one warm-up, same threads. Prints one JSON line.
//
//   node tools/bench_embed_bert/bench_embed_bert.mjs --kit /tmp/llm-oracles --model M.gguf [--n 512] [--threads 2]
import path from "node:path";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
    a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc, []));
const n = Number(args.n ?? 512), threads = Number(args.threads ?? 2);
const {getLlama, LlamaLogLevel} = await import(path.resolve(args.kit, "node_modules/node-llama-cpp/dist/index.js"));
const llama = await getLlama({gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true,
                              progressLogs: false, maxThreads: threads, logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: args.model});
const context = await model.createEmbeddingContext({contextSize: 512, threads});
const words = ["search", "vector", "query", "document", "the", "quick", "brown", "fox",
               "hello", "world", "model", "token", "rank", "score", "small", "fast"];
const text = (i) => `input ${i}:` + Array.from({length: 8}, (_, w) => " " + words[(i * 7 + w * 3) % 16]).join("");
const inputs = Array.from({length: n}, (_, i) => text(i));
await context.getEmbeddingFor(inputs[0]);
const start = process.hrtime.bigint();
let checksum = 0;
for (const input of inputs) checksum += (await context.getEmbeddingFor(input)).vector[0];
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(JSON.stringify({engine: "llama.cpp", inputs: n, threads, seconds: +seconds.toFixed(3),
                            embeddings_per_s: +(n / seconds).toFixed(1), checksum: +checksum.toFixed(6)}));
