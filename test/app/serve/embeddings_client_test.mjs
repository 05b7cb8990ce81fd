// `forge serve` embeddings and rerank, driven by the official openai client (embeddings.create,
// float and base64) and ollama client (embed), and by raw HTTP for the error cases. The
// vectors are checked against llama.cpp's (test/data/llm/embed, tools/llm_goldens/embeddings.py):
// cosine per vector, at the bound of the C++ oracle test (measured worst 1 - cosine 1.6e-6).
//
// Run by meson (test/app/meson.build): FORGE_EXE, FORGE_LLM_TEST_DATA.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import {Ollama} from "ollama";
import {startServer} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const data = path.join(process.env.FORGE_LLM_TEST_DATA, "embed");
const golden = JSON.parse(readFileSync(path.join(data, "qwen3-embed-last.json"), "utf8"));
const BOUND = 2e-5;  // 1 - cosine; measured worst 1.6e-6 (the C++ oracle test's bound)

let embedServer, rerankServer, client;
before(async () => {
    embedServer = await startServer(forge, path.join(data, "qwen3-embed-last.gguf"), ["--ctx-size", "1024", "--alias", "emb", "--threads", "2"]);
    rerankServer = await startServer(forge, path.join(data, "qwen3-rerank.gguf"), ["--ctx-size", "256", "--alias", "rr", "--threads", "2"]);
    client = new OpenAI({baseURL: `${embedServer.url}/v1`, apiKey: "unused", maxRetries: 0});
});
after(async () => {
    for (const s of [embedServer, rerankServer]) {
        const {code} = await s.stop("SIGTERM");
        assert.equal(code, 0, s.log());
    }
});

function cosine(a, b) {
    let ab = 0, aa = 0, bb = 0;
    for (let i = 0; i < a.length; i++) { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i]; }
    return ab / Math.sqrt(aa * bb);
}

const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

