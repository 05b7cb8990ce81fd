// Parakeet models against the PyTorch oracle (tools/asr_oracle.py, float64): the log-mel front
// end, the encoder output and the greedy tokens of a CTC model (biases, xscaling), an RNN-T model
// (no biases, a 2-layer prediction LSTM) and a hybrid TDT + CTC model. Bounds are about 10x the
// agreement measured on both backends (docs/ASR.md); tokens are exact.
#include "core/autograd/grad_mode.h"
#include "models/asr/greedy_decoding.h"
#include "models/asr/mel_filterbank.h"
#include "models/asr/parakeet_model.h"
#include "test/models/asr/oracle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <vector>
#include <cmath>
#include <cstdio>

namespace forge::asr {
namespace {

using testing::clip;
using testing::Expected;
using testing::model_path;

// Measured 2026-12-03 (max |forge - torch| / max |torch|): mel 6.5e-7 (simd and scalar); encoder
// 1.7e-7 / 3.4e-7 / 2.9e-7 simd, 2.2e-7 / 3.5e-7 / 2.9e-7 scalar (ctc / rnnt / tdt_ctc). The
// issue asks for 1e-5 and 1e-4.
constexpr double kMelBound = 7e-6;
constexpr double kEncoderBound = 4e-6;

double relative_error(const Tensor& got, const Tensor& want) {
    EXPECT_EQ(got.shape(), want.shape());
    const auto a = got.to_vector(), b = want.to_vector();
    double diff = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        diff = std::max(diff, std::abs(static_cast<double>(a[i]) - b[i]));
        scale = std::max(scale, std::abs(static_cast<double>(b[i])));
    }
    return diff / scale;
}

class OracleParity : public ::testing::TestWithParam<const char*> {};

TEST_P(OracleParity, MelAndEncoderMatchPyTorch) {
    const ParakeetModel model = ParakeetModel::load(model_path(GetParam()));
    const Expected expected(GetParam());
    const Tensor mel = (*model.log_mel)(clip());  // [T, n_mels]
    const double mel_error = relative_error(mel.transpose(0, 1).contiguous(), expected.tensor("mel"));
    const double encoder_error = relative_error(model.encode(mel), expected.tensor("encoder_out"));
    std::printf("%s: mel relative error %.3g, encoder %.3g\n", GetParam(), mel_error, encoder_error);
    EXPECT_LT(mel_error, kMelBound);
    EXPECT_LT(encoder_error, kEncoderBound);
}

TEST_P(OracleParity, GreedyTokensMatchPyTorchExactly) {
    const ParakeetModel model = ParakeetModel::load(model_path(GetParam()));
    const Expected expected(GetParam());
    // The encoder runs on the oracle's own mel so the tokens test the decoders alone.
    const Tensor encoded = model.encode(expected.tensor("mel").transpose(0, 1).contiguous());
    if (model.ctc) {
        const Hypothesis h = ctc_greedy((*model.ctc)(encoded), model.config.blank_id);
        EXPECT_EQ(h.tokens, expected.ints("ctc.tokens"));
        EXPECT_EQ(h.frames, expected.ints("ctc.frames"));
    }
    if (model.prediction) {
        const ag::NoGradScope no_grad;
        const Hypothesis h = transducer_greedy(encoded, *model.prediction, *model.joint,
                                               {model.config.blank_id, model.config.transducer.durations, 3});
        EXPECT_EQ(h.tokens, expected.ints("transducer.tokens"));
        EXPECT_EQ(h.frames, expected.ints("transducer.frames"));
    }
}

INSTANTIATE_TEST_SUITE_P(Variants, OracleParity, ::testing::Values("ctc", "rnnt", "tdt_ctc"));

}  // namespace
}  // namespace forge::asr

namespace forge::asr {
namespace {

// A padded batch (what training feeds) gives each utterance what it gets alone, on its real frames.
// The filterbank forge writes into the models it trains is the one the oracle stored in these
// files (librosa's Slaney filterbank in numpy, float64): measured max |difference| 0 on both
// backends (the same double arithmetic, rounded once to f32).
TEST(MelFilterbank, EqualsTheOraclesSlaneyFilterbank) {
    for (const std::string variant : {"ctc", "rnnt", "tdt_ctc"}) {
        const ParakeetModel model = ParakeetModel::load(model_path(variant));
        const PreprocessorConfig& pre = model.config.preprocessor;
        const gguf::GgufFile file = gguf::GgufFile::open(model_path(variant).string());
        const std::int64_t bins = pre.n_fft / 2 + 1;
        const Tensor stored = gguf::TensorLoader(file).raw("preprocessor.featurizer.fb", Shape{1, pre.n_mels, bins});
        const Tensor built = slaney_mel_filterbank(pre.sample_rate, pre.n_fft, pre.n_mels);
        ASSERT_EQ(built.shape(), (Shape{pre.n_mels, bins}));
        const auto want = stored.to_vector(), got = built.to_vector();
        double worst = 0.0;
        for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want[i]));
        EXPECT_EQ(worst, 0.0) << variant;  // exact
    }
}

TEST(FastConformerEncoder, PaddedBatchEqualsEachUtteranceAlone) {
    const ParakeetModel model = ParakeetModel::load(testing::model_path("ctc"));
    const std::vector<float> audio = testing::clip();
    const Tensor long_mel = (*model.log_mel)(audio);                                    // [131, 16]
    const Tensor short_mel = (*model.log_mel)(std::span<const float>(audio).first(11200));  // [71, 16]
    const std::int64_t t = long_mel.size(0), f = long_mel.size(1), s = short_mel.size(0);
    Tensor batch = Tensor::zeros(Shape{2, t, f});
    std::copy_n(long_mel.data<float>(), t * f, batch.data<float>());
    std::copy_n(short_mel.data<float>(), s * f, batch.data<float>() + t * f);
    const std::int64_t lengths[] = {t, s};
    const ag::NoGradScope no_grad;
    const Tensor encoded = model.encoder(batch, lengths);
    const std::int64_t short_frames = nn::ConvSubsampling::subsampled_length(s);
    const double long_error = relative_error(encoded.select(0, 0).contiguous(), model.encode(long_mel));
    const double short_error =
        relative_error(encoded.select(0, 1).narrow(0, 0, short_frames).contiguous(), model.encode(short_mel));
    std::printf("padded batch: %.3g, %.3g\n", long_error, short_error);
    // Measured 0 (bitwise identical); the bound allows a matrix product that tiles by batch size.
    EXPECT_LT(long_error, 1e-6);
    EXPECT_LT(short_error, 1e-6);
}

}  // namespace
}  // namespace forge::asr
