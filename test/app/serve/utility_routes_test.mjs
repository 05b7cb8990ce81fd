// llama-server's utility routes against llama.cpp and llama-server's shapes (its
// tools/server/README.md): /tokenize and /detokenize vs llama.cpp's tokenizer on the test models
// (test/data/llm/serve_tokenize_golden.json, made by tools/make_serve_tokenize_golden.mjs),
// /apply-template vs what a chat completion evaluates, /props and /slots field by field; each
// route finds its model by `model` (body) or ?model= (GET) with many models served.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, symlinkSync, rmSync, readFileSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {startServer, eventually} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const data = process.env.FORGE_LLM_TEST_DATA;
const golden = JSON.parse(readFileSync(path.join(data, "serve_tokenize_golden.json"), "utf8"));
const dir = mkdtempSync(path.join(os.tmpdir(), "forge-utility-"));
for (const file of Object.keys(golden)) symlinkSync(path.join(data, file), path.join(dir, file));

let server;
before(async () => {
    server = await startServer(forge, null, ["--models-dir", dir, "--parallel", "2", "--ctx-size", "16384", "--threads", "2",
                                             "--api-key", "k"]);
});
after(async () => {
    await server.stop();
    rmSync(dir, {recursive: true});
});

const auth = {"Content-Type": "application/json", Authorization: "Bearer k"};
async function post(route, body, headers = auth) {
    const r = await fetch(`${server.url}${route}`, {method: "POST", headers, body: JSON.stringify(body)});
    return {status: r.status, body: await r.json()};
}
async function get(route) {
    const r = await fetch(`${server.url}${route}`, {headers: auth});
    return {status: r.status, body: await r.json()};
}
const stem = (file) => file.replace(/\.gguf$/, "");

for (const [file, g] of Object.entries(golden)) {
    const model = stem(file);
    test(`/tokenize on ${file}: llama.cpp's tokens, special tokens parsed or not, BOS as asked`, async () => {
        for (const c of g.cases) {
            assert.deepEqual((await post("/tokenize", {model, content: c.text})).body, {tokens: c.tokens_parse_special}, c.text);
            assert.deepEqual((await post("/tokenize", {model, content: c.text, parse_special: false})).body.tokens,
                             c.tokens_no_parse_special, c.text);
            // add_special adds BOS when the file asks for it (tokenizer.ggml.add_bos_token), as llama_tokenize does.
            const withBos = g.add_bos_token ? [g.bos, ...c.tokens_parse_special] : c.tokens_parse_special;
            assert.deepEqual((await post("/tokenize", {model, content: c.text, add_special: true})).body.tokens, withBos, c.text);
        }
    });

    test(`/tokenize with_pieces on ${file}: llama.cpp's pieces; bytes where a piece is not whole UTF-8`, async () => {
        for (const c of g.cases) {
            const {tokens} = (await post("/tokenize", {model, content: c.text, with_pieces: true})).body;
            assert.deepEqual(tokens.map((t) => t.id), c.tokens_parse_special);
            const bytes = [];
            tokens.forEach((t, i) => {
                if (typeof t.piece === "string") {
                    assert.equal(t.piece, c.pieces[i], c.text);
                    bytes.push(...Buffer.from(t.piece));
                } else {
                    assert.ok(Array.isArray(t.piece) && c.pieces[i].includes("\uFFFD"), `${c.text}: piece ${i}`);
                    bytes.push(...t.piece);
                }
            });
            assert.equal(Buffer.from(bytes).toString(), c.detokenized);
        }
    });

    test(`/detokenize on ${file}: llama.cpp's text`, async () => {
        for (const c of g.cases) {
            assert.deepEqual((await post("/detokenize", {model, tokens: c.tokens_parse_special})).body, {content: c.detokenized});
        }
    });
}

test("/apply-template: the prompt a chat completion evaluates, as text", async () => {
    const messages = [{role: "system", content: "Be brief."}, {role: "user", content: "Say hello."}];
    const {status, body} = await post("/apply-template", {model: "qwen3-q8_0", messages});
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body), ["prompt"]);
    assert.match(body.prompt, /Be brief\.[\s\S]*Say hello\./);
    const tokens = (await post("/tokenize", {model: "qwen3-q8_0", content: body.prompt})).body.tokens;
    const chat = (await post("/v1/chat/completions", {model: "qwen3-q8_0", messages, max_tokens: 1})).body;
    assert.equal(chat.usage.prompt_tokens, tokens.length);
    const bad = await post("/apply-template", {model: "qwen3-q8_0", messages: [{role: "wizard", content: "x"}]});
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.param, /^messages/);
});

