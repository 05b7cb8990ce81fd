#!/usr/bin/env python3
"""Write the small text that the BPE-training test trains on (test/data/llm_text/bpe_training_text.txt).

Generated, not taken from anywhere: sentences drawn with a fixed seed from a small word list
that exercises what the pre-tokenizer and the merge loop must get right: frequent words (many
merges), contractions in both cases, numbers of every length (digit grouping), punctuation
runs, runs of spaces, tabs and newlines, accented Latin, Cyrillic, CJK and emoji (multi-byte
characters and byte tokens), and the text of special tokens inside ordinary text.

  python3 tools/llm_text/make_bpe_training_text.py > test/data/llm_text/bpe_training_text.txt
"""
import random

WORDS = (
    "the of and to a in is it that was for on are with as be at by this had not but from or have "
    "an they which one you were her all she there would their we him been has when who will more "
    "no if out so said what up its about into than them can only other new some could time these "
    "two may then do first any my now such like our over man me even most made after also did many "
    "tokenizer tokenizers token tokens merge merges merging byte bytes pair pairs vocabulary "
    "training trained train model models language languages forge llama gguf"
).split()
CONTRACTIONS = ["don't", "it's", "we'll", "they're", "I'm", "you've", "she'd", "DON'T", "IT'S", "We'LL"]
FOREIGN = ["café", "naïve", "résumé", "coöperate", "Straße", "Привет", "мир", "日本語", "テキスト", "你好", "世界",
           "한국어", "γειά", "שלום", "😀", "👍🏽", "🇩🇪", "…", "€", "→"]
PUNCT = [",", ".", "!", "?", ";", ":", "...", "?!", " -", " (", ")", "\"", "'", " --", "/", " #", " $", "%"]
SPACES = [" ", " ", " ", " ", " ", "  ", "   ", "\t", "\n", "\n\n", " \n", "\r\n"]
SPECIAL_TEXT = ["<|bos|>", "<|user_start|>", "<|assistant_end|>"]


def number(rng):
    digits = rng.choice([1, 1, 2, 2, 3, 4, 5, 7])
    return str(rng.randrange(10 ** (digits - 1) if digits > 1 else 0, 10 ** digits))


def piece(rng):
    r = rng.random()
    if r < 0.70:
        word = rng.choice(WORDS)
        return word.capitalize() if rng.random() < 0.1 else word
    if r < 0.78:
        return rng.choice(CONTRACTIONS)
    if r < 0.88:
        return number(rng)
    if r < 0.995:
        return rng.choice(FOREIGN)
    return rng.choice(SPECIAL_TEXT)


def main():
    rng = random.Random(20261203)
    out = []
    for _ in range(6000):
        out.append(piece(rng))
        out.append(rng.choice(PUNCT) if rng.random() < 0.15 else "")
        out.append(rng.choice(SPACES))
    print("".join(out))


if __name__ == "__main__":
    main()
