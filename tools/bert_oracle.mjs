// llama.cpp's tokens and vectors for a BERT-family GGUF, through node-llama-cpp (the oracle kit,
// /work/shared/oracles/llm): what tools/make_bert_goldens.py records for forge's tests.
//
//   node tools/bert_oracle.mjs --kit /tmp/llm-oracles --model M.gguf --texts texts.json [--pairs pairs.json]
//
// texts.json: ["text", ...]. Per text: `tokens` (llama_tokenize with special parsing off, then
// [CLS] ... [SEP] as node-llama-cpp's embedding context adds them) and `embedding` (the pooled
// vector, not normalised). pairs.json: [[query, document], ...] for a rank model: `tokens`
// ([CLS] query [SEP] document [SEP]) and `score` (the classifier's raw output, before the
// sigmoid node-llama-cpp's ranking context applies). Prints JSON.
import path from "node:path";
import fs from "node:fs";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
    a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc, []));
const {getLlama, LlamaLogLevel} = await import(path.resolve(args.kit, "node_modules/node-llama-cpp/dist/index.js"));
const llama = await getLlama({gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true,
                              progressLogs: false, maxThreads: Number(args.threads ?? 2), logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: args.model});
const cls = model.tokens.bos, sep = model.tokens.sep;
const tokensOf = (text) => [cls, ...model.tokenize(text, false), sep];
const out = {model: path.basename(args.model)};

if (args.texts) {
    const texts = JSON.parse(fs.readFileSync(args.texts, "utf8"));
    const context = await model.createEmbeddingContext({contextSize: Number(args.ctx ?? 128), threads: Number(args.threads ?? 2)});
    out.texts = [];
    for (const text of texts) {
        const tokens = tokensOf(text);
        const embedding = await context.getEmbeddingFor(tokens);
        out.texts.push({text, tokens, embedding: Array.from(embedding.vector)});
    }
    await context.dispose();
}
if (args.pairs) {
    const pairs = JSON.parse(fs.readFileSync(args.pairs, "utf8"));
    const context = await model.createRankingContext({contextSize: Number(args.ctx ?? 128), threads: Number(args.threads ?? 2)});
    out.pairs = [];
    for (const [query, document] of pairs) {
        const tokens = [cls, ...model.tokenize(query, false), sep, ...model.tokenize(document, false), sep];
        // The ranking context's own evaluation, read before its sigmoid (node-llama-cpp internals:
        // the one way to the raw llama_get_embeddings_seq value).
        await context._sequence.eraseContextTokenRanges([{start: 0, end: context._sequence.nextTokenIndex}]);
        for await (const _ of context._sequence.evaluate(tokens, {_noSampling: true})) break;
        const score = context._llamaContext._ctx.getEmbedding(tokens.length, 1)[0];
        const probability = await context.rank(query, document);  // cross-check: its own input
        out.pairs.push({query, document, tokens, score, node_llama_cpp_rank: probability});
    }
    await context.dispose();
}
console.log(JSON.stringify(out));
