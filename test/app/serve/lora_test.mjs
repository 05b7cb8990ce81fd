// `forge serve --lora` as llama-server: GET /lora-adapters lists the adapters with their global
// scales, POST /lora-adapters sets them, a request's own "lora" scales apply to it alone (those
// it leaves out at 0). Checked against a server of the base alone: scale 0 answers as the base,
// a cached prompt evaluated under other scales is not reused, sequences at different scales
// batched together answer as they do one at a time; bad ids are 400s in the error envelope.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import {startServer} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const data = process.env.FORGE_LLM_TEST_DATA;
const base = path.join(data, "llama-f32.gguf");
const adapterA = path.join(data, "lora", "llama-f32.lora-a.gguf");
const adapterB = path.join(data, "lora", "llama-f32.lora-b.gguf");
const common = ["--parallel", "2", "--threads", "2", "--ctx-size", "256", "--kv-type", "f32"];

let adapted, plain;
before(async () => {
    adapted = await startServer(forge, base, [...common, "--lora", adapterA, "--lora", `${adapterB}:0.5`]);
    plain = await startServer(forge, base, common);
});
after(async () => {
    await adapted.stop();
    await plain.stop();
});

const json = {"Content-Type": "application/json"};
async function call(server, method, route, body) {
    const r = await fetch(`${server.url}${route}`, {method, headers: json, body: body === undefined ? undefined : JSON.stringify(body)});
    return {status: r.status, body: await r.json()};
}
// A greedy completion of a fixed prompt (token ids of the tiny vocabulary).
async function complete(server, extra = {}, prompt = [72, 101, 108, 108, 111, 44, 256, 300]) {
    const r = await call(server, "POST", "/v1/completions", {prompt, max_tokens: 12, temperature: 0, ...extra});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.choices[0].text;
}

test("GET /lora-adapters lists each adapter with its id, path and --lora scale", async () => {
    const r = await call(adapted, "GET", "/lora-adapters");
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, [{id: 0, path: adapterA, scale: 1}, {id: 1, path: adapterB, scale: 0.5}]);
    assert.deepEqual((await call(plain, "GET", "/lora-adapters")).body, []);
});

test("a request's lora scales apply to it alone; scale 0 answers as the base; no KV reused across scales", async () => {
    const baseText = await complete(plain);
    const withA = await complete(adapted, {lora: [{id: 0, scale: 1}]});
    assert.notEqual(withA, baseText, "adapter A changes the answer");
    // The same prompt again at scale 0: its cached prefix was computed with A, and must not be reused.
    assert.equal(await complete(adapted, {lora: [{id: 0, scale: 0}, {id: 1, scale: 0}]}), baseText);
    assert.equal(await complete(adapted, {lora: []}), baseText);
    assert.equal(await complete(adapted, {lora: [{id: 0, scale: 1}]}), withA);
});

test("POST /lora-adapters sets the global scales that requests without lora use", async () => {
    const withA = await complete(adapted, {lora: [{id: 0, scale: 1}]});
    const both = await complete(adapted);  // A at 1, B at 0.5 from --lora
    assert.deepEqual((await call(adapted, "POST", "/lora-adapters", [{id: 0, scale: 1}])).body, {success: true});
    assert.deepEqual((await call(adapted, "GET", "/lora-adapters")).body.map((a) => a.scale), [1, 0]);
    assert.equal(await complete(adapted), withA);
    assert.equal((await call(adapted, "POST", "/lora-adapters", [{id: 0, scale: 1}, {id: 1, scale: 0.5}])).status, 200);
    assert.equal(await complete(adapted), both);
});

test("requests at different scales batched together answer as they do alone", async () => {
    const scales = [[{id: 0, scale: 1}], [{id: 1, scale: 2}], [{id: 0, scale: 0.5}, {id: 1, scale: -1}]];
    const prompts = [[72, 101, 108, 108, 111], [256, 300, 350, 400], [12, 33, 261, 270, 280]];
    const alone = [];
    for (let i = 0; i < scales.length; ++i) alone.push(await complete(adapted, {lora: scales[i], max_tokens: 24}, prompts[i]));
    const together = await Promise.all(scales.map((lora, i) => complete(adapted, {lora, max_tokens: 24}, prompts[i])));
    assert.deepEqual(together, alone);
});

test("bad lora ids and scales are 400s in the error envelope, naming the field", async () => {
    for (const [lora, param] of [[[{id: 2, scale: 1}], "lora[0].id"], [[{id: -1, scale: 1}], "lora[0].id"],
                                 [[{id: 0, scale: "x"}], "lora[0].scale"], [{id: 0}, "lora"], [[3], "lora[0]"]]) {
        const r = await call(adapted, "POST", "/v1/chat/completions", {messages: [{role: "user", content: "hi"}], max_tokens: 1, lora});
        assert.equal(r.status, 400, JSON.stringify(lora));
        assert.equal(r.body.error.param, param, JSON.stringify(r.body));
        assert.equal(r.body.error.type, "invalid_request_error");
    }
    const r = await call(adapted, "POST", "/lora-adapters", [{id: 7, scale: 1}]);
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /adapter id, 0 to 1/);
    assert.equal((await call(adapted, "POST", "/lora-adapters", {scale: 1})).status, 400);
    assert.equal((await call(plain, "POST", "/v1/completions", {prompt: [72], max_tokens: 1, lora: [{id: 0, scale: 1}]})).status, 400);
});
