// `forge serve` driven by the official `ollama` npm client (0.6.4, `new Ollama({host})`), as the
// tools built on Ollama's API drive it, and by raw HTTP where the client hides the bytes.
// Oracles: the OpenAI routes of the same server (Ollama's API is a translation of the same
// request, so at temperature 0 its text, token counts and calls must equal theirs exactly),
// `ajv` for structured output and tool arguments, and the test model's GGUF facts.
//
// Run by meson (test/app/meson.build): FORGE_EXE, FORGE_LLM_TEST_DATA point at the binary and
// test/data/llm.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import {Ollama} from "ollama";
import {startServer, metric, eventually, withChatTemplate} from "./harness.mjs";
import {validator, person, weather} from "./schemas.mjs";

const forge = process.env.FORGE_EXE;
const model = path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf");

let server, ollama;
before(async () => {
    // The model's whole trained context: room for tools (spelled out in the prompt) and for a
    // stream still running when the abort test acts (the test model writes thousands of tokens
    // a second).
    server = await startServer(forge, model, ["--parallel", "2", "--ctx-size", "4096", "--alias", "tiny-qwen3", "--metrics", "--threads", "2"]);
    ollama = new Ollama({host: server.url});
});
after(async () => {
    const {code} = await server.stop("SIGTERM");
    assert.equal(code, 0, server.log());
});

const conversation = [{role: "system", content: "Be brief."}, {role: "user", content: "Say hello."}];

