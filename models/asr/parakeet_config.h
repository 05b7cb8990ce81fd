// The hyperparameters of a Parakeet model, read from the `parakeet.*` metadata of its GGUF file
// in the layout of mudler/parakeet.cpp's converter (docs/ASR.md lists every key). Each key is
// checked for presence, type and range; an error names the file and the key.
#pragma once

#include "core/gguf/gguf_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace forge::asr {

enum class ParakeetArch { Ctc, Rnnt, Tdt, HybridRnntCtc, HybridTdtCtc };

ParakeetArch parse_arch(const std::string& name);  // "ctc", "rnnt", "tdt", "hybrid_rnnt_ctc", "hybrid_tdt_ctc"
std::string arch_name(ParakeetArch arch);
bool has_ctc_head(ParakeetArch arch);
bool has_transducer(ParakeetArch arch);
bool has_durations(ParakeetArch arch);  // TDT

struct EncoderConfig {
    std::int64_t feat_in = 0, d_model = 0, n_layers = 0, n_heads = 0, ff_dim = 0, conv_kernel = 0;
    std::int64_t subsampling_factor = 8, subsampling_channels = 0, pos_emb_max_len = 5000;
    bool xscaling = false;
    bool use_bias = true;
};

struct PreprocessorConfig {
    std::int64_t sample_rate = 16000, n_mels = 0, n_fft = 512, win_length = 400, hop_length = 160;
    float preemph = 0.97f;
    float mag_power = 2.0f;
    float log_zero_guard = 5.9604645e-08f;  // 2^-24
};

struct TransducerConfig {
    std::int64_t pred_hidden = 0, pred_rnn_layers = 0, joint_hidden = 0;
    std::vector<std::int64_t> durations;  // TDT only
};

struct ParakeetConfig {
    ParakeetArch arch = ParakeetArch::Ctc;
    EncoderConfig encoder;
    PreprocessorConfig preprocessor;
    TransducerConfig transducer;  // when has_transducer(arch)
    std::int64_t vocab_size = 0;
    std::int64_t blank_id = 0;  // == vocab_size
    std::vector<std::string> pieces;  // SentencePiece pieces, index = token id ("▁" marks a word start)

    // Encoder frames per second of audio: sample_rate / (hop_length · subsampling_factor).
    double frame_seconds() const;
};

ParakeetConfig read_parakeet_config(const gguf::GgufFile& file);

}  // namespace forge::asr
