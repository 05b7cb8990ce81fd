#!/usr/bin/python3
"""Plot a `forge train gpt` (or `train sft`) run: training loss and validation bits per byte against step.

Reads RUN/log.jsonl (one JSON object per logged step: `step`, `loss`, and `val_bpb` on the steps
that measured it) and writes one self-contained SVG with two panels that share the step axis:
the training loss (nats per token) and the validation bits per byte. Under the step axis a second
row of labels gives the training tokens seen, when the tokens per step are known: from
RUN/checkpoint.safetensors (its `settings` metadata: batch x seq_len) or --tokens-per-step.
No plotting library is needed: the SVG is written directly.

  /usr/bin/python3 tools/plot_training.py runs/base                       # -> runs/base/training.svg
  /usr/bin/python3 tools/plot_training.py runs/base/log.jsonl --out docs/img/run.svg --title "d4 on the corpus"

Bad input (a missing file, a line that is not JSON or lacks `step`/`loss`, no lines at all) is an
error naming the file and line, with exit status 1.
"""
import argparse
import json
import math
import pathlib
import struct
import sys
from xml.sax.saxutils import escape

WIDTH, PANEL_HEIGHT = 760, 250
LEFT, RIGHT, TOP, GAP, BOTTOM = 70, 20, 52, 60, 70
LOSS_COLOR, VAL_COLOR = "#1f6fb4", "#d1571b"


class RunError(Exception):
    pass


def read_log(path):
    """(steps, losses, [(step, val_bpb)]) from a log.jsonl; errors name PATH:LINE."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise RunError(f"{path}: cannot read ({e.strerror})")
    steps, losses, val = [], [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            step, loss = int(entry["step"]), float(entry["loss"])
        except (ValueError, KeyError, TypeError) as e:
            raise RunError(f"{path}:{number}: not a log line with a numeric step and loss ({e.__class__.__name__}: {e})")
        steps.append(step)
        losses.append(loss)
        if entry.get("val_bpb") is not None:
            val.append((step, float(entry["val_bpb"])))
    if not steps:
        raise RunError(f"{path}: no logged steps")
    return steps, losses, val


def tokens_per_step_of(run_dir):
    """batch x seq_len from the run's checkpoint metadata, or None when there is none."""
    checkpoint = run_dir / "checkpoint.safetensors"
    try:
        with checkpoint.open("rb") as f:
            header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
        settings = json.loads(header["__metadata__"]["settings"])
        return int(settings["batch"]) * int(settings["seq_len"])
    except (OSError, KeyError, ValueError, struct.error):
        return None


