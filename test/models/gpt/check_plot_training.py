#!/usr/bin/python3
"""tools/plot_training.py on a real (tiny) `forge train gpt` run and on bad logs.

  check_plot_training.py FORGE_EXE TEST_DATA_DIR PLOT_TOOL

The tiny run (depth 1, 12 steps of 4 x 32 tokens, validation every 4 steps: a few seconds) writes
log.jsonl and a checkpoint; the SVG must parse as XML, hold one point per logged step on the loss
line and one per validation on the bits-per-byte line, in the log's order (a larger value is drawn
higher), and label the tokens axis from the checkpoint's batch x seq-len (128 per step). A log line
that is not JSON, or lacks a loss, and an empty log are errors naming the file (and line).
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def plot(tool, *args):
    return subprocess.run([sys.executable, tool, *map(str, args)], capture_output=True, text=True)


def points(svg, css_class):
    line = next(e for e in svg.iter(SVG + "polyline") if e.get("class") == css_class)
    return [tuple(map(float, p.split(","))) for p in line.get("points").split()]


def check_order(values, ys, what):
    """Pixel y grows downwards: a larger value must have a smaller y."""
    for i in range(1, len(values)):
        if (values[i] - values[i - 1]) * (ys[i] - ys[i - 1]) > 0:
            sys.exit(f"FAIL: {what} point {i} is drawn on the wrong side of point {i - 1}")


def main():
    forge, data, tool = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        run = pathlib.Path(tmp) / "run"
        subprocess.run([forge, "--threads", "1", "train", "gpt", "--data", data / "gpt" / "corpus.txt",
                        "--tokenizer", data / "llm" / "qwen3-f32.gguf", "--depth", "1", "--seq-len", "32",
                        "--batch", "4", "--steps", "12", "--eval-every", "4", "--eval-tokens", "256",
                        "--out", run], check=True, capture_output=True)
        log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
        result = plot(tool, run, "--title", "tiny run")
        if result.returncode != 0:
            sys.exit(f"FAIL: plot_training exited {result.returncode}: {result.stderr}")
        svg = ET.parse(run / "training.svg").getroot()

        losses = [entry["loss"] for entry in log]
        loss_points = points(svg, "loss")
        if len(loss_points) != len(log):
            sys.exit(f"FAIL: {len(loss_points)} loss points for {len(log)} logged steps")
        check_order(losses, [y for _, y in loss_points], "loss")
        vals = [entry["val_bpb"] for entry in log if "val_bpb" in entry]
        val_points = points(svg, "val_bpb")
        if len(vals) < 3 or len(val_points) != len(vals):
            sys.exit(f"FAIL: {len(val_points)} validation points for {len(vals)} validations (want >= 3)")
        check_order(vals, [y for _, y in val_points], "val_bpb")
        tokens = [e.text for e in svg.iter(SVG + "text") if e.get("class") == "tokens"]
        if "1.28k" not in tokens:  # step 10 x 128 tokens
            sys.exit(f"FAIL: the tokens axis {tokens} lacks 1.28k (step 10 of 128 tokens)")

        bad = pathlib.Path(tmp) / "bad.jsonl"
        for content, expected in [('{"step": 1, "loss": 2.0}\nnot json\n', "bad.jsonl:2"),
                                  ('{"step": 1}\n', "bad.jsonl:1"), ("", "no logged steps")]:
            bad.write_text(content)
            result = plot(tool, bad, "--out", pathlib.Path(tmp) / "bad.svg")
            if result.returncode != 1 or expected not in result.stderr:
                sys.exit(f"FAIL: {content!r} gave exit {result.returncode}, stderr {result.stderr!r}")
        result = plot(tool, pathlib.Path(tmp) / "missing")
        if result.returncode != 1 or "missing" not in result.stderr:
            sys.exit(f"FAIL: a missing run gave exit {result.returncode}, stderr {result.stderr!r}")
    print(f"ok: {len(log)} steps, {len(vals)} validations plotted; bad logs refused")


if __name__ == "__main__":
    main()
