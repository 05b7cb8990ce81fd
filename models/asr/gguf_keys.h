// The metadata keys of the Parakeet GGUF layout, in one place: the layout that
// mudler/parakeet.cpp's scripts/convert_parakeet_to_gguf.py writes (its docs/conversion.md
// is the schema; Fucina's src/llm/parakeet/ reads the same files). Every reader and writer of
// these files in forge names a key through these constants.
#pragma once

#include <string_view>

namespace forge::asr::keys {

inline constexpr std::string_view kArchitectureName = "parakeet";  // value of general.architecture
inline constexpr std::string_view kGeneralArchitecture = "general.architecture";
inline constexpr std::string_view kArch = "parakeet.arch";  // ctc, rnnt, tdt, hybrid_rnnt_ctc, hybrid_tdt_ctc

// parakeet.encoder.* (u32 unless noted)
inline constexpr std::string_view kEncoderFeatIn = "parakeet.encoder.feat_in";
inline constexpr std::string_view kEncoderDModel = "parakeet.encoder.d_model";
inline constexpr std::string_view kEncoderLayers = "parakeet.encoder.n_layers";
inline constexpr std::string_view kEncoderHeads = "parakeet.encoder.n_heads";
inline constexpr std::string_view kEncoderFfDim = "parakeet.encoder.ff_dim";
inline constexpr std::string_view kEncoderConvKernel = "parakeet.encoder.conv_kernel";
inline constexpr std::string_view kEncoderConvNormType = "parakeet.encoder.conv_norm_type";  // string
inline constexpr std::string_view kEncoderSubsamplingFactor = "parakeet.encoder.subsampling_factor";
inline constexpr std::string_view kEncoderSubsamplingChannels = "parakeet.encoder.subsampling_conv_channels";
inline constexpr std::string_view kEncoderXscaling = "parakeet.encoder.xscaling";  // bool
inline constexpr std::string_view kEncoderPosEmbMaxLen = "parakeet.encoder.pos_emb_max_len";
inline constexpr std::string_view kEncoderUseBias = "parakeet.encoder.use_bias";  // bool, optional (true)

// parakeet.preprocessor.*
inline constexpr std::string_view kPreSampleRate = "parakeet.preprocessor.sample_rate";
inline constexpr std::string_view kPreMels = "parakeet.preprocessor.n_mels";
inline constexpr std::string_view kPreFft = "parakeet.preprocessor.n_fft";
inline constexpr std::string_view kPreWinLength = "parakeet.preprocessor.win_length";
inline constexpr std::string_view kPreHopLength = "parakeet.preprocessor.hop_length";
inline constexpr std::string_view kPrePreemph = "parakeet.preprocessor.preemph";          // f32
inline constexpr std::string_view kPreMagPower = "parakeet.preprocessor.mag_power";       // f32
inline constexpr std::string_view kPreNormalize = "parakeet.preprocessor.normalize";      // string
inline constexpr std::string_view kPreLogZeroGuard = "parakeet.preprocessor.log_zero_guard";  // f32

// The tokenizer: vocab_size pieces with ids 0..vocab_size-1, then the blank at id vocab_size
// (blank_id == vocab_size always); "▁" (U+2581) in a piece stands for a space.
inline constexpr std::string_view kVocabSize = "parakeet.vocab_size";             // u32
inline constexpr std::string_view kBlankId = "parakeet.blank_id";                 // u32
inline constexpr std::string_view kTokenizerPieces = "parakeet.tokenizer.pieces";  // array of string

// Transducer decoders (absent in CTC-only files).
inline constexpr std::string_view kDecoderPredHidden = "parakeet.decoder.pred_hidden";
inline constexpr std::string_view kDecoderPredRnnLayers = "parakeet.decoder.pred_rnn_layers";
inline constexpr std::string_view kJointHidden = "parakeet.joint.joint_hidden";
inline constexpr std::string_view kJointActivation = "parakeet.joint.activation";  // string
inline constexpr std::string_view kTdtDurations = "parakeet.tdt.durations";        // array of i32

}  // namespace forge::asr::keys
