#!/usr/bin/env node
// A load test of `forge serve`: C concurrent streaming clients for D seconds, each sending one
// streamed chat request after another. Reports errors, time to first token (p50/p99), aggregate
// generated tokens per second (from the usage chunks), the server's RSS before and after, and
// whether every slot is free at the end (GET /metrics). With several --model, the server serves
// them all at once and client c asks for model c mod N (by file stem), so the models decode side
// by side.
//
//   node tools/serve_load.mjs --forge build/app/forge --model M.gguf [--model M2.gguf] [--parallel 4] [--clients 64]
//        [--duration 30] [--max-tokens 32] [--threads 2] [--ctx-size 1024] [--json]
//   node tools/serve_load.mjs --url http://127.0.0.1:8080 --pid PID ...   (a server already running)
//
// Exits 1 when a request failed, a slot is still busy afterwards, or the RSS grew past
// --max-rss-growth MiB (default 200).
import {spawn} from "node:child_process";
import {readFileSync} from "node:fs";
import {basename} from "node:path";
import {pathToFileURL} from "node:url";

const quantile = (xs, q) => {
    if (xs.length === 0) return NaN;
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

export function rssMiB(pid) {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
    return m ? Number(m[1]) / 1024 : NaN;
}

async function busySlots(url) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const m = text.match(/^forge_slots_busy (\S+)$/m);
    return m ? Number(m[1]) : NaN;
}

// One streamed request: {ttft_ms, tokens} or throws.
async function streamOnce(url, body) {
    const t0 = performance.now();
    const r = await fetch(`${url}/v1/chat/completions`, {method: "POST", headers: {"Content-Type": "application/json"}, body});
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${await r.text()}`);
    const decoder = new TextDecoder();
    let buffer = "", ttft = NaN, tokens = 0, done = false;
    for await (const bytes of r.body) {
        buffer += decoder.decode(bytes, {stream: true});
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
            const data = buffer.slice(6, end);
            buffer = buffer.slice(end + 2);
            if (data === "[DONE]") { done = true; continue; }
            const chunk = JSON.parse(data);
            if (chunk.error) throw new Error(chunk.error.message);
            if (chunk.usage) tokens = chunk.usage.completion_tokens;
            if (Number.isNaN(ttft) && chunk.choices[0]?.delta?.content) ttft = performance.now() - t0;
        }
    }
    if (!done) throw new Error("the stream ended without [DONE]");
    return {ttft_ms: ttft, tokens};
}

// C clients for `seconds`; each client's requests differ (its index in the prompt) so prefixes are not all cached.
export async function runLoad({url, pid, clients = 64, seconds = 30, maxTokens = 32, models = []}) {
    const rssBefore = pid ? rssMiB(pid) : NaN;
    let rssPeak = rssBefore;
    const sampler = pid ? setInterval(() => { rssPeak = Math.max(rssPeak, rssMiB(pid)); }, 200) : null;
    const ttfts = [], errors = [];
    let tokens = 0, requests = 0;
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(Array.from({length: clients}, async (_, c) => {
        for (let i = 0; performance.now() < end; i++) {
            const model = models.length ? {model: models[c % models.length]} : {};
            const body = JSON.stringify({...model, messages: [{role: "user", content: `Client ${c}, request ${i}: tell me about the sea.`}],
                max_tokens: maxTokens, temperature: 0.8, seed: c * 1000 + i, stream: true, stream_options: {include_usage: true}});
            try {
                const r = await streamOnce(url, body);
                if (!Number.isNaN(r.ttft_ms)) ttfts.push(r.ttft_ms);
                tokens += r.tokens;
                requests++;
            } catch (e) {
                errors.push(String(e.message ?? e));
            }
        }
    }));
    const wall = (performance.now() - t0) / 1000;
    if (sampler) clearInterval(sampler);
    const rssAfter = pid ? rssMiB(pid) : NaN;
    return {clients, seconds: wall, requests, errors: errors.length, first_errors: errors.slice(0, 3), tokens,
        tok_s: tokens / wall, ttft_p50_ms: quantile(ttfts, 0.5), ttft_p99_ms: quantile(ttfts, 0.99),
        busy_slots_after: await busySlots(url), rss_before_mib: rssBefore, rss_peak_mib: rssPeak, rss_after_mib: rssAfter};
}

export async function startForge({forge, model, parallel, threads, ctxSize, queue}) {
    const models = [model].flat();
    const proc = spawn(forge, ["serve", models[0], ...models.slice(1).flatMap((m) => ["-m", m]), "--port", "0", "--parallel", String(parallel), "--threads", String(threads),
        "--ctx-size", String(ctxSize), "--queue", String(queue), "--metrics"], {stdio: ["ignore", "ignore", "pipe"]});
    let log = "";
    const port = await new Promise((resolve, reject) => {
        proc.stderr.on("data", (d) => {
            log += d;
            const m = log.match(/listening on http:\/\/[^:]+:(\d+)/);
            if (m) resolve(Number(m[1]));
        });
        proc.on("exit", (code) => reject(new Error(`forge serve exited with ${code}: ${log}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    while ((await fetch(`${url}/health`).catch(() => null))?.status !== 200) await new Promise((r) => setTimeout(r, 100));
    return {url, proc};
}

