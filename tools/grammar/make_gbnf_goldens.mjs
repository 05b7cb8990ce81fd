// GBNF goldens from llama.cpp's grammar sampler, for test/models/llm/grammar_gbnf_oracle_test.cpp:
// greedy generation (temperature 0: the most likely token the grammar allows, the lowest id on
// a tie) under each grammar below, on the committed random-weight model, from the same prompt
// token ids (no tokenizer in between). forge's constrained greedy generation must give the same
// token ids, exactly.
//
//   cp -r shared/oracles/llm /tmp/llm-oracles && bash /tmp/llm-oracles/setup.sh
//   node tools/grammar/make_gbnf_goldens.mjs --kit /tmp/llm-oracles
//
// node-llama-cpp (MIT; the prebuilt llama.cpp CPU binary) is not a dependency of forge: --kit
// names a directory whose node_modules has it.
import fs from "node:fs";
import path from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const o = {kit: "/tmp/llm-oracles", model: "test/data/llm/qwen3-f32.gguf", out: "test/data/grammar/gbnf_goldens.json", maxTokens: 32};
for (let i = 2; i < process.argv.length; i += 2) {
    const key = process.argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!(key in o)) {
        console.error("usage: node tools/grammar/make_gbnf_goldens.mjs [--kit DIR] [--model M.gguf] [--out F.json] [--max-tokens N]");
        process.exit(2);
    }
    o[key] = typeof o[key] === "number" ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
const {getLlama, LlamaLogLevel, LlamaGrammar, LlamaGrammarEvaluationState} = await import(
    pathToFileURL(path.join(o.kit, "node_modules", "node-llama-cpp", "dist", "index.js")).href);

// The prompt of the model's own golden (test/data/llm/*.json).
const PROMPT = [72, 101, 108, 108, 111, 44, 256, 300, 350, 400, 450, 500, 12, 33, 261, 270, 280, 290, 310, 320, 330, 340, 509, 77];

const GRAMMARS = {
    arithmetic: `root ::= expr "="
expr ::= term ([-+*/] term)*
term ::= [0-9]{1,3} | "(" expr ")"
`,
    list: `# a short bullet list
root ::= ("- " item "\\n"){2,4}
item ::= [a-z] [a-z ]{0,10}
`,
    json_object: `root   ::= "{" ws "\\"name\\":" ws string "," ws "\\"n\\":" ws number ws "}"
string ::= "\\"" [^"\\\\\\n]{0,8} "\\""
number ::= "-"? [0-9]{1,4}
ws     ::= [ ]?
`,
    char_classes: `root ::= [A-Z] [a-z0-9_]{2,6} [\\x21-\\x2F] [0-9A-Fa-f]{2,} "."
`,
    // llama.cpp's decoder reads a byte F5-FF as the lead of a 4-byte character past U+10FFFF,
    // which every negated class and '.' admit; forge generates only valid UTF-8, and the test expects the two to part there.
    negated_class: `root ::= [A-Z] [a-z0-9_]{2,6} [^a-z\\n]{1,3} [\\x21-\\x2F] [0-9A-Fa-f]+ "."
`,
    repetitions: `root ::= "x"{2} ("ab" | "c"){1,5} [0-9]{3,} ("!"{0,2} | "?")
`,
    any_char: `root ::= "say: " .{3,6} "\\n" | "no"
`,
};

const llama = await getLlama({gpu: false, build: "never", skipDownload: true, usePrebuiltBinaries: true, progressLogs: false,
                              maxThreads: 2, logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: path.resolve(root, o.model), gpuLayers: 0});
const goldens = {model: o.model, llama_cpp_release: llama.llamaCppRelease, prompt: PROMPT, max_tokens: o.maxTokens, grammars: []};
for (const [name, text] of Object.entries(GRAMMARS)) {
    const context = await model.createContext({contextSize: 256, sequences: 1, threads: 2});
    const sequence = context.getSequence();
    const grammar = new LlamaGrammar(llama, {grammar: text});
    const state = new LlamaGrammarEvaluationState({model, grammar});
    const tokens = [];
    let ended = false;
    for await (const token of sequence.evaluate(PROMPT, {temperature: 0, grammarEvaluationState: state, yieldEogToken: true})) {
        if (model.isEogToken(token)) {
            ended = true;
            break;
        }
        tokens.push(token);
        if (tokens.length >= o.maxTokens) break;
    }
    const generated = model.detokenize(tokens, true);
    goldens.grammars.push({name, grammar: text, tokens, text: generated, ended});
    console.log(`${name}: ${tokens.length} tokens, ${ended ? "ended" : "cut"}: ${JSON.stringify(generated)}`);
    await context.dispose();
}
fs.mkdirSync(path.dirname(path.resolve(root, o.out)), {recursive: true});
fs.writeFileSync(path.resolve(root, o.out), JSON.stringify(goldens, null, 1) + "\n");
console.log(`wrote ${o.out}`);
