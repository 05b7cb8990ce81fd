// CORS in a real browser: a page served from a second origin (a tiny node http server on
// another port) calls forge's /v1/chat/completions from headless Chromium. It succeeds, streamed
// and not, when forge runs with --cors-origin naming that origin (or '*'), the API key still
// required; the browser blocks it without the flag and for another origin. The preflight
// itself is checked raw: answered without the key, 204 with what the page may send.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import path from "node:path";
import {chromium} from "playwright-core";
import {startServer} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const model = path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf");
const key = "sekret";

let site, origin, browser, page;
before(async () => {
    site = http.createServer((req, res) => {
        res.writeHead(200, {"Content-Type": "text/html"});
        res.end("<!doctype html><title>another origin</title>");
    });
    await new Promise((resolve) => site.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${site.address().port}`;
    browser = await chromium.launch({executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"]});
    page = await browser.newPage();
    await page.goto(origin + "/");
});
after(async () => {
    await browser?.close();
    site?.close();
});

// From the page: a chat request to `url` with the key; what the page could read, or the
// error the browser gave it.
function callFromPage(url, {stream = false, withKey = true} = {}) {
    return page.evaluate(async ({url, stream, key, withKey}) => {
        try {
            const headers = {"Content-Type": "application/json"};
            if (withKey) headers.Authorization = `Bearer ${key}`;
            const r = await fetch(`${url}/v1/chat/completions`, {method: "POST", headers,
                body: JSON.stringify({messages: [{role: "user", content: "Hi"}], max_tokens: 4, stream})});
            return {status: r.status, body: await r.text()};
        } catch (e) {
            return {blocked: String(e)};
        }
    }, {url, stream, key, withKey});
}

async function withServer(args, body) {
    const server = await startServer(forge, model, ["--api-key", key, "--threads", "1", "--parallel", "1", ...args]);
    try {
        await body(server);
    } finally {
        await server.stop();
    }
}

test("--cors-origin ORIGIN: the page's requests, streamed or not, succeed with the key", async () => {
    await withServer(["--cors-origin", "http://unrelated.example", "--cors-origin", origin], async (server) => {
        const plain = await callFromPage(server.url);
        assert.equal(plain.status, 200, JSON.stringify(plain));
        assert.equal(JSON.parse(plain.body).object, "chat.completion");
        const streamed = await callFromPage(server.url, {stream: true});
        assert.equal(streamed.status, 200, JSON.stringify(streamed));
        assert.match(streamed.body, /data: \[DONE\]/);
        // Without the key the page gets the 401 (readable: errors carry the CORS header too).
        const refused = await callFromPage(server.url, {withKey: false});
        assert.equal(refused.status, 401);
        assert.equal(JSON.parse(refused.body).error.code, "invalid_api_key");
    });
});

test("--cors-origin '*': any origin", async () => {
    await withServer(["--cors-origin", "*"], async (server) => {
        assert.equal((await callFromPage(server.url)).status, 200);
    });
});

test("no --cors-origin, or another origin: the browser blocks the page", async () => {
    await withServer([], async (server) => {
        assert.match((await callFromPage(server.url)).blocked ?? "", /Failed to fetch/);
    });
    await withServer(["--cors-origin", "http://127.0.0.1:1"], async (server) => {
        assert.match((await callFromPage(server.url)).blocked ?? "", /Failed to fetch/);
    });
});

test("the preflight raw: 204 without the key for an allowed origin, 403 for another; no headers without the flag", async () => {
    await withServer(["--cors-origin", origin], async (server) => {
        const preflight = (from) => fetch(`${server.url}/v1/chat/completions`, {method: "OPTIONS",
            headers: {Origin: from, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"}});
        const ok = await preflight(origin);
        assert.equal(ok.status, 204);
        assert.equal(ok.headers.get("access-control-allow-origin"), origin);
        assert.match(ok.headers.get("access-control-allow-methods"), /POST/);
        assert.match(ok.headers.get("access-control-allow-headers"), /Authorization/);
        assert.match(ok.headers.get("access-control-allow-headers"), /Content-Type/);
        assert.ok(Number(ok.headers.get("access-control-max-age")) > 0);
        const other = await preflight("http://evil.example");
        assert.equal(other.status, 403);
        assert.equal(other.headers.get("access-control-allow-origin"), null);
        // A same-origin request (no Origin header) gets no CORS header.
        const plain = await fetch(`${server.url}/v1/models`);
        assert.equal(plain.headers.get("access-control-allow-origin"), null);
    });
    await withServer([], async (server) => {
        const r = await fetch(`${server.url}/v1/models`, {headers: {Origin: origin}});
        assert.equal(r.status, 200);
        assert.equal(r.headers.get("access-control-allow-origin"), null);
    });
});
