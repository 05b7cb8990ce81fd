"""Sentences for speech synthesis, from the prose corpus of tools/get_corpus.sh.

A sentence is kept when a text-to-speech voice will say exactly the words of its transcript:
4 to 24 words, only ASCII letters, spaces and plain punctuation (no digits, which a voice
reads as number words; no abbreviations with a period such as "Mr.", which it expands; no
all-capital words of 2+ letters, which it may spell out). The transcript is the text after the
word error rate's normalisation (models/asr/wer.h: lower case, punctuation and hyphens split
words, apostrophes kept inside words only), words joined by single spaces, so every character
is in the bundled model's vocabulary (a-z, ', space).

Sentences from Jane Austen's *Sense and Sensibility*, the source of the real test clips in
Debian pocketsphinx-testdata, are kept out: any corpus file whose name mentions Austen or the
novel is skipped, and any sentence sharing a 4-word sequence with a clip's reference
transcript is dropped. (The corpus of get_corpus.sh holds no Austen today; the filter makes
that a property of this script rather than an accident of the corpus.)
"""
import os
import re

POCKETSPHINX_REFERENCES = "/usr/share/pocketsphinx/test/data/librivox/transcription"
HELD_OUT_NGRAM = 4
ABBREVIATIONS = re.compile(r"\b(?:mr|mrs|ms|dr|st|jr|sr|co|vs|etc|gen|gov|hon|rev|no|vol|ch|esq|capt|col|lt|sgt|messrs)\.",
                           re.IGNORECASE)
ALLOWED = re.compile(r"^[A-Za-z ,.;:!?'\"()-]+$")
SPLIT = re.compile(r"(?<=[.!?])[\"')]?\s+(?=[\"'(]?[A-Z])")
SKIPPED_FORTUNES = {"ascii-art.txt", "translate-me.txt"}


def normalize_words(text):
    """models/asr/wer.cpp's normalize_words for ASCII text."""
    words = []
    for raw in re.split(r"[^A-Za-z0-9'\x80-\U0010ffff]+", text):
        word = raw.strip("'").lower()
        if word:
            words.append(word)
    return words


def corpus_files(corpus):
    """(path, source label) of every document used, in a fixed order."""
    files = []
    for root, _, names in os.walk(corpus):
        if "/." in root or root.endswith("/.npm"):
            continue
        for name in sorted(names):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, corpus)
            if not name.endswith(".txt") or rel.startswith(".") or rel == "jargon.txt":
                continue
            if rel.startswith("fortunes/") and name in SKIPPED_FORTUNES:
                continue
            files.append((path, rel))
    return sorted(files, key=lambda f: f[1])


def is_austen(rel):
    low = rel.lower()
    return "austen" in low or "sense_and_sensibility" in low or "sense-and-sensibility" in low


def held_out_ngrams(references_path):
    """Every 4-word sequence of the test clips' references (the <s> </s> (id) markup removed)."""
    grams = set()
    with open(references_path, encoding="utf-8") as f:
        for line in f:
            text = re.sub(r"\([^)]*\)\s*$", "", line).replace("<s>", " ").replace("</s>", " ")
            words = normalize_words(text)
            grams.update(tuple(words[i:i + HELD_OUT_NGRAM]) for i in range(len(words) - HELD_OUT_NGRAM + 1))
    return grams


def paragraphs(text):
    """Runs of non-empty lines joined by spaces (fortune files separate cookies with '%')."""
    block = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line == "%":
            if block:
                yield " ".join(block)
            block = []
        else:
            block.append(line)
    if block:
        yield " ".join(block)


def speakable(sentence):
    if not ALLOWED.match(sentence) or ABBREVIATIONS.search(sentence):
        return False
    if any(len(w) >= 2 and w.isupper() for w in re.findall(r"[A-Za-z]+", sentence)):
        return False
    return 4 <= len(normalize_words(sentence)) <= 24


def collect(corpus):
    """(sentences, stats): sentences as dicts {text, transcript, source}, deduplicated by transcript."""
    held_out = held_out_ngrams(POCKETSPHINX_REFERENCES)
    stats = {"files": 0, "austen_files_skipped": 0, "candidates": 0, "kept": 0, "held_out_overlap_dropped": 0}
    seen = set()
    out = []
    for path, rel in corpus_files(corpus):
        if is_austen(rel):
            stats["austen_files_skipped"] += 1
            continue
        stats["files"] += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for paragraph in paragraphs(text):
            for sentence in SPLIT.split(paragraph):
                sentence = sentence.strip()
                stats["candidates"] += 1
                if not speakable(sentence):
                    continue
                words = normalize_words(sentence)
                if any(tuple(words[i:i + HELD_OUT_NGRAM]) in held_out for i in range(len(words) - HELD_OUT_NGRAM + 1)):
                    stats["held_out_overlap_dropped"] += 1
                    continue
                transcript = " ".join(words)
                if transcript in seen:
                    continue
                seen.add(transcript)
                out.append({"text": sentence, "transcript": transcript, "source": rel})
    stats["kept"] = len(out)
    return out, stats
