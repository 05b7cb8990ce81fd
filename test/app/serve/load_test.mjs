// A few seconds of tools/serve_load.mjs: 16 streaming clients on 2 slots. Every request
// succeeds, no slot stays busy, the RSS stays bounded. (The 64-client, 30-second run and its
// numbers: docs/SERVE.md.)
import {test} from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import {startForge, runLoad} from "../../../tools/serve_load.mjs";

test("16 streaming clients for 3 s on 2 slots: 0 errors, no slot leaked, RSS bounded", async () => {
    const model = path.join(process.env.FORGE_LLM_TEST_DATA, "qwen3-q8_0.gguf");
    const server = await startForge({forge: process.env.FORGE_EXE, model, parallel: 2, threads: 2, ctxSize: 512, queue: 64});
    try {
        const r = await runLoad({url: server.url, pid: server.proc.pid, clients: 16, seconds: 3, maxTokens: 16});
        assert.equal(r.errors, 0, r.first_errors.join("\n"));
        assert.ok(r.requests >= 16, `only ${r.requests} requests`);
        assert.equal(r.busy_slots_after, 0);
        // Bounded: well under what 16 unbounded buffers or leaked slots would take.
        assert.ok(r.rss_peak_mib - r.rss_before_mib < 200, JSON.stringify(r));
    } finally {
        server.proc.kill("SIGTERM");
    }
});
