// A thinking model's reasoning apart from its answer, as llama-server's --reasoning-format
// returns it: message.reasoning_content, streamed as delta.reasoning_content, read by the
// official openai client (openai@6); --reasoning-format none leaves the text as written in the
// content; text completions are never split; `forge chat` shows it apart. The other APIs in
// their own forms, read by their official clients: the Responses API's "reasoning" output item
// (reasoning_text content, response.reasoning_text.* events; openai@6's ResponseStream builds
// it), Anthropic's "thinking" blocks (thinking_delta, signature_delta; @anthropic-ai/sdk's
// MessageStream builds them) and its `thinking` parameter.
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
import Anthropic from "@anthropic-ai/sdk";
import {Ollama} from "ollama";
import {startServer, withChatTemplate, postNamedEvents} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const model = withChatTemplate(path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf"),
    "{%for m in messages%}{{'<|im_start|>'+m.role+'\\n'+m.content+'<|im_end|>\\n'}}{%endfor%}" +
    "{{'<|im_start|>assistant\\n'}}{%if enable_thinking==false%}{{'<think>\\n\\n</think>\\n\\n'}}{%endif%}");

const reasoning = "The user greets me. I greet back.";
const answer = "Hello there!";
const written = `<think>\n${reasoning}\n</think>\n\n${answer}`;
const grammar = `root ::= ${JSON.stringify(written)}\n`;
const request = {model: "thinker", messages: [{role: "user", content: "Hi!"}], temperature: 0, max_tokens: 64, grammar};

// A template that renders an earlier turn's reasoning_content (as gpt-oss's does for a turn
// that calls a tool): what the Responses and Anthropic routes pass back reaches the prompt.
const rendering = withChatTemplate(path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf"),
    "{%for m in messages%}{{'<|im_start|>'+m.role+'\\n'}}{%if m.reasoning_content%}" +
    "{{'<think>'+m.reasoning_content+'</think>'}}{%endif%}{{m.content+'<|im_end|>\\n'}}{%endfor%}" +
    "{{'<|im_start|>assistant\\n'}}");

