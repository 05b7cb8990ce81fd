// `forge train lora`'s model and trainer (models/llm/lora/): one training step against PyTorch
// (tools/make_lora_step_golden.py), the frozen quantized linear's input gradient against a
// dequantized product, resume == an uninterrupted run byte for byte, conversations with the
// loss on the replies, and a Q8_0 base whose loss falls.
#include "core/autograd/ag.h"
#include "core/autograd/ops/frozen_linear.h"
#include "core/checkpoint/safetensors.h"
#include "core/ops/matmul.h"
#include "core/optim/adam.h"
#include "core/quant/quantize.h"
#include "models/gpt/trainer.h"
#include "models/llm/lora/lora_model.h"
#include "models/llm/lora/lora_stack.h"
#include "models/llm/model.h"
#include "models/llm/session.h"
#include "models/llm/lora/lora_trainer.h"
#include "test/models/llm/golden.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace forge::llm::lora {
namespace {

const std::filesystem::path kData = FORGE_TEST_DATA_DIR;

checkpoint::TensorMap with_prefix(const checkpoint::TensorMap& all, const std::string& prefix) {
    checkpoint::TensorMap out;
    for (const auto& [name, t] : all) {
        if (name.rfind(prefix, 0) == 0) out[name.substr(prefix.size())] = t;
    }
    return out;
}

// The largest |got - want| relative to the largest |want| of the tensor.
double relative_error(const Tensor& got, const Tensor& want) {
    const auto g = got.contiguous().to_vector(), w = want.contiguous().to_vector();
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i) {
        worst = std::max(worst, std::fabs(static_cast<double>(g[i]) - w[i]));
        scale = std::max(scale, std::fabs(static_cast<double>(w[i])));
    }
    return worst / scale;
}

std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path scratch_dir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("forge_lora_test_" + name);
    std::filesystem::remove_all(dir);
    return dir;
}

// f32 forge against float64 PyTorch on qwen3-f32.gguf, rank 4, all seven targets.
TEST(LoraTorchGolden, OneStepOfAdamW) {
    checkpoint::Metadata meta;
    const auto golden = checkpoint::read_safetensors(kData / "llm" / "lora_step.safetensors", &meta);
    LoraSettings settings;
    settings.rank = std::stoll(meta.at("rank"));
    settings.alpha = std::stof(meta.at("alpha"));
    LoraModel model(kData / "llm" / "qwen3-f32.gguf", settings);
    model.params().load_state_dict(with_prefix(golden, "init."), "lora_step.safetensors");
    const Tensor tokens = golden.at("tokens"), targets = golden.at("targets");
    const Tensor ids = tokens.reshape(Shape{1, tokens.numel()});

    const double loss = loss_and_gradients(model, ids, targets, 0);
    const double want_loss = std::stod(meta.at("loss"));
    // Measured: 5.6e-9 relative.
    EXPECT_NEAR(loss, want_loss, 6e-8 * std::fabs(want_loss));
    RecordProperty("loss_error", fmt::format("{:.3g}", std::fabs(loss - want_loss) / std::fabs(want_loss)));
    double worst_grad = 0.0;
    for (const auto& [name, want] : with_prefix(golden, "grad.")) {
        const double e = relative_error(ag::grad(model.params().at(name)), want);
        worst_grad = std::max(worst_grad, e);
        EXPECT_LT(e, 2e-5) << name;  // measured: at most 1.95e-6 relative to the tensor's largest entry
    }
    optim::Adam adamw(model.params().trainable(),
                      optim::adamw_options(std::stof(meta.at("lr")), std::stof(meta.at("weight_decay"))));
    adamw.step();
    double worst_after = 0.0;
    for (const auto& [name, want] : with_prefix(golden, "after.")) {
        const double e = relative_error(model.params().at(name), want);
        worst_after = std::max(worst_after, e);
        EXPECT_LT(e, 5e-6) << name;  // measured: at most 4.2e-7
    }
    RecordProperty("worst_gradient_error", fmt::format("{:.3g}", worst_grad));
    RecordProperty("worst_update_error", fmt::format("{:.3g}", worst_after));
}

