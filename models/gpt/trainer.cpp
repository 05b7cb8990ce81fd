#include "models/gpt/trainer.h"

#include "core/autograd/ag.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/single_process.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "models/gpt/export_gguf.h"
#include "models/gpt/gpt_model.h"
#include "models/gpt/pretraining_data.h"
#include "models/gpt/resume_checks.h"
#include "models/gpt/run_checkpoint.h"
#include "models/gpt/training_loop.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <string>

namespace forge::gpt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kActivationBudgetBytes = 2.0 * (1 << 30);

// Rough bytes of saved activations per row of T tokens (attention scores, the block's
// intermediates, the logits and their gradient), to pick a micro-batch that fits.
double activation_bytes_per_row(const GptConfig& c) {
    const double t = static_cast<double>(c.context), d = static_cast<double>(c.width());
    const double per_layer = t * (16.0 * d + 4.0 * static_cast<double>(c.ff_hidden())) +
                             3.0 * t * t * static_cast<double>(c.n_head());
    return 4.0 * (static_cast<double>(c.depth) * per_layer + 3.0 * t * static_cast<double>(c.vocab));
}

// Rows per forward/backward out of the `rows` of one rank's step.
std::int64_t choose_micro_batch(const TrainConfig& config, const GptConfig& model, std::int64_t rows) {
    if (config.micro_batch > 0) {
        check(rows % config.micro_batch == 0, "--micro-batch {} does not divide the {} rows of each rank's step",
              config.micro_batch, rows);
        return config.micro_batch;
    }
    std::int64_t micro = rows;
    while (micro % 2 == 0 && static_cast<double>(micro) * activation_bytes_per_row(model) > kActivationBudgetBytes) {
        micro /= 2;
    }
    return micro;
}

std::int64_t total_steps(const TrainConfig& config, std::int64_t parameters) {
    const std::int64_t step_tokens = config.batch * config.seq_len;
    if (config.steps > 0) return config.steps;
    const std::int64_t tokens = config.tokens > 0 ? config.tokens : 20 * parameters;
    return std::max<std::int64_t>(1, (tokens + step_tokens - 1) / step_tokens);
}

// What a resumed run must share with the run that wrote the checkpoint.
nlohmann::json run_settings(const TrainConfig& c, const GptConfig& model, std::int64_t steps) {
    return {{"depth", c.depth},       {"head_dim", model.head_size()}, {"seq_len", c.seq_len},
            {"batch", c.batch},       {"steps", steps},                {"seed", c.seed},
            {"vocab", model.vocab},   {"matrix_lr", c.optimizer.matrix_lr},
            {"embedding_lr", c.optimizer.embedding_lr}, {"unembedding_lr", c.optimizer.unembedding_lr}};
}

// The run's matmul precision: --precision, else the checkpoint's when resuming (`saved`, where a
// checkpoint from before the setting existed gets "f32", the only precision then), else f32.
MatmulPrecision run_precision(const TrainConfig& c, nlohmann::json* saved, const std::filesystem::path& path) {
    if (saved == nullptr) return c.precision.value_or(MatmulPrecision::f32);
    if (!saved->contains("precision")) (*saved)["precision"] = matmul_precision_name(MatmulPrecision::f32);
    const auto& name = (*saved)["precision"];
    const auto stored = name.is_string() ? matmul_precision_named(name.get<std::string>()) : std::nullopt;
    check(stored.has_value(), "--resume: {} is damaged: precision {} is neither \"f32\" nor \"bf16\"", path.string(),
          name.dump());
    return c.precision.value_or(*stored);
}

class Trainer : public TrainingSteps {
public:
    Trainer(const TrainConfig& config, RunStart start, const ReportFn& report, distributed::Communicator& comm)
        : config_(config),
          report_(report),
          comm_(comm),
          rows_per_rank_(rows_per_rank(config.batch, comm)),
          tokenizer_file_(gguf::GgufFile::open(config.tokenizer.string())),
          tokenizer_(llm::Tokenizer::from_gguf(tokenizer_file_)),
          model_config_(make_model_config()),
          model_(model_config_, config.seed),
          steps_(total_steps(config, model_.params().numel())),
          optimizer_(model_, config.optimizer, config.batch * config.seq_len, steps_),
          data_(std::move(start.data)),
          model_name_(std::move(start.model_name)),
          micro_batch_(choose_micro_batch(config, model_config_, rows_per_rank_)),
          sync_(comm, model_.params().trainable()) {
        check(config.batch >= 1, "--batch {}: must be at least 1", config.batch);
        check(config.eval_every >= 1 && config.checkpoint_every >= 1, "--eval-every and --checkpoint-every must be >= 1");
        if (!start.init_weights.empty()) model_.params().load_gguf(gguf::GgufFile::open(start.init_weights.string()));
    }

    TrainResult run() {
        std::filesystem::create_directories(config_.out_dir);
        settings_ = run_settings(config_, model_config_, steps_);
        TrainingLoop loop = training_loop_of(config_, steps_, config_.optimizer.schedule, optimizer_.matrix_lr());
        nlohmann::json saved;
        if (config_.resume) saved = read_checkpoint_settings(checkpoint_path());
        precision_ = run_precision(config_, config_.resume ? &saved : nullptr, checkpoint_path());
        settings_["precision"] = matmul_precision_name(precision_);
        if (config_.resume) {
            check_same_settings(saved, settings_, checkpoint_path());
            loop.done = load_run_checkpoint(checkpoint_path(), model_, optimizer_);
            check_same_schedule(saved, config_.optimizer.schedule, steps_, loop.done, checkpoint_path());
        }
        TrainResult result = run_training_loop(*this, loop, comm_, report_);
        result.parameters = model_.params().numel();
        if (!comm_.is_root() || result.interrupted) return result;  // an interrupted run is not exported
        result.model = config_.out_dir / "model.gguf";
        export_gguf(model_, tokenizer_file_, model_name_, result.model);
        return result;
    }

private:
    GptConfig make_model_config() const {
        GptConfig c;
        c.depth = config_.depth;
        c.vocab = tokenizer_.n_vocab();
        c.context = config_.seq_len;
        c.head_dim = config_.head_dim;
        c.validate();
        return c;
    }

