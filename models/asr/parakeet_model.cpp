#include "models/asr/parakeet_model.h"

#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/tensor_loader.h"

namespace forge::asr {
namespace {

constexpr const char* kFilterbank = "preprocessor.featurizer.fb";
constexpr const char* kWindow = "preprocessor.featurizer.window";
constexpr const char* kHybridCtcPrefix = "ctc_decoder.decoder_layers.0";
constexpr const char* kCtcPrefix = "decoder.decoder_layers.0";

// The front end from the file's filterbank [1, n_mels, n_fft/2+1] and, when stored, its window.
LogMel read_log_mel(const gguf::GgufFile& file, const PreprocessorConfig& config) {
    const gguf::TensorLoader loader(file);
    const std::int64_t bins = config.n_fft / 2 + 1;
    check(loader.has(kFilterbank), "{}: no tensor '{}' (the mel filterbank)", file.source(), kFilterbank);
    const Tensor fb = loader.raw(kFilterbank, Shape{1, config.n_mels, bins}).to(DType::F32).reshape(Shape{config.n_mels, bins});
    std::vector<float> window = hann_window(config.win_length);
    if (loader.has(kWindow)) window = loader.vector_f32(kWindow, config.win_length).to_vector();
    return LogMel(config, fb, std::move(window));
}

}  // namespace

CtcHead CtcHead::make(nn::ParameterSet& params, const std::string& prefix, std::int64_t d_model, std::int64_t classes) {
    return {nn::Conv1d::make(params, prefix, d_model, classes, 1, {.padding = Conv1dPadding::Valid})};
}

Tensor CtcHead::operator()(const Tensor& encoded) const { return conv.pointwise(encoded); }

ParakeetModel ParakeetModel::make(const ParakeetConfig& config, std::uint64_t seed, const std::string& ctc_prefix) {
    ParakeetModel m;
    m.config = config;
    m.params = nn::ParameterSet(seed);
    m.encoder = FastConformerEncoder::make(m.params, config.encoder);
    const std::int64_t classes = config.vocab_size + 1;
    if (has_ctc_head(config.arch)) m.ctc = CtcHead::make(m.params, ctc_prefix, config.encoder.d_model, classes);
    if (has_transducer(config.arch)) {
        m.prediction = PredictionNetwork::make(m.params, config.transducer, classes);
        const auto durations = static_cast<std::int64_t>(config.transducer.durations.size());
        m.joint = Joint::make(m.params, config.encoder.d_model, config.transducer, classes + durations);
    }
    return m;
}

ParakeetModel ParakeetModel::load(const std::filesystem::path& path) {
    const gguf::GgufFile file = gguf::GgufFile::open(path.string());
    const ParakeetConfig config = read_parakeet_config(file);
    const bool hybrid = has_ctc_head(config.arch) && has_transducer(config.arch);
    ParakeetModel m = make(config, 0, hybrid ? kHybridCtcPrefix : kCtcPrefix);
    m.params.load_gguf(file);
    m.log_mel.emplace(read_log_mel(file, config.preprocessor));
    return m;
}

Tensor ParakeetModel::encode(const Tensor& features) const {
    const ag::NoGradScope no_grad;
    check(features.rank() == 2 && features.size(1) == config.encoder.feat_in,
          "encoder: expected features [T, {}], got {}", config.encoder.feat_in, features.shape().to_string());
    return encoder(features.unsqueeze(0)).squeeze(0);
}

}  // namespace forge::asr