// The trainable forward with the untrained adapter (B = 0) is the base model: its logits are
// llama.cpp's (the committed goldens of test/data/llm, f32 KV cache) for llama, qwen2 and qwen3,
// f32 and quantized, at every prompt position.
TEST(LoraModel, UntrainedAdapterGivesLlamaCppLogits) {
    struct Case {
        const char* golden;
        double bound;  // on max |ours - theirs| / max |theirs| per position
    };
    // Measured (simd): llama-f32 9.7e-7, qwen2-f32 2.4e-6, qwen3-f32 1.1e-6, qwen3-q8_0 4.2e-4 (the
    // activations' Q8_0 rounding steps, as in oracle_test.cpp).
    for (const Case c : {Case{"llama-f32", 1e-5}, Case{"qwen2-f32", 2.4e-5}, Case{"qwen3-f32", 1.1e-5},
                         Case{"qwen3-q8_0", 4.2e-3}}) {
        const test::Golden g = test::load_golden(c.golden);
        LoraModel model(g.model_path, LoraSettings{});
        const auto n = static_cast<std::int64_t>(g.prompt.size());
        const Tensor ids = Tensor::from(std::span<const std::int32_t>(g.prompt), Shape{1, n});
        ag::NoGradScope no_grad;
        const Tensor logits = model.forward(ids, 0, false).contiguous();
        const std::int64_t vocab = model.hparams().n_vocab;
        double worst = 0.0;
        for (std::int64_t pos = 0; pos < n; ++pos) {
            double max_logit = 0.0, max_diff = 0.0;
            for (std::int64_t i = 0; i < vocab; ++i) {
                const double theirs = g.logits[static_cast<std::size_t>(pos * vocab + i)];
                max_logit = std::max(max_logit, std::fabs(theirs));
                max_diff = std::max(max_diff, std::fabs(logits.data<float>()[pos * vocab + i] - theirs));
            }
            worst = std::max(worst, max_diff / max_logit);
        }
        EXPECT_LT(worst, c.bound) << c.golden;
        RecordProperty(std::string(c.golden) + "_logits", fmt::format("{:.3g}", worst));
    }
}

// dx = dy · W with W decoded tile by tile equals the product with the whole dequantized W, for
// Q8_0 and Q4_K weights read from the file and from the interleaved copy the simd build multiplies.
TEST(FrozenLinear, InputGradientOfQuantizedWeights) {
    for (const char* name : {"qwen3-q8_0.gguf", "qwen3-q4_k_m.gguf"}) {
        const gguf::GgufFile file = gguf::GgufFile::open((kData / "llm" / name).string());
        const Tensor weight = file.tensor(file.tensor_info("blk.0.ffn_down.weight"));
        const infer::Linear plain{weight, Tensor{}, nullptr};
        const infer::Linear interleaved{weight, Tensor{}, infer::InterleavedWeights::from(weight, false)};
        Tensor dy = Tensor::empty(Shape{3, plain.n_out()});
        for (std::int64_t i = 0; i < dy.numel(); ++i) dy.data<float>()[i] = std::sin(0.37f * static_cast<float>(i));
        const Tensor want = forge::matmul(dy, quant::dequantize(weight));
        for (const infer::Linear* layer : {&plain, &interleaved}) {
            // The default tile (the whole of these small matrices) and tiles of 48 rows (several,
            // the last one ragged). Measured: 0 with one tile; with 48-row tiles 2.8e-7 (Q8_0) and
            // 6.5e-7 (Q4_K), the tiles' partial products summed in another order.
            for (const std::int64_t tile_rows : {ag::kFrozenTileRows, std::int64_t{48}}) {
                const double e = relative_error(ag::frozen_linear_input_gradient(*layer, dy, tile_rows), want);
                EXPECT_LT(e, 5e-6) << name << " tile_rows " << tile_rows;
                RecordProperty(fmt::format("{}_{}_{}", name, layer->interleaved ? "interleaved" : "plain", tile_rows),
                               fmt::format("{:.3g}", e));
            }
        }
    }
}