test("/props: llama-server's fields for the model ?model= names; POST is 501", async () => {
    const {status, body} = await get("/props?model=llama-q8_0");
    assert.equal(status, 200);
    for (const key of ["default_generation_settings", "total_slots", "model_path", "chat_template", "modalities", "build_info"]) {
        assert.ok(key in body, key);
    }
    assert.equal(body.total_slots, 2);
    assert.equal(path.basename(body.model_path), "llama-q8_0.gguf");
    assert.equal(typeof body.chat_template, "string");
    assert.match(body.build_info, /^b\S+-\S+/);
    assert.equal(body.modalities.vision, false);
    const s = body.default_generation_settings;
    assert.equal(s.n_ctx, 4096);  // -c 16384, capped at the 4096 positions the test models were trained on
    assert.equal(s.is_processing, false);
    for (const key of ["n_predict", "temperature", "top_k", "top_p", "min_p", "seed", "stop", "samplers"]) assert.ok(key in s.params, key);
    assert.equal(s.params.top_k, 40);
    assert.equal((await fetch(`${server.url}/props`, {method: "POST", headers: auth, body: "{}"})).status, 501);
    // Many models and none named: 400, as llama-server's router answers.
    assert.equal((await get("/props")).status, 400);
});

test("/slots: one entry per slot; a running request shows as processing with its tokens counted", async () => {
    const idle = (await get("/slots?model=qwen3-q8_0")).body;
    assert.deepEqual(idle.map((s) => s.id), [0, 1]);
    for (const s of idle) {
        assert.equal(s.is_processing, false);
        assert.equal(s.n_ctx, 4096);  // -c 16384, capped at the 4096 positions the test models were trained on
        assert.ok("params" in s && "next_token" in s);
    }
    const nVocab = 511;
    const logit_bias = Object.fromEntries(Array.from({length: nVocab - 500}, (_, i) => [500 + i, -100]));
    const abort = new AbortController();
    const running = fetch(`${server.url}/v1/chat/completions`, {method: "POST", headers: auth, signal: abort.signal,
        body: JSON.stringify({model: "qwen3-q8_0", messages: [{role: "user", content: "Go on."}], max_tokens: 15000, logit_bias})}).catch(() => null);
    let busy;
    assert.ok(await eventually(async () => {
        busy = (await get("/slots?model=qwen3-q8_0")).body.find((s) => s.is_processing);
        return busy && busy.next_token.n_decoded > 0;
    }));
    assert.ok(busy.next_token.n_remain > 0 && busy.next_token.n_remain <= 15000);
    assert.equal((await get("/slots?model=qwen3-q8_0&fail_on_no_slot=1")).status, 200);  // one slot of two is free
    abort.abort();
    await running;
    assert.ok(await eventually(async () => (await get("/slots?model=qwen3-q8_0")).body.every((s) => !s.is_processing)));
});

test("bad input: 400 naming the field; the key is required; unknown model 404", async () => {
    const none = await post("/tokenize", {model: "qwen3-q8_0"});
    assert.equal(none.status, 400);
    assert.equal(none.body.error.param, "content");
    const flag = await post("/tokenize", {model: "qwen3-q8_0", content: "x", with_pieces: "yes"});
    assert.equal(flag.body.error.param, "with_pieces");
    const range = await post("/detokenize", {model: "qwen3-q8_0", tokens: [1, 99999]});
    assert.equal(range.status, 400);
    assert.equal(range.body.error.param, "tokens[1]");
    assert.equal((await post("/detokenize", {model: "qwen3-q8_0", tokens: "1 2"})).body.error.param, "tokens");
    assert.equal((await post("/tokenize", {model: "qwen3-q8_0", content: "x"}, {"Content-Type": "application/json"})).status, 401);
    const unknown = await post("/tokenize", {model: "nope", content: "x"});
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "model_not_found");
});
