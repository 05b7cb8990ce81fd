// `forge serve`'s Anthropic Messages API driven by the official client (@anthropic-ai/sdk 1.17.0):
// messages.create and messages.stream with finalMessage(), the system prompt, tools with
// tool_use / tool_result, max_tokens and stop sequences as stop reasons, count_tokens; raw
// requests for bad input (Anthropic's error envelope). The oracle of the text: greedy decoding
// is discrete, so /v1/messages must give exactly the text /v1/chat/completions gives for the
// same conversation.
//
// Run by meson (test/app/meson.build): FORGE_EXE, FORGE_LLM_TEST_DATA.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import Ajv from "ajv";
import {startServer, postNamedEvents, streamCutByShutdown} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const model = path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf");

let server, client, openai;
before(async () => {
    server = await startServer(forge, model, ["--parallel", "2", "--ctx-size", "2048", "--alias", "tiny-qwen3", "--threads", "2", "--api-key", "sekret"]);
    client = new Anthropic({baseURL: server.url, apiKey: "sekret", maxRetries: 0});
    openai = new OpenAI({baseURL: `${server.url}/v1`, apiKey: "sekret", maxRetries: 0});
});
after(async () => {
    const {code} = await server.stop("SIGTERM");
    assert.equal(code, 0, server.log());
});

const chat = async (messages, extra = {}) =>
    (await openai.chat.completions.create({model: "tiny-qwen3", messages, temperature: 0, ...extra})).choices[0];
const textOf = (message) => message.content.filter((b) => b.type === "text").map((b) => b.text).join("");

test("messages.create: Anthropic's shape; the system prompt; greedy text equals chat's; max_tokens cut", async () => {
    const m = await client.messages.create({model: "tiny-qwen3", system: "Be brief.", max_tokens: 12, temperature: 0,
                                            messages: [{role: "user", content: "Say hello."}]});
    assert.match(m.id, /^msg_/);
    assert.equal(m.type, "message");
    assert.equal(m.role, "assistant");
    assert.equal(m.model, "tiny-qwen3");
    assert.equal(m.content.length, 1);
    assert.equal(m.content[0].type, "text");
    assert.equal(m.stop_reason, "max_tokens");  // the tiny model never stops by itself this soon
    assert.equal(m.stop_sequence, null);
    assert.equal(m.usage.output_tokens, 12);
    const c = await chat([{role: "system", content: "Be brief."}, {role: "user", content: "Say hello."}], {max_tokens: 12});
    assert.equal(m.content[0].text, c.message.content);
    assert.equal(m.usage.input_tokens, (await openai.chat.completions.create({model: "m", max_tokens: 1,
        messages: [{role: "system", content: "Be brief."}, {role: "user", content: "Say hello."}]})).usage.prompt_tokens);
    // System as text blocks, content as text blocks: the same prompt.
    const blocks = await client.messages.create({model: "tiny-qwen3", system: [{type: "text", text: "Be brief."}], max_tokens: 12, temperature: 0,
                                                 messages: [{role: "user", content: [{type: "text", text: "Say hello."}]}]});
    assert.equal(textOf(blocks), c.message.content);
});

test("stop_sequences: stop_reason stop_sequence names the sequence; the text stops before it", async () => {
    const base = await client.messages.create({model: "m", max_tokens: 24, temperature: 0, messages: [{role: "user", content: "Say hello."}]});
    const text = textOf(base);
    // A piece of the greedy answer (ASCII letters, past its start): the same answer stops there.
    const at = text.slice(1).search(/[a-z]{2}/i) + 1;
    assert.ok(at >= 1, text);
    const stop = text.slice(at, at + 2);
    const m = await client.messages.create({model: "m", max_tokens: 24, temperature: 0, stop_sequences: ["@@never@@", stop],
                                            messages: [{role: "user", content: "Say hello."}]});
    assert.equal(m.stop_reason, "stop_sequence");
    assert.equal(m.stop_sequence, stop);
    assert.equal(textOf(m), text.slice(0, text.indexOf(stop)));
});

