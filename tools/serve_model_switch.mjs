#!/usr/bin/env node
// Model switch time of `forge serve --models-dir`: the time of a one-token chat request to a
// model not yet loaded (loaded on first use, the other unloaded under --models-max 1) against
// the same request once it is loaded. Medians of --reps rounds, each: A cold, A warm, B cold,
// B warm.
//
//   node tools/serve_model_switch.mjs --forge build/app/forge --dir DIR --a A --b B [--reps 5] [--threads 2]
// (A and B are model ids in DIR: file stems.)
import {startServer} from "../test/app/serve/harness.mjs";

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, v, i, all) => (i % 2 ? pairs : [...pairs, [all[i].replace(/^--/, ""), all[i + 1]]]), []));
const {forge, dir, a, b} = args;
const reps = Number(args.reps ?? 5), threads = args.threads ?? "2";
if (!forge || !dir || !a || !b) {
    console.error("usage: node tools/serve_model_switch.mjs --forge FORGE --dir DIR --a ID --b ID [--reps N] [--threads N]");
    process.exit(2);
}

const server = await startServer(forge, null, ["--models-dir", dir, "--models-max", "1", "--parallel", "1", "-c", "512",
                                               "--threads", threads]);
const url = server.url;

async function timed(model) {
    const start = performance.now();
    const r = await fetch(`${url}/v1/chat/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({model, messages: [{role: "user", content: "Hi"}], max_tokens: 1, temperature: 0})});
    if (r.status !== 200) throw new Error(`${model}: HTTP ${r.status} ${await r.text()}`);
    await r.json();
    return performance.now() - start;
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const t = {[`${a} cold`]: [], [`${a} warm`]: [], [`${b} cold`]: [], [`${b} warm`]: []};
for (let i = 0; i < reps; i++) {
    t[`${a} cold`].push(await timed(a));
    t[`${a} warm`].push(await timed(a));
    t[`${b} cold`].push(await timed(b));
    t[`${b} warm`].push(await timed(b));
}
await server.stop();
const out = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, {median_ms: Number(median(v).toFixed(1)), runs_ms: v.map((x) => Number(x.toFixed(1)))}]));
console.log(JSON.stringify({reps, threads: Number(threads), results: out}, null, 1));
