#!/usr/bin/python3
"""Random-weight .nam files of every architecture and config variant NeuralAmpModelerCore
(Core) plays, plus a short test input, for test/data/nam/core/ (see its README).

Each model is written by a builder that emits the weights tensor by tensor, in the order
Core consumes them (WaveNet: per array rechannel, per layer conv, input mixin, layer1x1,
head1x1, the eight FiLMs, then head rechannel; post-stack head; head_scale last), so the
count is right by construction and each tensor's scale follows its fan-in: outputs stay in
a musical range instead of saturating. Fixed seeds: running this again gives the same bytes.

Usage: /usr/bin/python3 tools/make_nam_core_fixtures.py OUT_DIR [CORE_RENDER]
With CORE_RENDER (Core's tools/render, built from source) it also renders every model and
slim setting to MODEL[.slimV].out.wav; test/data/nam/core/README.md has the full recipe.
"""
import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

RATE = 48000
INPUT_FRAMES = 4800  # 0.1 s: enough for every receptive field here, small enough to commit


def f32(v):
    """v rounded to float32, as the double whose shortest form is the float's: short JSON."""
    return float(repr(np.float32(v)))


class Weights:
    """The flat weight list, appended one tensor at a time from a seeded generator."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.values = []

    def uniform(self, n, scale):
        self.constant(self.rng.uniform(-scale, scale, n))

    def constant(self, values):
        self.values += [f32(v) for v in values]

    def conv(self, cin, cout, kernel=1, groups=1, bias=True, gain=1.5):
        """Core's Conv1D/Conv1x1 layout: [out][in/groups][tap], then out biases. Gain 1.5
        (about sqrt 3) keeps the variance of a signal through a conv of uniform weights."""
        fan_in = (cin // groups) * kernel
        self.uniform(cout * fan_in, gain / math.sqrt(fan_in))
        if bias:
            self.uniform(cout, 0.05)

    def film(self, condition, channels, shift, groups):
        """A FiLM's 1x1 conv (with bias): scale rows, then shift rows. Scales near 1."""
        rows = (2 if shift else 1) * channels
        fan_in = condition // groups
        self.uniform(rows * fan_in, 0.3 / math.sqrt(fan_in))
        self.constant(1.0 + self.rng.uniform(-0.2, 0.2, channels))
        if shift:
            self.uniform(channels, 0.1)


FILM_KEYS = ["conv_pre_film", "conv_post_film", "input_mixin_pre_film", "input_mixin_post_film",
             "activation_pre_film", "activation_post_film", "layer1x1_post_film", "head1x1_post_film"]


def film_config(array, key):
    spec = array.get(key)
    if spec is None or spec is False:
        return None
    if not spec.get("active", True):
        return None
    return spec.get("shift", True), spec.get("groups", 1)


def per_layer(value, n):
    return value if isinstance(value, list) else [value] * n


def array_weights(w, a):
    """One layer array's weights in Core's order (NAM/wavenet/model.cpp, set_weights_)."""
    channels = a["channels"]
    bottleneck = a.get("bottleneck", channels)
    condition = a["condition_size"]
    n = len(a["dilations"])
    kernels = a["kernel_sizes"] if "kernel_sizes" in a else [a["kernel_size"]] * n
    if "gating_mode" in a:
        gating = per_layer(a["gating_mode"], n)
    else:
        gating = ["gated" if a.get("gated", False) else "none"] * n
    layer1x1 = a.get("layer1x1", {"active": True, "groups": 1})
    head1x1 = a.get("head1x1", {"active": False, "out_channels": channels, "groups": 1})
    w.conv(a["input_size"], channels, bias=False)  # rechannel
    for i in range(n):
        z = 2 * bottleneck if gating[i] != "none" else bottleneck
        w.conv(channels, z, kernels[i], a.get("groups_input", 1))
        w.conv(condition, z, 1, a.get("groups_input_mixin", 1), bias=False)
        if layer1x1["active"]:
            w.conv(bottleneck, channels, 1, layer1x1["groups"], gain=0.5)
        if head1x1["active"]:
            w.conv(bottleneck, head1x1["out_channels"], 1, head1x1["groups"])
        film_rows = [channels, z, condition, z, z, bottleneck, channels, head1x1["out_channels"]]
        for key, rows in zip(FILM_KEYS, film_rows):
            film = film_config(a, key)
            if film:
                w.film(condition, rows, *film)
    head_in = head1x1["out_channels"] if head1x1["active"] else bottleneck
    if "head" in a and a["head"] is not None:
        h = a["head"]
        w.conv(head_in, h["out_channels"], h["kernel_size"], bias=h["bias"], gain=0.5)
    else:
        w.conv(head_in, a["head_size"], bias=a["head_bias"], gain=0.5)


