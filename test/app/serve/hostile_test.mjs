// `forge serve` under many, slow and greedy clients (issue 32, section 2): each test is a probe
// that once found a way to starve or bloat the server.
//
// - the listen backlog was httplib's 5: a burst of clients overflowed it;
// - 100 connections sending a header line at a time held every HTTP thread, and /health went
//   silent;
// - 8 MiB prompts were tokenized whole before the context check: 16 at once took 2.8 GB, and
//   a burst left ~1 GB that was never returned;
// - `--api-key "$UNSET"` started a server without authentication.
//
// Loopback only, every loop bounded; the slowloris test ends within 30 s.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {spawnSync, execFileSync} from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import {startServer, eventually, sleep} from "./harness.mjs";

const forge = process.env.FORGE_EXE;
const model = path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf");

// --queue 16 with -np 2: 34 connections served at once (--threads-http's default), 16 more
// answered from the reserve; --timeout 5: a request has 5 s to arrive.
let server;
before(async () => {
    server = await startServer(forge, model, ["--parallel", "2", "--queue", "16", "--timeout", "5", "--body-budget", "16",
                                              "--metrics", "--threads", "2"]);
});
after(async () => {
    if (server.proc.exitCode === null) await server.stop();
});

const completion = (body, signal) => fetch(`${server.url}/v1/completions`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body), signal});
const small = {prompt: "Hi", max_tokens: 3, temperature: 0};

// Kilobytes from /proc/PID/status (VmRSS: now, VmHWM: the peak).
function memoryKiB(pid, field) {
    const m = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return Number(m[1]);
}

test("an empty --api-key is a usage error, not a server without a key", () => {
    const r = spawnSync(forge, ["serve", model, "--port", "0", "--api-key", ""], {encoding: "utf8", timeout: 20000});
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /--api-key.*empty/s);
});

test("the listen backlog holds a burst of connections", () => {
    // ss shows a listening socket's backlog as its Send-Q.
    const out = execFileSync("ss", ["-ltnH", `sport = :${server.port}`], {encoding: "utf8"});
    const backlog = Number(out.trim().split(/\s+/)[2]);
    assert.ok(backlog >= 128, `backlog ${backlog}:\n${out}`);
});

test("100 slowloris connections: /health answers, others get 503, then the server drops them and recovers", async () => {
    const t0 = Date.now();
    const sockets = [];
    for (let i = 0; i < 100; i++) {
        const s = net.connect(server.port, "127.0.0.1");
        s.on("error", () => {});
        s.write("POST /v1/completions HTTP/1.1\r\nHost: x\r\n");
        sockets.push(s);
    }
    const drip = setInterval(() => { for (const s of sockets) if (!s.destroyed) s.write("X-Slow: 1\r\n"); }, 1000);
    try {
        await sleep(1000);  // every connection the server serves is taken
        const health = await fetch(`${server.url}/health`, {signal: AbortSignal.timeout(10000)});
        assert.equal(health.status, 200);
        const busy = await completion(small, AbortSignal.timeout(10000));
        assert.equal(busy.status, 503);
        assert.equal(busy.headers.get("retry-after"), "1");
        assert.equal((await busy.json()).error.code, "too_many_connections");
        // The attack goes on, but each request had 5 s to arrive: the server drops them.
        assert.ok(await eventually(async () => (await completion(small, AbortSignal.timeout(5000)).catch(() => null))?.status === 200,
                                   15000), "the server did not recover while the slow clients kept dripping");
    } finally {
        clearInterval(drip);
        for (const s of sockets) s.destroy();
    }
    assert.ok(Date.now() - t0 < 30000);
});

// A socket that sent a request's headers and only part of its body: it holds its body's
// bytes in the budget until it is destroyed.
async function holdBody(bytes) {
    const s = net.connect(server.port, "127.0.0.1");
    s.on("error", () => {});
    s.write(`POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n{"prompt": "`);
    await new Promise((resolve) => s.on("connect", resolve));
    return s;
}

test("bodies in flight are bounded: one more than the budget holds gets 503 + Retry-After", async () => {
    const held = [await holdBody(8 << 20), await holdBody(8 << 20)];  // --body-budget 16
    try {
        await sleep(300);
        const r = await completion({...small, prompt: "x".repeat(1 << 20)}, AbortSignal.timeout(10000));
        assert.equal(r.status, 503);
        assert.equal(r.headers.get("retry-after"), "1");
        assert.equal((await r.json()).error.code, "body_budget_full");
    } finally {
        for (const s of held) s.destroy();
    }
    assert.ok(await eventually(async () => (await completion(small)).status === 200, 10000));
});

test("8 MiB prompts are refused by their size before tokenizing, and their memory is returned", async () => {
    const pid = server.proc.pid;
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");  // VmHWM starts again from the RSS now
    const before = memoryKiB(pid, "VmRSS");
    const huge = {prompt: "Once upon a time ".repeat(480000), max_tokens: 1};  // 7.8 MiB of text
    const t0 = Date.now();
    const answers = await Promise.all([0, 1].map(() => completion(huge)));
    for (const r of answers) {
        assert.equal(r.status, 400);
        const e = (await r.json()).error;
        assert.equal(e.code, "context_length_exceeded");
        assert.match(e.message, /bytes/);
    }
    for (let i = 0; i < 4; i++) assert.equal((await completion(huge)).status, 400);
    const seconds = (Date.now() - t0) / 1000;
    const peakMiB = (memoryKiB(pid, "VmHWM") - before) / 1024;
    // The last body is freed just after its answer is sent.
    await eventually(() => memoryKiB(pid, "VmRSS") - before < 32 * 1024, 2000);
    const afterMiB = (memoryKiB(pid, "VmRSS") - before) / 1024;
    console.log(`# six 7.8 MiB prompts: ${seconds.toFixed(2)} s, peak RSS +${peakMiB.toFixed(0)} MiB, after +${afterMiB.toFixed(0)} MiB`);
    assert.ok(peakMiB < 200, `peak RSS grew by ${peakMiB.toFixed(0)} MiB`);
    assert.ok(afterMiB < 32, `RSS stayed ${afterMiB.toFixed(0)} MiB above where it was`);
    assert.equal((await completion(small)).status, 200);
});
