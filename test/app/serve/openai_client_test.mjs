// `forge serve` driven by the official openai client (openai@6, as users run it) and by raw
// HTTP where the client hides the bytes: chat and completions, streaming rules, errors, the
// oracles of greedy decoding (forge chat --raw, llama.cpp's committed greedy continuation), and
// structured output and tool calls checked by an independent JSON Schema validator (ajv).
//
// Run by meson (test/app/meson.build): FORGE_EXE, FORGE_LLM_TEST_DATA point at the binary and
// test/data/llm.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {readFileSync} from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import {startServer, postStream, metric, eventually} from "./harness.mjs";
import {validator, person, weather, add} from "./schemas.mjs";

const forge = process.env.FORGE_EXE;
const data = process.env.FORGE_LLM_TEST_DATA;
const model = path.join(data, "qwen3-q8_0.gguf");
// llama.cpp with an f16 KV cache, as forge serve runs by default (tools/llm_goldens).
const golden = JSON.parse(readFileSync(path.join(data, "qwen3-q8_0.kv-f16.json"), "utf8"));

let server, client;
// Structured output and tools need room: Qwen3's template spells the tools out (~800 tokens
// here), and a constrained answer's length is bounded by its schema, not by a small context.
let wide, wideClient;
before(async () => {
    server = await startServer(forge, model, ["--parallel", "2", "--ctx-size", "256", "--alias", "tiny-qwen3", "--metrics", "--threads", "2"]);
    client = new OpenAI({baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0});
    wide = await startServer(forge, model, ["--parallel", "1", "--ctx-size", "2048", "--alias", "tiny-qwen3", "--threads", "2"]);
    wideClient = new OpenAI({baseURL: `${wide.url}/v1`, apiKey: "unused", maxRetries: 0});
});
after(async () => {
    const {code} = await server.stop("SIGTERM");
    assert.equal(code, 0, server.log());
    const {code: wideCode} = await wide.stop("SIGTERM");
    assert.equal(wideCode, 0, wide.log());
});

const chat = {model: "tiny-qwen3", messages: [{role: "system", content: "Be brief."}, {role: "user", content: "Say hello."}]};

test("models list names the alias", async () => {
    const models = await client.models.list();
    assert.deepEqual(models.data.map((m) => m.id), ["tiny-qwen3"]);
    assert.equal(models.data[0].object, "model");
});

test("non-streamed chat: OpenAI's shape", async () => {
    const r = await client.chat.completions.create({...chat, max_tokens: 12, temperature: 0});
    assert.match(r.id, /^chatcmpl-/);
    assert.equal(r.object, "chat.completion");
    assert.equal(r.model, "tiny-qwen3");
    assert.equal(r.choices.length, 1);
    assert.equal(r.choices[0].message.role, "assistant");
    assert.equal(typeof r.choices[0].message.content, "string");
    assert.ok(["stop", "length"].includes(r.choices[0].finish_reason));
    assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
    assert.ok(r.usage.completion_tokens <= 12 && r.usage.completion_tokens > 0);
    assert.equal(typeof r.usage.prompt_tokens_details.cached_tokens, "number");
});

test("streamed chat: role first only, one id, finish_reason once, usage chunk, [DONE]; equal to non-streamed at temperature 0", async () => {
    const whole = await client.chat.completions.create({...chat, max_tokens: 20, temperature: 0});
    const s = await postStream(`${server.url}/v1/chat/completions`,
        {...chat, max_tokens: 20, temperature: 0, stream: true, stream_options: {include_usage: true}});
    assert.equal(s.status, 200);
    assert.match(s.headers.get("content-type"), /text\/event-stream/);
    assert.equal(s.events.at(-1), "[DONE]");
    const chunks = s.events.slice(0, -1);
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1);
    assert.ok(chunks.every((c) => c.object === "chat.completion.chunk"));
    const withChoices = chunks.filter((c) => c.choices.length > 0);
    assert.equal(withChoices[0].choices[0].delta.role, "assistant");
    assert.ok(withChoices.slice(1).every((c) => !("role" in c.choices[0].delta)));
    const finishes = withChoices.filter((c) => c.choices[0].finish_reason !== null);
    assert.equal(finishes.length, 1);
    assert.equal(finishes[0], withChoices.at(-1));
    assert.equal(finishes[0].choices[0].finish_reason, whole.choices[0].finish_reason);
    const usage = chunks.at(-1);
    assert.deepEqual(usage.choices, []);
    assert.equal(usage.usage.completion_tokens, whole.usage.completion_tokens);
    assert.ok(withChoices.every((c) => c.usage === null));
    const text = withChoices.map((c) => c.choices[0].delta.content ?? "").join("");
    assert.equal(text, whole.choices[0].message.content);
});

