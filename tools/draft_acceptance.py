#!/usr/bin/python3
"""How well a draft model guesses for its target on chat: `forge chat TARGET --spec draft
--model-draft DRAFT`, greedy, on the first user message of --limit conversations spread evenly
over a JSONL file (tools/make_chat_data.py's val.jsonl: held-out questions of every kind),
summed over all of them: guesses kept / guesses made, and tokens per pass of the target.
Also checks that every answer equals the plain (--spec off) one, as lossless speculation must.

    /usr/bin/python3 tools/draft_acceptance.py --forge build/app/forge \\
        --target models/llm/bundled/forge-chat.gguf --draft D.gguf --data chat-data/val.jsonl [--limit 100]
"""
import argparse
import json
import re
import subprocess
import sys

# forge chat's speed line on stderr: "generation: 39 tokens, ...; draft acceptance 72.3% (73/101), ...".
SPEED_LINE = re.compile(r"generation: (\d+) tokens, [\d.]+ tok/s(?:; draft acceptance [\d.]+% \((\d+)/(\d+)\))?")


def answer(a, question, spec):
    cmd = [a.forge, "chat", a.target, "-p", question, "--temp", "0", "-n", str(a.gen),
           "--threads", str(a.threads), "--spec", spec] + (["--model-draft", a.draft] if spec == "draft" else [])
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    match = SPEED_LINE.search(done.stderr)
    if not match:
        sys.exit(f"no speed line in forge's output: {done.stderr[-300:]}")
    return done.stdout, int(match[1]), int(match[2] or 0), int(match[3] or 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--forge", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--draft", required=True)
    ap.add_argument("--data", required=True, help="JSONL conversations ({\"messages\": [...]} per line)")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--gen", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    with open(a.data, encoding="utf-8") as f:
        conversations = [json.loads(line)["messages"] for line in f if line.strip()]
    # Every len/limit-th conversation: the file is grouped by kind, and a draft's guesses are
    # kept far more often on some kinds (greetings, refusals) than on others (definitions).
    step = max(1, len(conversations) // a.limit)
    questions = [next(m["content"] for m in messages if m["role"] == "user")
                 for messages in conversations[::step][:a.limit]]
    generated = accepted = drafted = different = 0
    for q in questions:
        text, n, kept, guessed = answer(a, q, "draft")
        generated, accepted, drafted = generated + n, accepted + kept, drafted + guessed
        different += text != answer(a, q, "off")[0]
    passes = max(1, generated - accepted)
    print(f"draft acceptance over {len(questions)} questions: {100 * accepted / max(1, drafted):.1f}% "
          f"({accepted}/{drafted}), {generated / passes:.2f} tokens per pass ({generated} tokens in {passes} passes); "
          f"answers different from --spec off: {different}")
    if different:
        sys.exit(1)


if __name__ == "__main__":
    main()
