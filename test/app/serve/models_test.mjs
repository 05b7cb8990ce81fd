// Many models in one `forge serve`, driven by the official openai client: --models-dir lists
// every GGUF file by its stem, a request's `model` picks one, loaded on first use and unloaded
// least recently used under --models-max (seen in /v1/models' status); models.retrieve, 404
// model_not_found for an unknown model, a model in use never unloaded under its request, and
// one model served as before (its name not checked).
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, symlinkSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import {Ollama} from "ollama";
import {startServer, eventually} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const data = process.env.FORGE_LLM_TEST_DATA;
const llama = path.join(data, "llama-q8_0.gguf");
const qwen3 = path.join(data, "qwen3-q8_0.gguf");

// A folder of two models (links to the test files).
const dir = mkdtempSync(path.join(os.tmpdir(), "forge-models-"));
symlinkSync(llama, path.join(dir, "llama.gguf"));
symlinkSync(qwen3, path.join(dir, "qwen3.gguf"));

let server, client;
before(async () => {
    server = await startServer(forge, null, ["--models-dir", dir, "--models-max", "1", "--parallel", "1", "--ctx-size", "16384",
                                             "--threads", "2"]);
    client = new OpenAI({baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0});
});
after(async () => {
    const {code} = await server.stop("SIGTERM");
    assert.equal(code, 0, server.log());
    rmSync(dir, {recursive: true});
});

const say = (model, extra = {}) => client.chat.completions.create({model, messages: [{role: "user", content: "Hi"}], max_tokens: 4, ...extra});
const statuses = async () => Object.fromEntries((await client.models.list()).data.map((m) => [m.id, m.status.value]));
const loads = (id) => server.log().split("\n").filter((l) => l.includes(`model loaded in`) && l.includes(`: ${id} (`)).length;

test("models.list names every file of the folder by its stem, none loaded yet", async () => {
    const list = await client.models.list();
    assert.deepEqual(list.data.map((m) => m.id), ["llama", "qwen3"]);
    for (const m of list.data) {
        assert.equal(m.object, "model");
        assert.equal(m.owned_by, "forge");
        assert.equal(typeof m.created, "number");
    }
    assert.deepEqual(await statuses(), {llama: "unloaded", qwen3: "unloaded"});
});

test("models.retrieve: OpenAI's shape; an unknown id is 404 model_not_found", async () => {
    const m = await client.models.retrieve("qwen3");
    assert.equal(m.id, "qwen3");
    assert.equal(m.object, "model");
    await assert.rejects(client.models.retrieve("gpt-4o"), (e) => {
        assert.equal(e.status, 404);
        assert.equal(e.code, "model_not_found");
        assert.equal(e.error.type, "invalid_request_error");
        return true;
    });
});

test("a request's model picks the model; --models-max 1 unloads the other", async () => {
    const a = await say("llama");
    assert.equal(a.model, "llama");
    assert.deepEqual(await statuses(), {llama: "loaded", qwen3: "unloaded"});
    const list = await client.models.list();
    assert.equal(list.data[0].meta.architecture, "llama");
    const b = await say("qwen3.gguf");  // the file name names it too
    assert.equal(b.model, "qwen3");
    assert.deepEqual(await statuses(), {llama: "unloaded", qwen3: "loaded"});
    assert.equal((await client.models.list()).data[1].meta.architecture, "qwen3");
    await say("llama");
    assert.deepEqual(await statuses(), {llama: "loaded", qwen3: "unloaded"});
    assert.match(server.log(), /unloading model llama \(least recently used\) to make room for qwen3/);
});

test("greedy answers are the same after a model is unloaded and loaded again", async () => {
    const first = await say("qwen3", {temperature: 0, max_tokens: 12});
    await say("llama");
    const again = await say("qwen3", {temperature: 0, max_tokens: 12});
    assert.equal(again.choices[0].message.content, first.choices[0].message.content);
});

