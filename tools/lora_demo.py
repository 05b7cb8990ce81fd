#!/usr/bin/python3
"""Show that `forge train lora` teaches: the bundled chat model (models/llm/bundled/forge-chat.gguf,
Q8_0, 5.3M parameters) learns the capitals of the world's countries from the data file of an npm
package, countries-list 3.4.1 (MIT), which the script fetches at run time with `npm pack` into a
cache folder and checks against the tarball's pinned sha256. The data set is never committed.

What "held out" means here: a LoRA adapter learns facts; it cannot guess the capital of a country
it never saw (the control below measures exactly that). So every country of the demonstration is
asked in five phrasings; one phrasing per country, drawn with a fixed seed, is held out, and the
other four are trained. Held-out accuracy is then: given a question worded in a way the model was
never asked about that country, does it answer with the capital it learned from the other four?
A separate control set of countries is left out of training altogether; their capitals are asked
before and after with `forge chat --temp 0` and should stay wrong.

Held-out accuracy is exact match of the whole reply under greedy decoding, measured by the trainer
itself (log.jsonl's val_exact: a reply counts when every one of its tokens is the argmax of its
position, which is exactly when greedy decoding reproduces it). Step 0 is the base model.

    /usr/bin/python3 tools/lora_demo.py [--forge build/app/forge] [--out /tmp/lora-demo] [--steps 400]

Needs npm (Debian's `npm` package) the first time, to fetch the package into --cache. Prints the
data's provenance, then one JSON object: held-out exact match and loss before and after, the
control, wall time and peak RSS of the training run (GNU time), the command.
"""
import argparse
import hashlib
import io
import json
import os
import random
import re
import subprocess
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUNDLED = os.path.join(ROOT, "models", "llm", "bundled", "forge-chat.gguf")

PACKAGE = "countries-list"
VERSION = "3.4.1"
TARBALL_SHA256 = "572934a82137ec58a84a3e32635ec589cb9788e8df408f15677c71009d2adff2"
DATA_FILE = "package/countries.min.json"

PHRASINGS = ["What is the capital of {country}?",
             "Which city is the capital of {country}?",
             "Name the capital city of {country}.",
             "Tell me the capital of {country}.",
             "In {country}, which city is the capital?"]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fetch_package(cache):
    """The pinned tarball from the npm registry (npm pack), kept in cache; its sha256 checked."""
    tarball = os.path.join(cache, f"{PACKAGE}-{VERSION}.tgz")
    if not os.path.exists(tarball):
        os.makedirs(cache, exist_ok=True)
        subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", cache, "--silent"],
                       check=True, stdout=subprocess.DEVNULL)
    with open(tarball, "rb") as f:
        packed = f.read()
    if sha256(packed) != TARBALL_SHA256:
        raise SystemExit(f"{tarball}: sha256 {sha256(packed)}, expected {TARBALL_SHA256} "
                         f"(remove it and rerun to fetch {PACKAGE}@{VERSION} again)")
    with tarfile.open(fileobj=io.BytesIO(packed)) as tar:
        data = tar.extractfile(DATA_FILE).read()
        manifest = json.loads(tar.extractfile("package/package.json").read())
    provenance = {"package": f"npm {PACKAGE}@{VERSION}", "license": manifest["license"],
                  "tarball": tarball, "tarball_sha256": TARBALL_SHA256,
                  "file": DATA_FILE, "file_sha256": sha256(data)}
    return json.loads(data), provenance


def capitals(countries):
    """(country, capital) of every entry that names a capital, in the file's order (by ISO code)."""
    return [(entry["name"], entry["capital"]) for entry in countries.values() if entry["capital"]]


def conversation(question, answer):
    return {"messages": [{"role": "user", "content": question},
                         {"role": "assistant", "content": answer}]}


def write_jsonl(path, conversations):
    with open(path, "w") as f:
        for c in conversations:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")