let auto, none, renders;
before(async () => {
    const args = ["--parallel", "1", "--ctx-size", "512", "--alias", "thinker", "--threads", "1"];
    auto = await startServer(forge, model, args);
    none = await startServer(forge, model, [...args, "--reasoning-format", "none"]);
    renders = await startServer(forge, rendering, args);
});
after(async () => {
    for (const server of [auto, none, renders]) assert.equal((await server.stop("SIGTERM")).code, 0, server.log());
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

// --- the Responses API ---

const responsesRequest = {model: "thinker", input: "Hi!", temperature: 0, max_output_tokens: 64, grammar};
// The output items without their random ids.
const withoutIds = (output) => output.map(({id, ...item}) => item);
const expectedOutput = [
    {type: "reasoning", status: "completed", summary: [], content: [{type: "reasoning_text", text: `${reasoning}\n`}]},
    {type: "message", status: "completed", role: "assistant", content: [{type: "output_text", text: answer, annotations: []}]},
];

test("responses.create: a reasoning item (reasoning_text content) before the message", async () => {
    const r = await client(auto).responses.create(responsesRequest);
    assert.equal(r.status, "completed");
    assert.match(r.output[0].id, /^rs_/);
    assert.deepEqual(withoutIds(r.output), expectedOutput);
    assert.equal(r.output_text, answer);  // the client's convenience: the message's text only
    // Stored: the same response comes back by its id.
    assert.deepEqual((await client(auto).responses.retrieve(r.id)).output, r.output);
});

test("responses streamed: the reasoning item's events, then the message's; the client's ResponseStream builds the same output", async () => {
    const s = await postNamedEvents(`${auto.url}/v1/responses`, {...responsesRequest, stream: true});
    assert.equal(s.status, 200);
    const names = s.events.map((e) => e.event).filter((n) => !n.endsWith(".delta"));
    assert.deepEqual(names, ["response.created", "response.in_progress",
        "response.output_item.added", "response.content_part.added", "response.reasoning_text.done", "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added", "response.content_part.added", "response.output_text.done", "response.content_part.done",
        "response.output_item.done", "response.completed"]);
    const deltas = (type) => s.events.filter((e) => e.event === type);
    assert.equal(deltas("response.reasoning_text.delta").map((e) => e.data.delta).join(""), `${reasoning}\n`);
    assert.ok(deltas("response.reasoning_text.delta").every((e) => e.data.output_index === 0 && e.data.content_index === 0));
    assert.equal(deltas("response.output_text.delta").map((e) => e.data.delta).join(""), answer);
    const added = s.events.filter((e) => e.event === "response.content_part.added").map((e) => e.data.part);
    assert.deepEqual(added, [{type: "reasoning_text", text: ""}, {type: "output_text", text: "", annotations: []}]);
    assert.equal(s.events.find((e) => e.event === "response.reasoning_text.done").data.text, `${reasoning}\n`);
    assert.deepEqual(s.events.map((e) => e.data.sequence_number), s.events.map((_, i) => i));

    // The official client's accumulator (it throws on a reasoning delta it cannot place).
    const stream = client(auto).responses.stream(responsesRequest);
    let thought = "";
    stream.on("response.reasoning_text.delta", (e) => { thought += e.delta; });
    const final = await stream.finalResponse();
    assert.equal(thought, `${reasoning}\n`);
    assert.deepEqual(withoutIds(final.output)[0], expectedOutput[0]);
    assert.equal(final.output[1].content[0].text, answer);  // (the helper adds its `parsed` to the message's parts)
});

test("responses with --reasoning-format none: one message, the text as the model wrote it", async () => {
    const r = await client(none).responses.create(responsesRequest);
    assert.deepEqual(r.output.map((item) => item.type), ["message"]);
    assert.equal(r.output_text, written);
});

// --- the Anthropic Messages API ---

const anthropic = (server) => new Anthropic({baseURL: server.url, apiKey: "unused", maxRetries: 0});
const messagesRequest = {model: "thinker", max_tokens: 64, temperature: 0, messages: [{role: "user", content: "Hi!"}], grammar};
const thinkingBlocks = [{type: "thinking", thinking: `${reasoning}\n`, signature: ""}, {type: "text", text: answer}];

test("messages.create: a thinking block (thinking, signature) before the text; thinking enabled or adaptive the same", async () => {
    for (const thinking of [undefined, {type: "enabled", budget_tokens: 1024}, {type: "adaptive"}]) {
        const m = await anthropic(auto).messages.create({...messagesRequest, thinking});
        assert.deepEqual(m.content, thinkingBlocks, JSON.stringify(thinking));
        assert.equal(m.stop_reason, "end_turn");
    }
});

test("messages streamed: content_block_start / thinking_delta / signature_delta / stop, then the text block; MessageStream builds the same", async () => {
    const s = await postNamedEvents(`${auto.url}/v1/messages`, {...messagesRequest, stream: true});
    assert.equal(s.status, 200);
    const blockEvents = s.events.filter((e) => e.event.startsWith("content_block"))
        .map((e) => `${e.data.index} ${e.event}${e.data.delta ? " " + e.data.delta.type : ""}`)
        .filter((line, i, all) => line !== all[i - 1]);  // runs of deltas as one
    assert.deepEqual(blockEvents, ["0 content_block_start", "0 content_block_delta thinking_delta", "0 content_block_delta signature_delta",
                                   "0 content_block_stop", "1 content_block_start", "1 content_block_delta text_delta", "1 content_block_stop"]);
    assert.deepEqual(s.events.find((e) => e.event === "content_block_start").data.content_block, {type: "thinking", thinking: "", signature: ""});

    const stream = anthropic(auto).messages.stream(messagesRequest);
    let thought = "", said = "";
    stream.on("thinking", (delta) => { thought += delta; });
    stream.on("text", (delta) => { said += delta; });
    const final = await stream.finalMessage();
    assert.deepEqual(final.content, thinkingBlocks);
    assert.equal(thought, `${reasoning}\n`);
    assert.equal(said, answer);
});

test("messages: thinking display omitted sends the block without its text; disabled and --reasoning-format none send only text", async () => {
    const omitted = await anthropic(auto).messages.create({...messagesRequest, thinking: {type: "enabled", budget_tokens: 1024, display: "omitted"}});
    assert.deepEqual(omitted.content, [{type: "thinking", thinking: "", signature: ""}, {type: "text", text: answer}]);
    const s = await postNamedEvents(`${auto.url}/v1/messages`, {...messagesRequest, stream: true, thinking: {type: "adaptive", display: "omitted"}});
    assert.ok(!s.events.some((e) => e.data.delta?.type === "thinking_delta"));
    // disabled: the template's enable_thinking false (its empty think block in the prompt) and
    // no split; the grammar still forces the text, which comes back as written.
    const disabled = await anthropic(auto).messages.create({...messagesRequest, thinking: {type: "disabled"}});
    assert.deepEqual(disabled.content, [{type: "text", text: written}]);
    const plain = await anthropic(none).messages.create(messagesRequest);
    assert.deepEqual(plain.content, [{type: "text", text: written}]);
});

test("messages: a bad thinking parameter is a 400 naming the field", async () => {
    for (const [thinking, param] of [[{type: "sometimes"}, /thinking\.type/], [{type: "enabled", budget_tokens: "lots"}, /thinking\.budget_tokens/],
                                     [{type: "enabled", budget_tokens: 1024, display: "loud"}, /thinking\.display/], ["yes", /'thinking'/]]) {
        await assert.rejects(anthropic(auto).messages.create({...messagesRequest, thinking}),
                             (e) => e.status === 400 && param.test(e.error.error.message), JSON.stringify(thinking));
    }
});

// --- reasoning sent back ---

// The prompt tokens chat completions counts for `messages` (the oracle: the route whose
// reasoning_content the others translate to).
const chatPromptTokens = async (messages) =>
    (await client(renders).chat.completions.create({model: "thinker", messages, max_tokens: 1, temperature: 0})).usage.prompt_tokens;
const earlier = "I should be friendly.";
const history = (assistant) => [{role: "user", content: "Hi!"}, assistant, {role: "user", content: "More?"}];

test("reasoning sent back: Anthropic thinking blocks and Responses reasoning items are the turn's reasoning_content", async () => {
    const withThinking = await chatPromptTokens(history({role: "assistant", content: answer, reasoning_content: earlier}));
    const without = await chatPromptTokens(history({role: "assistant", content: answer}));
    assert.ok(withThinking > without);
    const counted = async (content) => (await anthropic(renders).messages.countTokens(
        {model: "thinker", messages: history({role: "assistant", content})})).input_tokens;
    assert.equal(await counted([{type: "thinking", thinking: earlier, signature: ""}, {type: "text", text: answer}]), withThinking);
    assert.equal(await counted([{type: "redacted_thinking", data: "opaque"}, {type: "text", text: answer}]), without);
    const responded = async (items) => (await client(renders).responses.create(
        {model: "thinker", max_output_tokens: 1, temperature: 0, store: false,
         input: [{role: "user", content: "Hi!"}, ...items, {role: "user", content: "More?"}]})).usage.input_tokens;
    const item = {type: "reasoning", id: "rs_1", summary: [], content: [{type: "reasoning_text", text: earlier}]};
    assert.equal(await responded([item, {role: "assistant", content: answer}]), withThinking);
    assert.equal(await responded([{role: "assistant", content: answer}]), without);
});

test("previous_response_id: the stored turn keeps its reasoning for the template", async () => {
    const first = await client(renders).responses.create({model: "thinker", input: "Hi!", temperature: 0, max_output_tokens: 64, grammar});
    assert.equal(first.output[0].type, "reasoning");
    const next = await client(renders).responses.create({model: "thinker", previous_response_id: first.id, input: "More?",
                                                         max_output_tokens: 1, temperature: 0});
    assert.equal(next.usage.input_tokens,
                 await chatPromptTokens(history({role: "assistant", content: answer, reasoning_content: `${reasoning}\n`})));
});

// --- Ollama's API (the official `ollama` client, 0.6.4) ---
// Ollama's documented behaviour (docs/capabilities/thinking): `think: true` returns the thinking
// apart, message.thinking on /api/chat and `thinking` on /api/generate, streamed in chunks of
// their own before the answer's; left out, a model that can think does (Ollama's default);
// `think: false` asks the template for no thinking, and no thinking field comes back (what the
// model writes all the same is content). The grammar (forge's extension of Ollama's body, as on
// /v1/chat/completions) makes the random model write a <think> block; the OpenAI route's
// reasoning_content and content for the same request are the oracle.

const ollama = (server) => new Ollama({host: server.url});
const ollamaChat = {model: "thinker", messages: [{role: "user", content: "Hi!"}], options: {temperature: 0, num_predict: 64}, grammar};
const ollamaGenerate = {model: "thinker", prompt: "Hi!", options: {temperature: 0, num_predict: 64}, grammar};

// A stream's chunks read as a client shows them: the thinking, the text, and whether any
// thinking came after the text had begun.
async function readOllamaStream(stream, text) {
    let thought = "", said = "", thinkingAfterText = false, last;
    for await (const chunk of stream) {
        const piece = text(chunk);
        if (piece.thinking) {
            thinkingAfterText ||= said.length > 0;
            thought += piece.thinking;
        }
        said += piece.content ?? "";
        last = chunk;
    }
    return {thought, said, thinkingAfterText, last};
}

test("ollama chat: think true, or left out (Ollama's default for a model that thinks), returns message.thinking apart", async () => {
    const oai = (await client(auto).chat.completions.create(request)).choices[0].message;
    assert.equal(oai.reasoning_content, `${reasoning}\n`);
    for (const think of [true, undefined]) {
        const r = await ollama(auto).chat({...ollamaChat, think});
        assert.equal(r.message.role, "assistant");
        assert.equal(r.message.thinking, oai.reasoning_content, `think ${think}`);
        assert.equal(r.message.content, oai.content, `think ${think}`);
        assert.equal(r.done_reason, "stop");
    }
});

test("ollama chat streamed: message.thinking chunks before message.content, no tag in either", async () => {
    for (const think of [true, undefined]) {
        const s = await readOllamaStream(await ollama(auto).chat({...ollamaChat, think, stream: true}), (c) => c.message);
        assert.equal(s.thought, `${reasoning}\n`, `think ${think}`);
        assert.equal(s.said, answer, `think ${think}`);
        assert.equal(s.thinkingAfterText, false);
        assert.equal(s.last.done, true);
        assert.equal(s.last.done_reason, "stop");
    }
});

test("ollama chat think false: the template's empty think block, no thinking field; what the model writes anyway is content", async () => {
    const on = await ollama(auto).chat({...ollamaChat, think: true});
    const off = await ollama(auto).chat({...ollamaChat, think: false});
    assert.equal(off.message.thinking, undefined);
    assert.equal(off.message.content, written);
    // The prompt: as the OpenAI route renders it with enable_thinking false.
    const oaiOff = await client(auto).chat.completions.create({...request, chat_template_kwargs: {enable_thinking: false}});
    assert.equal(off.prompt_eval_count, oaiOff.usage.prompt_tokens);
    assert.ok(off.prompt_eval_count > on.prompt_eval_count);
    const s = await readOllamaStream(await ollama(auto).chat({...ollamaChat, think: false, stream: true}), (c) => c.message);
    assert.equal(s.thought, "");
    assert.equal(s.said, written);
});

test("ollama generate: thinking apart from response with think true or left out, all of it the response with think false", async () => {
    for (const think of [true, undefined]) {
        const r = await ollama(auto).generate({...ollamaGenerate, think});
        assert.equal(r.thinking, `${reasoning}\n`, `think ${think}`);
        assert.equal(r.response, answer, `think ${think}`);
        const s = await readOllamaStream(await ollama(auto).generate({...ollamaGenerate, think, stream: true}),
                                         (c) => ({thinking: c.thinking, content: c.response}));
        assert.equal(s.thought, `${reasoning}\n`, `think ${think}`);
        assert.equal(s.said, answer, `think ${think}`);
        assert.equal(s.thinkingAfterText, false);
        assert.ok(Array.isArray(s.last.context) && s.last.context.length > 0);
    }
    const off = await ollama(auto).generate({...ollamaGenerate, think: false});
    assert.equal(off.thinking, undefined);
    assert.equal(off.response, written);
    const s = await readOllamaStream(await ollama(auto).generate({...ollamaGenerate, think: false, stream: true}),
                                     (c) => ({thinking: c.thinking, content: c.response}));
    assert.equal(s.thought, "");
    assert.equal(s.said, written);
});

test("ollama generate raw: no template, the text as the model wrote it", async () => {
    const r = await ollama(auto).generate({...ollamaGenerate, raw: true});
    assert.equal(r.thinking, undefined);
    assert.equal(r.response, written);
});

test("ollama: grammar with format, or a bad grammar, is a 400 naming the field", async () => {
    await assert.rejects(ollama(auto).chat({...ollamaChat, format: "json"}),
                         (e) => e.status_code === 400 && /'format' and 'grammar'/.test(e.error));
    await assert.rejects(ollama(auto).generate({...ollamaGenerate, grammar: "root ::= nothing-defined"}),
                         (e) => e.status_code === 400 && /'grammar'/.test(e.error));
    await assert.rejects(ollama(auto).chat({...ollamaChat, grammar: 42}), (e) => e.status_code === 400 && /'grammar'/.test(e.error));
});
