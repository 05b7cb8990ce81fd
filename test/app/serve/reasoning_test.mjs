// A thinking model's reasoning apart from its answer, as llama-server's --reasoning-format
// returns it: message.reasoning_content, streamed as delta.reasoning_content, read by the
// official openai client (openai@6); --reasoning-format none leaves the text as written in the
// content; text completions are never split; `forge chat` shows it apart.
//
// The test model has random weights, so its answer is forced with a grammar (llama-server's
// `grammar` field, `forge chat --grammar-file`): the text is known, the splitting is what is
// tested. The model gets a chat template with Qwen3's <think> (harness.mjs withChatTemplate).
//
// Run by meson (test/app/meson.build): FORGE_EXE, FORGE_LLM_TEST_DATA point at the binary and
// test/data/llm.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {writeFileSync, mkdtempSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import {startServer, withChatTemplate} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const model = withChatTemplate(path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf"),
    "{%for m in messages%}{{'<|im_start|>'+m.role+'\\n'+m.content+'<|im_end|>\\n'}}{%endfor%}" +
    "{{'<|im_start|>assistant\\n'}}{%if enable_thinking==false%}{{'<think>\\n\\n</think>\\n\\n'}}{%endif%}");

const reasoning = "The user greets me. I greet back.";
const answer = "Hello there!";
const written = `<think>\n${reasoning}\n</think>\n\n${answer}`;
const grammar = `root ::= ${JSON.stringify(written)}\n`;
const request = {model: "thinker", messages: [{role: "user", content: "Hi!"}], temperature: 0, max_tokens: 64, grammar};

let auto, none;
before(async () => {
    const args = ["--parallel", "1", "--ctx-size", "512", "--alias", "thinker", "--threads", "1"];
    auto = await startServer(forge, model, args);
    none = await startServer(forge, model, [...args, "--reasoning-format", "none"]);
});
after(async () => {
    for (const server of [auto, none]) assert.equal((await server.stop("SIGTERM")).code, 0, server.log());
});

const client = (server) => new OpenAI({baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0});

test("reasoning_content apart from the content (the default, auto)", async () => {
    const r = await client(auto).chat.completions.create(request);
    const message = r.choices[0].message;
    // llama-server's ThinkingSplitter rule: whitespace after the tags is dropped.
    assert.equal(message.reasoning_content, `${reasoning}\n`);
    assert.equal(message.content, answer);
    assert.equal(r.choices[0].finish_reason, "stop");
});

test("streamed: delta.reasoning_content before delta.content, no tag in either", async () => {
    const stream = await client(auto).chat.completions.create({...request, stream: true});
    let thought = "", said = "", reasoningAfterContent = false;
    for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta ?? {};
        if (delta.reasoning_content) {
            reasoningAfterContent ||= said.length > 0;
            thought += delta.reasoning_content;
        }
        if (delta.content) said += delta.content;
    }
    assert.equal(thought, `${reasoning}\n`);
    assert.equal(said, answer);
    assert.equal(reasoningAfterContent, false);
});

test("--reasoning-format none: the text as the model wrote it, in the content", async () => {
    const r = await client(none).chat.completions.create(request);
    assert.equal(r.choices[0].message.content, written);
    assert.equal(r.choices[0].message.reasoning_content, undefined);
    const stream = await client(none).chat.completions.create({...request, stream: true});
    let said = "";
    for await (const chunk of stream) {
        assert.equal(chunk.choices[0]?.delta?.reasoning_content, undefined);
        said += chunk.choices[0]?.delta?.content ?? "";
    }
    assert.equal(said, written);
});

test("text completions are never split", async () => {
    const r = await client(auto).completions.create({model: "thinker", prompt: "Hi", max_tokens: 64, temperature: 0, grammar});
    assert.equal(r.choices[0].text, written);
});

test("a bad --reasoning-format is refused, naming the flag", () => {
    assert.throws(() => execFileSync(forge, ["serve", model, "--reasoning-format", "deepseek"], {stdio: "pipe"}),
                  (e) => e.status !== 0 && /--reasoning-format/.test(e.stderr.toString()));
});

test("forge chat: the reasoning shown apart (plain on a pipe), the answer after it", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "forge-reasoning-")), "answer.gbnf");
    writeFileSync(file, grammar);
    const out = execFileSync(forge, ["chat", model, "-p", "Hi!", "--temp", "0", "-n", "64", "--grammar-file", file],
                             {encoding: "utf8", stdio: ["ignore", "pipe", "pipe"]});
    assert.equal(out, `Thinking...\n${reasoning}\n\n...done thinking.\n\n${answer}\n`);
});
