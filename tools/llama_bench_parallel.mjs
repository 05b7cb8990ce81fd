#!/usr/bin/env node
// llama.cpp with N sequences in one context (node-llama-cpp context sequences), the reference
// for `forge bench llm MODEL --parallel N`: the same random-token prompts, the same shape of work.
//
//   node tools/llama_bench_parallel.mjs --model M.gguf --parallel 4 [--prompt 128] [--gen 32]
//        [--threads 2] [--reps 3] [--kit /work/oracle-llm]
//
// prefill: every sequence clears its history and evaluates --prompt tokens, all N at once
//          (node-llama-cpp batches the sequences' evaluations into shared llama_decode calls).
// decode:  every sequence generates --gen greedy tokens from an empty history, all N at once
//          (one llama_decode per step holds one token of each sequence).
// One warm-up run of each, then --reps timed runs; medians. Prints JSON with the per-stream
// rates (prefill_tok_s, decode_tok_s) and the aggregates, as forge bench llm --json does.
// node-llama-cpp is not a dependency of forge: --kit names a directory whose node_modules has it
// (the llama.cpp oracle kit, ../shared/oracles/llm after its setup.sh).
import path from "node:path";
import {pathToFileURL} from "node:url";

const o = {model: "", parallel: 4, prompt: 128, gen: 32, threads: 2, reps: 3, kit: "/work/oracle-llm"};
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
    const key = args[i].replace(/^--/, "");
    if (!(key in o) || args[i + 1] === undefined) {
        console.error(`unknown option or missing value: ${args[i]}`);
        process.exit(2);
    }
    o[key] = typeof o[key] === "number" ? Number(args[i + 1]) : args[i + 1];
}
if (!o.model) {
    console.error("usage: node tools/llama_bench_parallel.mjs --model M.gguf [--parallel 4] [--prompt 128] [--gen 32] [--threads 2] [--reps 3] [--kit DIR]");
    process.exit(2);
}

const {getLlama, LlamaLogLevel} = await import(
    pathToFileURL(path.join(o.kit, "node_modules", "node-llama-cpp", "dist", "index.js")).href);
const llama = await getLlama({gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true,
    progressLogs: false, maxThreads: o.threads, logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: o.model, gpuLayers: 0, useMmap: true});
const N = o.parallel;
const context = await model.createContext({
    contextSize: N * (Math.max(o.prompt, o.gen) + 64), batchSize: N * o.prompt, threads: o.threads, sequences: N,
    ignoreMemorySafetyChecks: true,
});
const sequences = Array.from({length: N}, () => context.getSequence());
const nVocab = model.fileInfo?.metadata?.tokenizer?.ggml?.tokens?.length ?? 32000;

let rng = 42;
const rand = () => (rng = (Math.imul(rng, 1664525) + 1013904223) >>> 0);
const prompt = Array.from({length: o.prompt}, () => rand() % Math.min(nVocab, 151643));

async function prefill() {
    await Promise.all(sequences.map((s) => s.clearHistory()));
    const items = prompt.map((t, i) => (i === prompt.length - 1 ? [t, {generateNext: {token: true, options: {temperature: 0}}}] : t));
    const t0 = performance.now();
    await Promise.all(sequences.map((s) => s.controlledEvaluate(items)));
    return (performance.now() - t0) / 1000;
}

async function decode() {
    await Promise.all(sequences.map((s) => s.clearHistory()));
    const t0 = performance.now();
    await Promise.all(sequences.map(async (s, i) => {
        let n = 0;
        for await (const token of s.evaluate([i + 1], {temperature: 0, yieldEogToken: true})) {
            void token;
            if (++n >= o.gen) break;
        }
        if (n < o.gen) throw new Error(`sequence ${i} stopped after ${n} tokens`);
    }));
    return (performance.now() - t0) / 1000;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(fn) {
    await fn();
    const secs = [];
    for (let r = 0; r < o.reps; r++) secs.push(await fn());
    return median(secs);
}
const prefillS = await timed(prefill);
const decodeS = await timed(decode);
console.log(JSON.stringify({
    engine: "llama.cpp", llama_cpp_release: llama.llamaCppRelease, model: o.model, threads: o.threads, parallel: N,
    prompt: o.prompt, gen: o.gen, reps: o.reps,
    prefill_tok_s: o.prompt / prefillS, decode_tok_s: o.gen / decodeS,
    aggregate_prefill_tok_s: N * o.prompt / prefillS, aggregate_decode_tok_s: N * o.gen / decodeS,
}, null, 2));
await context.dispose();
await model.dispose();
