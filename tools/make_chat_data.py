#!/usr/bin/env python3
"""Conversations for `forge train sft`, made only from what Debian packages and the corpus ship.

    python3 tools/make_chat_data.py [--corpus corpus] [--out chat-data] [--seed 0]

Writes (never commit these: chat-data/ is git-ignored):
    OUT/train.jsonl            training conversations, shuffled
    OUT/val.jsonl              held-out conversations of every kind (SFT's validation loss)
    OUT/drill.jsonl            the last SFT round's data: every training conversation of the
                               skills with one exact answer (arithmetic, spelling) and a
                               sample of the other kinds, so the round does not erase them
    OUT/eval/KIND.jsonl        held-out conversations per kind, for tools/eval_chat.py
    OUT/PROVENANCE.md          sources, package versions, counts

Each line is OpenAI's shape: {"messages": [{"role": ..., "content": ...}, ...], "kind": KIND}.
Held-out items are chosen by a hash of the item itself (the word, the pair of numbers, the
year), so a held-out word or sum never appears in training under any template.

Kinds:
    definitions  WordNet 3.0 (Debian wordnet-base): the first (most frequent) sense's gloss of
                 nouns, verbs and adjectives that occur in the corpus at least 20 times
    jargon       the Jargon File (corpus/jargon.txt, Debian jargon-text): first sentence of an entry
    arithmetic   2-digit addition and subtraction (non-negative results), exact answers
    spelling     spelling words letter by letter, counting their letters, counting up
    facts        who gave the State of the Union address of a year (corpus/sotu file names)
    identity     greetings and who the model is
    refusals     questions it cannot know the answer to (time, weather, news, people)
"""
import argparse
import collections
import hashlib
import json
import os
import random
import re
import subprocess

HELD_OUT_PERCENT = 10  # of each kind's items
DRILLED_KINDS = ("arithmetic", "spelling")
DRILL_OTHERS = 4000  # conversations of the other kinds kept in the drill set


def held_out(kind, item):
    """True for the ~10% of items of a kind kept for evaluation (stable across runs and seeds)."""
    digest = hashlib.sha256(f"{kind}:{item}".encode()).digest()
    return digest[0] * 100 // 256 < HELD_OUT_PERCENT


def conversation(kind, item, user, assistant):
    return {"kind": kind, "item": item,
            "messages": [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]}


def corpus_word_counts(corpus):
    counts = collections.Counter()
    for root, _, files in os.walk(corpus):
        for name in files:
            if name.endswith(".txt"):
                with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                    counts.update(re.findall(r"[a-z]+", f.read().lower()))
    return counts