// What the backward recomputes changes neither the loss nor a gradient by a bit: the three
// checkpointing modes run the same ops on the same values (a Q4_K_M base, dropout on, B
// nonzero so that every factor gets a gradient).
TEST(LoraModel, CheckpointingModesGiveIdenticalLossAndGradients) {
    const std::vector<std::int32_t> tokens = {1, 17, 4, 99, 23, 5, 42, 8, 77, 3, 61, 12};
    const auto n = static_cast<std::int64_t>(tokens.size()) - 1;
    const Tensor ids = Tensor::from(std::span<const std::int32_t>(tokens).first(n), Shape{1, n});
    const Tensor targets = Tensor::from(std::span<const std::int32_t>(tokens).subspan(1), Shape{n});
    struct Run {
        double loss;
        std::vector<std::vector<float>> grads;
    };
    const auto run = [&](Checkpointing mode) {
        LoraSettings settings;
        settings.rank = 4;
        settings.dropout = 0.1f;
        settings.checkpointing = mode;
        LoraModel model(kData / "llm" / "qwen3-q4_k_m.gguf", settings);
        for (const nn::Parameter& p : model.params().all()) {
            float* v = p.value.data<float>();
            for (std::int64_t i = 0; i < p.value.numel(); ++i) v[i] = 0.02f * std::sin(0.7f * static_cast<float>(i) + 1.0f);
        }
        Run r{loss_and_gradients(model, ids, targets, 7), {}};
        for (const nn::Parameter& p : model.params().all()) r.grads.push_back(ag::grad(p.value).to_vector());
        return r;
    };
    const Run full = run(Checkpointing::Full);
    for (const Checkpointing mode : {Checkpointing::Matmuls, Checkpointing::Off}) {
        const Run other = run(mode);
        EXPECT_EQ(other.loss, full.loss) << checkpointing_name(mode);
        ASSERT_EQ(other.grads.size(), full.grads.size());
        for (std::size_t i = 0; i < full.grads.size(); ++i) EXPECT_EQ(other.grads[i], full.grads[i]) << i;
    }
    EXPECT_GT(std::fabs(full.grads.front()[0]), 0.0f);  // the gradients reach the first factor
}

LoraTrainConfig text_run(const std::filesystem::path& out, const std::string& base) {
    LoraTrainConfig c;
    c.model = kData / "llm" / base;
    c.data = kData / "gpt" / "corpus.txt";
    c.text = true;
    c.out_dir = out;
    c.lora.rank = 4;
    c.lora.alpha = 8.0f;
    c.lora.dropout = 0.1f;
    c.lora.seed = 3;
    c.lr = 1e-2f;
    c.seq_len = 24;
    c.batch = 4;
    c.micro_batch = 2;
    c.steps = 6;
    c.eval_every = 3;
    c.checkpoint_every = 2;
    return c;
}

// Stopped after step 3 (as Ctrl-C stops it) and resumed: the same checkpoint and adapter bytes
// as a run that never stopped, dropout included.
TEST(LoraTrainer, ResumeEqualsUninterruptedByteForByte) {
    const auto whole_dir = scratch_dir("whole"), split_dir = scratch_dir("split");
    const gpt::TrainResult whole = train_lora(text_run(whole_dir, "qwen3-f32.gguf"), {});
    LoraTrainConfig first = text_run(split_dir, "qwen3-f32.gguf");
    int asked = 0;
    first.stop_requested = [&] { return ++asked == 3; };
    const gpt::TrainResult stopped = train_lora(first, {});
    EXPECT_TRUE(stopped.interrupted);
    EXPECT_EQ(stopped.steps, 3);
    EXPECT_FALSE(std::filesystem::exists(split_dir / "adapter.gguf"));
    LoraTrainConfig second = text_run(split_dir, "qwen3-f32.gguf");
    second.resume = true;
    const gpt::TrainResult resumed = train_lora(second, {});
    EXPECT_EQ(resumed.steps, 6);
    EXPECT_EQ(resumed.loss, whole.loss);
    EXPECT_EQ(file_bytes(split_dir / "checkpoint.safetensors"), file_bytes(whole_dir / "checkpoint.safetensors"));
    EXPECT_EQ(file_bytes(split_dir / "adapter.gguf"), file_bytes(whole_dir / "adapter.gguf"));
    // log.jsonl has the step-0 validation and one line per step, the resumed run's after step 3's.
    std::ifstream log(split_dir / "log.jsonl");
    int lines = 0;
    for (std::string line; std::getline(log, line);) ++lines;
    EXPECT_EQ(lines, 7);
}

