// `forge serve`'s Responses API driven by the official openai client (openai@6): the response
// object, the typed stream events, tools with function_call_output, text.format checked by an
// independent JSON Schema validator (ajv), previous_response_id; and raw requests for bad input.
// The oracle of the text: greedy decoding is discrete, so /v1/responses must give exactly the
// text /v1/chat/completions gives for the same conversation.
//
// Run by meson (test/app/meson.build): FORGE_EXE, FORGE_LLM_TEST_DATA.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import OpenAI from "openai";
import Ajv from "ajv";
import {startServer, postNamedEvents, streamCutByShutdown} from "./harness.mjs";

// The data of each event (its name must be its type).
async function postEvents(url, body) {
    const s = await postNamedEvents(url, body);
    for (const e of s.events) assert.equal(e.event, e.data.type);
    return {...s, events: s.events.map((e) => e.data)};
}

const forge = process.env.FORGE_EXE;
const model = path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf");

// Qwen3's template spells the tools out (~800 tokens here): room for them.
let server, client;
before(async () => {
    server = await startServer(forge, model, ["--parallel", "2", "--ctx-size", "2048", "--alias", "tiny-qwen3", "--threads", "2"]);
    client = new OpenAI({baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0});
});
after(async () => {
    const {code} = await server.stop("SIGTERM");
    assert.equal(code, 0, server.log());
});

const chatText = async (messages, extra = {}) =>
    (await client.chat.completions.create({model: "tiny-qwen3", messages, temperature: 0, ...extra})).choices[0];

test("non-streamed: the response object; greedy text equals chat's for the same conversation", async () => {
    const r = await client.responses.create({model: "tiny-qwen3", instructions: "Be brief.", input: "Say hello.", max_output_tokens: 12, temperature: 0});
    assert.match(r.id, /^resp_/);
    assert.equal(r.object, "response");
    assert.equal(r.model, "tiny-qwen3");
    assert.equal(r.output.length, 1);
    const message = r.output[0];
    assert.equal(message.type, "message");
    assert.equal(message.role, "assistant");
    assert.match(message.id, /^msg_/);
    assert.equal(message.content[0].type, "output_text");
    assert.equal(r.usage.total_tokens, r.usage.input_tokens + r.usage.output_tokens);
    const chat = await chatText([{role: "system", content: "Be brief."}, {role: "user", content: "Say hello."}], {max_tokens: 12});
    assert.equal(r.output_text, chat.message.content);
    assert.equal(r.usage.output_tokens, 12);  // the tiny model never stops by itself this soon
    assert.equal(r.status, chat.finish_reason === "length" ? "incomplete" : "completed");
    assert.deepEqual(r.incomplete_details, {reason: "max_output_tokens"});
    assert.equal(message.status, "incomplete");
});

test("input items: messages with content parts, developer role; the same prompt as chat's", async () => {
    const input = [
        {role: "developer", content: "Answer in one word."},
        {role: "user", content: [{type: "input_text", text: "Name a colour."}]},
        {type: "message", role: "assistant", content: [{type: "output_text", text: "Blue."}]},
        {role: "user", content: "Another?"},
    ];
    const r = await client.responses.create({model: "tiny-qwen3", input, max_output_tokens: 10, temperature: 0});
    const chat = await chatText([{role: "system", content: "Answer in one word."}, {role: "user", content: "Name a colour."},
                                 {role: "assistant", content: "Blue."}, {role: "user", content: "Another?"}], {max_tokens: 10});
    assert.equal(r.output_text, chat.message.content);
});

test("streamed: typed events in order with sequence numbers; equal to the non-streamed response", async () => {
    const request = {model: "tiny-qwen3", input: "Say hello.", max_output_tokens: 16, temperature: 0};
    const whole = await client.responses.create(request);
    const s = await postEvents(`${server.url}/v1/responses`, {...request, stream: true});
    assert.equal(s.status, 200);
    assert.match(s.headers.get("content-type"), /text\/event-stream/);
    assert.deepEqual(s.events.map((e) => e.sequence_number), s.events.map((_, i) => i));
    const types = s.events.map((e) => e.type).filter((t) => t !== "response.output_text.delta");
    assert.deepEqual(types, ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
                             "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.incomplete"]);
    const deltas = s.events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("");
    assert.equal(deltas, whole.output_text);
    const last = s.events.at(-1).response;
    assert.equal(last.output[0].content[0].text, whole.output_text);
    for (const key of ["input_tokens", "output_tokens", "total_tokens"]) assert.equal(last.usage[key], whole.usage[key]);
});

