#!/usr/bin/env python3
"""Evaluate a chat model on the held-out conversations of tools/make_chat_data.py.

    python3 tools/eval_chat.py --forge build/app/forge --model M.gguf --data chat-data [--limit 200] [--json OUT]

Measures, all on items training never saw:
  - bits per byte and loss of the assistant replies in DATA/val.jsonl (`forge train sft --eval-only`,
    on --bpb-model when --model is quantized)
  - exact-match accuracy on 2-digit addition and subtraction (DATA/eval/arithmetic.jsonl): the
    last integer of the greedy answer must equal the reference's
  - definitions (DATA/eval/definitions.jsonl) judged by word overlap: F1 of the content words
    of the greedy answer against the reference gloss (the defined word itself left out)
  - identity/facts/spelling exact match of the reference's key span, for information

Answers are greedy (`forge chat MODEL -p QUESTION --temp 0`), one process per question.
"""
import argparse
import json
import os
import re
import subprocess
import sys

STOPWORDS = set("""a an the of to in on for and or by with as at from that which who whom this these those is are was
were be been being it its into any some something someone one ones not no more most very such used use""".split())


def ask(forge, model, question, max_tokens):
    result = subprocess.run([forge, "--threads", "2", "chat", model, "-p", question, "--temp", "0", "-n",
                             str(max_tokens)], capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        sys.exit(f"eval_chat: forge chat failed on {question!r}: {result.stderr.strip()[-500:]}")
    return result.stdout.strip()


def read_jsonl(path, limit):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if limit and len(rows) > limit:  # an even spread over the file, the same every run
        rows = [rows[i * len(rows) // limit] for i in range(limit)]
    return rows


def question_answer(row):
    return row["messages"][0]["content"], row["messages"][1]["content"]


def last_integer(text):
    numbers = re.findall(r"-?\d+", text)
    return int(numbers[-1]) if numbers else None


def content_words(text, leave_out):
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS and w != leave_out}


def overlap_f1(answer, reference, word):
    a, r = content_words(answer, word), content_words(reference, word)
    common = len(a & r)
    if common == 0:
        return 0.0
    precision, recall = common / len(a), common / len(r)
    return 2 * precision * recall / (precision + recall)


def held_out_bpb(forge, model, data):
    val = os.path.join(data, "val.jsonl")
    result = subprocess.run([forge, "--threads", "2", "train", "sft", "--model", model, "--data", val,
                             "--val-data", val, "--eval-only", "--json"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"eval_chat: forge train sft --eval-only failed: {result.stderr.strip()[-500:]}")
    out = json.loads(result.stdout.strip().splitlines()[-1])
    return out["val_bpb"], out["val_loss"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forge", default="build/app/forge")
    parser.add_argument("--model", required=True)
    parser.add_argument("--bpb-model", help="the unquantized GGUF for bits per byte (default: --model; "
                        "`train sft --eval-only` reads f32/f16/bf16 weights only)")
    parser.add_argument("--data", default="chat-data")
    parser.add_argument("--limit", type=int, default=200, help="questions per kind (0: all)")
    parser.add_argument("--json", help="also write the numbers and every answer here")
    parser.add_argument("--show", type=int, default=3, help="answers to print per kind")
    args = parser.parse_args()

    report = {"model": args.model}
    report["val_bpb"], report["val_loss"] = held_out_bpb(args.forge, args.bpb_model or args.model, args.data)
    answers = []

    rows = read_jsonl(os.path.join(args.data, "eval", "arithmetic.jsonl"), args.limit)
    correct = {"+": [0, 0], "-": [0, 0]}
    for row in rows:
        q, ref = question_answer(row)
        got = ask(args.forge, args.model, q, 24)
        op = "+" if "+" in row["item"] else "-"
        ok = last_integer(got) == last_integer(ref)
        correct[op][0] += ok
        correct[op][1] += 1
        answers.append({"kind": "arithmetic", "question": q, "reference": ref, "answer": got, "correct": ok})
    report["addition_accuracy"] = correct["+"][0] / max(1, correct["+"][1])
    report["subtraction_accuracy"] = correct["-"][0] / max(1, correct["-"][1])
    report["arithmetic_accuracy"] = (correct["+"][0] + correct["-"][0]) / max(1, len(rows))
    report["arithmetic_questions"] = len(rows)

    rows = read_jsonl(os.path.join(args.data, "eval", "definitions.jsonl"), args.limit)
    scores = []
    for row in rows:
        q, ref = question_answer(row)
        word = row["item"].split("/")[0]
        got = ask(args.forge, args.model, q, 48)
        scores.append(overlap_f1(got, ref.split(":", 1)[-1], word))
        answers.append({"kind": "definitions", "question": q, "reference": ref, "answer": got, "f1": scores[-1]})
    report["definition_word_f1"] = sum(scores) / max(1, len(scores))
    report["definitions_with_overlap"] = sum(s > 0 for s in scores) / max(1, len(scores))
    report["definition_questions"] = len(rows)

    for kind in ["spelling", "facts"]:
        rows = read_jsonl(os.path.join(args.data, "eval", f"{kind}.jsonl"), min(args.limit, 50) or 50)
        hits = 0
        for row in rows:
            q, ref = question_answer(row)
            got = ask(args.forge, args.model, q, 48)
            hits += got.strip() == ref.strip()
            answers.append({"kind": kind, "question": q, "reference": ref, "answer": got})
        report[f"{kind}_exact"] = hits / max(1, len(rows))

    for kind in ["arithmetic", "definitions", "spelling", "facts"]:
        for a in [a for a in answers if a["kind"] == kind][:args.show]:
            print(f"[{kind}] {a['question']}\n    reference: {a['reference']}\n    answer:    {a['answer']}")
    print(json.dumps(report, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"report": report, "answers": answers}, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
