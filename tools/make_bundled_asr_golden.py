#!/usr/bin/env python3
"""Transcripts of the bundled speech model by the PyTorch reference: the golden of
test/app/bundled_asr_test.cpp.

    /usr/bin/python3 tools/make_bundled_asr_golden.py [--forge build/app/forge] [--model M.gguf]
        [--manifest data/asr/eval.jsonl --limit N]

Runs tools/asr_oracle.py's equations (float64 PyTorch on the file's weights, Q8_0 dequantized)
on the five LibriVox clips of Debian pocketsphinx-testdata and keeps, for each, the greedy CTC
transcript and the smallest top-2 logit margin over its frames (how close the nearest race was:
forge computes in float32, the oracle in float64). With --forge, also runs
`forge transcribe` on the same clips and prints the two side by side (and, with --manifest, on
the first N clips of a synthetic evaluation manifest, counted only). Writes
test/data/asr/bundled_librivox_golden.json unless --model names another file than the bundled one.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLED = os.path.join(ROOT, "models", "asr", "bundled", "forge-asr.gguf")
OUT = os.path.join(ROOT, "test", "data", "asr", "bundled_librivox_golden.json")
LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"


def oracle(model, clips):
    """[(transcript, smallest margin)] for the clips, from tools/asr_oracle.py --transcribe."""
    run = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "asr_oracle.py"), "--transcribe", model, *clips],
                         check=True, capture_output=True, text=True)
    texts = run.stdout.splitlines()
    margins = [float(line.rsplit(" ", 1)[1]) for line in run.stderr.splitlines() if "smallest margin" in line]
    assert len(texts) == len(margins) == len(clips), run.stderr
    return list(zip(texts, margins))


def forge_transcripts(forge, model, clips):
    run = subprocess.run([forge, "--threads", "2", "transcribe", "--model", model, *clips],
                         check=True, capture_output=True, text=True)
    return run.stdout.splitlines()


def librivox_clips():
    """(id, path, reference) of the five clips, from the package's transcription file."""
    clips = []
    with open(os.path.join(LIBRIVOX, "transcription"), encoding="utf-8") as f:
        for line in f:
            words, clip_id = line.strip().rsplit(" (", 1)
            clip_id = clip_id.rstrip(")")
            clips.append((clip_id, os.path.join(LIBRIVOX, clip_id + ".wav"), words.removeprefix("<s> ").removesuffix(" </s>")))
    return clips


def manifest_clips(manifest, limit):
    base = os.path.dirname(os.path.abspath(manifest))
    with open(manifest, encoding="utf-8") as f:
        entries = [json.loads(line) for line in f if line.strip()][:limit]
    return [os.path.join(base, e["audio"]) for e in entries]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=BUNDLED)
    parser.add_argument("--forge")
    parser.add_argument("--manifest")
    parser.add_argument("--limit", type=int, default=100)
    args = parser.parse_args()

    clips = librivox_clips()
    reference = oracle(args.model, [path for _, path, _ in clips])
    forge = forge_transcripts(args.forge, args.model, [path for _, path, _ in clips]) if args.forge else None
    golden = []
    for i, ((clip_id, _, words), (text, margin)) in enumerate(zip(clips, reference)):
        golden.append({"clip": clip_id, "reference": words, "transcript": text, "margin": round(margin, 4)})
        same = "" if forge is None else ("  forge: same" if forge[i] == text else f"  forge: {forge[i]!r}")
        print(f"{clip_id}  margin {margin:.3g}  {text!r}{same}")

    if args.manifest and args.forge:
        paths = manifest_clips(args.manifest, args.limit)
        ours = forge_transcripts(args.forge, args.model, paths)
        theirs = oracle(args.model, paths)
        same = sum(a == b for a, (b, _) in zip(ours, theirs))
        print(f"{args.manifest}: forge and the oracle give the same transcript on {same} of {len(paths)} clips "
              f"(smallest margin of a clip: {min(m for _, m in theirs):.3g})")
        for (a, (b, m)), path in zip(zip(ours, theirs), paths):
            if a != b:
                print(f"  {os.path.basename(path)} margin {m:.3g}: forge {a!r} oracle {b!r}")

    if os.path.abspath(args.model) == BUNDLED:
        with open(OUT, "w", encoding="utf-8") as f:
            json.dump({"model": "models/asr/bundled/forge-asr.gguf",
                       "oracle": "tools/asr_oracle.py --transcribe (float64 PyTorch)", "clips": golden}, f, indent=1)
            f.write("\n")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    sys.exit(main())