test("no usage chunk unless asked for", async () => {
    const s = await postStream(`${server.url}/v1/chat/completions`, {...chat, max_tokens: 4, stream: true});
    assert.ok(s.events.slice(0, -1).every((c) => c.choices.length === 1 && !("usage" in c)));
});

test("the client's .stream() helper reaches the final completion", async () => {
    const whole = await client.chat.completions.create({...chat, max_tokens: 16, temperature: 0});
    const stream = client.chat.completions.stream({...chat, max_tokens: 16, temperature: 0});
    let deltas = "";
    stream.on("content", (delta) => { deltas += delta; });
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0].message.content, whole.choices[0].message.content);
    assert.equal(deltas, whole.choices[0].message.content);
});

test("completions through the client, streamed and not", async () => {
    const r = await client.completions.create({model: "tiny-qwen3", prompt: "Once upon a time", max_tokens: 10, temperature: 0});
    assert.match(r.id, /^cmpl-/);
    assert.equal(r.object, "text_completion");
    const stream = await client.completions.create({model: "tiny-qwen3", prompt: "Once upon a time", max_tokens: 10, temperature: 0, stream: true});
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    assert.equal(text, r.choices[0].text);
});

test("greedy /v1/completions equals forge chat --raw --temp 0", async () => {
    const prompt = "The quick brown fox";
    const r = await client.completions.create({model: "tiny-qwen3", prompt, max_tokens: 24, temperature: 0});
    const cli = execFileSync(forge, ["chat", model, "--raw", "--temp", "0", "-n", "24", "-p", prompt], {encoding: "utf8", stdio: ["ignore", "pipe", "ignore"]});
    assert.equal(r.choices[0].text + "\n", cli);
});

test("greedy /v1/completions of token ids equals llama.cpp's greedy continuation (committed golden)", async () => {
    const r = await fetch(`${server.url}/v1/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({prompt: golden.prompt, max_tokens: golden.greedy.length, temperature: 0, return_tokens: true})});
    const body = await r.json();
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.deepEqual(body.choices[0].tokens, golden.greedy);
});

test("logprobs: one entry per token, the greedy token is the most likely, alternatives sorted", async () => {
    const r = await client.chat.completions.create({...chat, max_tokens: 8, temperature: 0, logprobs: true, top_logprobs: 3});
    const content = r.choices[0].logprobs.content;
    assert.equal(content.length, r.usage.completion_tokens);
    for (const t of content) {
        assert.equal(t.top_logprobs.length, 3);
        assert.equal(t.top_logprobs[0].token, t.token);
        assert.ok(Math.abs(t.top_logprobs[0].logprob - t.logprob) < 1e-6);
        assert.ok(t.logprob <= 0);
        for (let i = 1; i < 3; i++) assert.ok(t.top_logprobs[i].logprob <= t.top_logprobs[i - 1].logprob);
        assert.deepEqual(Buffer.from(t.bytes).toString("utf8"), t.token);
    }
});

test("logit_bias bans the greedy first token; seed repeats a sampled answer", async () => {
    const base = await client.completions.create({prompt: golden.prompt, max_tokens: 1, temperature: 0, logprobs: 1, model: "m"});
    const first = golden.greedy[0];
    const banned = await fetch(`${server.url}/v1/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({prompt: golden.prompt, max_tokens: 1, temperature: 0, return_tokens: true, logit_bias: {[first]: -100}})});
    const b = await banned.json();
    assert.notEqual(b.choices[0].tokens[0], first);
    assert.equal(base.choices[0].logprobs.tokens.length, 1);
    const sampled = {model: "m", prompt: "Once", max_tokens: 16, temperature: 1.0, seed: 1234};
    const a1 = await client.completions.create(sampled);
    const a2 = await client.completions.create(sampled);
    assert.equal(a1.choices[0].text, a2.choices[0].text);
});