async function openai(route, body) {
    const r = await fetch(`${server.url}/v1/${route}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    assert.equal(r.status, 200);
    return r.json();
}

async function post(route, body) {
    const r = await fetch(`${server.url}${route}`, {method: "POST", headers: {"Content-Type": "application/json"},
        body: typeof body === "string" ? body : JSON.stringify(body)});
    return {status: r.status, type: r.headers.get("content-type"), text: await r.text()};
}

// Ollama's last object: done, a done_reason, and the counts and durations (integer nanoseconds).
function checkDone(r, reasons = ["stop", "length"]) {
    assert.equal(r.done, true);
    assert.ok(reasons.includes(r.done_reason), r.done_reason);
    for (const key of ["total_duration", "load_duration", "prompt_eval_duration", "eval_duration", "prompt_eval_count", "eval_count"])
        assert.ok(Number.isInteger(r[key]) && r[key] >= 0, `${key}: ${r[key]}`);
    assert.ok(r.total_duration >= r.load_duration);
    assert.ok(r.prompt_eval_count > 0);
    assert.ok(!Number.isNaN(Date.parse(r.created_at)), r.created_at);
}

test("version, tags, ps: the served model under the name requests use", async () => {
    assert.match((await ollama.version()).version, /^\d+\.\d+\.\d+$/);
    const {models} = await ollama.list();
    assert.equal(models.length, 1);
    assert.equal(models[0].name, "tiny-qwen3:latest");
    assert.equal(models[0].model, "tiny-qwen3:latest");
    assert.ok(models[0].size > 0);
    assert.ok(!Number.isNaN(Date.parse(models[0].modified_at)));
    assert.deepEqual(models[0].details, {parent_model: "", format: "gguf", family: "qwen3", families: ["qwen3"],
                                         parameter_size: "107K", quantization_level: "Q8_0"});
    const running = (await ollama.ps()).models;
    assert.equal(running.length, 1);
    assert.equal(running[0].name, "tiny-qwen3:latest");
    assert.equal(running[0].context_length, 4096);
    // Both the listed name and the bare alias answer; HEAD / is Ollama's CLI probe.
    for (const name of ["tiny-qwen3:latest", "tiny-qwen3"]) {
        const r = await ollama.chat({model: name, messages: [{role: "user", content: "Hi"}], options: {num_predict: 2}});
        assert.equal(r.model, name);
    }
    assert.equal((await fetch(server.url, {method: "HEAD"})).status, 200);
});

test("show: details, the GGUF's general.* and qwen3.* keys, template, capabilities", async () => {
    const s = await ollama.show({model: "tiny-qwen3"});
    assert.equal(s.details.family, "qwen3");
    assert.equal(s.details.format, "gguf");
    // The test model: random-qwen3-L2-E64-H4-KV2-F128 (tools/make_test_models), vocabulary 511.
    assert.equal(s.model_info["general.architecture"], "qwen3");
    assert.equal(s.model_info["general.file_type"], 7);  // LLAMA_FTYPE_MOSTLY_Q8_0
    assert.equal(s.model_info["qwen3.block_count"], 2);
    assert.equal(s.model_info["qwen3.embedding_length"], 64);
    assert.equal(s.model_info["qwen3.attention.head_count"], 4);
    assert.equal(s.model_info["qwen3.attention.head_count_kv"], 2);
    assert.equal(s.model_info["qwen3.feed_forward_length"], 128);
    assert.deepEqual(s.model_info["tokenizer.ggml.tokens"], []);  // the arrays only with verbose, as Ollama
    const verbose = await ollama.show({model: "tiny-qwen3", verbose: true});
    assert.equal(verbose.model_info["tokenizer.ggml.tokens"].length, 511);
    assert.match(s.template, /im_start/);
    assert.match(s.parameters, /num_ctx 4096/);
    assert.deepEqual(s.capabilities, ["completion", "tools"]);
});

test("chat, not streamed, greedy: the text and counts of /v1/chat/completions exactly", async () => {
    const r = await ollama.chat({model: "tiny-qwen3", messages: conversation, options: {temperature: 0, num_predict: 24}});
    const o = await openai("chat/completions", {messages: conversation, temperature: 0, max_tokens: 24});
    assert.equal(r.message.role, "assistant");
    assert.equal(r.message.content, o.choices[0].message.content);
    assert.equal(r.done_reason, o.choices[0].finish_reason);
    assert.equal(r.prompt_eval_count, o.usage.prompt_tokens);
    assert.equal(r.eval_count, o.usage.completion_tokens);
    checkDone(r);
});

test("chat streamed (async iterator): pieces join to the non-streamed text; one done object, last; NDJSON", async () => {
    const request = {model: "tiny-qwen3", messages: conversation, options: {temperature: 0, num_predict: 40}};
    const whole = await ollama.chat(request);
    const parts = [];
    for await (const part of await ollama.chat({...request, stream: true})) parts.push(part);
    assert.ok(parts.length >= 2);  // pieces arrive as the HTTP thread finds them: a fast model's in few
    assert.ok(parts[0].message.content.length > 0);
    assert.ok(parts.slice(0, -1).every((p) => p.done === false && p.message.role === "assistant" && p.model === "tiny-qwen3"));
    const last = parts.at(-1);
    checkDone(last);
    assert.equal(last.message.content, "");
    assert.equal(parts.map((p) => p.message.content).join(""), whole.message.content);
    assert.equal(last.eval_count, whole.eval_count);
    // Ollama streams unless told not to: the raw bytes are one JSON object a line.
    const raw = await post("/api/chat", {model: "tiny-qwen3", messages: conversation, options: {temperature: 0, num_predict: 8}});
    assert.equal(raw.status, 200);
    assert.match(raw.type, /application\/x-ndjson/);
    const lines = raw.text.trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.filter((l) => l.done).length, 1);
    assert.equal(lines.at(-1).done, true);
});

test("generate: a user turn through the template (= chat), raw (= /v1/completions), context continues", async () => {
    const g = await ollama.generate({model: "tiny-qwen3", system: "Be brief.", prompt: "Say hello.", options: {temperature: 0, num_predict: 24}});
    const c = await ollama.chat({model: "tiny-qwen3", messages: conversation, options: {temperature: 0, num_predict: 24}});
    assert.equal(g.response, c.message.content);
    assert.equal(g.prompt_eval_count, c.prompt_eval_count);
    checkDone(g);
    // context: the prompt's tokens and the answer's.
    assert.equal(g.context.length, g.prompt_eval_count + g.eval_count);

    const raw = await ollama.generate({model: "tiny-qwen3", prompt: "Once upon a time", raw: true, options: {temperature: 0, num_predict: 16}});
    const o = await openai("completions", {prompt: "Once upon a time", temperature: 0, max_tokens: 16});
    assert.equal(raw.response, o.choices[0].text);
    assert.equal(raw.prompt_eval_count, o.usage.prompt_tokens);

    // A next turn with `context`: its tokens, then the new turn's; the answer is that of the
    // same token ids on /v1/completions.
    const turn = await ollama.generate({model: "tiny-qwen3", prompt: "And again?", options: {temperature: 0, num_predict: 1}});
    const turnTokens = turn.context.slice(0, turn.prompt_eval_count);
    const next = await ollama.generate({model: "tiny-qwen3", prompt: "And again?", context: g.context, options: {temperature: 0, num_predict: 16}});
    assert.equal(next.prompt_eval_count, g.context.length + turnTokens.length);
    const same = await openai("completions", {prompt: [...g.context, ...turnTokens], temperature: 0, max_tokens: 16});
    assert.equal(next.response, same.choices[0].text);
    assert.deepEqual(next.context.slice(0, next.prompt_eval_count), [...g.context, ...turnTokens]);

    // No prompt: Ollama's load request.
    const load = await ollama.generate({model: "tiny-qwen3", prompt: ""});
    assert.equal(load.done, true);
    assert.equal(load.done_reason, "load");
});

test("options: num_predict, stop, seed, num_ctx below the slot's; unknown options ignored", async () => {
    const sampled = (seed) => ollama.chat({model: "tiny-qwen3", messages: conversation, options: {temperature: 1, seed, num_predict: 16}});
    assert.equal((await sampled(7)).message.content, (await sampled(7)).message.content);
    const o = await openai("chat/completions", {messages: conversation, temperature: 1, seed: 7, max_tokens: 16});
    assert.equal((await sampled(7)).message.content, o.choices[0].message.content);

    const long = await ollama.chat({model: "tiny-qwen3", messages: conversation, options: {temperature: 0, num_predict: 40}});
    const stop = long.message.content.slice(10, 12);
    const stopped = await ollama.chat({model: "tiny-qwen3", messages: conversation, options: {temperature: 0, num_predict: 40, stop: [stop]}});
    assert.equal(stopped.message.content, long.message.content.slice(0, long.message.content.indexOf(stop)));
    assert.equal(stopped.done_reason, "stop");

    // num_ctx: prompt and answer within it (the answer ends "length" where it is full).
    const small = await ollama.chat({model: "tiny-qwen3", messages: conversation, options: {temperature: 0, num_ctx: long.prompt_eval_count + 5}});
    assert.equal(small.eval_count, 5);
    assert.equal(small.done_reason, "length");
    const ignored = await ollama.chat({model: "tiny-qwen3", messages: conversation,
                                       options: {temperature: 0, num_predict: 40, mirostat: 2, num_gpu: 99, num_ctx: 1 << 20}});
    assert.equal(ignored.message.content, long.message.content);
});

test("format: a JSON schema (valid under ajv, = response_format json_schema), \"json\" an object", async () => {
    const valid = validator(person);
    for (const options of [{temperature: 0}, {temperature: 1, seed: 1}, {temperature: 1, seed: 2}]) {
        const r = await ollama.chat({model: "tiny-qwen3", messages: conversation, format: person, options: {...options, num_predict: 800}});
        assert.equal(r.done_reason, "stop", r.message.content);
        valid(JSON.parse(r.message.content));
    }
    const greedy = await ollama.chat({model: "tiny-qwen3", messages: conversation, format: person, options: {temperature: 0, num_predict: 800}});
    const o = await openai("chat/completions", {messages: conversation, temperature: 0, max_tokens: 800,
                                                response_format: {type: "json_schema", json_schema: {name: "person", schema: person}}});
    assert.equal(greedy.message.content, o.choices[0].message.content);
    const g = await ollama.generate({model: "tiny-qwen3", prompt: "Say hello.", system: "Be brief.", format: person, options: {temperature: 0, num_predict: 800}});
    valid(JSON.parse(g.response));
    const json = await ollama.chat({model: "tiny-qwen3", messages: conversation, format: "json", options: {temperature: 1, seed: 4, num_predict: 300}});
    if (json.done_reason === "stop") assert.equal(typeof JSON.parse(json.message.content), "object");
    else assert.match(json.message.content, /^\s*\{/);
});

const question = [{role: "user", content: "What is the weather in Oslo?"}];

test("tools round trip: a call with arguments as an object (= the OpenAI route's), its result back through the template", async () => {
    // The test model writes gibberish: tool_choice (forge's extension) makes it call.
    const request = {model: "tiny-qwen3", messages: question, tools: [weather], tool_choice: "required", options: {temperature: 0, num_predict: 800}};
    const r = await ollama.chat(request);
    checkDone(r, ["stop"]);
    const calls = r.message.tool_calls;
    assert.ok(calls.length >= 1, JSON.stringify(r.message));
    calls.forEach((call, i) => {
        assert.equal(call.function.name, "get_weather");
        assert.equal(call.function.index, i);
        assert.equal(typeof call.function.arguments, "object");
        validator(weather.function.parameters)(call.function.arguments);
    });
    const o = await openai("chat/completions", {messages: question, tools: [weather], tool_choice: "required", temperature: 0, max_tokens: 800});
    assert.deepEqual(calls.map((c) => [c.function.name, c.function.arguments]),
                     o.choices[0].message.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]));
    assert.equal(r.message.content, o.choices[0].message.content ?? "");

    // Streamed: the calls arrive whole, in order, and equal the non-streamed ones.
    const streamed = [];
    for await (const part of await ollama.chat({...request, stream: true})) streamed.push(...(part.message.tool_calls ?? []));
    assert.deepEqual(streamed.map((c) => c.function), calls.map((c) => c.function));

    // The round trip: the call and its result (Ollama's tool_name only; forge answers the call
    // of that tool by its id) render as they do on /v1/chat/completions: the same prompt tokens. (The
    // arguments go back as an object, which is printed compact: so are the OpenAI ones here.)
    const compact = o.choices[0].message.tool_calls.map((c) => ({...c, function: {...c.function, arguments: JSON.stringify(JSON.parse(c.function.arguments))}}));
    const result = "11 degrees";
    const back = await ollama.chat({model: "tiny-qwen3", tools: [weather], options: {temperature: 0, num_predict: 16},
        messages: [...question, r.message, ...calls.map((c) => ({role: "tool", content: result, tool_name: c.function.name}))]});
    const oBack = await openai("chat/completions", {tools: [weather], temperature: 0, max_tokens: 16,
        messages: [...question, {...o.choices[0].message, tool_calls: compact}, ...compact.map((c) => ({role: "tool", content: result, tool_call_id: c.id}))]});
    assert.equal(back.prompt_eval_count, oBack.usage.prompt_tokens);
    assert.ok(back.prompt_eval_count > r.prompt_eval_count + 10);
    assert.equal(back.message.content, oBack.choices[0].message.content ?? "");
    // Ollama's clients send only the tool's name.
    const named = await ollama.chat({model: "tiny-qwen3", tools: [weather], options: {temperature: 0, num_predict: 4},
        messages: [...question, {role: "assistant", content: "", tool_calls: [{function: {name: "get_weather", arguments: {city: "Oslo", unit: "c"}}}]},
                   {role: "tool", content: result, tool_name: "get_weather"}]});
    assert.ok(named.prompt_eval_count > r.prompt_eval_count + 10);
});

test("abort of a stream frees its slot (counted as cancelled)", async () => {
    const cancelledBefore = await metric(server.url, "forge_requests_cancelled_total");
    const stream = await ollama.generate({model: "tiny-qwen3", prompt: "Once upon a time", raw: true, stream: true, options: {temperature: 0, num_predict: 16000}});
    let pieces = 0;
    await assert.rejects((async () => {
        for await (const part of stream) {
            assert.equal(part.done, false);
            if (++pieces === 3) stream.abort();
        }
    })(), (e) => e.name === "AbortError");
    assert.ok(await eventually(async () => (await metric(server.url, "forge_slots_busy")) === 0, 10000));
    assert.equal(await metric(server.url, "forge_requests_cancelled_total"), cancelledBefore + 1);
});

test("errors as Ollama sends them: {error} with 400 / 404, through the client and raw", async () => {
    await assert.rejects(ollama.chat({model: "llama3.2", messages: question}),
        (e) => e.name === "ResponseError" && e.status_code === 404 && e.error === "model 'llama3.2' not found");
    await assert.rejects(ollama.show({model: "nope"}), (e) => e.status_code === 404 && e.error === "model 'nope' not found");
    const bad = [
        ["/api/chat", "{", /not valid JSON/],
        ["/api/chat", "[]", /JSON object/],
        ["/api/chat", {messages: question}, /^model is required$/],
        ["/api/chat", {model: "tiny-qwen3", messages: 5}, /'messages' must be/],
        ["/api/chat", {model: "tiny-qwen3", messages: [{role: "bot", content: "x"}]}, /'messages\[0\]\.role'/],
        ["/api/chat", {model: "tiny-qwen3", messages: [{role: "user", content: "x", images: ["iVBORw0KGgo="]}]}, /'messages\[0\]\.images'.*text only/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, options: {temperature: "hot"}}, /'options\.temperature' must be a number/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, options: {top_p: 2}}, /'options\.top_p' must be in/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, options: {num_predict: "x"}}, /'options\.num_predict' must be an integer/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, options: {num_ctx: 0}}, /'options\.num_ctx'/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, options: {stop: [1]}}, /'options\.stop\[0\]' must be a string/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, options: 3}, /'options' must be an object/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, format: "yaml"}, /'format' must be "json" or a JSON schema/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, format: {type: "object", properties: {a: {type: "wat"}}}}, /'format\/properties\/a\/type'/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, format: "json", tools: [weather]}, /'format'.*tools/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, think: true}, /does not support thinking/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, think: "high"}, /'think'.*levels/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, stream: "yes"}, /'stream' must be a boolean/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, keep_alive: {}}, /'keep_alive'/],
        ["/api/chat", {model: "tiny-qwen3", messages: question, options: {num_ctx: 4}}, /options\.num_ctx/],
        ["/api/generate", {model: "tiny-qwen3", prompt: "x", suffix: "y"}, /'suffix' is not supported/],
        ["/api/generate", {model: "tiny-qwen3", prompt: "x", template: "{{ .Prompt }}"}, /'template' is not supported/],
        ["/api/generate", {model: "tiny-qwen3", prompt: "x", images: ["iVBORw0KGgo="]}, /'images'/],
        ["/api/generate", {model: "tiny-qwen3", prompt: "x", context: [1, 99999]}, /'context\[1\]'/],
        ["/api/generate", {model: "tiny-qwen3", prompt: 5}, /'prompt' must be a string/],
        ["/api/generate", {model: "tiny-qwen3", prompt: "x", raw: "yes"}, /'raw' must be a boolean/],
        ["/api/show", {}, /^model is required$/],
        ["/api/show", {model: "tiny-qwen3", verbose: 1}, /'verbose' must be a boolean/],
    ];
    for (const [route, body, message] of bad) {
        const r = await post(route, body);
        assert.equal(r.status, 400, `${route} ${JSON.stringify(body)}: ${r.text}`);
        assert.match(r.type, /application\/json/);
        const e = JSON.parse(r.text);
        assert.deepEqual(Object.keys(e), ["error"]);
        assert.match(e.error, message, JSON.stringify(body));
    }
    // Managing models is not forge's: 501 in Ollama's shape, through the client.
    await assert.rejects(ollama.pull({model: "llama3.2"}), (e) => e.status_code === 501 && /\/api\/pull is not supported/.test(e.error));
    await assert.rejects(ollama.delete({model: "tiny-qwen3"}), (e) => e.status_code === 501 && /\/api\/delete/.test(e.error));
    // After all that the server still answers.
    const ok = await ollama.chat({model: "tiny-qwen3", messages: question, options: {num_predict: 2}});
    assert.equal(ok.done, true);
});

test("GET /: the chat page while the web UI is on, \"Ollama is running\" with --no-webui", async () => {
    assert.match(await (await fetch(server.url)).text(), /<html/i);
    const plain = await startServer(forge, model, ["--no-webui", "--parallel", "1", "--ctx-size", "256", "--threads", "1"]);
    try {
        const r = await fetch(plain.url);
        assert.equal(r.status, 200);
        assert.equal(await r.text(), "Ollama is running");
        assert.equal((await fetch(plain.url, {method: "HEAD"})).status, 200);
        // Without --alias the name is the file's.
        assert.deepEqual((await new Ollama({host: plain.url}).list()).models.map((m) => m.name), ["qwen3-q8_0.gguf:latest"]);
    } finally {
        await plain.stop();
    }
});

test("an API key: tags and version stay public (Ollama's probes); refusals and unknown /api routes in Ollama's {error}", async () => {
    const keyed = await startServer(forge, model, ["--api-key", "sekrit", "--parallel", "1", "--ctx-size", "256", "--threads", "1"]);
    try {
        const open = new Ollama({host: keyed.url});
        assert.equal((await open.list()).models.length, 1);
        assert.equal(typeof (await open.version()).version, "string");
        await assert.rejects(open.chat({model: "qwen3-q8_0.gguf", messages: [{role: "user", content: "hi"}], stream: false}),
                             (e) => e.status_code === 401 && typeof e.error === "string" && /key/i.test(e.error));
        const keyedClient = new Ollama({host: keyed.url, headers: {Authorization: "Bearer sekrit"}});
        const ok = await keyedClient.chat({model: "qwen3-q8_0.gguf", messages: [{role: "user", content: "hi"}], options: {num_predict: 2}});
        assert.equal(ok.done, true);
        const unknown = await fetch(`${keyed.url}/api/nothing-here`, {headers: {Authorization: "Bearer sekrit"}});
        assert.equal(unknown.status, 404);
        const body = await unknown.json();
        assert.equal(typeof body.error, "string");
        assert.match(body.error, /\/api\/nothing-here/);
    } finally {
        await keyed.stop();
    }
});

// The test model with a chat template that has Qwen3's thinking switch (enable_thinking false:
// an empty think block in the prompt).
function thinkingModel() {
    return withChatTemplate(model, "{%for m in messages%}{{'<|im_start|>'+m.role+'\\n'+m.content+'<|im_end|>\\n'}}{%endfor%}" +
                                   "{{'<|im_start|>assistant\\n'}}{%if enable_thinking==false%}{{'<think>\\n\\n</think>\\n\\n'}}{%endif%}");
}

test("think: the template's enable_thinking (the OpenAI route's prompt tokens and text), the thinking capability", async () => {
    const served = await startServer(forge, thinkingModel(), ["--parallel", "1", "--ctx-size", "512", "--alias", "thinker", "--threads", "1"]);
    try {
        const client = new Ollama({host: served.url});
        assert.deepEqual((await client.show({model: "thinker"})).capabilities, ["completion", "tools", "thinking"]);
        const oai = async (kwargs) => {
            const r = await fetch(`${served.url}/v1/chat/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify({messages: conversation, temperature: 0, max_tokens: 12, ...kwargs})});
            return r.json();
        };
        const counts = {};
        for (const think of [undefined, true, false]) {
            const r = await client.chat({model: "thinker", messages: conversation, think, options: {temperature: 0, num_predict: 12}});
            const o = await oai(think === undefined ? {} : {chat_template_kwargs: {enable_thinking: think}});
            assert.equal(r.prompt_eval_count, o.usage.prompt_tokens, `think ${think}`);
            // The test model writes no <think>: with think true too, all of it is content.
            assert.equal(r.message.content, o.choices[0].message.content, `think ${think}`);
            assert.equal(r.message.thinking, undefined);
            counts[think] = r.prompt_eval_count;
        }
        assert.ok(counts[false] > counts[true]);  // the empty think block
        assert.equal(counts[true], counts[undefined]);
    } finally {
        await served.stop();
    }
});