test("messages.stream: finalMessage equals messages.create; the raw events in Anthropic's order", async () => {
    const request = {model: "tiny-qwen3", max_tokens: 16, temperature: 0, messages: [{role: "user", content: "Once upon a time"}]};
    const whole = await client.messages.create(request);
    const stream = client.messages.stream(request);
    let deltas = "";
    stream.on("text", (delta) => { deltas += delta; });
    const final = await stream.finalMessage();
    assert.deepEqual(final.content, whole.content);
    assert.equal(final.stop_reason, whole.stop_reason);
    assert.equal(final.usage.output_tokens, whole.usage.output_tokens);
    assert.equal(deltas, whole.content[0].text);
    const s = await postNamedEvents(`${server.url}/v1/messages`, {...request, stream: true}, {"x-api-key": "sekret"});
    assert.equal(s.status, 200);
    for (const e of s.events) assert.equal(e.event, e.data.type);
    const names = s.events.map((e) => e.event).filter((n) => n !== "content_block_delta");
    assert.deepEqual(names, ["message_start", "ping", "content_block_start", "content_block_stop", "message_delta", "message_stop"]);
    assert.equal(s.events[0].data.message.usage.input_tokens, whole.usage.input_tokens);
    assert.equal(s.events.at(-2).data.delta.stop_reason, "max_tokens");
});

const weather = {name: "get_weather", description: "The current weather in a city",
                 input_schema: {type: "object", properties: {city: {type: "string", maxLength: 16}, unit: {enum: ["c", "f"]}},
                                required: ["city", "unit"], additionalProperties: false}};

test("tools: tool_choice tool forces a valid tool_use (stop_reason tool_use); streamed the same; the tool_result round trip", async () => {
    const request = {model: "tiny-qwen3", max_tokens: 400, temperature: 0, tools: [weather], tool_choice: {type: "tool", name: "get_weather"},
                     messages: [{role: "user", content: "What is the weather in Oslo?"}]};
    const m = await client.messages.create(request);
    assert.equal(m.stop_reason, "tool_use");
    const uses = m.content.filter((b) => b.type === "tool_use");
    assert.equal(uses.length, 1);
    const use = uses[0];
    assert.equal(use.name, "get_weather");
    assert.match(use.id, /^toolu_/);
    assert.ok(new Ajv({strict: false}).compile(weather.input_schema)(use.input), JSON.stringify(use.input));
    // The same call through chat completions.
    const c = await chat([{role: "user", content: "What is the weather in Oslo?"}], {max_tokens: 400,
        tools: [{type: "function", function: {name: weather.name, description: weather.description, parameters: weather.input_schema}}],
        tool_choice: {type: "function", function: {name: "get_weather"}}});
    assert.deepEqual(use.input, JSON.parse(c.message.tool_calls[0].function.arguments));
    const final = await client.messages.stream(request).finalMessage();
    assert.equal(final.stop_reason, "tool_use");
    assert.deepEqual(final.content.filter((b) => b.type === "tool_use").map((b) => b.input), [use.input]);
    // any: some tool is called.
    const any = await client.messages.create({...request, tool_choice: {type: "any"}});
    assert.equal(any.stop_reason, "tool_use");
    // The round trip: the tool_use and its tool_result, as chat's tool_calls and tool message.
    const result = JSON.stringify({temperature: 3, sky: "rain"});
    const next = await client.messages.create({model: "tiny-qwen3", max_tokens: 12, temperature: 0, tools: [weather], tool_choice: {type: "none"},
        messages: [{role: "user", content: "What is the weather in Oslo?"}, {role: "assistant", content: m.content},
                   {role: "user", content: [{type: "tool_result", tool_use_id: use.id, content: result}]}]});
    const chatNext = await chat([{role: "user", content: "What is the weather in Oslo?"},
        {role: "assistant", content: textOf(m), tool_calls: [{id: use.id, type: "function", function: {name: use.name, arguments: JSON.stringify(use.input)}}]},
        {role: "tool", tool_call_id: use.id, content: result}], {max_tokens: 12});
    assert.equal(textOf(next), chatNext.message.content);
});

test("count_tokens: the prompt's tokens, as the answer's usage counts them", async () => {
    const body = {model: "m", system: "Be brief.", messages: [{role: "user", content: "Say hello."}]};
    const counted = await client.messages.countTokens(body);
    const m = await client.messages.create({...body, max_tokens: 1});
    assert.equal(counted.input_tokens, m.usage.input_tokens);
});