def head_size(a):
    return a["head"]["out_channels"] if a.get("head") else a["head_size"]


def wavenet(config, seed, head_scale=0.5, condition_dsp=None):
    """A WaveNet document; condition_dsp is a nested .nam document or None."""
    w = Weights(seed)
    for a in config["layers"]:
        array_weights(w, a)
    post = config.get("head")
    if post:
        cin = head_size(config["layers"][-1])
        for i, k in enumerate(post["kernel_sizes"]):
            cout = post["out_channels"] if i + 1 == len(post["kernel_sizes"]) else post["channels"]
            w.conv(cin, cout, k)
            cin = cout
    w.constant([head_scale])
    config = dict(config, head_scale=head_scale)
    if condition_dsp is not None:
        config["condition_dsp"] = condition_dsp
    return document("WaveNet", config, w.values)


def document(architecture, config, weights):
    return {"version": "0.7.0",
            "metadata": {"name": "forge random-weight fixture", "modeled_by": "tools/make_nam_core_fixtures.py"},
            "architecture": architecture, "config": config, "weights": weights, "sample_rate": RATE}


def layer(input_size, channels, dilations, activation="Tanh", condition=1, **extra):
    a = {"input_size": input_size, "condition_size": condition, "channels": channels, "dilations": dilations,
         "activation": activation}
    a.update(extra)
    if "head" not in a and "head_size" not in a:
        a.update(head_size=1, head_bias=True)
    if "kernel_size" not in a and "kernel_sizes" not in a:
        a["kernel_size"] = 3
    return a


def lstm(hidden, layers, seed):
    w = Weights(seed)
    for l in range(layers):
        cin = 1 if l == 0 else hidden
        w.uniform(4 * hidden * (cin + hidden), 1.5)  # W over [x, h], gates i, f, g, o
        w.uniform(4 * hidden, 0.3)                   # bias
        w.uniform(hidden, 0.2)                                             # initial h
        w.uniform(hidden, 0.2)                                             # initial c
    w.uniform(hidden, 1.0)                       # head weight
    w.uniform(1, 0.05)                           # head bias
    return document("LSTM", {"input_size": 1, "hidden_size": hidden, "num_layers": layers}, w.values)


def convnet(channels, dilations, batchnorm, activation, seed):
    """Core's ConvNet: kernel-2 dilated convs (bias unless batch-normed), batch norm
    (running mean, running var, weight, bias, eps), activation; a 1x1 head with bias."""
    w = Weights(seed)
    for i, _ in enumerate(dilations):
        w.conv(1 if i == 0 else channels, channels, 2, bias=not batchnorm)
        if batchnorm:
            w.uniform(channels, 0.1)                                            # running mean
            w.constant(w.rng.uniform(0.5, 1.5, channels))                       # running var
            w.constant(w.rng.uniform(0.8, 1.2, channels))                       # weight
            w.uniform(channels, 0.1)                                            # bias
            w.constant([1e-5])                                                  # eps
    w.conv(channels, 1)
    config = {"channels": channels, "dilations": dilations, "batchnorm": batchnorm, "activation": activation}
    return document("ConvNet", config, w.values)


def linear(receptive_field, bias, seed, implementation=None):
    w = Weights(seed)
    decay = np.exp(-np.arange(receptive_field) / (receptive_field / 4))
    w.constant(w.rng.uniform(-1, 1, receptive_field) * decay / math.sqrt(receptive_field / 4))
    if bias:
        w.uniform(1, 0.05)
    config = {"receptive_field": receptive_field, "bias": bias}
    if implementation:
        config["implementation"] = implementation
    return document("Linear", config, w.values)


