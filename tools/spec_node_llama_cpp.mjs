#!/usr/bin/env node
// node-llama-cpp's side of tools/spec_compare.py: greedy decoding of --gen tokens after --prompt
// random token ids (a fixed LCG seed, end-of-generation tokens banned), plain or with one of its
// token predictors (DraftSequenceTokenPredictor: --draft SMALL.gguf; InputLookupTokenPredictor:
// --lookup), on llama.cpp's prebuilt CPU binary. Prints JSON: the median decode tokens/s over
// --reps runs after a warm-up (the tokens after the first one, over the time since it came, so
// the prompt's evaluation is not counted) and the predictions validated and refuted.
//
//   node tools/spec_node_llama_cpp.mjs --kit /tmp/llm-oracles --model T.gguf [--draft D.gguf | --lookup]
//        [--prompt 128] [--gen 128] [--draft-max 16] [--threads 2] [--reps 3]
import path from "node:path";
import {pathToFileURL} from "node:url";

function parse(argv) {
    const o = {kit: "/tmp/llm-oracles", model: "", draft: "", lookup: false, prompt: 128, gen: 128, draftMax: 16,
               threads: 2, reps: 3};
    for (let i = 0; i < argv.length; i++) {
        const key = argv[i].replace(/^--/, "").replace(/-(.)/g, (_, c) => c.toUpperCase());
        if (!(key in o)) throw new Error(`unknown option ${argv[i]}`);
        o[key] = typeof o[key] === "boolean" ? true : typeof o[key] === "number" ? Number(argv[++i]) : argv[++i];
    }
    if (!o.model) throw new Error("--model is required");
    return o;
}

const o = parse(process.argv.slice(2));
const nlc = await import(pathToFileURL(path.join(o.kit, "node_modules/node-llama-cpp/dist/index.js")).href);
const llama = await nlc.getLlama({gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true,
                                  progressLogs: false, maxThreads: o.threads, logLevel: nlc.LlamaLogLevel.error});
const contextOptions = {contextSize: o.prompt + o.gen + o.draftMax + 64, batchSize: Math.max(o.prompt, 512),
                        threads: o.threads, sequences: 1, ignoreMemorySafetyChecks: true};
const model = await llama.loadModel({modelPath: o.model, gpuLayers: 0, useMmap: true});
const context = await model.createContext(contextOptions);
// End-of-generation tokens banned (a TokenBias belongs to one model).
const banEnd = (m) => {
    const bias = new nlc.TokenBias(m.tokenizer);
    for (const t of [m.tokens.eos, m.tokens.eot, m.tokens.bos].filter((t) => t != null)) bias.set(t, "never");
    return bias;
};
let predictor;
if (o.draft) {
    const draftModel = await llama.loadModel({modelPath: o.draft, gpuLayers: 0, useMmap: true});
    const draftContext = await draftModel.createContext(contextOptions);
    // minConfidence 0: draft up to maxTokens, as forge's --draft-min-p 0 does.
    predictor = new nlc.DraftSequenceTokenPredictor(draftContext.getSequence(), {
        maxTokens: o.draftMax, minConfidence: 0, evaluateOptions: {temperature: 0, tokenBias: banEnd(draftModel)}});
} else if (o.lookup) {
    predictor = new nlc.InputLookupTokenPredictor({predictionLength: {max: o.draftMax}});
}
const sequence = context.getSequence(predictor ? {tokenPredictor: predictor} : undefined);

let rng = 1234;
const prompt = [];
const nVocab = model.tokens.trimmedVocabularySize ?? 151643;
for (let i = 0; i < o.prompt; i++) prompt.push((rng = (Math.imul(rng, 1664525) + 1013904223) >>> 0) % nVocab);
const ban = banEnd(model);

async function run() {
    await sequence.clearHistory();
    let count = 0, first = 0;
    for await (const token of sequence.evaluate(prompt, {temperature: 0, tokenBias: ban})) {
        if (++count === 1) first = performance.now();
        if (count >= o.gen) break;
        void token;
    }
    return (count - 1) / ((performance.now() - first) / 1000);
}

await run();  // the warm-up
const before = {...sequence.tokenPredictions};
const rates = [];
for (let r = 0; r < o.reps; r++) rates.push(await run());
const after = sequence.tokenPredictions;
rates.sort((a, b) => a - b);
const validated = after.validated - before.validated, refuted = after.refuted - before.refuted;
console.log(JSON.stringify({
    engine: "node-llama-cpp", model: o.model, draft: o.draft || null, lookup: o.lookup, prompt: o.prompt, gen: o.gen,
    decode_tok_s: rates[Math.floor(rates.length / 2)], rates, validated, refuted,
    acceptance: validated + refuted > 0 ? validated / (validated + refuted) : 0,
}));
process.exit(0);