test("errors: Anthropic's envelope, the SDK's error classes, 400 naming the field", async () => {
    await assert.rejects(new Anthropic({baseURL: server.url, apiKey: "wrong", maxRetries: 0}).messages.create(
        {model: "m", max_tokens: 2, messages: [{role: "user", content: "x"}]}),
        (e) => e instanceof Anthropic.AuthenticationError && e.error.type === "error" && e.error.error.type === "authentication_error");
    const notJson = await fetch(`${server.url}/v1/messages`, {method: "POST", headers: {"Content-Type": "application/json", "x-api-key": "sekret"}, body: "{"});
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).error.type, "invalid_request_error");
    await assert.rejects(client.messages.create({model: "m", max_tokens: 2, messages: [{role: "wizard", content: "x"}]}),
        (e) => e instanceof Anthropic.BadRequestError && e.error.type === "error" && e.error.error.type === "invalid_request_error" &&
               e.error.error.message.includes("messages[0].role"));
    const cases = [
        [{}, "messages"],
        [{messages: []}, "messages"],
        [{messages: [{role: "user"}]}, "messages[0].content"],
        [{messages: [{role: "user", content: 5}]}, "messages[0].content"],
        [{messages: [{role: "user", content: [{type: "image", source: {}}]}]}, "messages[0].content[0].type"],
        [{messages: [{role: "user", content: [{type: "tool_result"}]}]}, "messages[0].content[0].tool_use_id"],
        [{messages: [{role: "assistant", content: [{type: "tool_use", id: "t", name: "f", input: "x"}]}]}, "messages[0].content[0].input"],
        [{messages: [{role: "user", content: "x"}], max_tokens: "many"}, "max_tokens"],
        [{messages: [{role: "user", content: "x"}], max_tokens: 0}, "max_tokens"],
        [{messages: [{role: "user", content: "x"}], system: 3}, "system"],
        [{messages: [{role: "user", content: "x"}], stop_sequences: "x"}, "stop_sequences"],
        [{messages: [{role: "user", content: "x"}], temperature: "hot"}, "temperature"],
        [{messages: [{role: "user", content: "x"}], tools: [{name: "f"}]}, "tools[0].input_schema"],
        [{messages: [{role: "user", content: "x"}], tools: [{name: "f", input_schema: {type: "object", properties: {a: {type: "thing"}}}}],
          tool_choice: {type: "any"}}, "tools[0].input_schema"],
        [{messages: [{role: "user", content: "x"}], tools: [weather], tool_choice: {type: "tool", name: "nope"}}, "tool_choice.name"],
        [{messages: [{role: "user", content: "x"}], tool_choice: {type: "maybe"}}, "tool_choice.type"],
    ];
    for (const [body, field] of cases) {
        const r = await fetch(`${server.url}/v1/messages`, {method: "POST", headers: {"Content-Type": "application/json", "x-api-key": "sekret"},
                                                            body: JSON.stringify(body)});
        const error = await r.json();
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(error.type, "error");
        assert.equal(error.error.type, "invalid_request_error");
        assert.ok(error.error.message.includes(`'${field}`), `${JSON.stringify(body)}: ${error.error.message}`);
    }
    // No max_tokens: allowed, as llama-server allows it (Anthropic requires it).
    const r = await fetch(`${server.url}/v1/messages`, {method: "POST", headers: {"Content-Type": "application/json", "x-api-key": "sekret"},
        body: JSON.stringify({messages: [{role: "user", content: "x"}], stop_sequences: [" "], temperature: 0})});
    assert.equal(r.status, 200);
});

test("SIGTERM mid-stream: the stream ends with an error event in Anthropic's shape; the server exits 0", async () => {
    // A long answer (the test model writes thousands of tokens a second) on a server of its own.
    const own = await startServer(forge, model, ["--parallel", "1", "--ctx-size", "16384", "--threads", "2"]);
    const {events, raw, code} = await streamCutByShutdown(own, "/v1/messages",
        {messages: [{role: "user", content: "Once upon a time"}], max_tokens: 16000, temperature: 0, stream: true});
    assert.equal(code, 0, own.log());
    assert.equal(events[0].event, "message_start");
    assert.equal(events.at(-1).event, "error", raw.slice(-400));
    assert.deepEqual(events.at(-1).data, {type: "error", error: {type: "overloaded_error",
                                                                 message: "The server is shutting down; the answer is incomplete"}});
    assert.ok(!events.some((e) => e.event === "message_stop"));
});