// log.jsonl's rates follow train gpt's schedule (lr_schedule.h): over 6 steps a warmup of
// llround(0.34 x 6) = 2 steps and a warmdown of 2 to a tenth, so steps 1..6 run at
// 0.5, 1, 1, 1, 1, 0.5 + 0.5 x 0.1 of --lr.
TEST(LoraTrainer, LogsTheScheduledRates) {
    LoraTrainConfig c = text_run(scratch_dir("schedule"), "qwen3-f32.gguf");
    c.schedule = {.warmup_ratio = 0.34f, .warmdown_ratio = 0.34f, .final_lr_frac = 0.1f};
    train_lora(c, {});
    const std::vector<float> expected = {0.5f, 1.0f, 1.0f, 1.0f, 1.0f, 0.5f + 0.5f * 0.1f};
    std::ifstream log(c.out_dir / "log.jsonl");
    std::vector<double> multipliers, rates;
    for (std::string line; std::getline(log, line);) {
        const auto object = nlohmann::json::parse(line);
        if (object.at("step") == 0) continue;  // the validation before training
        multipliers.push_back(object.at("lr_multiplier").get<double>());
        rates.push_back(object.at("lr").get<double>());
    }
    ASSERT_EQ(multipliers.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(multipliers[i], static_cast<double>(expected[i])) << "step " << i + 1;
        EXPECT_EQ(rates[i], static_cast<double>(expected[i]) * static_cast<double>(c.lr)) << "step " << i + 1;
    }
}

// The multiplier is the rate AdamW takes: the first step of a warmup over 2 steps (half of
// --lr 1e-2) leaves the factors and moments a constant --lr 5e-3 leaves, bit for bit.
TEST(LoraTrainer, TheWarmupScalesAdamWsRate) {
    LoraTrainConfig warm = text_run(scratch_dir("warm"), "qwen3-f32.gguf");
    warm.steps = 2;
    warm.schedule = {.warmup_ratio = 1.0f, .warmdown_ratio = 0.0f};
    warm.stop_requested = [] { return true; };  // stop with a checkpoint after the first step
    ASSERT_TRUE(train_lora(warm, {}).interrupted);
    LoraTrainConfig half = text_run(scratch_dir("half"), "qwen3-f32.gguf");
    half.steps = 1;
    half.lr = 5e-3f;
    half.schedule = {.warmup_ratio = 0.0f, .warmdown_ratio = 0.0f};
    train_lora(half, {});
    const auto a = checkpoint::read_safetensors(warm.out_dir / "checkpoint.safetensors");
    const auto b = checkpoint::read_safetensors(half.out_dir / "checkpoint.safetensors");
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [name, t] : a) EXPECT_EQ(t.to_vector(), b.at(name).to_vector()) << name;
}

// --resume may lengthen a finished run only while the rates of the steps taken stay the same:
// six steps of a warmdown over half of them continued as eight would change steps 5 and 6.
TEST(LoraTrainer, ResumeRefusesALengthThatChangesTakenRates) {
    LoraTrainConfig c = text_run(scratch_dir("lengthen"), "qwen3-f32.gguf");
    c.schedule.warmdown_ratio = 0.5f;
    train_lora(c, {});
    c.resume = true;
    c.steps = 8;
    try {
        train_lora(c, {});
        ADD_FAILURE() << "resumed with rates that differ from the checkpoint's";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the warmdown has begun"), std::string::npos) << e.what();
    }
}

// A Q8_0 base trains: the held-out loss after 12 steps is below the untrained adapter's.
TEST(LoraTrainer, QuantizedBaseLossFalls) {
    LoraTrainConfig c = text_run(scratch_dir("q8_0"), "qwen3-q8_0.gguf");
    c.lora.dropout = 0.0f;
    c.steps = 12;
    c.eval_every = 1;
    double first_val = 0.0;
    const LoraTrainResult r = train_lora(c, [&](const gpt::StepReport& s) {
        if (s.step == 1) first_val = *s.val_loss;
    });
    EXPECT_LT(r.val_loss, first_val - 0.05) << "val loss " << first_val << " -> " << r.val_loss;
    // The adapter holds the two factors of 7 matrices in each block.
    const LoraAdapter adapter = read_lora_adapter((c.out_dir / "adapter.gguf").string());
    EXPECT_EQ(adapter.weights.size(), 7u * 2u);  // qwen3-q8_0.gguf has 2 blocks
    EXPECT_EQ(adapter.alpha, 8.0f);
}

