#!/usr/bin/python3
"""Show that `forge train lora` teaches: the bundled chat model (models/llm/bundled/forge-chat.gguf,
Q8_0, 5.3M parameters) learns a skill it lacks, reversing the digits of a four-digit number, from
conversations this script writes. The numbers are a seeded sample; a fifth of them is held out.

Held-out accuracy is exact match of the whole reply under greedy decoding, measured by the trainer
itself (log.jsonl's val_exact: a reply counts when every one of its tokens is the argmax of its
position, which is exactly when greedy decoding reproduces it). Step 0 is the base model.

    /usr/bin/python3 tools/lora_demo.py [--forge build/app/forge] [--out /tmp/lora-demo] [--steps 200]

Prints one JSON object: held-out exact match before and after, held-out loss before and after,
wall time and peak RSS of the training run (GNU time), the command.
"""
import argparse
import json
import os
import random
import re
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def conversation(n):
    digits = str(n)
    return {"messages": [{"role": "user", "content": f"Reverse the digits of {digits}."},
                         {"role": "assistant", "content": f"{digits[::-1]}"}]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--forge", default=os.path.join(ROOT, "build", "app", "forge"))
    ap.add_argument("--out", default="/tmp/lora-demo")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--examples", type=int, default=1000)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(28)
    numbers = rng.sample(range(1000, 10000), args.examples)
    held = len(numbers) // 5
    for name, part in (("train", numbers[held:]), ("val", numbers[:held])):
        with open(os.path.join(args.out, f"{name}.jsonl"), "w") as f:
            for n in part:
                f.write(json.dumps(conversation(n)) + "\n")
    run = os.path.join(args.out, "run")
    command = [args.forge, "train", "lora", "--model", os.path.join(ROOT, "models", "llm", "bundled", "forge-chat.gguf"),
               "--data", os.path.join(args.out, "train.jsonl"), "--val-data", os.path.join(args.out, "val.jsonl"),
               "--rank", "16", "--alpha", "32", "--lr", "3e-3", "--warmdown-ratio", "0", "--seq-len", "64", "--batch", "8",
               "--micro-batch", "8", "--steps", str(args.steps), "--eval-every", "50", "--out", run,
               "--force", "--json"]
    start = time.time()
    done = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True, check=True)
    wall = time.time() - start
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    with open(os.path.join(run, "log.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    before = lines[0]
    after = [line for line in lines if "val_exact" in line][-1]
    print(json.dumps({"task": "reverse the digits of a four-digit number",
                      "held_out": held, "trained_on": len(numbers) - held, "steps": args.steps,
                      "exact_before": before["val_exact"], "exact_after": after["val_exact"],
                      "val_loss_before": before["val_loss"], "val_loss_after": after["val_loss"],
                      "wall_s": round(wall, 1), "peak_rss_mb": round(rss_kb / 1024, 1),
                      "command": " ".join(command)}))


if __name__ == "__main__":
    main()