test("the client's stream helpers: responses.stream() and stream: true reach the same final text", async () => {
    const request = {model: "tiny-qwen3", input: "Once upon a time", max_output_tokens: 12, temperature: 0};
    const whole = await client.responses.create(request);
    const stream = client.responses.stream(request);
    let deltas = "";
    stream.on("response.output_text.delta", (e) => { deltas += e.delta; });
    const final = await stream.finalResponse();
    assert.equal(final.output[0].content[0].text, whole.output_text);
    assert.equal(deltas, whole.output_text);
    let iterated = "";
    for await (const event of await client.responses.create({...request, stream: true})) {
        if (event.type === "response.output_text.delta") iterated += event.delta;
    }
    assert.equal(iterated, whole.output_text);
});

test("text.format json_schema: the answer is valid under the schema (ajv) and completes", async () => {
    const person = {type: "object", properties: {name: {type: "string", minLength: 1, maxLength: 12}, age: {type: "integer", minimum: 0, maximum: 120}},
                    required: ["name", "age"], additionalProperties: false};
    const valid = new Ajv({strict: false}).compile(person);
    for (const sampling of [{temperature: 0}, {temperature: 1, seed: 7}]) {
        const r = await client.responses.create({model: "tiny-qwen3", input: "A person, as JSON.", max_output_tokens: 400, ...sampling,
                                                 text: {format: {type: "json_schema", name: "person", schema: person, strict: true}}});
        assert.equal(r.status, "completed", r.output_text);
        assert.ok(valid(JSON.parse(r.output_text)), r.output_text);
    }
    const object = await client.responses.create({model: "tiny-qwen3", input: "JSON please.", max_output_tokens: 400, temperature: 0,
                                                  text: {format: {type: "json_object"}}});
    if (object.status === "completed") assert.equal(typeof JSON.parse(object.output_text), "object");
});

const weather = {type: "function", name: "get_weather", description: "The current weather in a city",
                 parameters: {type: "object", properties: {city: {type: "string", maxLength: 16}, unit: {enum: ["c", "f"]}},
                              required: ["city", "unit"], additionalProperties: false}};

test("tools: a forced call, streamed and not; its result goes back as function_call_output", async () => {
    const request = {model: "tiny-qwen3", input: "What is the weather in Oslo?", tools: [weather], max_output_tokens: 400, temperature: 0,
                     tool_choice: {type: "function", name: "get_weather"}};
    const r = await client.responses.create(request);
    assert.equal(r.status, "completed");
    const calls = r.output.filter((o) => o.type === "function_call");
    assert.equal(calls.length, 1);
    const call = calls[0];
    assert.equal(call.name, "get_weather");
    assert.match(call.call_id, /^call_/);
    assert.match(call.id, /^fc_/);
    const args = JSON.parse(call.arguments);
    assert.ok(new Ajv({strict: false}).compile(weather.parameters)(args), call.arguments);
    // The same call through chat completions (tools in chat's nested shape).
    const chat = await chatText([{role: "user", content: "What is the weather in Oslo?"}],
        {tools: [{type: "function", function: {name: weather.name, description: weather.description, parameters: weather.parameters}}],
         tool_choice: {type: "function", function: {name: "get_weather"}}, max_tokens: 400});
    assert.equal(call.arguments, chat.message.tool_calls[0].function.arguments);
    // Streamed: function_call_arguments deltas add up to the call.
    const s = await postEvents(`${server.url}/v1/responses`, {...request, stream: true});
    const streamed = s.events.filter((e) => e.type === "response.function_call_arguments.delta").map((e) => e.delta).join("");
    assert.equal(streamed, call.arguments);
    const done = s.events.find((e) => e.type === "response.function_call_arguments.done");
    assert.equal(done.arguments, call.arguments);
    assert.equal(s.events.at(-1).type, "response.completed");
    // The round trip: the call and its output in the input, as chat's assistant tool_calls + tool message.
    const output = JSON.stringify({temperature: 3, sky: "rain"});
    const next = await client.responses.create({model: "tiny-qwen3", tools: [weather], tool_choice: "none", max_output_tokens: 12, temperature: 0,
        input: [{role: "user", content: "What is the weather in Oslo?"}, call, {type: "function_call_output", call_id: call.call_id, output}]});
    const chatNext = await chatText([{role: "user", content: "What is the weather in Oslo?"},
        {role: "assistant", content: "", tool_calls: [{id: call.call_id, type: "function", function: {name: call.name, arguments: call.arguments}}]},
        {role: "tool", tool_call_id: call.call_id, content: output}], {max_tokens: 12});
    assert.equal(next.output_text, chatNext.message.content);
    assert.equal(next.usage.input_tokens, (await client.chat.completions.create({model: "m", max_tokens: 1, messages: [
        {role: "user", content: "What is the weather in Oslo?"},
        {role: "assistant", content: "", tool_calls: [{id: call.call_id, type: "function", function: {name: call.name, arguments: call.arguments}}]},
        {role: "tool", tool_call_id: call.call_id, content: output}]})).usage.prompt_tokens);
});