def models():
    """name -> document. Each WaveNet exercises a different part of Core's config parser."""
    m = {}
    # The classic trainer export: legacy keys, two arrays, head bias on the last.
    m["wavenet_classic"] = wavenet({"layers": [
        layer(1, 4, [1, 2, 4], gated=False, head_size=2, head_bias=False),
        layer(4, 2, [8, 1], gated=False)], "head": None}, seed=1)
    # Legacy "gated": true (Tanh × Sigmoid).
    m["wavenet_gated"] = wavenet({"layers": [
        layer(1, 3, [1, 2, 4, 8], gated=True)]}, seed=2)
    # "gating_mode": "blended" with a non-default secondary activation.
    m["wavenet_blended"] = wavenet({"layers": [
        layer(1, 3, [1, 3, 9], activation="Softsign", gating_mode="blended", secondary_activation="Hardtanh")]},
        seed=3)
    # Per-layer kernel sizes, activations (with parameters) and gating modes.
    m["wavenet_per_layer"] = wavenet({"layers": [layer(
        1, 4, [1, 2, 5, 3], kernel_sizes=[2, 3, 4, 1],
        activation=["Tanh", {"type": "LeakyReLU", "negative_slope": 0.05},
                    {"type": "PReLU", "negative_slopes": [0.1, 0.2, 0.05, 0.3]}, "Hardswish"],
        gating_mode=["none", "gated", "blended", "gated"],
        secondary_activation=["Sigmoid", "Sigmoid", "SiLU",
                              {"type": "LeakyHardtanh", "min_val": -0.5, "max_val": 0.8, "min_slope": 0.02,
                               "max_slope": 0.05}])]}, seed=4)
    # Bottleneck narrower than the channels, head1x1, grouped conv / layer1x1 / head1x1. (Core
    # wants each array's channels to equal the previous array's head_size.) A single-slope PReLU
    # only where ungated: in a gated or blended layer Core's Release build reads slopes past the
    # end of its one-entry list (ActivationPReLU::apply(MatrixXf&) skips its check under NDEBUG).
    m["wavenet_bottleneck_groups"] = wavenet({"layers": [
        layer(1, 4, [1, 2, 4], activation={"type": "PReLU", "negative_slope": 0.2}, bottleneck=2, groups_input=2,
              layer1x1={"active": True, "groups": 2}, head1x1={"active": True, "out_channels": 4, "groups": 2},
              head_size=3, head_bias=False),
        layer(4, 3, [1, 3], activation={"type": "PReLU", "negative_slopes": [0.2, 0.1, 0.3]}, bottleneck=3,
              groups_input=3, head1x1={"active": True, "out_channels": 3, "groups": 3},
              layer1x1={"active": True, "groups": 3}, gating_mode="gated", secondary_activation="Sigmoid")],
        "head": None}, seed=5)
    # layer1x1 off (bottleneck = channels) and the nested head with K=3, dilation 2.
    m["wavenet_nested_head"] = wavenet({"layers": [
        layer(1, 3, [1, 2, 4], activation="ReLU", layer1x1={"active": False, "groups": 1},
              head={"out_channels": 1, "kernel_size": 3, "bias": True, "head_dilation": 2})]}, seed=6)
    # The post-stack head: activation, then convs of kernel 3 and 2.
    m["wavenet_post_head"] = wavenet({"layers": [
        layer(1, 3, [1, 2], head_size=3, head_bias=True)],
        "head": {"channels": 4, "out_channels": 1, "kernel_sizes": [3, 2], "activation": "Tanh"}}, seed=7)
    # FiLM at all eight positions, with and without shift (condition = the input).
    films = {k: {"active": True, "shift": i % 2 == 0, "groups": 1} for i, k in enumerate(FILM_KEYS)}
    m["wavenet_film"] = wavenet({"layers": [
        layer(1, 3, [1, 2], activation="Tanh", bottleneck=2, gating_mode="blended", secondary_activation="Sigmoid",
              head1x1={"active": True, "out_channels": 2, "groups": 1}, **films)]}, seed=8)
    # A condition DSP giving 2 channels: grouped input mixin and grouped FiLMs.
    condition = wavenet({"layers": [layer(1, 2, [1, 2], activation="Tanh", head_size=2, head_bias=True)]},
                        seed=9, head_scale=1.0)
    grouped_films = {"conv_post_film": {"active": True, "shift": True, "groups": 2},
                     "activation_post_film": {"active": True, "shift": False, "groups": 2},
                     "input_mixin_pre_film": {"active": True, "shift": True, "groups": 1}}
    m["wavenet_condition_dsp"] = wavenet({"layers": [
        layer(1, 4, [1, 2, 4], activation="Softsign", condition=2, groups_input_mixin=2, **grouped_films)]},
        seed=10, condition_dsp=condition)
    # Activations not used above, one per layer.
    m["wavenet_activations"] = wavenet({"layers": [layer(
        1, 2, [1, 1, 1, 1, 1], kernel_size=2,
        activation=["Sigmoid", "Hardtanh", "Fasttanh", {"type": "LeakyHardtanh"}, "ReLU"])]}, seed=11)
    # A slimmable WaveNet (slice_channels_uniform), rendered at 1.0, 0.0 and 0.5.
    m["wavenet_slimmable"] = wavenet({"layers": [
        layer(1, 4, [1, 2, 4, 8], activation="Tanh", head_size=1, head_bias=True,
              slimmable={"method": "slice_channels_uniform", "kwargs": {"allowed_channels": [2, 3, 4]}})]},
        seed=12)
    m["lstm_1x4"] = lstm(4, 1, seed=20)
    m["lstm_2x3"] = lstm(3, 2, seed=21)
    m["convnet_batchnorm"] = convnet(3, [1, 2, 4, 8], True, "Tanh", seed=30)
    m["convnet_plain"] = convnet(4, [1, 2, 4], False, "ReLU", seed=31)
    m["convnet_leaky"] = convnet(2, [1, 3], True, {"type": "LeakyReLU", "negative_slope": 0.1}, seed=32)
    m["linear_direct"] = linear(24, True, seed=40)
    m["linear_fft"] = linear(400, False, seed=41)  # over 256 taps: Core's partitioned FFT
    # A container over three architectures, picked by --slim.
    m["container"] = document("SlimmableContainer", {"submodels": [
        {"max_value": 0.3, "model": lstm(3, 1, seed=50)},
        {"max_value": 0.6, "model": convnet(3, [1, 2], False, "Tanh", seed=51)},
        {"max_value": 1.0, "model": m["wavenet_classic"]}]}, [])
    return m


