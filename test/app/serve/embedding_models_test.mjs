// Embedding-only models (bert family) in `forge serve`, beside a chat model: a folder with a
// random-weight bert embedder, a bert reranker and the random qwen3 chat model, served with
// --models-max 1. Driven by the official openai and ollama clients and raw HTTP:
//   - the bert model's vectors are `forge embed`'s on the same texts, bit for bit (the same
//     encoder code; /api/embeddings gives the raw vector, as `forge embed --no-normalize`);
//   - chat on the qwen3 model works in the same server, and every route that generates text
//     answers 400 naming the embedding model, in its API's error envelope;
//   - listings (/v1/models, /api/tags, /api/show, /props, /slots) describe it;
//   - the least recently used model is unloaded to load the other, either kind.
// A bert file served alone (`forge serve bge.gguf`) answers as the single model does.
//
// Run by meson (test/app/meson.build): FORGE_EXE, FORGE_LLM_TEST_DATA.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {mkdtempSync, symlinkSync, rmSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI from "openai";
import {Ollama} from "ollama";
import {startServer} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const data = process.env.FORGE_LLM_TEST_DATA;
const bertData = path.join(data, "..", "bert");
const bge = path.join(bertData, "bert-mean.gguf");
const reranker = path.join(bertData, "bert-rank.gguf");
const qwen3 = path.join(data, "qwen3-q8_0.gguf");

const dir = mkdtempSync(path.join(os.tmpdir(), "forge-embedding-models-"));
symlinkSync(bge, path.join(dir, "bge.gguf"));
symlinkSync(reranker, path.join(dir, "bge-rerank.gguf"));
symlinkSync(qwen3, path.join(dir, "qwen3.gguf"));

let server, client, ollama;
before(async () => {
    server = await startServer(forge, null, ["--models-dir", dir, "--models-max", "1", "--parallel", "1", "--threads", "2"]);
    client = new OpenAI({baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0});
    ollama = new Ollama({host: server.url});
});
after(async () => {
    const {code} = await server.stop("SIGTERM");
    assert.equal(code, 0, server.log());
    rmSync(dir, {recursive: true});
});

const texts = ["Hello, world!", "The quick brown fox jumps over the lazy dog.", "rain"];

// `forge embed`'s JSON for `texts` ({data: [{embedding}...]}).
function forgeEmbed(file, args) {
    const out = execFileSync(forge, ["embed", file, ...texts.flatMap((t) => ["--text", t]), "--json", ...args], {encoding: "utf8"});
    return JSON.parse(out).data;
}

