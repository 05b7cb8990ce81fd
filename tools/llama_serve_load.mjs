#!/usr/bin/env node
// The llama.cpp side of tools/serve_load.mjs: the same C clients for D seconds, each running one
// chat request after another (the same user text, ChatML turns as Qwen's template writes them,
// the same max_tokens and temperature), on node-llama-cpp with N context sequences — llama.cpp's
// continuous batching with the same number of slots as `forge serve --parallel N`. In-process,
// so without HTTP: a client takes a free sequence (or waits for one), evaluates its prompt and
// samples until end of generation or max tokens. Reports TTFT p50/p99 (from the request's start,
// waiting included) and aggregate generated tok/s, as serve_load.mjs does.
//
//   node tools/llama_serve_load.mjs --model M.gguf --parallel 4 [--clients 64] [--duration 30]
//        [--max-tokens 32] [--threads 2] [--kit /work/oracle-llm]
// node-llama-cpp is not a dependency of forge: --kit names a directory whose node_modules has it.
import path from "node:path";
import {pathToFileURL} from "node:url";

const o = {model: "", parallel: 4, clients: 64, duration: 30, "max-tokens": 32, threads: 2, kit: "/work/oracle-llm"};
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
    const key = args[i].replace(/^--/, "");
    if (!(key in o) || args[i + 1] === undefined) { console.error(`unknown option or missing value: ${args[i]}`); process.exit(2); }
    o[key] = typeof o[key] === "number" ? Number(args[i + 1]) : args[i + 1];
}
if (!o.model) { console.error("usage: llama_serve_load.mjs --model M.gguf [--parallel N] [--clients C] [--duration S]"); process.exit(2); }

const {getLlama, LlamaLogLevel} = await import(pathToFileURL(path.join(o.kit, "node_modules", "node-llama-cpp", "dist", "index.js")).href);
const llama = await getLlama({gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true, progressLogs: false,
    maxThreads: o.threads, logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: o.model, gpuLayers: 0, useMmap: true});
const context = await model.createContext({contextSize: o.parallel * 1024, batchSize: 512, threads: o.threads, sequences: o.parallel,
    ignoreMemorySafetyChecks: true});
const free = Array.from({length: o.parallel}, () => context.getSequence());
const waiting = [];
const acquire = () => free.length ? Promise.resolve(free.pop()) : new Promise((resolve) => waiting.push(resolve));
const release = (s) => { if (waiting.length) waiting.shift()(s); else free.push(s); };

async function request(c, i) {
    const t0 = performance.now();
    const text = `<|im_start|>user\nClient ${c}, request ${i}: tell me about the sea.<|im_end|>\n<|im_start|>assistant\n`;
    const tokens = model.tokenize(text, true);
    const s = await acquire();
    let ttft = NaN, n = 0;
    try {
        await s.clearHistory();
        for await (const token of s.evaluate(tokens, {temperature: 0.8, topK: 40, topP: 0.95, minP: 0.05, seed: c * 1000 + i})) {
            if (model.isEogToken?.(token)) break;
            if (n === 0) ttft = performance.now() - t0;
            if (++n >= o["max-tokens"]) break;
        }
    } finally {
        release(s);
    }
    return {ttft, n};
}

const ttfts = [];
let tokens = 0, requests = 0, errors = 0;
const end = performance.now() + o.duration * 1000;
const t0 = performance.now();
await Promise.all(Array.from({length: o.clients}, async (_, c) => {
    for (let i = 0; performance.now() < end; i++) {
        try {
            const r = await request(c, i);
            if (!Number.isNaN(r.ttft)) ttfts.push(r.ttft);
            tokens += r.n;
            requests++;
        } catch (e) {
            errors++;
        }
    }
}));
const wall = (performance.now() - t0) / 1000;
const q = (p) => { const s = [...ttfts].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
console.log(`llama.cpp: ${o.clients} clients, ${o.parallel} sequences, ${wall.toFixed(1)} s: ${requests} requests, ${errors} errors; ` +
    `TTFT p50 ${q(0.5).toFixed(0)} ms, p99 ${q(0.99).toFixed(0)} ms; ${(tokens / wall).toFixed(1)} tok/s aggregate`);
process.exit(0);