async function post(server, route, body) {
    const r = await fetch(`${server.url}${route}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    return {status: r.status, body: await r.json()};
}

test("openai client: token inputs give llama.cpp's vectors, normalised, with usage", async () => {
    const r = await client.embeddings.create({model: "emb", input: golden.inputs, encoding_format: "float"});
    assert.equal(r.object, "list");
    assert.equal(r.model, "emb");
    assert.equal(r.data.length, golden.inputs.length);
    assert.equal(r.usage.prompt_tokens, golden.inputs.reduce((n, t) => n + t.length, 0));
    r.data.forEach((d, i) => {
        assert.equal(d.object, "embedding");
        assert.equal(d.index, i);
        assert.ok(Math.abs(norm(d.embedding) - 1) < 1e-5, `input ${i} is not unit length`);
        assert.ok(1 - cosine(d.embedding, golden.embeddings[i]) <= BOUND, `input ${i}: 1 - cosine ${1 - cosine(d.embedding, golden.embeddings[i])}`);
    });
});

test("openai client: base64 (the client's default and asked for) is the float vector's bytes", async () => {
    const input = golden.inputs[2];
    const float = (await client.embeddings.create({model: "emb", input, encoding_format: "float"})).data[0].embedding;
    const decoded = (await client.embeddings.create({model: "emb", input})).data[0].embedding;  // the client asks base64 and decodes
    assert.deepEqual(Array.from(decoded), float.map((x) => Math.fround(x)));
    const raw = (await client.embeddings.create({model: "emb", input, encoding_format: "base64"})).data[0].embedding;
    assert.equal(typeof raw, "string");
    const bytes = Buffer.from(raw, "base64");
    const values = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    assert.deepEqual(Array.from(values), float.map((x) => Math.fround(x)));
});

test("openai client: text inputs, one or several, and dimensions", async () => {
    const one = await client.embeddings.create({model: "emb", input: "Hello, world", encoding_format: "float"});
    assert.equal(one.data.length, 1);
    const many = await client.embeddings.create({model: "emb", input: ["Hello, world", "another text"], encoding_format: "float"});
    assert.equal(many.data.length, 2);
    assert.deepEqual(many.data[0].embedding, one.data[0].embedding);
    const short = await client.embeddings.create({model: "emb", input: "Hello, world", dimensions: 16, encoding_format: "float"});
    assert.equal(short.data[0].embedding.length, 16);
    assert.ok(Math.abs(norm(short.data[0].embedding) - 1) < 1e-5);
    // /embeddings is the same route.
    const bare = await post(embedServer, "/embeddings", {input: "Hello, world"});
    assert.equal(bare.status, 200);
    assert.deepEqual(bare.body.data[0].embedding, one.data[0].embedding);
});

test("bad embedding requests are 400s naming the field", async () => {
    const cases = [
        [{}, "input"],
        [{input: []}, "input"],
        [{input: ""}, "input"],
        [{input: ["ok", ""]}, "input[1]"],
        [{input: [[1, 2], []]}, "input[1]"],
        [{input: [[1, 99999]]}, "input[0][1]"],
        [{input: [1, -1]}, "input[1]"],
        [{input: [["a"]]}, "input[0][0]"],
        [{input: 5}, "input"],
        [{input: [{}]}, "input[0]"],
        [{input: Array(1025).fill(72)}, "input"],
        [{input: "hi", encoding_format: "int8"}, "encoding_format"],
        [{input: "hi", dimensions: 0}, "dimensions"],
        [{input: "hi", dimensions: 65}, "dimensions"],
    ];
    for (const [body, param] of cases) {
        const r = await post(embedServer, "/v1/embeddings", body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.error.param, param, JSON.stringify(body) + " " + r.body.error.message);
        assert.equal(r.body.error.type, "invalid_request_error");
    }
    const long = await post(embedServer, "/v1/embeddings", {input: [Array(1025).fill(72)]});
    assert.equal(long.body.error.code, "context_length_exceeded");
    const notJson = await fetch(`${embedServer.url}/v1/embeddings`, {method: "POST", headers: {"Content-Type": "application/json"}, body: "{"});
    assert.equal(notJson.status, 400);
});

test("ollama client: embed gives the same normalised vectors; truncate", async () => {
    const ollama = new Ollama({host: embedServer.url});
    const r = await ollama.embed({model: "emb", input: ["Hello, world", "another text"]});
    assert.equal(r.model, "emb");
    assert.equal(r.embeddings.length, 2);
    const openai = await client.embeddings.create({model: "emb", input: ["Hello, world", "another text"], encoding_format: "float"});
    r.embeddings.forEach((v, i) => assert.deepEqual(v, openai.data[i].embedding));
    assert.ok(r.prompt_eval_count > 0 && r.total_duration > 0 && "load_duration" in r);
    const long = "word ".repeat(2000);
    const cut = await post(embedServer, "/api/embed", {model: "emb", input: long});
    assert.equal(cut.status, 200);
    assert.equal(cut.body.prompt_eval_count, 1024);
    const refused = await post(embedServer, "/api/embed", {model: "emb", input: long, truncate: false});
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /input has \d+ tokens, more than this model's context of 1024/);
    await assert.rejects(ollama.embed({model: "emb", input: []}), /empty array/);
});

test("rerank: results sorted by score, top_n, return_documents, every route name", async () => {
    const documents = ["a cat sat on the mat", "stock prices rose", "cats are small felines", "rain"];
    const r = await post(rerankServer, "/v1/rerank", {model: "rr", query: "what is a cat?", documents});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.results.length, 4);
    assert.deepEqual([...r.body.results.map((x) => x.index)].sort(), [0, 1, 2, 3]);
    for (let i = 1; i < 4; i++) assert.ok(r.body.results[i - 1].relevance_score >= r.body.results[i].relevance_score);
    for (const x of r.body.results) assert.ok(x.relevance_score > 0 && x.relevance_score < 1 && !("document" in x));
    assert.ok(r.body.usage.prompt_tokens > 0);
    const top = await post(rerankServer, "/rerank", {query: "what is a cat?", documents, top_n: 2, return_documents: true});
    assert.deepEqual(top.body.results.map((x) => x.index), r.body.results.slice(0, 2).map((x) => x.index));
    for (const x of top.body.results) assert.equal(x.document.text, documents[x.index]);
    for (const route of ["/v1/reranking", "/reranking"]) {
        const again = await post(rerankServer, route, {query: "what is a cat?", documents: documents.map((text) => ({text}))});
        assert.deepEqual(again.body.results, r.body.results);
    }
});

test("bad rerank requests, and each model on the other's route, are 400s naming the field", async () => {
    const cases = [
        [{documents: ["a"]}, "query"],
        [{query: "", documents: ["a"]}, "query"],
        [{query: "q"}, "documents"],
        [{query: "q", documents: []}, "documents"],
        [{query: "q", documents: ["a", 3]}, "documents[1]"],
        [{query: "q", documents: ["a"], top_n: 0}, "top_n"],
        [{query: "q", documents: ["a"], return_documents: "yes"}, "return_documents"],
        [{query: "q", documents: ["word ".repeat(400)]}, "documents[0]"],
    ];
    for (const [body, param] of cases) {
        const r = await post(rerankServer, "/v1/rerank", body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.error.param, param, JSON.stringify(body) + " " + r.body.error.message);
    }
    const onEmbedder = await post(embedServer, "/v1/rerank", {query: "q", documents: ["a"]});
    assert.equal(onEmbedder.status, 400);
    assert.match(onEmbedder.body.error.message, /not a reranker/);
    const onReranker = await post(rerankServer, "/v1/embeddings", {input: "a"});
    assert.equal(onReranker.status, 400);
    assert.match(onReranker.body.error.message, /reranker/);
});