    std::filesystem::path checkpoint_path() const { return config_.out_dir / "checkpoint.safetensors"; }

    // One optimizer step over `batch` rows (this rank's share of them); returns the mean loss
    // over the step's counted targets. Each micro-batch's mean loss is weighted by its share of
    // the counted targets of the whole step on all ranks, so the gradients summed over
    // micro-batches and ranks are those of the step's mean loss (1 / all micro-batches each when
    // every target counts, as in pretraining).
    // (The optimizer applies the schedule's multiplier itself.)
    double train_step(std::int64_t step, float /*lr_multiplier*/, StepReport& r) override {
        optimizer_.zero_grad();
        const std::int64_t micro_steps = rows_per_rank_ / micro_batch_;
        const std::int64_t first_row = step * config_.batch + comm_.rank() * rows_per_rank_;
        std::vector<Tensor> inputs(static_cast<std::size_t>(micro_steps)), targets(inputs.size());
        std::vector<std::int64_t> counted(inputs.size());
        for (std::int64_t m = 0; m < micro_steps; ++m) {
            data_->rows(first_row + m * micro_batch_, micro_batch_, inputs[m], targets[m]);
            counted[m] = counted_targets(targets[m]);
        }
        double all_targets = static_cast<double>(std::accumulate(counted.begin(), counted.end(), std::int64_t{0}));
        comm_.sum_in_rank_order(std::span<double>(&all_targets, 1));  // exact: integers far below 2^53
        const auto step_targets = static_cast<std::int64_t>(all_targets);
        double loss_sum = 0.0;
        for (std::int64_t m = 0; m < micro_steps; ++m) {
            const ag::AutocastScope autocast(precision_);  // forward and backward; not the optimizer
            const Tensor logits = model_.forward(inputs[m]);
            const Tensor loss = ag::cross_entropy(
                ag::reshape(logits, Shape{micro_batch_ * config_.seq_len, model_config_.vocab}),
                targets[m].reshape(Shape{micro_batch_ * config_.seq_len}));
            const float share = step_targets == 0 ? 0.0f
                                                  : static_cast<float>(counted[m]) / static_cast<float>(step_targets);
            const bool last = m + 1 == micro_steps;
            ag::backward(counted[m] == step_targets ? loss : ag::mul(loss, share), {},
                         last ? sync_.on_final_gradient() : ag::FinalGradientFn{});
            loss_sum += static_cast<double>(loss.item()) * share;
        }
        sync_.finish();
        comm_.sum_in_rank_order(std::span<double>(&loss_sum, 1));
        const auto optimizer_start = Clock::now();
        r.grad_norm = optimizer_.step(step);
        r.optimizer_s = std::chrono::duration<double>(Clock::now() - optimizer_start).count();
        if (comm_.size() > 1) {
            r.allreduce_s = sync_.reduce_seconds();
            r.allreduce_exposed_s = sync_.exposed_seconds();
        }
        return loss_sum;
    }

    void validate(StepReport& r) override { data_->validate(model_, micro_batch_, r); }

    void save_checkpoint(std::int64_t steps_done) override {
        save_run_checkpoint(checkpoint_path(), model_, optimizer_, steps_done, settings_);
    }

    void add_log_fields(const StepReport& r, nlohmann::json& line) override {
        line["grad_norm"] = r.grad_norm;
    }

    TrainConfig config_;
    ReportFn report_;
    distributed::Communicator& comm_;
    std::int64_t rows_per_rank_;
    gguf::GgufFile tokenizer_file_;
    llm::Tokenizer tokenizer_;
    GptConfig model_config_;
    GptModel model_;
    std::int64_t steps_;
    GptOptimizer optimizer_;
    std::unique_ptr<TrainingData> data_;
    std::string model_name_;
    std::int64_t micro_batch_;
    distributed::GradientSync sync_;
    nlohmann::json settings_;  // what a resumed run must share with this one
    MatmulPrecision precision_ = MatmulPrecision::f32;
};

}  // namespace

TrainResult train(const TrainConfig& config, RunStart start, const ReportFn& report, distributed::Communicator& comm) {
    return Trainer(config, std::move(start), report, comm).run();
}

TrainResult train(const TrainConfig& config, RunStart start, const ReportFn& report) {
    distributed::SingleProcess one;
    return train(config, std::move(start), report, one);
}

TrainResult train_gpt(const TrainConfig& config, const ReportFn& report, distributed::Communicator& comm) {
    check(!config.data.empty(), "--data: give at least one text file");
    check(!config.tokenizer.empty(), "--tokenizer: give a GGUF with tokenizer.ggml.* keys");
    const auto tokenizer = llm::Tokenizer::from_gguf(gguf::GgufFile::open(config.tokenizer.string()));
    RunStart start;
    start.data = std::make_unique<PretrainingData>(config, tokenizer);
    start.model_name = fmt::format("forge-gpt-d{}", config.depth);
    return train(config, std::move(start), report, comm);
}

TrainResult train_gpt(const TrainConfig& config, const ReportFn& report) {
    distributed::SingleProcess one;
    return train_gpt(config, report, one);
}

}  // namespace forge::gpt