test("errors: the client's BadRequestError names the field; unknown route 404", async () => {
    await assert.rejects(client.chat.completions.create({...chat, n: 2}), (e) => e instanceof OpenAI.BadRequestError && e.param === "n");
    await assert.rejects(client.chat.completions.create({...chat, messages: [{role: "wizard", content: "x"}]}),
        (e) => e instanceof OpenAI.BadRequestError && e.param === "messages[0].role");
    await assert.rejects(client.chat.completions.create({...chat, temperature: -1}), (e) => e.status === 400 && e.param === "temperature");
    await assert.rejects(client.chat.completions.create({...chat, response_format: {type: "json_schema",
        json_schema: {name: "bad", schema: {type: "object", properties: {a: {type: "frobnicate"}}}}}}),
        (e) => e instanceof OpenAI.BadRequestError && e.param.startsWith("response_format.json_schema.schema/properties/a"));
    const r = await fetch(`${server.url}/v1/nothing`);
    assert.equal(r.status, 404);
    assert.equal((await r.json()).error.type, "not_found_error");
});

test("a prompt longer than the context: 400 context_length_exceeded with both numbers, before any stream", async () => {
    const long = "word ".repeat(400);
    for (const stream of [false, true]) {
        const r = await fetch(`${server.url}/v1/chat/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({messages: [{role: "user", content: long}], stream})});
        assert.equal(r.status, 400);
        const e = (await r.json()).error;
        assert.equal(e.code, "context_length_exceeded");
        assert.match(e.message, /maximum context length is 256 tokens.*resulted in \d+ tokens/);
    }
});

test("6 simultaneous streams with --parallel 2 give the same text as each alone", async () => {
    const prompts = ["One", "Two words", "Three little words", "Four", "Five five", "Six of them"];
    const request = (p) => postStream(`${server.url}/v1/completions`, {prompt: p, max_tokens: 24, temperature: 0, stream: true});
    const text = (s) => s.events.filter((e) => e !== "[DONE]").map((e) => e.choices[0]?.text ?? "").join("");
    const alone = [];
    for (const p of prompts) alone.push(text(await request(p)));
    const together = (await Promise.all(prompts.map(request))).map(text);
    assert.deepEqual(together, alone);
    assert.ok(await eventually(async () => (await metric(server.url, "forge_slots_busy")) === 0));
    assert.equal(await metric(server.url, "forge_slots_total"), 2);
});

test("401 for a missing or wrong key; /health and /v1/models stay open", async () => {
    const keyed = await startServer(forge, model, ["--api-key", "sekret", "--ctx-size", "128", "--parallel", "1"]);
    try {
        const wrong = new OpenAI({baseURL: `${keyed.url}/v1`, apiKey: "nope", maxRetries: 0});
        await assert.rejects(wrong.chat.completions.create({...chat, max_tokens: 2}), (e) => e instanceof OpenAI.AuthenticationError);
        const right = new OpenAI({baseURL: `${keyed.url}/v1`, apiKey: "sekret", maxRetries: 0});
        const r = await right.chat.completions.create({...chat, max_tokens: 2});
        assert.equal(r.choices.length, 1);
        assert.equal((await fetch(`${keyed.url}/health`)).status, 200);
        assert.equal((await fetch(`${keyed.url}/v1/models`)).status, 200);
        assert.equal((await fetch(`${keyed.url}/metrics`)).status, 401);
    } finally {
        await keyed.stop();
    }
});

// Structured output and tools (schemas.mjs: why every constrained answer ends).
const personFormat = {type: "json_schema", json_schema: {name: "person", schema: person, strict: true}};

test("json_schema: greedy and sampled answers are valid under the schema and end", async () => {
    const valid = validator(person);
    for (const sampling of [{temperature: 0}, {temperature: 1, seed: 1}, {temperature: 1, seed: 2}, {temperature: 1, seed: 3}]) {
        const r = await wideClient.chat.completions.create({...chat, ...sampling, max_tokens: 800, response_format: personFormat});
        assert.equal(r.choices[0].finish_reason, "stop", r.choices[0].message.content);
        valid(JSON.parse(r.choices[0].message.content));
    }
});

test("json_schema streamed at temperature 0 equals the non-streamed answer; json_object answers an object", async () => {
    const request = {...chat, temperature: 0, max_tokens: 800, response_format: personFormat};
    const whole = (await wideClient.chat.completions.create(request)).choices[0].message.content;
    const s = await postStream(`${wide.url}/v1/chat/completions`, {...request, stream: true});
    const streamed = s.events.filter((e) => e !== "[DONE]").map((e) => e.choices[0]?.delta?.content ?? "").join("");
    assert.equal(streamed, whole);
    const object = await wideClient.chat.completions.create({...chat, temperature: 1, seed: 5, max_tokens: 300, response_format: {type: "json_object"}});
    const text = object.choices[0].message.content;
    if (object.choices[0].finish_reason === "stop") assert.equal(typeof JSON.parse(text), "object");
    else assert.match(text, /^\s*\{/);  // cut at max_tokens: still an object's beginning
});

test("llama-server's grammar (GBNF) and json_schema fields, through the client, on both endpoints; two at once is a 400", async () => {
    const grammar = 'root ::= ("yes" | "no") "!"{1,3}\n';
    for (const seed of [1, 2, 3]) {
        const r = await client.chat.completions.create({...chat, temperature: 1, seed, max_tokens: 20, grammar});
        assert.match(r.choices[0].message.content, /^(yes|no)!{1,3}$/);
        assert.equal(r.choices[0].finish_reason, "stop");
    }
    const c = await client.completions.create({model: "tiny-qwen3", prompt: "Count:", temperature: 0, max_tokens: 20,
        json_schema: {type: "array", items: {type: "integer", minimum: 0, maximum: 9}, maxItems: 3}});
    if (c.choices[0].finish_reason === "stop") assert.ok(JSON.parse(c.choices[0].text).every((n) => n >= 0 && n <= 9));
    await assert.rejects(client.chat.completions.create({...chat, grammar, json_schema: {type: "string"}}),
        (e) => e instanceof OpenAI.BadRequestError && e.param === "json_schema" && e.code === "conflicting_parameters");
    await assert.rejects(client.chat.completions.create({...chat, grammar: "root ::= item"}),
        (e) => e instanceof OpenAI.BadRequestError && e.param === "grammar" && /line 1, column 10/.test(e.message));
});

test("max_tokens 0 is a 400 naming the field, as OpenAI answers it", async () => {
    await assert.rejects(client.chat.completions.create({...chat, max_tokens: 0}),
        (e) => e instanceof OpenAI.BadRequestError && e.param === "max_tokens" && e.code === "integer_below_min_value");
});

const tools = [weather, add];
const toolChat = {model: "tiny-qwen3", messages: [{role: "user", content: "What is the weather in Oslo?"}], tools, max_tokens: 800};

// Every call names one of the tools and its arguments parse as JSON valid under its parameters.
function checkCalls(message, names) {
    assert.ok(message.tool_calls?.length > 0, JSON.stringify(message));
    for (const call of message.tool_calls) {
        assert.match(call.id, /^call_/);
        assert.equal(call.type, "function");
        assert.ok(names.includes(call.function.name), call.function.name);
        assert.equal(typeof call.function.arguments, "string");
        const tool = tools.find((t) => t.function.name === call.function.name);
        validator(tool.function.parameters)(JSON.parse(call.function.arguments));
    }
    assert.equal(new Set(message.tool_calls.map((c) => c.id)).size, message.tool_calls.length);
}

test("tool_choice required and a named function: the call is made, its arguments valid; finish_reason tool_calls", async () => {
    for (const seed of [1, 2]) {
        const r = await wideClient.chat.completions.create({...toolChat, tool_choice: "required", parallel_tool_calls: false, temperature: 1, seed});
        assert.equal(r.choices[0].finish_reason, "tool_calls");
        assert.equal(r.choices[0].message.content, null);
        assert.equal(r.choices[0].message.tool_calls.length, 1);
        checkCalls(r.choices[0].message, ["get_weather", "add"]);
    }
    const named = await wideClient.chat.completions.create({...toolChat, tool_choice: {type: "function", function: {name: "add"}}, temperature: 0});
    assert.equal(named.choices[0].finish_reason, "tool_calls");
    checkCalls(named.choices[0].message, ["add"]);
    const parallel = await wideClient.chat.completions.create({...toolChat, tool_choice: "required", temperature: 1, seed: 3});
    checkCalls(parallel.choices[0].message, ["get_weather", "add"]);
    assert.ok(parallel.choices[0].message.tool_calls.length <= 8);
});

test("tool round trip: the call and its result go back through the template; none makes no call", async () => {
    const first = await wideClient.chat.completions.create({...toolChat, tool_choice: {type: "function", function: {name: "get_weather"}}, temperature: 0});
    const call = first.choices[0].message.tool_calls[0];
    const messages = [...toolChat.messages, first.choices[0].message,
                      {role: "tool", tool_call_id: call.id, content: JSON.stringify({temperature: 3, sky: "rain"})}];
    // The same turn without the call and its result: with tools (first) and without (none).
    const withoutTools = await wideClient.chat.completions.create({...toolChat, tool_choice: "none", max_tokens: 1});
    const before = {none: withoutTools.usage.prompt_tokens, auto: first.usage.prompt_tokens};
    for (const tool_choice of ["none", "auto"]) {
        const r = await wideClient.chat.completions.create({...toolChat, messages, tool_choice, max_tokens: 16, temperature: 0});
        assert.ok(r.usage.prompt_tokens > before[tool_choice] + 10, tool_choice);  // the call and its result are in the prompt
        assert.ok(["stop", "length", "tool_calls"].includes(r.choices[0].finish_reason));
        if (tool_choice === "none") assert.equal(r.choices[0].message.tool_calls, undefined);
        assert.doesNotMatch(r.choices[0].message.content ?? "", /<tool_call>/);  // call text never leaks into content
    }
    const again = await wideClient.chat.completions.create({...toolChat, messages, tool_choice: "required", temperature: 0});
    checkCalls(again.choices[0].message, ["get_weather", "add"]);
});

test("streamed tool_calls deltas (with index) reassemble to the non-streamed call; the client's .stream() helper agrees", async () => {
    const request = {...toolChat, tool_choice: "required", temperature: 0};
    const whole = (await wideClient.chat.completions.create(request)).choices[0].message;
    const s = await postStream(`${wide.url}/v1/chat/completions`, {...request, stream: true});
    assert.equal(s.events.at(-1), "[DONE]");
    const chunks = s.events.slice(0, -1);
    const calls = [];
    let content = "";
    for (const chunk of chunks) {
        const delta = chunk.choices[0].delta;
        content += delta.content ?? "";
        for (const d of delta.tool_calls ?? []) {
            assert.equal(typeof d.index, "number");
            if (d.id) calls[d.index] = {id: d.id, type: d.type, function: {name: d.function.name, arguments: ""}};
            calls[d.index].function.arguments += d.function.arguments ?? "";
        }
    }
    assert.equal(content, "");
    assert.deepEqual(chunks.map((c) => c.choices[0].finish_reason).filter((f) => f !== null), ["tool_calls"]);
    const strip = (list) => list.map((c) => ({type: c.type, function: c.function}));  // ids are fresh per request
    assert.deepEqual(strip(calls), strip(whole.tool_calls));
    const final = await wideClient.chat.completions.stream(request).finalChatCompletion();
    assert.deepEqual(strip(final.choices[0].message.tool_calls), strip(whole.tool_calls));
    assert.equal(final.choices[0].finish_reason, "tool_calls");
});

test("bad tools and tool_choice: 400 naming the field", async () => {
    await assert.rejects(wideClient.chat.completions.create({...toolChat, tool_choice: {type: "function", function: {name: "nope"}}}),
        (e) => e instanceof OpenAI.BadRequestError && e.param === "tool_choice.function.name");
    await assert.rejects(wideClient.chat.completions.create({...toolChat, tools: [{type: "function", function: {name: "f", parameters: {type: "object", properties: {x: {type: "thing"}}}}}], tool_choice: "required"}),
        (e) => e instanceof OpenAI.BadRequestError && e.param.startsWith("tools[0].function.parameters"));
    await assert.rejects(wideClient.chat.completions.create({...chat, messages: [{role: "tool", content: "3"}]}),
        (e) => e instanceof OpenAI.BadRequestError && e.param === "messages[0].tool_call_id");
});

test("no model argument: the bundled chat model, whose greedy answer equals llama.cpp's (committed golden)", async () => {
    const bundled = JSON.parse(readFileSync(path.join(data, "bundled_chat_golden.json"), "utf8"));
    const served = await startServer(forge, null, ["--parallel", "1", "--kv-type", "f32", "--threads", "2"]);
    try {
        const c = new OpenAI({baseURL: `${served.url}/v1`, apiKey: "unused", maxRetries: 0});
        assert.deepEqual((await c.models.list()).data.map((m) => m.id), ["forge-chat.gguf"]);
        const {question, answer} = bundled.answers[0];
        const r = await c.chat.completions.create({model: "forge-chat", messages: [{role: "user", content: question}],
                                                   temperature: 0, max_tokens: bundled.max_tokens});
        assert.equal(r.choices[0].message.content, answer);
    } finally {
        await served.stop();
    }
});