async function main() {
    const o = {forge: "", model: [], url: "", pid: 0, parallel: 4, clients: 64, duration: 30, "max-tokens": 32, threads: 2,
        "ctx-size": 1024, "max-rss-growth": 200, json: false};
    const args = process.argv.slice(2);
    for (let i = 0; i < args.length; i++) {
        const key = args[i].replace(/^--/, "");
        if (!(key in o)) { console.error(`unknown option ${args[i]}`); process.exit(2); }
        if (typeof o[key] === "boolean") o[key] = true;
        else if (Array.isArray(o[key])) o[key].push(args[++i]);
        else o[key] = typeof o[key] === "number" ? Number(args[++i]) : args[++i];
    }
    let server = null;
    if (o.model.length) {
        server = await startForge({forge: o.forge || "build/app/forge", model: o.model, parallel: o.parallel, threads: o.threads,
            ctxSize: o["ctx-size"], queue: Math.max(64, o.clients)});
        o.url = server.url;
        o.pid = server.proc.pid;
    }
    if (!o.url) { console.error("usage: serve_load.mjs (--model M.gguf [--forge F] | --url URL [--pid PID]) [options]"); process.exit(2); }
    const models = o.model.length > 1 ? o.model.map((m) => basename(m, ".gguf")) : [];
    const result = await runLoad({url: o.url, pid: o.pid, clients: o.clients, seconds: o.duration, maxTokens: o["max-tokens"], models});
    result.parallel = o.parallel;
    if (server) server.proc.kill("SIGTERM");
    if (o.json) console.log(JSON.stringify(result));
    else {
        if (models.length) console.log(`models: ${models.join(", ")} (client c asks for model c mod ${models.length})`);
        console.log(`${result.clients} clients, ${o.parallel} slots, ${result.seconds.toFixed(1)} s: ${result.requests} requests, ` +
            `${result.errors} errors; TTFT p50 ${result.ttft_p50_ms.toFixed(0)} ms, p99 ${result.ttft_p99_ms.toFixed(0)} ms; ` +
            `${result.tok_s.toFixed(1)} tok/s aggregate; busy slots after: ${result.busy_slots_after}; ` +
            `RSS ${result.rss_before_mib.toFixed(0)} -> peak ${result.rss_peak_mib.toFixed(0)} -> ${result.rss_after_mib.toFixed(0)} MiB`);
        for (const e of result.first_errors) console.log("  error: " + e);
    }
    const ok = result.errors === 0 && result.busy_slots_after === 0 && !(result.rss_peak_mib - result.rss_before_mib > o["max-rss-growth"]);
    process.exit(ok ? 0 : 1);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