# Renders: (model, --slim value or None). Output file: MODEL[.slimV].out.wav.
RENDERS = [(name, None) for name in models()] + [
    ("wavenet_slimmable", 0.0), ("wavenet_slimmable", 0.5), ("container", 0.0), ("container", 0.5)]


def write_input(path):
    """A 0.1 s float32 WAV: an exponential sine sweep 50 Hz to 10 kHz plus a little noise,
    faded in and out, peak about 0.6."""
    t = np.arange(INPUT_FRAMES) / RATE
    duration = INPUT_FRAMES / RATE
    f0, f1 = 50.0, 10000.0
    k = math.log(f1 / f0)
    sweep = np.sin(2 * math.pi * f0 * duration / k * (np.exp(t / duration * k) - 1))
    noise = np.random.default_rng(7).standard_normal(INPUT_FRAMES) * 0.05
    fade = np.minimum(1.0, np.minimum(t, duration - t) / 0.005)
    x = (0.55 * sweep + noise) * fade
    samples = x.astype("<f4").tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, 3, 1, RATE, RATE * 4, 4, 32)
    header += b"data" + struct.pack("<I", len(samples))
    path.write_bytes(header + samples)


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("test/data/nam/core")
    out.mkdir(parents=True, exist_ok=True)
    write_input(out / "input.wav")
    for name, doc in models().items():
        (out / f"{name}.nam").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    if len(sys.argv) > 2:
        for name, slim in RENDERS:
            render(sys.argv[2], out, name, slim)


def render(core_render, out, name, slim):
    """Core's render, 64-frame blocks after its prewarm, float32 output."""
    slim_args = [] if slim is None else ["--slim", str(slim)]
    wav = f"{name}.out.wav" if slim is None else f"{name}.slim{slim}.out.wav"
    subprocess.run([core_render, *slim_args, f"{name}.nam", "input.wav", wav], cwd=out, check=True)


if __name__ == "__main__":
    main()
