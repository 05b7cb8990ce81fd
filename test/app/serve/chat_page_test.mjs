// The chat page at GET / in headless Chromium (Debian's chromium, driven by playwright-core):
// it loads with nothing from another origin, streams an answer, renders markdown, stops a
// running answer (whose slot the server then frees) and starts a new chat.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, rmSync, writeFileSync} from "node:fs";
import os from "node:os";
import path from "node:path";
import {chromium} from "playwright-core";
import {startServer, metric, eventually} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const original = path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf");

// The test model was made for 4096 positions, and forge caps a slot at the trained length: at
// thousands of tokens a second an answer would end within a second, sometimes before the test
// presses Stop. A copy whose qwen3.context_length (a u32 after its key and type) says 65536
// lets an answer run for many seconds.
function longContextCopy(file) {
    const bytes = readFileSync(file);
    const key = Buffer.from("qwen3.context_length");
    const at = bytes.indexOf(key) + key.length;
    assert.ok(at > key.length, "no qwen3.context_length in the test model");
    assert.equal(bytes.readUInt32LE(at), 4, "qwen3.context_length is not a u32");
    bytes.writeUInt32LE(65536, at + 4);
    const copy = path.join(os.tmpdir(), `forge-chat-page-${process.pid}.gguf`);
    writeFileSync(copy, bytes);
    return copy;
}
const model = longContextCopy(original);

let server, browser, page;
const foreign = [];
before(async () => {
    // -n 64000: answers run long enough to be stopped (the test model writes thousands of tokens a second).
    server = await startServer(forge, model, ["--parallel", "1", "--ctx-size", "65536", "-n", "64000", "--metrics", "--threads", "2"]);
    browser = await chromium.launch({executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"]});
    page = await browser.newPage();
    page.on("request", (r) => { if (!r.url().startsWith(server.url)) foreign.push(r.url()); });
    // The tiny test model ends its answers within a few tokens; for an answer long enough to
    // stop, the test adds a logit_bias against its special tokens (ids 500 and up, EOS 508
    // among them) to what the page sends.
    const nVocab = (await (await fetch(`${server.url}/v1/models`)).json()).data[0].meta.n_vocab;
    await page.route("**/v1/chat/completions", async (route) => {
        const body = JSON.parse(route.request().postData());
        body.logit_bias = Object.fromEntries(Array.from({length: nVocab - 500}, (_, i) => [500 + i, -100]));
        await route.continue({postData: JSON.stringify(body)});
    });
    await page.goto(server.url + "/");
});
after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(model, {force: true});
});

test("the page is self-contained and names the model", async () => {
    assert.equal(await page.title(), "forge chat");
    await page.waitForFunction(() => document.getElementById("model").textContent.endsWith(".gguf"));
    assert.deepEqual(foreign, []);
});

test("markdown: code blocks, inline code, bold, lists; HTML is escaped", async () => {
    const html = await page.evaluate(() => markdown("# T\n**b** and `x<y`\n- one\n- two\n```js\nif (a < b) {}\n```\n<script>"));
    assert.match(html, /<h3>T<\/h3>/);
    assert.match(html, /<strong>b<\/strong> and <code>x&lt;y<\/code>/);
    assert.match(html, /<ul><li>one<\/li><li>two<\/li><\/ul>/);
    assert.match(html, /<pre><code>if \(a &lt; b\) \{\}<\/code><\/pre>/);
    assert.match(html, /&lt;script&gt;/);
});

test("type a message, see the answer stream, press stop; the slot is freed; new chat clears", async () => {
    await page.fill("#system", "You are terse.");
    await page.fill("#temperature", "0");
    await page.fill("#input", "Tell me a long story.");
    await page.click("#send");
    await page.waitForFunction(() => document.querySelector(".msg.user")?.textContent === "Tell me a long story.");
    // Streaming: text appears while the answer is still running (Stop is enabled).
    await page.waitForFunction(() => document.querySelector(".msg.assistant")?.textContent.length > 20 &&
        !document.getElementById("stop").disabled, null, {timeout: 60000});
    assert.equal(await metric(server.url, "forge_slots_busy"), 1);
    await page.click("#stop");
    await page.waitForFunction(() => document.getElementById("status").textContent === "stopped");
    assert.equal(await page.isDisabled("#stop"), true);
    assert.ok(await eventually(async () => (await metric(server.url, "forge_slots_busy")) === 0, 10000));
    await page.click("#new-chat");
    assert.equal(await page.locator(".msg").count(), 0);
});