// The trained adapter, written to adapter.gguf and applied by forge's run-time LoRA (`--lora`,
// Model::attach_lora), gives the logits the trainable forward gives with the same factors.
TEST(LoraTrainer, AdapterFileRunsAsTrained) {
    LoraTrainConfig c = text_run(scratch_dir("runtime"), "qwen3-f32.gguf");
    c.lora.dropout = 0.0f;
    train_lora(c, {});
    const std::string adapter_path = (c.out_dir / "adapter.gguf").string();
    const LoraAdapter adapter = read_lora_adapter(adapter_path);
    LoraModel trained(c.model, c.lora);
    checkpoint::TensorMap factors;
    for (const auto& [name, pair] : adapter.weights) {
        factors[name + ".lora_a"] = pair.a;
        factors[name + ".lora_b"] = pair.b;
    }
    trained.params().load_state_dict(factors, adapter_path);

    const test::Golden g = test::load_golden("qwen3-f32");
    const auto n = static_cast<std::int64_t>(g.prompt.size());
    Tensor ours;
    {
        ag::NoGradScope no_grad;
        ours = trained.forward(Tensor::from(std::span<const std::int32_t>(g.prompt), Shape{1, n}), 0, false).contiguous();
    }
    Model model = Model::load(c.model.string());
    const LoraSpec spec{adapter_path, 1.0f};
    model.attach_lora(std::span(&spec, 1));
    SessionOptions options;
    options.n_ctx = 64;
    options.kv_type = KvType::F32;
    Session session(model, options);
    const std::int64_t vocab = model.hparams().n_vocab;
    std::vector<float> theirs(static_cast<std::size_t>(n * vocab));
    session.eval(g.prompt, theirs);
    double worst = 0.0;
    for (std::int64_t pos = 0; pos < n; ++pos) {
        double max_logit = 0.0, max_diff = 0.0;
        for (std::int64_t i = 0; i < vocab; ++i) {
            const double t = theirs[static_cast<std::size_t>(pos * vocab + i)];
            max_logit = std::max(max_logit, std::fabs(t));
            max_diff = std::max(max_diff, std::fabs(ours.data<float>()[pos * vocab + i] - t));
        }
        worst = std::max(worst, max_diff / max_logit);
    }
    EXPECT_LT(worst, 7.6e-6);  // measured: 7.6e-7 (the same math, summed in another order)
    RecordProperty("runtime_logits", fmt::format("{:.3g}", worst));
}

// Conversations: only the replies' tokens count, and the run trains.
TEST(LoraTrainer, ConversationsTrainOnReplies) {
    const auto dir = scratch_dir("chat");
    std::filesystem::create_directories(dir);
    {
        std::ofstream out(dir / "chat.jsonl");
        for (int i = 0; i < 40; ++i)
            out << R"({"messages": [{"role": "user", "content": "What is )" << i << R"( plus one?"}, )"
                << R"({"role": "assistant", "content": "It is )" << i + 1 << R"(."}]})" << "\n";
    }
    LoraTrainConfig c;
    c.model = kData / "llm" / "qwen3-f32.gguf";
    c.data = dir / "chat.jsonl";
    c.out_dir = dir / "run";
    c.lora.rank = 4;
    c.lr = 1e-2f;
    c.seq_len = 64;
    c.batch = 4;
    c.steps = 10;
    c.eval_every = 5;
    const gpt::TrainResult r = train_lora(c, {});
    EXPECT_EQ(r.steps, 10);
    EXPECT_TRUE(std::isfinite(r.val_loss));
    EXPECT_TRUE(std::filesystem::exists(c.out_dir / "adapter.gguf"));
}

}  // namespace
}  // namespace forge::llm::lora
