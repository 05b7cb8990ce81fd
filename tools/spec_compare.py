#!/usr/bin/python3
"""Speculative decoding side by side: forge against node-llama-cpp (llama.cpp's prebuilt CPU
binary, tools/spec_node_llama_cpp.mjs) on the same model pair and the same prompt text, greedy,
--gen tokens, in paired rounds (each round runs every mode on forge, then on node, so both see
the same machine state). Each engine runs as its users run it: `forge chat --raw` and
node-llama-cpp's LlamaCompletion; both report the decode rate only (model loading and the
prompt's evaluation are not counted). With --chat the prompt text is a user message, put in the
target's chat template by each engine (`forge chat` without --raw; node-llama-cpp's
JinjaTemplateChatWrapper over the GGUF's tokenizer.chat_template): the way to measure a chat
model, whose answers end at its end-of-turn token.

Modes:
  off          plain greedy decoding
  lookup       forge --spec lookup (the prompt and the generated text) against
               InputLookupTokenPredictor (the prompt: LlamaCompletion hands it nothing else)
  lookup-file  forge --lookup-file F against InputLookupTokenPredictor searching the prompt and
               F; F is --lookup-file, or else forge's own plain continuation of the prompt
               (written once before the rounds: guesses that are all right)
  draft        forge --spec draft --model-draft D against DraftSequenceTokenPredictor over D
               (--node-min-tokens, --node-min-confidence: its minTokens and minConfidence)

It prints each run, then per mode both engines' median tokens/s, acceptance (accepted / drafted),
forge's tokens per pass, each engine's gain over its own plain decoding (medians), forge over
node (the median of the rounds' ratios) and whether each engine's text equals its plain text.

  /usr/bin/python3 tools/spec_compare.py --forge build/app/forge --target T-f16.gguf \\
      --draft T-q8_0.gguf --prompt-text "The history of ..." [--kit /tmp/llm-oracles] \\
      [--gen 128] [--threads 2] [--rounds 3] [--modes off,lookup,lookup-file,draft] [--chat]
"""
import argparse
import json
import pathlib
import re
import statistics
import subprocess
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
# forge chat's speed line on stderr, e.g. "generation: 128 tokens, 5.8 tok/s; draft acceptance
# 72.3% (73/101), 2.33 tokens per pass".
SPEED_LINE = re.compile(r"generation: (\d+) tokens, ([\d.]+) tok/s"
                        r"(?:; draft acceptance [\d.]+% \((\d+)/(\d+)\), ([\d.]+) tokens per pass)?")


def forge_command(a, mode):
    cmd = [a.forge, "chat", a.target, *([] if a.chat else ["--raw"]), "-p", a.prompt_text, "--temp", "0", "-n", str(a.gen),
           "--threads", str(a.threads), "--draft-max", str(a.draft_max)]
    extra = {"off": ["--spec", "off"], "lookup": ["--spec", "lookup"], "lookup-file": ["--lookup-file", a.lookup_file],
             "draft": ["--spec", "draft", "--model-draft", a.draft or ""]}
    return cmd + extra[mode]


def forge_run(a, mode):
    done = subprocess.run(forge_command(a, mode), check=True, capture_output=True, text=True)
    match = SPEED_LINE.search(done.stderr)
    if not match:
        raise RuntimeError(f"no speed line in forge's output: {done.stderr[-500:]}")
    accepted, drafted = int(match[3] or 0), int(match[4] or 0)
    return {"tok_s": float(match[2]), "generated": int(match[1]), "accepted": accepted, "drafted": drafted,
            "tokens_per_pass": float(match[5] or 1), "text": done.stdout}


def node_command(a, mode):
    cmd = ["node", str(HERE / "spec_node_llama_cpp.mjs"), "--kit", a.kit, "--model", a.target, "--prompt-text",
           a.prompt_text, "--gen", str(a.gen), "--threads", str(a.threads), "--draft-max", str(a.draft_max)]
    cmd += ["--chat"] if a.chat else []
    extra = {"off": [], "lookup": ["--lookup"], "lookup-file": ["--lookup", "--lookup-file", a.lookup_file],
             "draft": ["--draft", a.draft or "", "--min-tokens", str(a.node_min_tokens)]
             + (["--min-confidence", str(a.node_min_confidence)] if a.node_min_confidence is not None else [])}
    return cmd + extra[mode]


