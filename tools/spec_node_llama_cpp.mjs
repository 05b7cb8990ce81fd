#!/usr/bin/env node
// node-llama-cpp's side of tools/spec_compare.py, run the way its users run it: LlamaCompletion
// over a context sequence (its `complete` command's path) on llama.cpp's prebuilt CPU binary,
// greedy, no repeat penalty, --gen tokens after the text --prompt-text, plain or with one of its
// token predictors:
//   --draft SMALL.gguf        DraftSequenceTokenPredictor over a sequence of SMALL's own context
//                             (--min-confidence: its minConfidence, the library's default 0.6
//                             unless given; 0 drafts up to --draft-max as forge's default does)
//   --lookup                  InputLookupTokenPredictor: LlamaCompletion hands it the prompt's
//                             tokens (it never searches the generated text)
//   --lookup --lookup-file F  the same, with F's tokens after the prompt's in what it searches:
//                             the reference forge's --lookup-file gives forge
//   --chat                    the prompt text is a user message: rendered by the model's own
//                             chat template (tokenizer.chat_template, node-llama-cpp's
//                             JinjaTemplateChatWrapper) into the text LlamaCompletion continues,
//                             as `forge chat` without --raw renders it
// Prints one JSON line: the median decode tokens/s over --reps runs after a short warm-up (the
// tokens after the first chunk over the time since that chunk came: loading and the prompt's
// evaluation are not counted), the tokens generated, the predictions validated and refuted
// (sequence.tokenPredictions) and the text of the last run.
//
//   node tools/spec_node_llama_cpp.mjs --kit /tmp/llm-oracles --model T.gguf --prompt-text "..."
//        [--draft D.gguf [--min-confidence 0.6] | --lookup [--lookup-file F]] [--chat] [--gen 128]
//        [--draft-max 16] [--threads 2] [--reps 1] [--ctx 2048]
import fs from "node:fs";
import path from "node:path";
import {pathToFileURL} from "node:url";

function parse(argv) {
    const o = {kit: "/tmp/llm-oracles", model: "", draft: "", lookup: false, lookupFile: "", chat: false, promptText: "", gen: 128,
               draftMax: 16, lookupMax: 3, minTokens: 0, minConfidence: -1, threads: 2, reps: 1, ctx: 2048};
    for (let i = 0; i < argv.length; i++) {
        const key = argv[i].replace(/^--/, "").replace(/-(.)/g, (_, c) => c.toUpperCase());
        if (!(key in o)) throw new Error(`unknown option ${argv[i]}`);
        o[key] = typeof o[key] === "boolean" ? true : typeof o[key] === "number" ? Number(argv[++i]) : argv[++i];
    }
    if (!o.model) throw new Error("--model is required");
    if (!o.promptText) throw new Error("--prompt-text is required");
    if (o.lookupFile && !o.lookup) throw new Error("--lookup-file needs --lookup");
    return o;
}

const o = parse(process.argv.slice(2));
const nlc = await import(pathToFileURL(path.join(o.kit, "node_modules/node-llama-cpp/dist/index.js")).href);
const llama = await nlc.getLlama({gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true,
                                  progressLogs: false, maxThreads: o.threads, logLevel: nlc.LlamaLogLevel.error});
// A fixed context size (the default "auto" sizes it to the model's 40960 positions and the
// memory); the KV cache attends over the cells in use, so it does not change the decode speed.
const contextOptions = {contextSize: o.ctx, threads: o.threads};
const model = await llama.loadModel({modelPath: o.model, gpuLayers: 0});
const context = await model.createContext(contextOptions);

// InputLookupTokenPredictor searches what LlamaCompletion hands it (the prompt's tokens); with
// --lookup-file the reference's tokens follow them.
class ReferenceLookupPredictor extends nlc.InputLookupTokenPredictor {
    constructor(reference, options) {
        super(options);
        this.reference = reference;
    }
    updateInputTokens(tokens) {
        super.updateInputTokens([...tokens, ...this.reference]);
    }
}

let predictor;
if (o.draft) {
    const draftModel = await llama.loadModel({modelPath: o.draft, gpuLayers: 0});
    const draftContext = await draftModel.createContext(contextOptions);
    const options = {maxTokens: o.draftMax, minTokens: o.minTokens};
    if (o.minConfidence >= 0) options.minConfidence = o.minConfidence;
    predictor = new nlc.DraftSequenceTokenPredictor(draftContext.getSequence(), options);
} else if (o.lookup) {
    const options = {predictionLength: {max: o.lookupMax}};
    predictor = o.lookupFile
        ? new ReferenceLookupPredictor(model.tokenize(fs.readFileSync(o.lookupFile, "utf8")), options)
        : new nlc.InputLookupTokenPredictor(options);
}
// --chat: the user message in the model's chat template, ready for the assistant's answer.
function chatPrompt(message) {
    const template = model.fileInfo.metadata?.tokenizer?.chat_template;
    if (!template) throw new Error(`--chat: ${o.model} has no tokenizer.chat_template`);
    const wrapper = new nlc.JinjaTemplateChatWrapper({template});
    const history = [{type: "user", text: message}, {type: "model", response: []}];
    return wrapper.generateContextState({chatHistory: history}).contextText;
}
const prompt = o.chat ? chatPrompt(o.promptText) : o.promptText;

const sequence = context.getSequence(predictor ? {tokenPredictor: predictor} : undefined);
const completion = new nlc.LlamaCompletion({contextSequence: sequence});

async function run(maxTokens) {
    await sequence.clearHistory();
    let count = 0, firstChunk = 0, first = 0, last = 0;
    const text = await completion.generateCompletion(prompt, {
        maxTokens, temperature: 0, repeatPenalty: false,
        onToken(tokens) {
            last = performance.now();
            if (count === 0) {
                first = last;
                firstChunk = tokens.length;
            }
            count += tokens.length;
        },
    });
    return {rate: (count - firstChunk) / ((last - first) / 1000), count, text};
}

await run(4);  // the warm-up
const before = {...sequence.tokenPredictions};
const runs = [];
for (let r = 0; r < o.reps; r++) runs.push(await run(o.gen));
const after = sequence.tokenPredictions;
const rates = runs.map((r) => r.rate).sort((a, b) => a - b);
const validated = after.validated - before.validated, refuted = after.refuted - before.refuted;
console.log(JSON.stringify({
    engine: "node-llama-cpp", model: o.model, draft: o.draft || null, lookup: o.lookup, lookup_file: o.lookupFile || null,
    threads: o.threads, gen: o.gen, generated: runs.at(-1).count, decode_tok_s: rates[Math.floor(rates.length / 2)],
    rates, validated, refuted, acceptance: validated + refuted > 0 ? validated / (validated + refuted) : 0,
    text: runs.at(-1).text,
}));
process.exit(0);
