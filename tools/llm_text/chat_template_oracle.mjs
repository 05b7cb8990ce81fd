// Expected chat-template renders from @huggingface/jinja (the Jinja renderer of
// transformers.js): every template in test/data/chat_templates/ for a few conversations,
// written to test/data/llm_text/chat_expected.json for test/models/llm_text/chat_template_test.cpp.
// Messages carry reasoning_content only when non-empty, as forge's render_chat passes them, and
// the same text as `thinking` (gpt-oss's template reads that; llama.cpp's server passes both).
// gpt-oss's template prints today's date: chat_template_test.cpp compares that line as a date.
//
//   cp tools/llm_text/chat_template_oracle.mjs /tmp/llm-oracles/ && cd /tmp/llm-oracles
//   npm install --no-save @huggingface/jinja && node chat_template_oracle.mjs /work/main
import {Template} from "@huggingface/jinja";
import fs from "node:fs";

const root = process.argv[2] ?? "/work/main";
const dir = `${root}/test/data/chat_templates`;
const tokens = {
    qwen3: ["", "<|im_end|>"], chatml: ["", "<|im_end|>"], llama3: ["<|begin_of_text|>", "<|eot_id|>"],
    gemma3: ["<bos>", "<end_of_turn>"], mistral: ["<s>", "</s>"], phi3: ["<s>", "<|endoftext|>"],
    smollm3: ["", "<|im_end|>"], "gpt-oss": ["<|startoftext|>", "<|return|>"],
};
const sys = {role: "system", content: "You are a helpful assistant."};
const u1 = {role: "user", content: "Hi! What is 2+2?"};
const a1 = {role: "assistant", content: "2+2 = 4."};
const u2 = {role: "user", content: "  And times three?  \n"};
const conversations = [
    ["user", [u1], true, undefined],
    ["system_user", [sys, u1], true, undefined],
    ["multi_turn", [sys, u1, a1, u2], true, undefined],
    ["multi_turn_no_gen", [u1, a1], false, undefined],
    ["no_think", [u1], true, false],
    ["think_on", [sys, u1], true, true],
    ["reasoning", [u1, {role: "assistant", content: "4", reasoning_content: "Two plus two.\n"}], false, undefined],
    ["think_in_content", [u1, {role: "assistant", content: "<think>\nadd them\n</think>\n\n4"}], false, undefined],
    ["history_reasoning", [u1, {role: "assistant", content: "4", reasoning_content: "old"}, u2], true, undefined],
];
const out = [];
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".jinja")).sort()) {
    const name = file.replace(/\.jinja$/, "");
    const template = new Template(fs.readFileSync(`${dir}/${file}`, "utf8"));
    const [bos, eos] = tokens[name] ?? ["", ""];
    for (const [conversation, messages, add_generation_prompt, enable_thinking] of conversations) {
        const passed = messages.map((m) => (m.reasoning_content ? {...m, thinking: m.reasoning_content} : m));
        const context = {messages: passed, add_generation_prompt, bos_token: bos, eos_token: eos};
        if (enable_thinking !== undefined) context.enable_thinking = enable_thinking;
        const entry = {template: name, conversation, messages, add_generation_prompt, bos_token: bos, eos_token: eos};
        if (enable_thinking !== undefined) entry.enable_thinking = enable_thinking;
        try {
            entry.expected = template.render(context);
        } catch (e) {
            entry.error = String(e.message ?? e);
        }
        out.push(entry);
    }
}
fs.writeFileSync(`${root}/test/data/llm_text/chat_expected.json`, JSON.stringify(out, null, 1) + "\n");
console.log(`wrote ${out.length} renders`);