def nice_ticks(low, high, count=6):
    """Round tick values (1, 2 or 5 times a power of ten), the first at or below `low`, the last at
    or above `high`."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / count
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    return [round(i * step, 12) for i in range(first, last + 1)]


def smoothed(values, weight=0.9):
    """An exponential moving average, debiased at the start (as nanochat logs its loss)."""
    out, average = [], 0.0
    for i, v in enumerate(values, 1):
        average = weight * average + (1 - weight) * v
        out.append(average / (1 - weight ** i))
    return out


def format_number(value):
    if value == 0:
        return "0"
    for divisor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= divisor:
            return f"{value / divisor:.3g}{suffix}"
    return f"{value:.3g}"


class Panel:
    """One plot area: data coordinates to SVG pixels, and its axes."""

    def __init__(self, top, x_range, y_values):
        self.top, self.bottom = top, top + PANEL_HEIGHT
        self.x0, self.x1 = x_range
        lo, hi = min(y_values), max(y_values)
        pad = (hi - lo) * 0.02 or 0.5
        self.y_ticks = nice_ticks(lo - pad, hi + pad, 5)
        self.y0, self.y1 = self.y_ticks[0], self.y_ticks[-1]

    def px(self, x):
        span = (self.x1 - self.x0) or 1
        return LEFT + (x - self.x0) / span * (WIDTH - LEFT - RIGHT)

    def py(self, y):
        span = (self.y1 - self.y0) or 1
        return self.bottom - (y - self.y0) / span * PANEL_HEIGHT

    def axes(self, title, x_ticks, color):
        out = [f'<rect x="{LEFT}" y="{self.top}" width="{WIDTH - LEFT - RIGHT}" height="{PANEL_HEIGHT}" '
               'fill="none" stroke="#888"/>',
               f'<text x="{LEFT}" y="{self.top - 8}" fill="{color}" font-weight="bold">{escape(title)}</text>']
        for y in self.y_ticks:
            if self.y0 <= y <= self.y1:
                out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{self.py(y):.1f}" y2="{self.py(y):.1f}" '
                           'stroke="#eee"/>')
                out.append(f'<text x="{LEFT - 6}" y="{self.py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
        for x in x_ticks:
            out.append(f'<line x1="{self.px(x):.1f}" x2="{self.px(x):.1f}" y1="{self.top}" y2="{self.bottom}" '
                       'stroke="#eee"/>')
        return out

    def polyline(self, points, color, css_class, extra=""):
        coords = " ".join(f"{self.px(x):.1f},{self.py(y):.1f}" for x, y in points)
        return (f'<polyline class="{css_class}" points="{coords}" fill="none" stroke="{color}" stroke-width="1.5"'
                f'{extra}/>')


def render(steps, losses, val, tokens_per_step, title):
    x_range = (0 if steps[0] <= 1 else steps[0], steps[-1])
    x_ticks = [x for x in nice_ticks(*x_range, 8) if x_range[0] <= x <= x_range[1]]
    panels = [Panel(TOP, x_range, losses)]
    if val:
        panels.append(Panel(TOP + PANEL_HEIGHT + GAP, x_range, [v for _, v in val]))
    height = panels[-1].bottom + BOTTOM
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>']
    loss_panel = panels[0]
    out += loss_panel.axes("training loss (nats per token; light: every step, dark: moving average 0.9)", x_ticks,
                           LOSS_COLOR)
    out.append(loss_panel.polyline(list(zip(steps, losses)), LOSS_COLOR, "loss", ' stroke-opacity="0.35"'))
    out.append(loss_panel.polyline(list(zip(steps, smoothed(losses))), LOSS_COLOR, "loss_smoothed"))
    if val:
        val_panel = panels[1]
        out += val_panel.axes("validation bits per byte", x_ticks, VAL_COLOR)
        out.append(val_panel.polyline(val, VAL_COLOR, "val_bpb"))
        for x, y in val:
            out.append(f'<circle class="val_bpb_point" cx="{val_panel.px(x):.1f}" cy="{val_panel.py(y):.1f}" r="3" '
                       f'fill="{VAL_COLOR}"><title>step {x}: {y:.4f} bits/byte</title></circle>')
    axis = panels[-1]
    for x in x_ticks:
        out.append(f'<text x="{axis.px(x):.1f}" y="{axis.bottom + 16}" text-anchor="middle">{x:g}</text>')
        if tokens_per_step:
            out.append(f'<text class="tokens" x="{axis.px(x):.1f}" y="{axis.bottom + 32}" text-anchor="middle" '
                       f'fill="#666">{format_number(x * tokens_per_step)}</text>')
    label = "step" + (f"  (below: training tokens, {tokens_per_step} per step)" if tokens_per_step else "")
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{axis.bottom + 54}" text-anchor="middle">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run folder (with log.jsonl) or a log.jsonl file")
    parser.add_argument("--out", help="the SVG to write (default: RUN/training.svg)")
    parser.add_argument("--title", help="the plot's title (default: the run's path)")
    parser.add_argument("--tokens-per-step", type=int, help="batch x seq-len (default: from the run's checkpoint)")
    args = parser.parse_args()
    run = pathlib.Path(args.run)
    log = run / "log.jsonl" if run.is_dir() else run
    run_dir = log.parent
    try:
        steps, losses, val = read_log(log)
        tokens_per_step = args.tokens_per_step or tokens_per_step_of(run_dir)
        svg = render(steps, losses, val, tokens_per_step, args.title or str(run))
        out = pathlib.Path(args.out) if args.out else run_dir / "training.svg"
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(svg, encoding="utf-8")
        tmp.replace(out)  # atomic: a reader never sees half a plot
    except RunError as e:
        print(f"plot_training: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"plot_training: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {out}: {len(steps)} steps, {len(val)} validations"
          + (f", best {min(v for _, v in val):.4f} bits/byte" if val else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
