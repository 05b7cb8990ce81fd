#!/usr/bin/python3
"""PyTorch reference of forge's Parakeet pipeline (NeMo's equations, written out here because
NeMo cannot be installed) and the generator of the committed ASR goldens in test/data/asr/.

For each variant it writes a random-weight model in the Parakeet GGUF layout that
mudler/parakeet.cpp's converter produces (docs/conversion.md there: `parakeet.*` keys, tensors
under their NeMo state_dict names), then runs, in float64:

  audio (int16 WAV, read back as int16 / 32768)
    -> log-mel (NeMo FilterbankFeatures: pre-emphasis, centred STFT of a symmetric Hann window,
       power, the file's filterbank, log(x + 2^-24), per-feature normalisation)
    -> FastConformer encoder (dw_striding 8x subsampling, relative-position MHA, macaron FF,
       convolution module with batch norm)
    -> greedy CTC / RNN-T / TDT tokens
and stores mel, encoder output and tokens in <variant>.expected.gguf beside <variant>.gguf.

Run: /usr/bin/python3 tools/asr_oracle.py test/data/asr
     /usr/bin/python3 tools/asr_oracle.py --preset tdt_ctc-110m /tmp/tdt_ctc-110m-random.gguf   (benchmarks)
     /usr/bin/python3 tools/asr_oracle.py --bench tdt_ctc-110m SECONDS THREADS          (PyTorch's time)
     /usr/bin/python3 tools/asr_oracle.py --transcribe MODEL.gguf CLIP.wav...   (a CTC model's greedy
         transcript of 16 kHz mono 16-bit clips, a line each: the reference for a trained model,
         the bundled one included; F32, F16 and Q8_0 tensors, tools/gguf_reader.py)
"""
import math
import os
import sys
import wave

import numpy as np
import torch

import gguf_reader  # tools/gguf_reader.py
import gguf_writer  # tools/gguf_writer.py

torch.set_default_dtype(torch.float64)

# ---------------------------------------------------------------- GGUF files (tools/gguf_writer.py)
def write_gguf(path, kvs, tensors):
    """kvs: dict key -> value (gguf_writer.infer_type); tensors: dict name -> numpy array,
    written f32 with the dims reversed (ggml order)."""
    metadata = [(key, *gguf_writer.infer_type(v)) for key, v in kvs.items()]
    files = [(name, list(reversed(a.shape)), gguf_writer.GGML_F32, np.ascontiguousarray(a, dtype=np.float32).tobytes())
             for name, a in tensors.items()]
    gguf_writer.write(path, metadata, files)


def slaney_mel_filterbank(sample_rate, n_fft, n_mels):
    """librosa.filters.mel(norm='slaney', htk=False): the filterbank NeMo stores in the model."""
    def hz_to_mel(f):
        f = np.asarray(f, dtype=np.float64)
        mel = f / (200.0 / 3)
        log_region = f >= 1000.0
        return np.where(log_region, 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0), mel)

    def mel_to_hz(m):
        m = np.asarray(m, dtype=np.float64)
        f = m * (200.0 / 3)
        return np.where(m >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0)), f)

    fft_freqs = np.linspace(0, sample_rate / 2, n_fft // 2 + 1)
    mel_freqs = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(sample_rate / 2), n_mels + 2))
    fdiff = np.diff(mel_freqs)
    ramps = mel_freqs[:, None] - fft_freqs[None, :]
    weights = np.zeros((n_mels, n_fft // 2 + 1))
    for i in range(n_mels):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_freqs[2: n_mels + 2] - mel_freqs[:n_mels]))[:, None]
    return weights


def log_mel(audio, fb, n_fft=512, win_length=400, hop=160, preemph=0.97, guard=2.0 ** -24):
    """NeMo FilterbankFeatures.forward for one utterance, eval mode (no dither): [n_mels, T]."""
    x = torch.as_tensor(audio)
    x = torch.cat([x[:1], x[1:] - preemph * x[:-1]])
    window = torch.hann_window(win_length, periodic=False)
    spec = torch.stft(x, n_fft, hop_length=hop, win_length=win_length, window=window, center=True,
                      pad_mode="constant", return_complex=True)
    power = spec.real ** 2 + spec.imag ** 2
    mel = torch.log(torch.as_tensor(fb) @ power + guard)
    frames = x.numel() // hop + 1
    assert mel.shape[1] == frames
    mean = mel.mean(dim=1, keepdim=True)
    std = mel.std(dim=1, keepdim=True) + 1e-5  # unbiased, like NeMo's normalize_batch
    return (mel - mean) / std


