// The Parakeet GGUF layout: what a bad file gets (an error naming the file and the key or
// tensor), and quantized linears decoded at load.
#include "core/error.h"
#include "core/gguf/gguf_writer.h"
#include "core/quant/quantize.h"
#include "models/asr/parakeet_model.h"
#include "models/asr/parakeet_writer.h"
#include "test/models/asr/oracle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace forge::asr {
namespace {

using testing::model_path;

// A copy of the CTC golden model with `edit` applied to its writer, written to a temp file.
class EditedModel {
public:
    explicit EditedModel(const std::function<void(gguf::GgufWriter&, const gguf::GgufFile&)>& edit,
                         const std::string& variant = "ctc")
        : source_(gguf::GgufFile::open(model_path(variant).string())),
          path_(std::filesystem::temp_directory_path() /
                ("forge_asr_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".gguf")) {
        gguf::GgufWriter writer = gguf::GgufWriter::copy_of(source_);
        edit(writer, source_);
        writer.write(path_.string());
    }
    ~EditedModel() { std::filesystem::remove(path_); }
    const std::filesystem::path& path() const { return path_; }

private:
    gguf::GgufFile source_;
    std::filesystem::path path_;
};

// The load error of an edited model, which must mention every one of `needles`.
void expect_load_error(const EditedModel& model, std::initializer_list<std::string> needles) {
    try {
        ParakeetModel::load(model.path());
        ADD_FAILURE() << "loaded without an error";
    } catch (const Error& e) {
        const std::string message = e.what();
        for (const std::string& needle : needles) EXPECT_NE(message.find(needle), std::string::npos) << message;
    }
}

TEST(ParakeetFormat, ReadsTheConfiguration) {
    const ParakeetModel model = ParakeetModel::load(model_path("tdt_ctc"));
    const ParakeetConfig& c = model.config;
    EXPECT_EQ(c.arch, ParakeetArch::HybridTdtCtc);
    EXPECT_EQ(c.encoder.d_model, 16);
    EXPECT_EQ(c.encoder.n_layers, 2);
    EXPECT_EQ(c.vocab_size, 12);
    EXPECT_EQ(c.blank_id, 12);
    EXPECT_EQ(c.pieces.at(9), "\xE2\x96\x81" "cat");
    EXPECT_EQ(c.transducer.durations, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    EXPECT_TRUE(model.ctc.has_value() && model.prediction.has_value() && model.joint.has_value());
    EXPECT_DOUBLE_EQ(c.frame_seconds(), 0.08);
}

TEST(ParakeetFormat, MissingKeyIsNamed) {
    const EditedModel m([](gguf::GgufWriter& w, const gguf::GgufFile&) { w.remove("parakeet.encoder.d_model"); });
    expect_load_error(m, {m.path().string(), "parakeet.encoder.d_model"});
}

TEST(ParakeetFormat, WrongArchitectureIsNamed) {
    const EditedModel other([](gguf::GgufWriter& w, const gguf::GgufFile&) { w.set("general.architecture", "llama"); });
    expect_load_error(other, {"general.architecture", "llama"});
    const EditedModel arch([](gguf::GgufWriter& w, const gguf::GgufFile&) { w.set("parakeet.arch", "conformer_las"); });
    expect_load_error(arch, {"parakeet.arch", "conformer_las"});
}

TEST(ParakeetFormat, InconsistentKeysAreNamed) {
    const EditedModel blank([](gguf::GgufWriter& w, const gguf::GgufFile&) { w.set("parakeet.blank_id", std::uint32_t{0}); });
    expect_load_error(blank, {"parakeet.blank_id"});
    const EditedModel norm([](gguf::GgufWriter& w, const gguf::GgufFile&) {
        w.set("parakeet.encoder.conv_norm_type", "layer_norm");
    });
    expect_load_error(norm, {"conv_norm_type", "layer_norm"});
    const EditedModel kernel([](gguf::GgufWriter& w, const gguf::GgufFile&) {
        w.set("parakeet.encoder.conv_kernel", std::uint32_t{8});
    });
    expect_load_error(kernel, {"conv_kernel"});
    const EditedModel durations([](gguf::GgufWriter& w, const gguf::GgufFile&) { w.remove("parakeet.tdt.durations"); },
                                "tdt_ctc");
    expect_load_error(durations, {"parakeet.tdt.durations"});
}

// The writer rebuilt with the file's metadata and every tensor but `skip`.
void copy_tensors_except(gguf::GgufWriter& w, const gguf::GgufFile& f, const std::string& skip) {
    w = gguf::GgufWriter();
    for (const auto& kv : f.metadata()) w.set(kv.key, kv.value);
    for (const gguf::TensorInfo& t : f.tensors())
        if (t.name != skip) w.add_tensor(t.name, t.dtype, t.dims, f.tensor_bytes(t));
}

TEST(ParakeetFormat, MissingOrMisshapenTensorIsNamed) {
    const std::string name = "encoder.layers.1.self_attn.linear_pos.weight";
    const EditedModel missing([&](gguf::GgufWriter& w, const gguf::GgufFile& f) { copy_tensors_except(w, f, name); });
    expect_load_error(missing, {name});
    const EditedModel misshapen([&](gguf::GgufWriter& w, const gguf::GgufFile& f) {
        copy_tensors_except(w, f, name);
        w.add_tensor(name, DType::F32, {16, 8}, [](std::span<std::byte> out) { std::fill(out.begin(), out.end(), std::byte{0}); });
    });
    expect_load_error(misshapen, {name, "[8, 16]", "[16, 16]"});
}

// A converted model may store its large linears quantized: they load, decoded to f32.
TEST(ParakeetFormat, QuantizedLinearsLoad) {
    const std::string name = "encoder.layers.0.feed_forward1.linear2.weight";  // [16, 32]: one Q8_0 block a row
    const EditedModel quantized([&](gguf::GgufWriter& w, const gguf::GgufFile& f) {
        copy_tensors_except(w, f, name);
        const gguf::TensorInfo& info = f.tensor_info(name);
        const Tensor weights = gguf::TensorLoader(f).raw(name, Shape{16, 32});
        const Tensor q = quant::quantize(weights, DType::Q8_0);
        std::vector<std::byte> bytes(q.raw_data(), q.raw_data() + q.nbytes());
        w.add_tensor(name, DType::Q8_0, info.dims,
                     [bytes](std::span<std::byte> out) { std::copy(bytes.begin(), bytes.end(), out.begin()); });
    });
    const ParakeetModel exact = ParakeetModel::load(model_path("ctc"));
    const ParakeetModel model = ParakeetModel::load(quantized.path());
    const auto a = exact.params.at(name).to_vector(), b = model.params.at(name).to_vector();
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
    EXPECT_GT(worst, 0.0);   // quantized, not copied
    EXPECT_LT(worst, 0.02);  // Q8_0: within half a step of 1/127 of each block's largest weight
}

// What forge train asr exports loads back as the same model: keys, pieces, durations, and the
// same encoder output on the clip, bit for bit.
TEST(ParakeetFormat, WriterRoundTrips) {
    for (const std::string variant : {"ctc", "rnnt", "tdt_ctc"}) {
        const gguf::GgufFile source = gguf::GgufFile::open(model_path(variant).string());
        const ParakeetModel model = ParakeetModel::load(model_path(variant));
        const std::int64_t mels = model.config.preprocessor.n_mels, bins = model.config.preprocessor.n_fft / 2 + 1;
        const Tensor fb = gguf::TensorLoader(source).raw("preprocessor.featurizer.fb", Shape{1, mels, bins})
                              .reshape(Shape{mels, bins});
        const auto window = gguf::TensorLoader(source).vector_f32("preprocessor.featurizer.window", 400).to_vector();
        const auto path = std::filesystem::temp_directory_path() / ("forge_asr_roundtrip_" + variant + ".gguf");
        write_parakeet_gguf(path, model, fb, window, "round trip");
        const ParakeetModel back = ParakeetModel::load(path);
        std::filesystem::remove(path);
        EXPECT_EQ(back.config.arch, model.config.arch);
        EXPECT_EQ(back.config.pieces, model.config.pieces);
        EXPECT_EQ(back.config.transducer.durations, model.config.transducer.durations);
        EXPECT_EQ(back.config.encoder.xscaling, model.config.encoder.xscaling);
        EXPECT_EQ(back.config.encoder.use_bias, model.config.encoder.use_bias);
        const Tensor mel = (*model.log_mel)(testing::clip());
        EXPECT_EQ((*back.log_mel)(testing::clip()).to_vector(), mel.to_vector());
        EXPECT_EQ(back.encode(mel).to_vector(), model.encode(mel).to_vector()) << variant;
    }
}

}  // namespace
}  // namespace forge::asr
