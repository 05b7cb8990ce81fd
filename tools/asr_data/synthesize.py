#!/usr/bin/python3
"""Synthesise labelled speech for training forge's bundled ASR model (run by
tools/make_asr_data.sh, which documents the options; docs/ASR_TRAINING.md the data).

Every utterance: one corpus sentence (tools/asr_data/sentences.py), one voice (Debian
espeak-ng with a language and a voice variant, or a Debian flite voice), a random speaking
rate and pitch, then sox: 16 kHz mono 16-bit, and for training utterances a random chain of
speed change, band limiting, reverb and added noise. The evaluation split is spoken by a
voice no training utterance uses, on sentences no training utterance uses, without
augmentation. Writes OUT/wav/{train,eval}/*.wav, OUT/{train,eval}.jsonl (one object per
line: audio (relative to OUT), text (the transcript), duration (s), voice, and the rate,
pitch and augmentation used) and OUT/PROVENANCE.md.
"""
import argparse
import concurrent.futures
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sentences  # noqa: E402

ESPEAK_LANGUAGES = ["en-us", "en-gb", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan", "en-gb-x-gbcwmd", "en-029"]
ESPEAK_VARIANTS = ["m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5", "klatt", "klatt2",
                   "klatt3"]
FLITE_TRAIN_VOICES = ["kal16", "awb", "rms"]
HELD_OUT_VOICE = "flite:slt"  # the evaluation voice: no training utterance uses it
NOISES = ["whitenoise", "pinknoise", "brownnoise"]
SAMPLE_RATE = 16000


def training_voice(rng):
    # About one utterance in four from flite: its three voices sound unlike espeak's formants.
    if rng.random() < 0.25:
        return "flite:" + rng.choice(FLITE_TRAIN_VOICES)
    return f"espeak:{rng.choice(ESPEAK_LANGUAGES)}+{rng.choice(ESPEAK_VARIANTS)}"


def synthesis_command(voice, text, rate, pitch, out):
    """The TTS command writing `out`. rate: a speed factor around 1; pitch: 0..1."""
    engine, name = voice.split(":", 1)
    if engine == "espeak":
        words_per_minute = round(170 * rate)
        return ["espeak-ng", "-v", name, "-s", str(words_per_minute), "-p", str(round(20 + 60 * pitch)), "-w", out,
                text]
    return ["flite", "-voice", name, "--setf", f"duration_stretch={1 / rate:.3f}", "--setf",
            f"int_f0_target_mean={round(90 + 110 * pitch)}", "-t", text, "-o", out]


def augmentation(rng):
    """A sox effects chain and a description of it; each part is present with its own chance."""
    effects, parts = [], []
    if rng.random() < 0.5:
        factor = round(rng.uniform(0.88, 1.12), 3)
        effects += ["speed", str(factor)]
        parts.append(f"speed {factor}")
    if rng.random() < 0.3:
        low, high = rng.choice([(300, 3400), (200, 4000), (100, 6000)])
        effects += ["sinc", f"{low}-{high}"]
        parts.append(f"band {low}-{high} Hz")
    if rng.random() < 0.4:
        reverberance, room = rng.randint(15, 70), rng.randint(30, 100)
        effects += ["reverb", str(reverberance), "50", str(room), "channels", "1"]
        parts.append(f"reverb {reverberance}% room {room}%")
    noise = None
    if rng.random() < 0.6:
        noise = (rng.choice(NOISES), round(10 ** rng.uniform(-2.7, -1.2), 4))  # amplitude 0.002..0.063
        parts.append(f"{noise[0]} {noise[1]}")
    return effects, noise, ", ".join(parts) or "none"


def run(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def duration_of(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def make_utterance(job):
    """Synthesise, convert, augment; returns the manifest entry."""
    out = os.path.join(job["root"], job["audio"])
    with tempfile.TemporaryDirectory(prefix="asrdata") as tmp:
        raw, clean = os.path.join(tmp, "raw.wav"), os.path.join(tmp, "clean.wav")
        run(synthesis_command(job["voice"], job["text"], job["rate"], job["pitch"], raw))
        run(["sox", raw, "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", clean] + job["effects"] + ["gain", "-n", "-3"])
        if job["noise"] is None:
            os.replace(clean, out)
        else:
            kind, amplitude = job["noise"]
            noise = os.path.join(tmp, "noise.wav")
            run(["sox", "-n", "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", noise, "synth", f"{duration_of(clean):.4f}",
                 kind, "vol", str(amplitude)])
            run(["sox", "-m", clean, noise, out, "gain", "-n", "-3"])
    return {"audio": job["audio"], "text": job["transcript"], "duration": round(duration_of(out), 4),
            "voice": job["voice"], "rate": job["rate"], "pitch": job["pitch"], "augment": job["augment"],
            "source": job["source"]}


def plan(chosen, split, rng, root, augment):
    jobs = []
    for i, s in enumerate(chosen):
        voice = HELD_OUT_VOICE if split == "eval" else training_voice(rng)
        effects, noise, description = augmentation(rng) if augment else ([], None, "none")
        jobs.append({"root": root, "audio": f"wav/{split}/{i:06d}.wav", "text": s["text"],
                     "transcript": s["transcript"], "source": s["source"], "voice": voice,
                     "rate": round(rng.uniform(0.8, 1.2), 3), "pitch": round(rng.uniform(0.1, 0.9), 3),
                     "effects": effects, "noise": noise, "augment": description})
    return jobs


def progress(done, total, started, audio_seconds):
    elapsed = time.time() - started
    eta = elapsed / done * (total - done) if done else 0.0
    line = f"{done}/{total} utterances, {audio_seconds / 3600:.2f} h audio, {done / max(elapsed, 1e-9):.1f}/s, ETA {eta:.0f} s"
    if sys.stderr.isatty():
        print("\r" + line, end="", file=sys.stderr, flush=True)
    elif done == total or done % 200 == 0:
        print(line, file=sys.stderr, flush=True)


def synthesize(jobs, workers, manifest_path):
    entries = [None] * len(jobs)
    started, audio = time.time(), 0.0
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = {pool.submit(make_utterance, job): i for i, job in enumerate(jobs)}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            entries[futures[future]] = future.result()
            audio += entries[futures[future]]["duration"]
            progress(done, len(jobs), started, audio)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    with open(manifest_path + ".tmp", "w", encoding="utf-8") as f:
        for e in entries:
            f.write(json.dumps(e) + "\n")
    os.replace(manifest_path + ".tmp", manifest_path)
    return audio


def package_version(name):
    result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True)
    return result.stdout.strip() or "not installed"


def write_provenance(args, stats, counts, audio, cpu_seconds, wall_seconds, selection_cpu):
    packages = ["espeak-ng", "espeak-ng-data", "flite", "sox", "libsox-fmt-all", "pocketsphinx-testdata"]
    lines = [
        f"# Synthetic speech provenance (tools/make_asr_data.sh, {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())})",
        "",
        f"Command: `{' '.join(sys.argv)}`",
        "",
        "| package | version |",
        "| --- | --- |",
    ] + [f"| {p} | {package_version(p)} |" for p in packages] + [
        "",
        f"Texts: {args.corpus} (its PROVENANCE.md lists the sources), seed {args.seed}.",
        f"Corpus files read {stats['files']}, Austen files skipped {stats['austen_files_skipped']}, "
        f"sentence candidates {stats['candidates']}, speakable and distinct {stats['kept']}, dropped for sharing a "
        f"{sentences.HELD_OUT_NGRAM}-word sequence with the pocketsphinx-testdata references "
        f"{stats['held_out_overlap_dropped']}.",
        "",
        f"Train: {counts['train']} utterances, {audio['train'] / 3600:.3f} h, voices: espeak-ng "
        f"{len(ESPEAK_LANGUAGES)} languages x {len(ESPEAK_VARIANTS)} variants, flite {', '.join(FLITE_TRAIN_VOICES)}; "
        "augmented (speed, band limiting, reverb, noise).",
        f"Eval: {counts['eval']} utterances, {audio['eval'] / 3600:.3f} h, voice {HELD_OUT_VOICE} (held out), "
        "sentences disjoint from train, no augmentation.",
        "",
        f"Cost: synthesis {cpu_seconds:.1f} CPU s (user + system of every TTS and sox process), "
        f"{wall_seconds:.1f} s wall with {args.jobs} jobs: {(audio['train'] + audio['eval']) / 3600 / (cpu_seconds / 60):.3f} "
        f"h of audio per CPU minute; choosing the sentences, once: {selection_cpu:.1f} CPU s.",
    ]
    with open(os.path.join(args.out, "PROVENANCE.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[-1:]), file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--train", type=int, default=2000, help="training utterances")
    parser.add_argument("--eval", type=int, default=200, help="held-out-voice evaluation utterances")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    pool, stats = sentences.collect(args.corpus)
    selection_cpu = time.process_time()  # choosing sentences: a fixed cost, not per utterance
    if len(pool) < args.train + args.eval:
        sys.exit(f"make_asr_data: {args.corpus} gives {len(pool)} usable sentences, fewer than {args.train + args.eval}")
    rng = random.Random(args.seed)
    rng.shuffle(pool)
    splits = {"eval": pool[: args.eval], "train": pool[args.eval: args.eval + args.train]}

    started, audio = time.time(), {}
    for split in ("eval", "train"):
        os.makedirs(os.path.join(args.out, "wav", split), exist_ok=True)
        jobs = plan(splits[split], split, rng, args.out, augment=(split == "train"))
        print(f"make_asr_data: {split}: {len(jobs)} utterances", file=sys.stderr)
        audio[split] = synthesize(jobs, args.jobs, os.path.join(args.out, f"{split}.jsonl"))
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    write_provenance(args, stats, {k: len(v) for k, v in splits.items()}, audio, children.ru_utime + children.ru_stime,
                     time.time() - started, selection_cpu)


if __name__ == "__main__":
    main()
