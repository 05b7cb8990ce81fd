// Start and stop `forge serve` for the tests, and read raw Server-Sent Events.
//
// startServer(forge, model, args) spawns the binary on a free port (--port 0; model null: none
// given, the bundled one), waits for the
// log line that names the port and for GET /health to say ok, and returns {url, port, proc,
// log(), stop(signal)}. Every server is killed when the test process exits.
import {spawn} from "node:child_process";
import assert from "node:assert/strict";
import {readFileSync, writeFileSync, mkdtempSync} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const running = new Set();
process.on("exit", () => { for (const p of running) p.kill("SIGKILL"); });

export async function startServer(forge, model, args = []) {
    const proc = spawn(forge, ["serve", ...(model === null ? [] : [model]), "--port", "0", ...args], {stdio: ["ignore", "ignore", "pipe"]});
    running.add(proc);
    let log = "";
    const exited = new Promise((resolve) => proc.on("exit", (code, signal) => { running.delete(proc); resolve({code, signal}); }));
    const port = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`forge serve did not listen within 60 s:\n${log}`)), 60000);
        proc.stderr.on("data", (data) => {
            log += data.toString();
            const m = log.match(/listening on http:\/\/[^:]+:(\d+)/);
            if (m) { clearTimeout(timer); resolve(Number(m[1])); }
        });
        proc.on("exit", (code) => { clearTimeout(timer); reject(new Error(`forge serve exited with ${code}:\n${log}`)); });
    });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
        const r = await fetch(`${url}/health`).catch(() => null);
        if (r && r.status === 200) break;
        if (i > 600) throw new Error(`/health never became ok:\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
    }
    return {
        url, port, proc, exited,
        log: () => log,
        async stop(signal = "SIGTERM") {
            proc.kill(signal);
            return exited;
        },
    };
}

// POST `body` as JSON and return {status, headers, events: [parsed data or "[DONE]"], raw}.
export async function postStream(url, body, headers = {}) {
    const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json", ...headers}, body: JSON.stringify(body)});
    const raw = await r.text();
    const events = [];
    for (const block of raw.split("\n\n")) {
        if (!block.startsWith("data: ")) continue;
        const data = block.slice(6);
        events.push(data === "[DONE]" ? data : JSON.parse(data));
    }
    return {status: r.status, headers: r.headers, events, raw};
}

// A raw HTTP request on a socket we control (slow readers, disconnects, broken bodies).
export function rawRequest(port, text) {
    const socket = net.connect(port, "127.0.0.1");
    socket.write(text);
    return socket;
}

export function httpPost(path, body, extra = "") {
    return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
}

// A number from the Prometheus text of /metrics.
export async function metric(url, name) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const m = text.match(new RegExp(`^${name} (\\S+)$`, "m"));
    return m ? Number(m[1]) : NaN;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Poll `predicate` until it holds or `ms` pass.
export async function eventually(predicate, ms = 10000) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
        if (await predicate()) return true;
        await sleep(50);
    }
    return false;
}

// POST `body` and read a stream of named Server-Sent Events ("event: NAME\ndata: JSON", as the
// Responses and Anthropic APIs send them): {status, headers, events: [{event, data}], raw}.
export async function postNamedEvents(url, body, headers = {}) {
    const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json", ...headers}, body: JSON.stringify(body)});
    const raw = await r.text();
    return {status: r.status, headers: r.headers, events: parseNamedEvents(raw), raw};
}

export function parseNamedEvents(raw) {
    const events = [];
    for (const block of raw.split("\n\n")) {
        const name = block.match(/^event: (.*)$/m);
        const data = block.match(/^data: (.*)$/m);
        if (name && data) events.push({event: name[1], data: JSON.parse(data[1])});
    }
    return events;
}

// SIGTERM `server` while a long stream of `path` runs: the events it sent, and its exit code.
export async function streamCutByShutdown(server, path, body) {
    const r = await fetch(`${server.url}${path}`, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let raw = decoder.decode((await reader.read()).value);  // the stream is running
    const exit = server.stop("SIGTERM");
    for (let part; !(part = await reader.read()).done;) raw += decoder.decode(part.value);
    return {events: parseNamedEvents(raw), raw, code: (await exit).code};
}

// A copy of the GGUF `model` with `template` as its chat template, written over the original's
// bytes (padded with a Jinja comment to the same length) so that the rest of the file stays
// as it is. Returns the copy's path.
export function withChatTemplate(model, template) {
    const bytes = readFileSync(model);
    const key = Buffer.from("tokenizer.chat_template");
    const at = bytes.indexOf(key) + key.length;  // then u32 type 8 (string), u64 length, the text
    assert.equal(bytes.readUInt32LE(at), 8);
    const length = Number(bytes.readBigUInt64LE(at + 4));
    template += "{#" + "-".repeat(length - Buffer.byteLength(template) - 4) + "#}";
    assert.equal(Buffer.byteLength(template), length);
    Buffer.from(template).copy(bytes, at + 12);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "forge-template-")), path.basename(model));
    writeFileSync(file, bytes);
    return file;
}