test("previous_response_id continues the stored conversation; GET returns it; unknown id is 400; store false is not kept", async () => {
    const first = await client.responses.create({model: "tiny-qwen3", instructions: "Be brief.", input: "Name a fruit.", max_output_tokens: 6, temperature: 0});
    const second = await client.responses.create({model: "tiny-qwen3", previous_response_id: first.id, input: "And a vegetable?", max_output_tokens: 6, temperature: 0});
    assert.equal(second.previous_response_id, first.id);
    // Instructions are not carried over (as OpenAI does): the conversation without them.
    const chat = await chatText([{role: "user", content: "Name a fruit."}, {role: "assistant", content: first.output_text},
                                 {role: "user", content: "And a vegetable?"}], {max_tokens: 6});
    assert.equal(second.output_text, chat.message.content);
    const got = await client.responses.retrieve(first.id);
    assert.equal(got.id, first.id);
    assert.equal(got.output_text, first.output_text);
    await assert.rejects(client.responses.create({model: "m", previous_response_id: "resp_nothing", input: "x"}),
        (e) => e instanceof OpenAI.BadRequestError && e.param === "previous_response_id" && e.code === "previous_response_not_found");
    const unstored = await client.responses.create({model: "m", input: "x", max_output_tokens: 2, store: false});
    await assert.rejects(client.responses.retrieve(unstored.id), (e) => e instanceof OpenAI.NotFoundError);
    await client.responses.delete(first.id);
    await assert.rejects(client.responses.retrieve(first.id), (e) => e instanceof OpenAI.NotFoundError);
});

test("bad input: 400 naming the Responses field", async () => {
    const cases = [
        [{}, "input"],
        [{input: 5}, "input"],
        [{input: [{role: "wizard", content: "x"}]}, "input[0].role"],
        [{input: [{role: "user"}]}, "input[0].content"],
        [{input: [{role: "user", content: [{type: "input_image", image_url: "x"}]}]}, "input[0].content[0].type"],
        [{input: [{type: "function_call", name: "f", arguments: "{"}]}, "input[0].call_id"],
        [{input: [{type: "function_call", call_id: "c", name: "f", arguments: "{"}]}, "input[0].arguments"],
        [{input: [{type: "function_call_output", call_id: "c"}]}, "input[0].output"],
        [{input: [{type: "web_search_call"}]}, "input[0].type"],
        [{input: "x", instructions: 3}, "instructions"],
        [{input: "x", max_output_tokens: "many"}, "max_output_tokens"],
        [{input: "x", max_output_tokens: 0}, "max_output_tokens"],
        [{input: "x", temperature: -1}, "temperature"],
        [{input: "x", stream: "yes"}, "stream"],
        [{input: "x", tools: [{type: "web_search"}]}, "tools[0].type"],
        [{input: "x", tools: [{type: "function"}]}, "tools[0].name"],
        [{input: "x", tools: [{...weather, parameters: {type: "object", properties: {a: {type: "thing"}}}}], tool_choice: "required"},
         "tools[0].parameters/properties/a/type"],
        [{input: "x", tools: [weather], tool_choice: {type: "function", name: "nope"}}, "tool_choice.name"],
        [{input: "x", text: {format: {type: "xml"}}}, "text.format.type"],
        [{input: "x", text: {format: {type: "json_schema", name: "s", schema: {type: "object", properties: {a: {type: "thing"}}}}}},
         "text.format.schema/properties/a/type"],
        [{input: "x", background: true}, "background"],
        [{input: "x", previous_response_id: 5}, "previous_response_id"],
    ];
    for (const [body, param] of cases) {
        const r = await fetch(`${server.url}/v1/responses`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
        const error = (await r.json()).error;
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(error.param, param, `${JSON.stringify(body)}: ${error.message}`);
        assert.ok(error.message.includes(param.split("/")[0]), error.message);
    }
    const notJson = await fetch(`${server.url}/v1/responses`, {method: "POST", headers: {"Content-Type": "application/json"}, body: "{"});
    assert.equal(notJson.status, 400);
    const missing = await fetch(`${server.url}/v1/responses/resp_nothing`);
    assert.equal(missing.status, 404);
});

test("SIGTERM mid-stream: an error event (server_shutdown), then response.failed; the server exits 0", async () => {
    // A long answer (the test model writes thousands of tokens a second) on a server of its own.
    const own = await startServer(forge, model, ["--parallel", "1", "--ctx-size", "16384", "--threads", "2"]);
    const {events, raw, code} = await streamCutByShutdown(own, "/v1/responses",
        {input: "Once upon a time", max_output_tokens: 16000, temperature: 0, stream: true});
    assert.equal(code, 0, own.log());
    const names = events.map((e) => e.event);
    assert.deepEqual(names.slice(-2), ["error", "response.failed"], raw.slice(-400));
    assert.equal(events.at(-2).data.code, "server_shutdown");
    assert.equal(events.at(-1).data.response.status, "failed");
    assert.deepEqual(events.map((e) => e.data.sequence_number), events.map((_, i) => i));
});