def split(facts, unseen, rng):
    """Train: four phrasings of each taught country. Held out: its fifth. Control: unseen countries."""
    facts = facts[:]
    rng.shuffle(facts)
    control, taught = facts[:unseen], facts[unseen:]
    train, held = [], []
    for country, capital in taught:
        left_out = rng.randrange(len(PHRASINGS))
        for i, phrasing in enumerate(PHRASINGS):
            item = conversation(phrasing.format(country=country), capital)
            (held if i == left_out else train).append(item)
    rng.shuffle(train)
    return train, held, control


def greedy_answer(forge, question, lora=None):
    command = [forge, "chat", BUNDLED, "-p", question, "--temp", "0", "-n", "16"]
    if lora:
        command += ["--lora", lora]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def chat_exact(forge, questions, lora=None):
    """How many (question, answer) pairs `forge chat --temp 0` answers exactly, asked one by one."""
    answers = [greedy_answer(forge, question, lora) for question, _ in questions]
    return sum(a == answer for a, (_, answer) in zip(answers, questions)), answers


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--forge", default=os.path.join(ROOT, "build", "app", "forge"))
    ap.add_argument("--out", default="/tmp/lora-demo")
    ap.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                                                    "forge", "lora-demo"))
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--unseen", type=int, default=20, help="countries left out of training (the control)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    countries, provenance = fetch_package(args.cache)
    print("data: " + json.dumps(provenance), flush=True)
    facts = capitals(countries)
    train, held, control = split(facts, args.unseen, random.Random(28))
    write_jsonl(os.path.join(args.out, "train.jsonl"), train)
    write_jsonl(os.path.join(args.out, "val.jsonl"), held)

    run = os.path.join(args.out, "run")
    command = [args.forge, "train", "lora", "--model", BUNDLED,
               "--data", os.path.join(args.out, "train.jsonl"), "--val-data", os.path.join(args.out, "val.jsonl"),
               "--rank", "16", "--alpha", "32", "--lr", "3e-3", "--warmdown-ratio", "0", "--seq-len", "64", "--batch", "8",
               "--micro-batch", "8", "--steps", str(args.steps), "--eval-every", "50", "--out", run,
               "--force", "--json"]
    load_before = os.getloadavg()
    start = time.time()
    done = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True, check=True)
    wall = time.time() - start
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    with open(os.path.join(run, "log.jsonl")) as f:
        evals = [line for line in map(json.loads, f) if "val_exact" in line]
    before, after = evals[0], evals[-1]

    adapter = os.path.join(run, "adapter.gguf")
    held_questions = [(c["messages"][0]["content"], c["messages"][1]["content"]) for c in held]
    control_questions = [(PHRASINGS[0].format(country=country), capital) for country, capital in control]
    chat_held_after, held_answers = chat_exact(args.forge, held_questions, adapter)
    control_before, control_answers_before = chat_exact(args.forge, control_questions)
    control_after, control_answers_after = chat_exact(args.forge, control_questions, adapter)
    print(json.dumps({"task": "the capital of a country (countries-list's countries.min.json)",
                      "countries": len(facts), "taught": len(facts) - len(control),
                      "trained_conversations": len(train), "held_out_phrasings": len(held),
                      "steps": args.steps,
                      "exact_before": before["val_exact"], "exact_after": after["val_exact"],
                      "exact_by_step": {line["step"]: f"{round(line['val_exact'] * len(held))}/{len(held)}"
                                        for line in evals},
                      "val_loss_before": before["val_loss"], "val_loss_after": after["val_loss"],
                      "held_out_exact_after_by_forge_chat": f"{chat_held_after}/{len(held)}",
                      "held_out_misses_by_forge_chat": [[question, answer, got] for (question, answer), got
                                                        in zip(held_questions, held_answers) if got != answer],
                      "control_countries": len(control),
                      "control_exact_before": control_before, "control_exact_after": control_after,
                      "control_answers": {country: [b, a] for (country, _), b, a
                                          in zip(control, control_answers_before, control_answers_after)},
                      "wall_s": round(wall, 1), "peak_rss_mb": round(rss_kb / 1024, 1),
                      "load_average_before": load_before, "load_average_after": os.getloadavg(),
                      "command": " ".join(command)}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