# ---------------------------------------------------------------- the encoder
def conv_subsampling(mel, w, channels):
    """dw_striding: conv 3x3/2, ReLU, (depthwise 3x3/2, pointwise 1x1, ReLU) x 2, flatten, linear."""
    x = mel.t()[None, None]  # [1, 1, T, F]
    p = "encoder.pre_encode."
    F = torch.nn.functional
    x = F.relu(F.conv2d(x, w[p + "conv.0.weight"], w[p + "conv.0.bias"], stride=2, padding=1))
    for dw, pw in ((2, 3), (5, 6)):
        x = F.conv2d(x, w[f"{p}conv.{dw}.weight"], w[f"{p}conv.{dw}.bias"], stride=2, padding=1, groups=channels)
        x = F.relu(F.conv2d(x, w[f"{p}conv.{pw}.weight"], w[f"{p}conv.{pw}.bias"]))
    b, c, t, f = x.shape
    x = x.transpose(1, 2).reshape(t, c * f)
    return F.linear(x, w[p + "out.weight"], w[p + "out.bias"])


def relative_positions(t, d):
    """Transformer-XL sinusoids for relative positions t-1 ... -(t-1): [2t-1, d]."""
    pos = torch.arange(t - 1, -t, -1, dtype=torch.float64)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * -(math.log(10000.0) / d))
    pe = torch.zeros(2 * t - 1, d)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


def rel_shift(x):
    """NeMo's rel_shift on [H, T, 2T-1]: pad a zero column, view as [2T, T], drop a row."""
    h, t, p = x.shape
    x = torch.nn.functional.pad(x, (1, 0)).view(h, p + 1, t)
    return x[:, 1:].reshape(h, t, p)


def linear(w, name, x):
    return torch.nn.functional.linear(x, w[name + ".weight"], w.get(name + ".bias"))


def rel_attention(x, pe, w, p, heads):
    t, d = x.shape
    dk = d // heads
    q = linear(w, p + "linear_q", x).view(t, heads, dk)
    k = linear(w, p + "linear_k", x).view(t, heads, dk).transpose(0, 1)
    v = linear(w, p + "linear_v", x).view(t, heads, dk).transpose(0, 1)
    pos = linear(w, p + "linear_pos", pe).view(-1, heads, dk).transpose(0, 1)
    q_u = (q + w[p + "pos_bias_u"]).transpose(0, 1)
    q_v = (q + w[p + "pos_bias_v"]).transpose(0, 1)
    ac = q_u @ k.transpose(1, 2)
    bd = rel_shift(q_v @ pos.transpose(1, 2))[:, :, :t]
    attn = torch.softmax((ac + bd) / math.sqrt(dk), dim=-1)
    return linear(w, p + "linear_out", (attn @ v).transpose(0, 1).reshape(t, d))


def layer_norm(w, name, x):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], w[name + ".weight"], w[name + ".bias"], 1e-5)


def feed_forward(w, p, x):
    return linear(w, p + "linear2", torch.nn.functional.silu(linear(w, p + "linear1", x)))