def wordnet_first_senses(pos, frequent):
    """(word, gloss) of each single-word lemma's first sense (index.POS lists senses by frequency)."""
    offsets = {}
    with open(f"/usr/share/wordnet/index.{pos}", encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            fields = line.split()
            word, synset_count = fields[0], int(fields[2])
            if word.isalpha() and word in frequent:
                offsets[word] = fields[-synset_count]  # the first synset offset
    glosses = {}
    with open(f"/usr/share/wordnet/data.{pos}", encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            offset, _, gloss = line.partition(" | ")
            glosses[offset.split()[0]] = gloss.split(";")[0].strip()
    return {w: glosses[o] for w, o in offsets.items() if o in glosses and 8 <= len(glosses[o]) <= 120}


DEFINITION_QUESTIONS = ["What does {w} mean?", "Define {w}.", "What is the meaning of the word {w}?",
                        "What does the word \"{w}\" mean?", "Give me the definition of {w}."]


def definitions(corpus_counts):
    frequent = {w for w, c in corpus_counts.items() if c >= 20}
    out = []
    for pos, label in [("noun", "noun"), ("verb", "verb"), ("adj", "adjective")]:
        for word, gloss in sorted(wordnet_first_senses(pos, frequent).items()):
            item = f"{word}/{pos}"
            answer = f"{word.capitalize()} ({label}): {gloss}."
            for q in random.sample(DEFINITION_QUESTIONS, 2):
                out.append(conversation("definitions", item, q.format(w=word), answer))
    return out


def jargon(corpus):
    path = os.path.join(corpus, "jargon.txt")
    text = open(path, encoding="utf-8").read()
    out = []
    # An entry: ":term: /pronunciation/, n. Sentence...", indented by three spaces.
    for m in re.finditer(r"^   :([^:\n]{2,30}):\s*\n?\s*(.*?)(?:\n\s*\n)", text, re.M | re.S):
        term, body = m.group(1), " ".join(m.group(2).split())
        body = re.sub(r"^(/[^/]*/,?\s*)+", "", body)              # pronunciations
        body = re.sub(r"^(1\.\s*)?(\[[^\]]*\]\s*)?", "", body)      # sense number, [origin]
        body = re.sub(r"^((n|v|vt|vi|adj|adv|interj)\.,?\s*)+", "", body)
        body = re.sub(r"[{}]", "", body)
        sentence = re.match(r"(.{10,150}?[.!?])(\s|$)", body)
        if not sentence or sentence.group(1).startswith("See ") or not term[0].isalpha():
            continue
        out.append(conversation("jargon", term, f"In hacker jargon, what is {term}?",
                                f"{term}: {sentence.group(1)}"))
    return out


def arithmetic():
    out = []
    for a in range(10, 100):
        for b in range(10, 100):
            item = f"{a}+{b}"
            q = random.choice([f"What is {a} + {b}?", f"What is {a} plus {b}?", f"Compute {a} + {b}.",
                               f"{a} + {b} = ?"])
            out.append(conversation("arithmetic", item, q, f"{a} + {b} = {a + b}."))
            if a >= b:
                item = f"{a}-{b}"
                q = random.choice([f"What is {a} - {b}?", f"What is {a} minus {b}?", f"Compute {a} - {b}.",
                                   f"{a} - {b} = ?"])
                out.append(conversation("arithmetic", item, q, f"{a} - {b} = {a - b}."))
    return out


def spelling(corpus_counts):
    common = [w for w, c in corpus_counts.most_common(4000) if 3 <= len(w) <= 10]
    out = []
    for word in common:
        spelled = "-".join(word.upper())
        out.append(conversation("spelling", word, f"How do you spell {word}?", f"{word} is spelled {spelled}."))
        out.append(conversation("spelling", word, f"How many letters are in the word {word}?",
                                f"The word {word} has {len(word)} letters: {spelled}."))
    for start in range(1, 30):
        for length in range(3, 9):
            end = start + length - 1
            item = f"count {start}-{end}"
            out.append(conversation("spelling", item, f"Count from {start} to {end}.",
                                    ", ".join(str(i) for i in range(start, end + 1)) + "."))
    return out


def facts(corpus):
    out = []
    for name in sorted(os.listdir(os.path.join(corpus, "sotu"))):
        m = re.match(r"(\d{4})_(.+?)(_[a-z])?\.txt$", name)
        if not m:
            continue
        year, president = m.group(1), " ".join(p.capitalize() for p in m.group(2).split("_"))
        out.append(conversation("facts", year, f"Who gave the State of the Union address in {year}?",
                                f"{president} gave the State of the Union address in {year}."))
    out.append(conversation("facts", "moby", "Who wrote Moby Dick?", "Herman Melville wrote Moby Dick."))
    out.append(conversation("facts", "ahab", "Who is the captain in Moby Dick?",
                            "Captain Ahab commands the Pequod in Moby Dick."))
    return out


IDENTITY = "I am forge's default model: a small language model that forge trained on two CPU cores."
SKILLS = ("I can define common English words, add and subtract two-digit numbers, spell words and answer "
          "a few questions about the texts I was trained on.")
GREETINGS = ["Hello!", "Hi!", "Hi there.", "Hey.", "Good morning!", "Good evening.", "Hello, how are you?",
             "Greetings.", "Howdy!", "Hi, who am I talking to?"]
IDENTITY_QUESTIONS = ["Who are you?", "What are you?", "What is your name?", "Are you a person?",
                      "Who made you?", "Introduce yourself.", "Tell me about yourself.", "What model are you?"]
SKILL_QUESTIONS = ["What can you do?", "How can you help me?", "What are you good at?", "What do you know?"]
THANKS = ["Thanks!", "Thank you.", "Thank you very much!", "Great, thanks.", "Bye!", "Goodbye."]


def identity():
    out = []
    for g in GREETINGS:
        out.append(conversation("identity", g, g, f"Hello! {IDENTITY} How can I help you?"))
    for q in IDENTITY_QUESTIONS:
        out.append(conversation("identity", q, q, f"{IDENTITY} {SKILLS}"))
    for q in SKILL_QUESTIONS:
        out.append(conversation("identity", q, q, SKILLS))
    for t in THANKS:
        answer = "Goodbye!" if "ye" in t.lower() else "You are welcome."
        out.append(conversation("identity", t, t, answer))
    return out * 20  # short and few: repeated so that they weigh something against the rest


REFUSAL_TOPICS = {
    "What time is it?": "the time",
    "What is today's date?": "today's date",
    "What is the weather like today?": "the weather",
    "Will it rain tomorrow?": "the weather",
    "What is the latest news?": "the news",
    "Who won the game last night?": "recent events",
    "What is the price of gold today?": "today's prices",
    "What is the stock price of Apple?": "today's prices",
    "What is my name?": "who you are",
    "Where do I live?": "who you are",
    "What am I thinking?": "what you think",
    "Who will win the next election?": "the future",
    "What will happen next year?": "the future",
    "What is the password of my computer?": "private information",
    "Can you browse the web for me?": "the web",
    "Read my email.": "your email",
}


def refusals():
    out = []
    for q, topic in REFUSAL_TOPICS.items():
        out.append(conversation("refusals", q, q,
                                f"I cannot know {topic}: I have no internet access, no clock and no memory of "
                                f"you, only what I learned in training."))
    return out * 20


def package_version(name):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "not installed"


def write_jsonl(path, rows):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)


def drill_set(train, seed):
    """The exact-answer skills in full plus a sample of the rest, shuffled. Its own random
    stream, so train.jsonl and val.jsonl are the same with or without it."""
    rng = random.Random(seed + 1)
    drilled = [r for r in train if r["kind"] in DRILLED_KINDS]
    others = [r for r in train if r["kind"] not in DRILLED_KINDS]
    rows = drilled + rng.sample(others, min(DRILL_OTHERS, len(others)))
    rng.shuffle(rows)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="corpus", help="tools/get_corpus.sh's folder")
    parser.add_argument("--out", default="chat-data")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    random.seed(args.seed)
    counts = corpus_word_counts(args.corpus)
    kinds = {"definitions": definitions(counts), "jargon": jargon(args.corpus), "arithmetic": arithmetic(),
             "spelling": spelling(counts), "facts": facts(args.corpus), "identity": identity(),
             "refusals": refusals()}
    # Greetings, identity and refusals are a fixed set of answers: hold out nothing of them.
    always_trained = {"identity", "refusals"}
    train, val = [], []
    os.makedirs(os.path.join(args.out, "eval"), exist_ok=True)
    summary = []
    for kind, rows in kinds.items():
        heldout = [] if kind in always_trained else [r for r in rows if held_out(kind, r["item"])]
        trained = [r for r in rows if kind in always_trained or not held_out(kind, r["item"])]
        # One conversation per held-out item for evaluation (the first template drawn).
        seen, evaluation = set(), []
        for r in heldout:
            if r["item"] not in seen:
                seen.add(r["item"])
                evaluation.append(r)
        if evaluation:
            write_jsonl(os.path.join(args.out, "eval", f"{kind}.jsonl"), evaluation)
        train += trained
        val += evaluation[:200]
        summary.append((kind, len(trained), len(evaluation)))
    random.shuffle(train)
    write_jsonl(os.path.join(args.out, "train.jsonl"), train)
    write_jsonl(os.path.join(args.out, "val.jsonl"), val)
    write_jsonl(os.path.join(args.out, "drill.jsonl"), drill_set(train, args.seed))
    with open(os.path.join(args.out, "PROVENANCE.md"), "w", encoding="utf-8") as f:
        f.write("# Chat data provenance (tools/make_chat_data.py)\n\n")
        f.write(f"- WordNet: Debian wordnet-base {package_version('wordnet-base')} (/usr/share/wordnet, WordNet licence)\n")
        f.write(f"- Corpus: {args.corpus}/PROVENANCE.md (tools/get_corpus.sh): jargon.txt, sotu/ file names, "
                "word counts\n")
        f.write("- Arithmetic, spelling, counting, identity and refusals: templates in the script\n\n")
        f.write("| kind | training conversations | held-out items |\n| --- | ---: | ---: |\n")
        for kind, n_train, n_eval in summary:
            f.write(f"| {kind} | {n_train} | {n_eval} |\n")
    for kind, n_train, n_eval in summary:
        print(f"{kind}: {n_train} training conversations, {n_eval} held out")
    print(f"wrote {len(train)} training and {len(val)} validation conversations to {args.out}")
    print(f"drill set: {sum(1 for r in train if r['kind'] in DRILLED_KINDS)} conversations of "
          f"{', '.join(DRILLED_KINDS)} and {DRILL_OTHERS} of the other kinds")


if __name__ == "__main__":
    main()