async function post(route, body) {
    const r = await fetch(`${server.url}${route}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    return {status: r.status, body: await r.json()};
}

const statuses = async () => Object.fromEntries((await client.models.list()).data.map((m) => [m.id, m.status.value]));
const unloads = (id) => server.log().split("\n").filter((l) => l.includes(`unloading model ${id} `)).length;
const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

test("openai client: the bert model's vectors are forge embed's, bit for bit (float and base64)", async () => {
    const expected = forgeEmbed(bge, []);
    const r = await client.embeddings.create({model: "bge", input: texts, encoding_format: "float"});
    assert.equal(r.model, "bge");
    assert.equal(r.data.length, texts.length);
    r.data.forEach((d, i) => assert.deepEqual(d.embedding, expected[i].embedding, `input ${i}`));
    assert.ok(r.usage.prompt_tokens > texts.length);
    const decoded = await client.embeddings.create({model: "bge", input: texts[1]});  // base64, decoded by the client
    assert.deepEqual(Array.from(decoded.data[0].embedding), expected[1].embedding.map((x) => Math.fround(x)));
});

test("chat on the qwen3 model works in the same server; the bert model is unloaded for it (--models-max 1)", async () => {
    await client.embeddings.create({model: "bge", input: "load me", encoding_format: "float"});
    const before = unloads("bge");
    // Greedy: sampled, the random model may end at its first token.
    const chat = await client.chat.completions.create({model: "qwen3", messages: [{role: "user", content: "Hi"}], max_tokens: 4,
                                                       temperature: 0});
    assert.equal(chat.model, "qwen3");
    assert.equal(chat.usage.completion_tokens, 4);
    assert.equal(chat.choices[0].finish_reason, "length");
    assert.equal(unloads("bge"), before + 1);
    assert.equal((await statuses()).bge, "unloaded");
    assert.equal((await statuses()).qwen3, "loaded");
    // And back: the embedding model loads in the chat model's place, with the same vectors.
    const again = await client.embeddings.create({model: "bge", input: texts, encoding_format: "float"});
    const expected = forgeEmbed(bge, []);
    again.data.forEach((d, i) => assert.deepEqual(d.embedding, expected[i].embedding));
    assert.deepEqual(await statuses(), {"bge": "loaded", "bge-rerank": "unloaded", "qwen3": "unloaded"});
});

test("routes that generate text answer 400 on the embedding model, naming it, in their API's envelope", async () => {
    await assert.rejects(client.chat.completions.create({model: "bge", messages: [{role: "user", content: "Hi"}]}), (e) => {
        assert.equal(e.status, 400);
        assert.equal(e.error.type, "invalid_request_error");
        assert.equal(e.error.param, "model");
        assert.match(e.error.message, /model 'bge' is an embedding model.*use \/v1\/embeddings/);
        return true;
    });
    const openai = [
        ["/v1/completions", {model: "bge", prompt: "Hi"}],
        ["/v1/responses", {model: "bge", input: "Hi"}],
        ["/apply-template", {model: "bge", messages: [{role: "user", content: "Hi"}]}],
    ];
    for (const [route, body] of openai) {
        const r = await post(route, body);
        assert.equal(r.status, 400, route);
        assert.match(r.body.error.message, /model 'bge' is an embedding model/, route);
    }
    const anthropic = await post("/v1/messages", {model: "bge", max_tokens: 4, messages: [{role: "user", content: "Hi"}]});
    assert.equal(anthropic.status, 400);
    assert.equal(anthropic.body.type, "error");
    assert.match(anthropic.body.error.message, /model 'bge' is an embedding model/);
    for (const call of [() => ollama.chat({model: "bge", messages: [{role: "user", content: "Hi"}]}),
                        () => ollama.generate({model: "bge", prompt: "Hi"})]) {
        await assert.rejects(call(), (e) => {
            assert.equal(e.status_code, 400);
            assert.match(e.error, /model 'bge' is an embedding model.*use \/api\/embed/);
            return true;
        });
    }
});

test("ollama client: embed gives the normalised vectors, embeddings the raw one (forge embed --no-normalize)", async () => {
    const embed = await ollama.embed({model: "bge", input: texts});
    assert.equal(embed.embeddings.length, texts.length);
    const openai = await client.embeddings.create({model: "bge", input: texts, encoding_format: "float"});
    embed.embeddings.forEach((v, i) => assert.deepEqual(v, openai.data[i].embedding));
    const raw = forgeEmbed(bge, ["--no-normalize"]);
    for (let i = 0; i < texts.length; i++) {
        const r = await ollama.embeddings({model: "bge:latest", prompt: texts[i]});
        assert.deepEqual(r.embedding, raw[i].embedding, `prompt ${i}`);
        assert.ok(Math.abs(norm(r.embedding) - 1) > 1e-3, "the raw vector is not normalised");
    }
    // An empty prompt only loads the model, as in Ollama.
    assert.deepEqual((await post("/api/embeddings", {model: "bge", prompt: ""})).body, {embedding: []});
    const bad = await post("/api/embeddings", {model: "bge", prompt: 3});
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /'prompt' must be a string/);
    const unknown = await post("/api/embeddings", {model: "nope", prompt: "hi"});
    assert.equal(unknown.status, 404);
    const onReranker = await post("/api/embeddings", {model: "bge-rerank", prompt: "hi"});
    assert.equal(onReranker.status, 400);
    assert.match(onReranker.body.error, /reranker/);
    // A chat model pools no vector: the route says how to get one.
    const onChat = await post("/api/embeddings", {model: "qwen3", prompt: "hi"});
    assert.equal(onChat.status, 400);
    assert.match(onChat.body.error, /pools no vector/);
});

test("rerank on the bert reranker: forge embed --query's scores", async () => {
    const query = "what is a cat?";
    const out = JSON.parse(execFileSync(forge, ["embed", reranker, "--query", query, ...texts.flatMap((t) => ["--text", t]), "--json"],
                                        {encoding: "utf8"})).data;
    const r = await post("/v1/rerank", {model: "bge-rerank", query, documents: texts});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    for (const result of r.body.results) assert.equal(result.relevance_score, out[result.index].relevance_score);
    for (let i = 1; i < r.body.results.length; i++) assert.ok(r.body.results[i - 1].relevance_score >= r.body.results[i].relevance_score);
});

test("listings describe the embedding model: /v1/models, /api/tags, /api/show, /props, /slots, /tokenize", async () => {
    await client.embeddings.create({model: "bge", input: "load me", encoding_format: "float"});
    const m = await client.models.retrieve("bge");
    assert.equal(m.status.value, "loaded");
    assert.equal(m.meta.architecture, "bert");
    assert.equal(m.meta.n_embd, 64);
    const tags = await ollama.list();
    assert.deepEqual(tags.models.map((x) => x.name).sort(), ["bge-rerank:latest", "bge:latest", "qwen3:latest"]);
    assert.equal(tags.models.find((x) => x.name === "bge:latest").details.family, "bert");
    const show = await ollama.show({model: "bge"});
    assert.deepEqual(show.capabilities, ["embedding"]);
    const ps = await ollama.ps();
    assert.deepEqual(ps.models.map((x) => x.name), ["bge:latest"]);
    const props = await (await fetch(`${server.url}/props?model=bge`)).json();
    assert.equal(props.model_alias, "bge");
    assert.equal(props.total_slots, 0);
    assert.equal(props.chat_template, "");
    const slots = await fetch(`${server.url}/slots?model=bge&fail_on_no_slot=1`);
    assert.equal(slots.status, 200);
    assert.deepEqual(await slots.json(), []);
    // Its WordPiece tokenizer: the tokens forge embed embeds, less [CLS] and [SEP].
    const tokens = await post("/tokenize", {model: "bge", content: "Hello, world!", add_special: true});
    assert.equal(tokens.status, 200);
    assert.equal(tokens.body.tokens[0], 101);  // [CLS]
    const text = await post("/detokenize", {model: "bge", tokens: tokens.body.tokens.slice(1, -1)});
    assert.equal(text.body.content.toLowerCase().replace(/\s+/g, ""), "hello,world!");
});

test("a bert file served alone: any name is that model, chat is 400", async () => {
    const alone = await startServer(forge, bge, ["--threads", "2"]);
    try {
        const c = new OpenAI({baseURL: `${alone.url}/v1`, apiKey: "unused", maxRetries: 0});
        const r = await c.embeddings.create({model: "anything", input: texts, encoding_format: "float"});
        const expected = forgeEmbed(bge, []);
        r.data.forEach((d, i) => assert.deepEqual(d.embedding, expected[i].embedding));
        assert.equal(r.model, "bert-mean.gguf");  // one model keeps its file name
        await assert.rejects(c.chat.completions.create({model: "x", messages: [{role: "user", content: "Hi"}]}), (e) => e.status === 400);
        const health = await fetch(`${alone.url}/health`);
        assert.equal(health.status, 200);
    } finally {
        const {code} = await alone.stop("SIGTERM");
        assert.equal(code, 0, alone.log());
    }
});