def node_run(a, mode):
    done = subprocess.run(node_command(a, mode), check=True, capture_output=True, text=True)
    r = json.loads(done.stdout.strip().splitlines()[-1])
    return {"tok_s": r["decode_tok_s"], "generated": r["generated"], "accepted": r["validated"],
            "drafted": r["validated"] + r["refuted"], "text": r["text"]}


def acceptance(runs):
    accepted, drafted = sum(r["accepted"] for r in runs), sum(r["drafted"] for r in runs)
    return f"{100 * accepted / drafted:.1f}% ({accepted}/{drafted})" if drafted else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--forge", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--draft", help="the draft model (mode draft)")
    ap.add_argument("--prompt-text", required=True)
    ap.add_argument("--chat", action="store_true",
                    help="the prompt text is a user message, put in the target's chat template by both engines")
    ap.add_argument("--lookup-file", help="the reference for mode lookup-file (default: forge's plain continuation)")
    ap.add_argument("--kit", default="/tmp/llm-oracles")
    ap.add_argument("--gen", type=int, default=128)
    ap.add_argument("--draft-max", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--modes", default="off,lookup,lookup-file,draft")
    ap.add_argument("--node-min-tokens", type=int, default=1,
                    help="DraftSequenceTokenPredictor minTokens (default 1; its own default 0 never waits for the "
                         "draft, which on a CPU shares the cores and never gets ahead: nothing is predicted)")
    ap.add_argument("--node-min-confidence", type=float,
                    help="DraftSequenceTokenPredictor minConfidence (default: the library's, 0.6)")
    a = ap.parse_args()
    modes = a.modes.split(",")
    if "draft" in modes and not a.draft:
        ap.error("mode draft needs --draft")
    if "lookup-file" in modes and not a.lookup_file:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(forge_run(a, "off")["text"])
            a.lookup_file = f.name
        print(f"lookup file: forge's plain continuation, {a.lookup_file}")
    rounds = {m: [] for m in modes}
    for r in range(a.rounds):
        for m in modes:
            rounds[m].append((forge_run(a, m), node_run(a, m)))
            f, n = rounds[m][-1]
            print(f"round {r + 1} {m:11}: forge {f['tok_s']:7.2f} tok/s ({f['accepted']}/{f['drafted']}), "
                  f"node-llama-cpp {n['tok_s']:7.2f} tok/s ({n['accepted']}/{n['drafted']})", flush=True)
    med = statistics.median
    if "off" in rounds:
        forge_text, node_text = rounds["off"][0][0]["text"], rounds["off"][0][1]["text"]
        same = forge_text.rstrip("\n") == node_text.rstrip("\n")
        print(f"plain text: forge {len(forge_text)} chars, node-llama-cpp {len(node_text)}: "
              f"{'the same' if same else 'DIFFERENT'}")
    plain = [med(pair[i]["tok_s"] for pair in rounds["off"]) for i in (0, 1)] if "off" in rounds else None
    plain_text = [rounds["off"][0][i]["text"] for i in (0, 1)] if "off" in rounds else None
    print(f"\n| mode | forge tok/s | forge acceptance | forge tokens/pass | node tok/s | node acceptance "
          f"| forge gain | node gain | forge/node | same text as plain (forge, node) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for m in modes:
        forge_runs, node_runs = [f for f, _ in rounds[m]], [n for _, n in rounds[m]]
        f_tok, n_tok = med(r["tok_s"] for r in forge_runs), med(r["tok_s"] for r in node_runs)
        ratio = med(f["tok_s"] / n["tok_s"] for f, n in rounds[m])
        gains = f"{f_tok / plain[0]:.2f}x | {n_tok / plain[1]:.2f}x" if plain else "- | -"
        same = (f"{all(r['text'] == plain_text[0] for r in forge_runs)}, "
                f"{all(r['text'] == plain_text[1] for r in node_runs)}") if plain_text else "-"
        print(f"| {m} | {f_tok:.2f} | {acceptance(forge_runs)} | {med(r['tokens_per_pass'] for r in forge_runs):.2f} "
              f"| {n_tok:.2f} | {acceptance(node_runs)} | {gains} | {ratio:.2f}x | {same} |")


if __name__ == "__main__":
    main()