test("an unknown model is 404 model_not_found; a missing one is 400 with two models", async () => {
    await assert.rejects(say("nope"), (e) => e.status === 404 && e.code === "model_not_found" && e.param === "model");
    const r = await fetch(`${server.url}/v1/chat/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({messages: [{role: "user", content: "Hi"}]})});
    assert.equal(r.status, 400);
    assert.equal((await r.json()).error.param, "model");
});

test("concurrent first requests for a model load it once", async () => {
    await say("llama");  // qwen3 is unloaded now
    const before = loads("qwen3");
    const answers = await Promise.all(Array.from({length: 4}, () => say("qwen3")));
    for (const a of answers) assert.equal(a.model, "qwen3");
    assert.equal(loads("qwen3"), before + 1);
});

test("a model in use is not unloaded: another model is 503 + Retry-After until the request ends", async () => {
    await say("llama");
    // A long answer (the tiny model's special tokens, EOS among them, banned), running until aborted.
    const nVocab = (await client.models.list()).data[0].meta.n_vocab;
    const logit_bias = Object.fromEntries(Array.from({length: nVocab - 500}, (_, i) => [500 + i, -100]));
    // Two of them on the one slot (the second queued, holding the model too): seconds of margin
    // for the check below on a busy machine.
    const abort = new AbortController();
    const long = Promise.all([0, 1].map(() => client.chat.completions.create(
        {model: "llama", messages: [{role: "user", content: "Tell a story."}], max_tokens: 16000, logit_bias},
        {signal: abort.signal}).catch((e) => e)));
    assert.ok(await eventually(async () => {
        const slots = await (await fetch(`${server.url}/slots?model=llama`)).json();
        return slots[0].is_processing;
    }));
    const r = await fetch(`${server.url}/v1/chat/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({model: "qwen3", messages: [{role: "user", content: "Hi"}], max_tokens: 4})});
    assert.equal(r.status, 503);
    assert.equal(r.headers.get("retry-after"), "1");
    assert.equal((await r.json()).error.code, "models_busy");
    assert.deepEqual(await statuses(), {llama: "loaded", qwen3: "unloaded"});
    abort.abort();
    await long;
    // llama is in use until both abandoned requests are gone: the queued one may still take the
    // slot for a step after the first leaves (the slot looks idle in between), so ask until
    // llama is free; then qwen3 takes its place. Any error but models_busy fails the test.
    let answer;
    assert.ok(await eventually(async () => {
        answer = await say("qwen3").catch((e) => {
            if (e.code !== "models_busy") throw e;
            return null;
        });
        return answer !== null;
    }));
    assert.equal(answer.model, "qwen3");
});

test("several -m files are named by their file names; one model answers to any name", async () => {
    const two = await startServer(forge, null, ["-m", llama, "-m", qwen3, "--threads", "1"]);
    try {
        const c = new OpenAI({baseURL: `${two.url}/v1`, apiKey: "unused", maxRetries: 0});
        assert.deepEqual((await c.models.list()).data.map((m) => m.id), ["llama-q8_0.gguf", "qwen3-q8_0.gguf"]);
        assert.equal((await c.chat.completions.create({model: "qwen3-q8_0", messages: [{role: "user", content: "Hi"}], max_tokens: 2})).model,
                     "qwen3-q8_0.gguf");
    } finally {
        await two.stop();
    }
    const one = await startServer(forge, qwen3, ["--threads", "1"]);
    try {
        const c = new OpenAI({baseURL: `${one.url}/v1`, apiKey: "unused", maxRetries: 0});
        const list = await c.models.list();
        assert.equal(list.data.length, 1);
        assert.equal(list.data[0].status.value, "loaded");  // loaded at startup, as before
        const a = await c.chat.completions.create({model: "gpt-4o", messages: [{role: "user", content: "Hi"}], max_tokens: 2});
        assert.equal(a.model, "qwen3-q8_0.gguf");
        assert.equal((await c.models.retrieve("qwen3-q8_0.gguf")).id, "qwen3-q8_0.gguf");
    } finally {
        await one.stop();
    }
});

test("the Ollama routes see the same models: tags lists all (ID:latest), ps the loaded, a stem loads on first use", async () => {
    const two = await startServer(forge, null, ["--models-dir", dir, "--threads", "1"]);
    try {
        const o = new Ollama({host: two.url});
        assert.deepEqual((await o.list()).models.map((m) => m.name), ["llama:latest", "qwen3:latest"]);
        for (const m of (await o.list()).models) assert.equal(m.details.format, "gguf");
        assert.deepEqual((await o.ps()).models, []);
        const answer = await o.chat({model: "qwen3:latest", messages: [{role: "user", content: "Hi"}], options: {num_predict: 2}, stream: false});
        assert.equal(answer.model, "qwen3:latest");
        assert.deepEqual((await o.ps()).models.map((m) => m.name), ["qwen3:latest"]);
        assert.equal((await o.show({model: "llama"})).details.family, "llama");
        await assert.rejects(o.chat({model: "mistral", messages: [{role: "user", content: "Hi"}], stream: false}),
                             (e) => e.status_code === 404 && /model 'mistral' not found/.test(e.error));
    } finally {
        await two.stop();
    }
});

test("bad model flags fail at startup with a clear message", async () => {
    await assert.rejects(startServer(forge, null, ["--models-dir", path.join(dir, "missing")]), /--models-dir .*not a folder/);
    await assert.rejects(startServer(forge, null, ["-m", llama, "-m", qwen3, "--alias", "x"]), /--alias names the only model/);
    await assert.rejects(startServer(forge, llama, ["--models-dir", dir, "-m", llama]), /two models answer to one name/);
});
