// Training behaviour of `forge train gpt` (models/gpt/trainer.h) on a tiny model: the global
// batch does not depend on its split into micro-batches, an interrupted run resumes
// bit-exactly, and the exported GGUF gives forge's llm path the training forward's logits.
#include "core/error.h"
#include "core/autograd/grad_mode.h"
#include "models/gpt/gpt_model.h"
#include "models/gpt/run_checkpoint.h"
#include "models/gpt/trainer.h"
#include "models/llm/model.h"
#include "models/llm/session.h"
#include "test/models/gpt/tiny_run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

namespace forge::gpt {
namespace {

using testing::file_bytes;
using testing::log_losses;
using testing::scratch_dir;
using testing::tiny_config;

TEST(GptTrainer, MicroBatchesGiveTheSameStepsAsOneBatch) {
    TrainConfig whole = tiny_config(scratch_dir("micro_whole"));
    whole.steps = 4;
    whole.micro_batch = 4;
    TrainConfig split = whole;
    split.out_dir = scratch_dir("micro_split");
    split.micro_batch = 1;
    train_gpt(whole, {});
    train_gpt(split, {});
    const auto a = log_losses(whole.out_dir), b = log_losses(split.out_dir);
    ASSERT_EQ(a.size(), 4u);
    ASSERT_EQ(b.size(), 4u);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * a[i]) << "step " << i + 1;
}

TEST(GptTrainer, ResumeAfterAnInterruptionIsBitExact) {
    TrainConfig full = tiny_config(scratch_dir("resume_full"));
    train_gpt(full, {});

    TrainConfig interrupted = full;
    interrupted.out_dir = scratch_dir("resume_interrupted");
    struct Stop {};
    EXPECT_THROW(train_gpt(interrupted, [](const StepReport& r) {
                     if (r.step == 7) throw Stop{};  // after the checkpoint of step 6
                 }),
                 Stop);
    interrupted.resume = true;
    train_gpt(interrupted, {});
    EXPECT_EQ(log_losses(interrupted.out_dir), log_losses(full.out_dir));
    EXPECT_EQ(file_bytes(interrupted.out_dir / "model.gguf"), file_bytes(full.out_dir / "model.gguf"));
}

TEST(GptTrainer, ResumeRefusesDifferentSettings) {
    TrainConfig config = tiny_config(scratch_dir("resume_mismatch"));
    config.steps = 3;
    train_gpt(config, {});
    config.resume = true;
    config.seed = 2;
    EXPECT_THROW(train_gpt(config, {}), Error);
    TrainConfig missing = tiny_config(scratch_dir("resume_missing"));
    missing.resume = true;
    EXPECT_THROW(train_gpt(missing, {}), Error);
}

TEST(GptTrainer, ExportedGgufRunsInForgesLlmPathWithTheTrainingLogits) {
    TrainConfig config = tiny_config(scratch_dir("export"));
    const TrainResult result = train_gpt(config, {});
    EXPECT_GT(result.val_bpb, 0.0);

    GptConfig shape;
    shape.depth = config.depth;
    shape.vocab = 511;  // the tokenizer's vocabulary
    shape.context = config.seq_len;
    GptModel trained(shape, 0);
    load_checkpoint_params(config.out_dir / "checkpoint.safetensors", trained);

    const std::vector<std::int32_t> ids = {505, 40, 264, 100, 317, 261, 33, 46, 259, 300, 17, 8};
    const auto n = static_cast<std::int64_t>(ids.size());
    ag::NoGradScope no_grad;
    const auto training = trained.forward(Tensor::from(std::span<const std::int32_t>(ids), Shape{1, n})).to_vector();

    const llm::Model exported = llm::Model::load((config.out_dir / "model.gguf").string());
    llm::SessionOptions options;
    options.n_ctx = n;
    options.kv_type = llm::kv_type_from_name("f32");
    llm::Session session(exported, options);
    std::vector<float> inference(training.size());
    session.eval(ids, inference);

    float max_logit = 0.0f;
    for (const float v : training) max_logit = std::max(max_logit, std::fabs(v));
    for (std::int64_t t = 0; t < n; ++t) {
        const auto row = [&](const std::vector<float>& v) { return std::span(v).subspan(t * 511, 511); };
        const auto a = row(training), b = row(inference);
        float worst = 0.0f;
        for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
        // Measured: 2.4e-7 of the max logit (simd: the llm path uses other kernels), 0 (scalar).
        EXPECT_LE(worst, 3e-6f * max_logit) << "position " << t;
        EXPECT_EQ(std::max_element(a.begin(), a.end()) - a.begin(), std::max_element(b.begin(), b.end()) - b.begin())
            << "argmax at position " << t;
    }
}

}  // namespace
}  // namespace forge::gpt