def conv_module(w, p, x, kernel):
    F = torch.nn.functional
    y = x.t()[None]  # [1, d, T]
    y = F.glu(F.conv1d(y, w[p + "pointwise_conv1.weight"], w.get(p + "pointwise_conv1.bias")), dim=1)
    y = F.conv1d(y, w[p + "depthwise_conv.weight"], w.get(p + "depthwise_conv.bias"),
                 padding=(kernel - 1) // 2, groups=y.shape[1])
    bn = p + "batch_norm."
    y = F.batch_norm(y, w[bn + "running_mean"], w[bn + "running_var"], w[bn + "weight"], w[bn + "bias"],
                     training=False, eps=1e-5)
    y = F.conv1d(F.silu(y), w[p + "pointwise_conv2.weight"], w.get(p + "pointwise_conv2.bias"))
    return y[0].t()


def conformer_layer(w, i, x, pe, cfg):
    p = f"encoder.layers.{i}."
    x = x + 0.5 * feed_forward(w, p + "feed_forward1.", layer_norm(w, p + "norm_feed_forward1", x))
    x = x + rel_attention(layer_norm(w, p + "norm_self_att", x), pe, w, p + "self_attn.", cfg["n_heads"])
    x = x + conv_module(w, p + "conv.", layer_norm(w, p + "norm_conv", x), cfg["conv_kernel"])
    x = x + 0.5 * feed_forward(w, p + "feed_forward2.", layer_norm(w, p + "norm_feed_forward2", x))
    return layer_norm(w, p + "norm_out", x)


def encoder(w, mel, cfg):
    x = conv_subsampling(mel, w, cfg["channels"])
    if cfg["xscaling"]:
        x = x * math.sqrt(cfg["d_model"])
    pe = relative_positions(x.shape[0], cfg["d_model"])
    for i in range(cfg["n_layers"]):
        x = conformer_layer(w, i, x, pe, cfg)
    return x  # [T', d_model]


# ---------------------------------------------------------------- decoders
def ctc_greedy(w, prefix, enc, blank):
    logits = torch.nn.functional.conv1d(enc.t()[None], w[prefix + ".weight"], w[prefix + ".bias"])[0].t()
    top2 = logits.topk(2, dim=1).values
    margin = float((top2[:, 0] - top2[:, 1]).min())
    best = logits.argmax(dim=1).tolist()
    tokens, frames, previous = [], [], blank
    for t, k in enumerate(best):
        if k != blank and k != previous:
            tokens.append(k)
            frames.append(t)
        previous = k
    return tokens, frames, margin


class Prediction:
    """RNN-T prediction network: embedding (blank row unused: the start input is zeros), LSTM."""

    def __init__(self, w, layers, hidden):
        self.w, self.layers, self.hidden = w, layers, hidden

    def start(self):
        return [(torch.zeros(self.hidden), torch.zeros(self.hidden)) for _ in range(self.layers)]

    def step(self, token, state):
        p = "decoder.prediction."
        x = torch.zeros(self.hidden) if token is None else self.w[p + "embed.weight"][token]
        new_state = []
        for l, (h, c) in enumerate(state):
            z = (self.w[f"{p}dec_rnn.lstm.weight_ih_l{l}"] @ x + self.w[f"{p}dec_rnn.lstm.bias_ih_l{l}"]
                 + self.w[f"{p}dec_rnn.lstm.weight_hh_l{l}"] @ h + self.w[f"{p}dec_rnn.lstm.bias_hh_l{l}"])
            i, f, g, o = z.chunk(4)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            new_state.append((h, c))
            x = h
        return x, new_state


def transducer_greedy(w, enc, cfg, durations, max_symbols):
    """Greedy RNN-T (durations None) or TDT decoding of one utterance. At frame t the joint picks a
    token k and (TDT) a duration d; RNN-T's duration is 0 after a token and 1 after a blank.
    A token is emitted and the prediction network steps; then decoding moves on by d frames when
    d > 0, by one frame after a blank (a TDT blank of duration 0 would repeat itself) or after
    max_symbols tokens at one frame, and otherwise stays at t."""
    blank = cfg["vocab"]
    pred = Prediction(w, cfg["pred_layers"], cfg["pred_hidden"])
    f_proj = linear(w, "joint.enc", enc)
    g, g_state = pred.step(None, pred.start())
    tokens, frames, margin = [], [], math.inf
    t, emitted = 0, 0
    while t < enc.shape[0]:
        z = linear(w, "joint.joint_net.2", torch.relu(f_proj[t] + linear(w, "joint.pred", g)))
        token_logits = z[: blank + 1]
        top2 = token_logits.topk(2).values
        margin = min(margin, float(top2[0] - top2[1]))
        k = int(token_logits.argmax())
        if durations is None:
            skip = 1 if k == blank else 0
        else:
            top2 = z[blank + 1:].topk(2).values
            margin = min(margin, float(top2[0] - top2[1]))
            skip = durations[int(z[blank + 1:].argmax())]
        if k != blank:
            tokens.append(k)
            frames.append(t)
            emitted += 1
            g, g_state = pred.step(k, g_state)
        if skip == 0 and (k == blank or emitted == max_symbols):
            skip = 1
        if skip > 0:
            t += skip
            emitted = 0
    return tokens, frames, margin


# ---------------------------------------------------------------- random models
def random_weights(cfg, gen):
    """NeMo state_dict names and shapes for cfg, filled with scaled normal values."""
    d, ff, c, h = cfg["d_model"], cfg["ff_dim"], cfg["channels"], cfg["n_heads"]
    bias = cfg["use_bias"]
    shapes = {}

    def lin(name, out, inp, with_bias=True):
        shapes[name + ".weight"] = (out, inp)
        if with_bias:
            shapes[name + ".bias"] = (out,)

    p = "encoder.pre_encode."
    shapes[p + "conv.0.weight"], shapes[p + "conv.0.bias"] = (c, 1, 3, 3), (c,)
    for dw, pw in ((2, 3), (5, 6)):
        shapes[f"{p}conv.{dw}.weight"], shapes[f"{p}conv.{dw}.bias"] = (c, 1, 3, 3), (c,)
        shapes[f"{p}conv.{pw}.weight"], shapes[f"{p}conv.{pw}.bias"] = (c, c, 1, 1), (c,)
    lin(p + "out", d, c * (cfg["feat_in"] // 8))
    for i in range(cfg["n_layers"]):
        q = f"encoder.layers.{i}."
        for norm in ("norm_feed_forward1", "norm_self_att", "norm_conv", "norm_feed_forward2", "norm_out"):
            shapes[q + norm + ".weight"], shapes[q + norm + ".bias"] = (d,), (d,)
        for f in ("feed_forward1", "feed_forward2"):
            lin(q + f + ".linear1", ff, d, bias)
            lin(q + f + ".linear2", d, ff, bias)
        for proj in ("linear_q", "linear_k", "linear_v", "linear_out"):
            lin(q + "self_attn." + proj, d, d, bias)
        lin(q + "self_attn.linear_pos", d, d, False)
        shapes[q + "self_attn.pos_bias_u"] = shapes[q + "self_attn.pos_bias_v"] = (h, d // h)
        shapes[q + "conv.pointwise_conv1.weight"] = (2 * d, d, 1)
        shapes[q + "conv.depthwise_conv.weight"] = (d, 1, cfg["conv_kernel"])
        shapes[q + "conv.pointwise_conv2.weight"] = (d, d, 1)
        if bias:
            shapes[q + "conv.pointwise_conv1.bias"] = (2 * d,)
            shapes[q + "conv.depthwise_conv.bias"] = shapes[q + "conv.pointwise_conv2.bias"] = (d,)
        for bn in ("weight", "bias", "running_mean", "running_var"):
            shapes[q + "conv.batch_norm." + bn] = (d,)
    v1 = cfg["vocab"] + 1
    if cfg["ctc_prefix"]:
        shapes[cfg["ctc_prefix"] + ".weight"], shapes[cfg["ctc_prefix"] + ".bias"] = (v1, d, 1), (v1,)
    if cfg["transducer"]:
        ph, j = cfg["pred_hidden"], cfg["joint_hidden"]
        shapes["decoder.prediction.embed.weight"] = (v1, ph)
        for l in range(cfg["pred_layers"]):
            for kind in ("ih", "hh"):
                shapes[f"decoder.prediction.dec_rnn.lstm.weight_{kind}_l{l}"] = (4 * ph, ph)
                shapes[f"decoder.prediction.dec_rnn.lstm.bias_{kind}_l{l}"] = (4 * ph,)
        lin("joint.enc", j, d)
        lin("joint.pred", j, ph)
        lin("joint.joint_net.2", v1 + len(cfg["durations"] or []), j)

    w = {}
    for name, shape in shapes.items():
        if name.endswith("running_var"):
            w[name] = 0.5 + torch.rand(shape, generator=gen)
        elif name.endswith(("norm_feed_forward1.weight", "norm_self_att.weight", "norm_conv.weight",
                            "norm_feed_forward2.weight", "norm_out.weight", "batch_norm.weight")):
            w[name] = 1.0 + 0.1 * torch.randn(shape, generator=gen)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            w[name] = torch.randn(shape, generator=gen) / math.sqrt(max(fan_in, 1))
    return w


VOCAB = ["▁the", "▁a", "s", "t", "▁is", "e", "r", "▁on", "n", "▁cat", "d", "▁mat"]

BASE = dict(feat_in=16, d_model=16, n_layers=2, n_heads=2, ff_dim=32, conv_kernel=9, channels=4,
            vocab=len(VOCAB), pred_hidden=12, joint_hidden=10)

VARIANTS = {
    # pure CTC, with biases and xscaling; NeMo's EncDecCTCModelBPE puts the head under decoder.*
    "ctc": dict(BASE, arch="ctc", use_bias=True, xscaling=True, ctc_prefix="decoder.decoder_layers.0",
                transducer=False, durations=None, pred_layers=0, seed=11),
    # RNN-T without encoder biases, no xscaling, a 2-layer prediction LSTM
    "rnnt": dict(BASE, arch="rnnt", use_bias=False, xscaling=False, ctc_prefix=None, transducer=True,
                 durations=None, pred_layers=2, seed=12),
    # hybrid TDT + CTC (parakeet-tdt_ctc-110m's layout)
    "tdt_ctc": dict(BASE, arch="hybrid_tdt_ctc", use_bias=True, xscaling=False,
                    ctc_prefix="ctc_decoder.decoder_layers.0", transducer=True, durations=[0, 1, 2, 3, 4],
                    pred_layers=1, seed=13),
}


def metadata(cfg):
    kv = {"general.architecture": "parakeet", "general.name": "forge asr oracle " + cfg["arch"],
          "parakeet.arch": cfg["arch"],
          "parakeet.encoder.feat_in": cfg["feat_in"], "parakeet.encoder.d_model": cfg["d_model"],
          "parakeet.encoder.n_layers": cfg["n_layers"], "parakeet.encoder.n_heads": cfg["n_heads"],
          "parakeet.encoder.ff_dim": cfg["ff_dim"], "parakeet.encoder.conv_kernel": cfg["conv_kernel"],
          "parakeet.encoder.conv_norm_type": "batch_norm", "parakeet.encoder.subsampling_factor": 8,
          "parakeet.encoder.subsampling_conv_channels": cfg["channels"],
          "parakeet.encoder.xscaling": cfg["xscaling"], "parakeet.encoder.pos_emb_max_len": 5000,
          "parakeet.encoder.use_bias": cfg["use_bias"],
          "parakeet.preprocessor.sample_rate": 16000, "parakeet.preprocessor.n_mels": cfg["feat_in"],
          "parakeet.preprocessor.n_fft": 512, "parakeet.preprocessor.win_length": 400,
          "parakeet.preprocessor.hop_length": 160, "parakeet.preprocessor.preemph": 0.97,
          "parakeet.preprocessor.mag_power": 2.0, "parakeet.preprocessor.normalize": "per_feature",
          "parakeet.preprocessor.log_zero_guard": 2.0 ** -24,
          "parakeet.vocab_size": cfg["vocab"], "parakeet.blank_id": cfg["vocab"],
          "parakeet.tokenizer.pieces": VOCAB}
    if cfg["transducer"]:
        kv.update({"parakeet.decoder.pred_hidden": cfg["pred_hidden"],
                   "parakeet.decoder.pred_rnn_layers": cfg["pred_layers"],
                   "parakeet.joint.joint_hidden": cfg["joint_hidden"], "parakeet.joint.activation": "relu"})
    if cfg["durations"]:
        kv["parakeet.tdt.durations"] = ("i32", cfg["durations"])
    return kv


def test_audio(path, seconds=1.3, rate=16000):
    """A deterministic clip (two chirps and noise), written as 16-bit WAV; returns what a reader decodes."""
    rng = np.random.default_rng(5)
    t = np.arange(int(seconds * rate)) / rate
    x = 0.3 * np.sin(2 * np.pi * (200 * t + 900 * t * t)) + 0.2 * np.sin(2 * np.pi * 3000 * t * (1 - t / 3))
    x += 0.05 * rng.standard_normal(t.size)
    pcm = np.clip(np.round(x * 32767), -32768, 32767).astype(np.int16)
    with wave.open(path, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(pcm.tobytes())
    return pcm.astype(np.float64) / 32768.0


# The shape of NVIDIA's parakeet-tdt_ctc-110m (docs/conversion.md of mudler/parakeet.cpp), with
# random weights: for `forge bench transcribe` at a real model's size (440 MB, not committed).
PRESETS = {
    "tdt_ctc-110m": dict(feat_in=80, d_model=512, n_layers=17, n_heads=8, ff_dim=2048, conv_kernel=9, channels=256,
                         vocab=1024, pred_hidden=640, joint_hidden=640, arch="hybrid_tdt_ctc", use_bias=True,
                         xscaling=False, ctc_prefix="ctc_decoder.decoder_layers.0", transducer=True,
                         durations=[0, 1, 2, 3, 4], pred_layers=1, seed=21),
}


def write_preset(name, path):
    """A random-weight model of a real model's shape, its pieces made up."""
    cfg = dict(PRESETS[name])
    global VOCAB
    VOCAB = ["\u2581" + chr(ord("a") + i % 26) * (1 + i // 26) if i % 3 == 0 else chr(ord("a") + i % 26) * (1 + i // 26)
             for i in range(cfg["vocab"])]
    w = random_weights(cfg, torch.Generator().manual_seed(cfg["seed"]))
    tensors = {"preprocessor.featurizer.fb": slaney_mel_filterbank(16000, 512, cfg["feat_in"])[None]}
    tensors.update({k: v.numpy() for k, v in w.items()})
    write_gguf(path, metadata(cfg), tensors)
    print(f"wrote {path}: {name} shape, {sum(v.numel() for v in w.values()) / 1e6:.1f} M parameters")


def bench_preset(name, seconds, threads, reps=3):
    """PyTorch (float32, eager) on the same equations and shape: log-mel + encoder + CTC greedy, the
    side-by-side reference for `forge bench transcribe` (same seconds, same threads)."""
    import time
    torch.set_default_dtype(torch.float32)
    torch.set_num_threads(threads)
    cfg = dict(PRESETS[name])
    w = random_weights(cfg, torch.Generator().manual_seed(cfg["seed"]))
    fb = torch.as_tensor(slaney_mel_filterbank(16000, 512, cfg["feat_in"]), dtype=torch.float32)
    rng = np.random.default_rng(5)
    t = np.arange(int(seconds * 16000)) / 16000
    audio = torch.as_tensor(0.3 * np.sin(2 * np.pi * (200 * t + 90 * t * t)) + 0.05 * rng.standard_normal(t.size),
                            dtype=torch.float32)
    times = []
    with torch.no_grad():
        for _ in range(reps + 1):
            start = time.perf_counter()
            enc = encoder(w, log_mel(audio, fb), cfg)
            ctc_greedy(w, cfg["ctc_prefix"], enc, cfg["vocab"])
            times.append(time.perf_counter() - start)
    median = sorted(times[1:])[len(times[1:]) // 2]
    print(f"pytorch {torch.__version__} {name}: {seconds:.1f} s of audio, {threads} threads, median {median:.3f} s, "
          f"real-time factor {median / seconds:.4f}")


def read_wav_16k(path):
    """A 16 kHz mono 16-bit WAV as int16 / 32768 (what forge's reader decodes it to)."""
    with wave.open(path, "rb") as f:
        if (f.getframerate(), f.getnchannels(), f.getsampwidth()) != (16000, 1, 2):
            raise SystemExit(f"{path}: the oracle reads 16 kHz mono 16-bit WAV only")
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float64) / 32768.0


def config_of(meta, tensors):
    """The equations' settings from a CTC model's Parakeet GGUF metadata."""
    e = "parakeet.encoder."
    if meta["parakeet.arch"] != "ctc":
        raise SystemExit(f"--transcribe reads CTC models; this one is {meta['parakeet.arch']}")
    return dict(d_model=meta[e + "d_model"], n_layers=meta[e + "n_layers"], n_heads=meta[e + "n_heads"],
                conv_kernel=meta[e + "conv_kernel"], channels=meta[e + "subsampling_conv_channels"],
                xscaling=bool(meta[e + "xscaling"]), vocab=meta["parakeet.vocab_size"],
                ctc_prefix="decoder.decoder_layers.0")


def transcribe(model_path, clips):
    """Prints each clip's greedy CTC transcript; the smallest top-2 logit margin goes to stderr
    (a margin near 0 is a frame where float rounding may pick the other token)."""
    meta, tensors = gguf_reader.read(model_path)
    cfg = config_of(meta, tensors)
    w = {name: torch.as_tensor(a) for name, a in tensors.items()}
    fb = tensors["preprocessor.featurizer.fb"][0]
    pieces = meta["parakeet.tokenizer.pieces"]
    for clip in clips:
        with torch.no_grad():
            enc = encoder(w, log_mel(read_wav_16k(clip), fb), cfg)
            tokens, _, margin = ctc_greedy(w, cfg["ctc_prefix"], enc, meta["parakeet.blank_id"])
        words = "".join(pieces[k] for k in tokens).replace("\u2581", " ").split()  # a lone "▁" piece: one space
        print(" ".join(words), flush=True)
        print(f"{os.path.basename(clip)}: {len(tokens)} tokens, smallest margin {margin:.3g}", file=sys.stderr)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--transcribe":
        transcribe(sys.argv[2], sys.argv[3:])
        return
    if len(sys.argv) == 5 and sys.argv[1] == "--bench":
        bench_preset(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--preset":
        write_preset(sys.argv[2], sys.argv[3])
        return
    out = sys.argv[1] if len(sys.argv) > 1 else "test/data/asr"
    os.makedirs(out, exist_ok=True)
    audio = test_audio(os.path.join(out, "chirps.wav"))
    for name, cfg in VARIANTS.items():
        gen = torch.Generator().manual_seed(cfg["seed"])
        w = random_weights(cfg, gen)
        fb = slaney_mel_filterbank(16000, 512, cfg["feat_in"])
        w_file = {"preprocessor.featurizer.fb": fb[None], "preprocessor.featurizer.window":
                  torch.hann_window(400, periodic=False).numpy()}
        w_file.update({k: v.numpy() for k, v in w.items()})
        write_gguf(os.path.join(out, name + ".gguf"), metadata(cfg), w_file)

        mel = log_mel(audio, fb)
        enc = encoder(w, mel, cfg)
        expected = {"mel": mel.numpy(), "encoder_out": enc.numpy()}
        kv = {"general.architecture": "forge-asr-golden"}
        report = [f"{name}: mel {tuple(mel.shape)} encoder {tuple(enc.shape)}"]
        if cfg["ctc_prefix"]:
            tokens, frames, margin = ctc_greedy(w, cfg["ctc_prefix"], enc, cfg["vocab"])
            kv["ctc.tokens"], kv["ctc.frames"] = ("i32", tokens), ("i32", frames)
            report.append(f"ctc {tokens} margin {margin:.3g}")
        if cfg["transducer"]:
            tokens, frames, margin = transducer_greedy(w, enc, cfg, cfg["durations"], max_symbols=3)
            kv["transducer.tokens"], kv["transducer.frames"] = ("i32", tokens), ("i32", frames)
            report.append(f"transducer {tokens} margin {margin:.3g}")
        write_gguf(os.path.join(out, name + ".expected.gguf"), kv, expected)
        print("; ".join(report))


if __name__ == "__main__":
    main()
