#include "models/llm/lora/lora_trainer.h"

#include "core/autograd/ag.h"
#include "core/autograd/ops/frozen_linear_cross_entropy.h"
#include "core/buffer_pool.h"
#include "core/checkpoint/atomic_file.h"
#include "core/checkpoint/safetensors.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/single_process.h"
#include "core/error.h"
#include "core/json.h"
#include "core/optim/adam.h"
#include "core/random/counter_rng.h"
#include "models/gpt/conversations.h"
#include "models/gpt/corpus.h"
#include "models/gpt/resume_checks.h"
#include "models/gpt/training_loop.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <numeric>

namespace forge::llm::lora {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kValidationFraction = 0.05;
constexpr const char* kCheckpointFormat = "forge-lora-checkpoint-1";
const std::string kParam = "param.", kOptimizer = "optimizer.";

// Training and held-out rows: inputs and targets [rows, seq_len] i32 (targets kNoTarget where
// not counted), whatever the source.
struct RowSet {
    Tensor inputs, targets;
    std::int64_t rows() const { return inputs.size(0); }
};

// The mean cross-entropy of the model's logits for inputs [B, T] over the counted targets of
// `targets` [B, T], the head multiplied a chunk of rows at a time: the [B*T, V] logits never
// exist whole (ag::frozen_linear_cross_entropy). `observe` sees each chunk's logits.
Tensor mean_target_loss(const LoraModel& model, const Tensor& inputs, const Tensor& targets, std::uint64_t dropout_key,
                        bool training, const ag::LogitsObserver& observe = {}) {
    return ag::frozen_linear_cross_entropy(model.hidden(inputs, dropout_key, training), model.head(),
                                           targets.reshape(Shape{targets.numel()}),
                                           {.ignore_index = gpt::kNoTarget}, observe);
}

// Replies (maximal runs of counted targets in a row) and how many of them greedy decoding
// reproduces exactly: every target the argmax of its position's logits (then greedy decoding,
// fed its own tokens, is fed exactly the reference's).
struct ReplyScore {
    std::int64_t replies = 0, exact = 0;
};

// right[i]: whether position i's target is its logits' argmax (read for counted positions only).
ReplyScore score_replies(const std::vector<bool>& right, const Tensor& targets) {
    ReplyScore out;
    const std::int64_t positions = targets.numel();
    const std::int32_t* t = targets.data<std::int32_t>();
    const std::int64_t row_len = targets.size(1);
    bool in_reply = false, all_right = true;
    for (std::int64_t i = 0; i <= positions; ++i) {
        const bool counted = i < positions && t[i] != gpt::kNoTarget;
        if (in_reply && (!counted || i % row_len == 0)) {  // a reply ends
            ++out.replies;
            out.exact += all_right ? 1 : 0;
            in_reply = false;
        }
        if (!counted) continue;
        if (!in_reply) {
            in_reply = true;
            all_right = true;
        }
        all_right = all_right && right[static_cast<std::size_t>(i)];
    }
    return out;
}

std::string chat_template_of(const gguf::GgufFile& file) {
    const gguf::Value* t = file.find("tokenizer.chat_template");
    check(t != nullptr && t->string() != nullptr && !t->string()->empty(),
          "--model {}: no tokenizer.chat_template to render conversations with (train on plain text with --text)",
          file.source());
    return *t->string();
}

RowSet conversation_rows(const std::vector<gpt::Conversation>& conversations, const gguf::GgufFile& file,
                         const Tokenizer& tokenizer, std::int64_t seq_len) {
    const std::string chat_template = chat_template_of(file);
    std::vector<gpt::TokenizedConversation> tokenized;
    std::vector<std::string> sources;
    for (const gpt::Conversation& c : conversations) {
        tokenized.push_back(gpt::tokenize_conversation(c, chat_template, tokenizer));
        sources.push_back(c.source);
    }
    const std::int32_t pad = tokenizer.bos_id() >= 0 ? tokenizer.bos_id() : 0;
    gpt::PackedRows packed = gpt::pack_conversations(tokenized, sources, seq_len, pad);
    return {std::move(packed.inputs), std::move(packed.targets)};
}

// Windows of seq_len + 1 tokens at multiples of seq_len: every next token is a target.
RowSet text_rows(std::span<const std::int32_t> tokens, std::int64_t seq_len) {
    const auto n = static_cast<std::int64_t>(tokens.size());
    const std::int64_t rows = n > seq_len ? (n - 1) / seq_len : 0;
    RowSet out{Tensor::empty(Shape{rows, seq_len}, DType::I32), Tensor::empty(Shape{rows, seq_len}, DType::I32)};
    for (std::int64_t r = 0; r < rows; ++r) {
        std::copy_n(tokens.data() + r * seq_len, seq_len, out.inputs.data<std::int32_t>() + r * seq_len);
        std::copy_n(tokens.data() + r * seq_len + 1, seq_len, out.targets.data<std::int32_t>() + r * seq_len);
    }
    return out;
}

struct Dataset {
    RowSet train, val;
};

Dataset load_conversations(const LoraTrainConfig& c, const gguf::GgufFile& file, const Tokenizer& tokenizer) {
    std::vector<gpt::Conversation> trained = gpt::read_conversations(c.data);
    std::vector<gpt::Conversation> val;
    if (!c.val_data.empty()) {
        val = gpt::read_conversations(c.val_data);
    } else {
        const auto held =
            std::max<std::size_t>(1, static_cast<std::size_t>(kValidationFraction * static_cast<double>(trained.size())));
        check(trained.size() > held, "--data {}: {} conversation(s) are too few to hold some out (give --val-data)",
              c.data.string(), trained.size());
        val.assign(trained.end() - static_cast<std::ptrdiff_t>(held), trained.end());
        trained.resize(trained.size() - held);
    }
    return {conversation_rows(trained, file, tokenizer, c.seq_len), conversation_rows(val, file, tokenizer, c.seq_len)};
}

Dataset load_text(const LoraTrainConfig& c, const Tokenizer& tokenizer) {
    if (c.val_data.empty()) {
        const std::filesystem::path files[] = {c.data};
        const gpt::Corpus corpus = gpt::load_corpus(files, tokenizer, c.seq_len, kValidationFraction);
        return {text_rows(corpus.train, c.seq_len), text_rows(corpus.val, c.seq_len)};
    }
    const std::filesystem::path train_files[] = {c.data}, val_files[] = {c.val_data};
    const gpt::Corpus train = gpt::load_corpus(train_files, tokenizer, c.seq_len, 0.0);
    const gpt::Corpus val = gpt::load_corpus(val_files, tokenizer, c.seq_len, 0.0);
    std::vector<std::int32_t> all_train = train.train, all_val = val.train;
    all_train.insert(all_train.end(), train.val.begin(), train.val.end());
    all_val.insert(all_val.end(), val.val.begin(), val.val.end());
    return {text_rows(all_train, c.seq_len), text_rows(all_val, c.seq_len)};
}

// What a resumed run must share with the run that wrote the checkpoint.
nlohmann::json run_settings(const LoraTrainConfig& c, std::int64_t steps) {
    return {{"targets", target_names(c.lora.targets)},
            {"rank", c.lora.rank},
            {"alpha", c.lora.alpha},
            {"dropout", c.lora.dropout},
            {"seed", c.lora.seed},
            {"lr", c.lr},
            {"warmup_ratio", c.schedule.warmup_ratio},
            {"warmdown_ratio", c.schedule.warmdown_ratio},
            {"final_lr_frac", c.schedule.final_lr_frac},
            {"weight_decay", c.weight_decay},
            {"seq_len", c.seq_len},
            {"batch", c.batch},
            {"steps", steps},
            {"text", c.text}};
}

class LoraTrainer : public gpt::TrainingSteps {
public:
    LoraTrainer(const LoraTrainConfig& config, const gpt::ReportFn& report, distributed::Communicator& comm)
        : config_(config),
          report_(report),
          comm_(comm),
          rows_per_rank_(gpt::rows_per_rank(config.batch, comm)),
          model_(config.model, config.lora),
          tokenizer_(Tokenizer::from_gguf(model_.file())),
          data_(config.text ? load_text(config, tokenizer_) : load_conversations(config, model_.file(), tokenizer_)),
          optimizer_(model_.params().trainable(), optim::adamw_options(config.lr, config.weight_decay)),
          sync_(comm, model_.params().trainable()) {
        check(config.micro_batch >= 1 && rows_per_rank_ % config.micro_batch == 0,
              "--micro-batch {} does not divide the {} rows of each rank's step (--batch {} over {} rank(s))",
              config.micro_batch, rows_per_rank_, config.batch, comm.size());
        check(data_.train.rows() >= 1, "--data {}: no training row of {} tokens (give more data or a smaller --seq-len)",
              config.data.string(), config.seq_len);
        check(data_.val.rows() >= 1, "no held-out row of {} tokens (give more data, --val-data, or a smaller --seq-len)",
              config.seq_len);
        steps_ = config.steps > 0 ? config.steps
                                  : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(
                                                                  config.epochs * static_cast<double>(data_.train.rows()) /
                                                                  static_cast<double>(config.batch))));
        token_bytes_.resize(static_cast<std::size_t>(tokenizer_.n_vocab()));
        for (std::int32_t id = 0; id < tokenizer_.n_vocab(); ++id)
            token_bytes_[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(tokenizer_.token_to_piece(id).size());
    }

    LoraTrainResult run() {
        std::filesystem::create_directories(config_.out_dir);
        settings_ = run_settings(config_, steps_);
        gpt::TrainingLoop loop = gpt::training_loop_of(config_, steps_, config_.schedule, config_.lr);
        loop.validate_before_training = true;  // step 0: the base model with the untrained (identity) adapter
        if (config_.resume) loop.done = load_checkpoint();
        LoraTrainResult result;
        static_cast<gpt::TrainResult&>(result) = gpt::run_training_loop(*this, loop, comm_, report_);
        result.parameters = model_.params().numel();
        result.val_exact = last_val_exact_;
        if (!comm_.is_root() || result.interrupted) return result;  // an interrupted run writes no adapter
        result.model = config_.out_dir / "adapter.gguf";
        write_lora_adapter(model_.adapter(), result.model.string());
        return result;
    }

private:
    std::filesystem::path checkpoint_path() const { return config_.out_dir / "checkpoint.safetensors"; }

    // Rows [first, first + count) of the run's row sequence (row r = step * batch + i), each
    // epoch in its own seeded order: a pure function of (seed, row).
    void rows(std::int64_t first, std::int64_t count, Tensor& inputs, Tensor& targets) {
        const std::int64_t n = data_.train.rows(), t = config_.seq_len;
        inputs = Tensor::empty(Shape{count, t}, DType::I32);
        targets = Tensor::empty(Shape{count, t}, DType::I32);
        for (std::int64_t i = 0; i < count; ++i) {
            const std::int64_t row = first + i, epoch = row / n;
            if (epoch != epoch_) {
                order_ = gpt::epoch_order(config_.lora.seed, epoch, n);
                epoch_ = epoch;
            }
            const std::int64_t source = order_[static_cast<std::size_t>(row % n)];
            std::copy_n(data_.train.inputs.data<std::int32_t>() + source * t, t, inputs.data<std::int32_t>() + i * t);
            std::copy_n(data_.train.targets.data<std::int32_t>() + source * t, t, targets.data<std::int32_t>() + i * t);
        }
    }

    // One AdamW step over `batch` rows, of which this rank trains rows_per_rank_ (its micro-
    // batches are the step's comm.rank() * micro_steps ... onwards, dropout keyed by that global
    // index). Each micro-batch's mean loss is weighted by its share of the counted targets of
    // the whole step on all ranks, so the gradients summed over micro-batches and then over the
    // ranks (in rank order) are those of the step's mean loss.
    double train_step(std::int64_t step, float lr_multiplier, gpt::StepReport& r) override {
        optimizer_.zero_grad();
        const std::int64_t micro_steps = rows_per_rank_ / config_.micro_batch;
        const std::int64_t first_micro = comm_.rank() * micro_steps;
        std::vector<Tensor> inputs(static_cast<std::size_t>(micro_steps)), targets(inputs.size());
        std::vector<std::int64_t> counted(inputs.size());
        for (std::int64_t m = 0; m < micro_steps; ++m) {
            rows(step * config_.batch + (first_micro + m) * config_.micro_batch, config_.micro_batch, inputs[m],
                 targets[m]);
            counted[m] = gpt::counted_targets(targets[m]);
        }
        double all_targets = static_cast<double>(std::accumulate(counted.begin(), counted.end(), std::int64_t{0}));
        comm_.sum_in_rank_order(std::span<double>(&all_targets, 1));  // exact: integers far below 2^53
        const auto step_targets = static_cast<std::int64_t>(all_targets);
        double loss_sum = 0.0;
        for (std::int64_t m = 0; m < micro_steps; ++m) {
            if (counted[m] == 0) continue;
            const float share = static_cast<float>(counted[m]) / static_cast<float>(step_targets);
            const std::uint64_t key = random::stream_key(config_.lora.seed, 0x10a4, static_cast<std::uint64_t>(step),
                                                         static_cast<std::uint64_t>(first_micro + m));
            const Tensor loss = mean_target_loss(model_, inputs[m], targets[m], key, /*training=*/true);
            // The forward's temporaries (freed, cached by the pool for reuse) make no room for the
            // backward's gradients, which have other sizes: give them back first, so that the
            // peak is the saved activations and one pass's gradients.
            BufferPool::global().trim();
            const bool last = m + 1 == micro_steps;
            ag::backward(counted[m] == step_targets ? loss : ag::mul(loss, share), {},
                         last ? sync_.on_final_gradient() : ag::FinalGradientFn{});
            loss_sum += static_cast<double>(loss.item()) * share;
        }
        // A step without a counted target on any rank has no gradient anywhere: every rank
        // knows it from the sum above and skips the exchange alike.
        if (step_targets > 0) sync_.finish();
        comm_.sum_in_rank_order(std::span<double>(&loss_sum, 1));
        const auto optimizer_start = Clock::now();
        optimizer_.set_lr(config_.lr * lr_multiplier);
        optimizer_.step();
        r.optimizer_s = std::chrono::duration<double>(Clock::now() - optimizer_start).count();
        if (comm_.size() > 1) {
            r.allreduce_s = sync_.reduce_seconds();
            r.allreduce_exposed_s = sync_.exposed_seconds();
        }
        BufferPool::global().trim();
        return loss_sum;
    }

    // Mean loss per counted held-out target (nats), and bits per byte of their text.
    void validate(gpt::StepReport& r) override {
        ag::NoGradScope no_grad;
        double nats = 0.0, bytes = 0.0;
        std::int64_t counted_all = 0, replies = 0, exact = 0;
        for (std::int64_t first = 0; first < data_.val.rows(); first += config_.micro_batch) {
            const std::int64_t count = std::min(config_.micro_batch, data_.val.rows() - first);
            const Tensor in = data_.val.inputs.narrow(0, first, count).contiguous();
            const Tensor tg = data_.val.targets.narrow(0, first, count).contiguous();
            const std::int64_t counted = gpt::counted_targets(tg);
            if (counted == 0) continue;
            const std::int32_t* ids = tg.data<std::int32_t>();
            std::vector<bool> right(static_cast<std::size_t>(tg.numel()));
            const auto argmax_is_target = [&](std::span<const std::int64_t> rows, const Tensor& logits) {
                const std::int64_t vocab = logits.size(1);
                for (std::size_t r = 0; r < rows.size(); ++r) {
                    const float* row = logits.data<float>() + static_cast<std::int64_t>(r) * vocab;
                    right[static_cast<std::size_t>(rows[r])] = std::max_element(row, row + vocab) - row == ids[rows[r]];
                }
            };
            const Tensor loss = mean_target_loss(model_, in, tg, 0, /*training=*/false, argmax_is_target);
            const ReplyScore score = score_replies(right, tg);
            replies += score.replies;
            exact += score.exact;
            nats += static_cast<double>(loss.item()) * static_cast<double>(counted);
            counted_all += counted;
            for (std::int64_t i = 0; i < tg.numel(); ++i)
                if (ids[i] != gpt::kNoTarget) bytes += token_bytes_[static_cast<std::size_t>(ids[i])];
        }
        r.val_loss = counted_all > 0 ? nats / static_cast<double>(counted_all) : 0.0;
        r.val_bpb = bytes > 0.0 ? nats / (std::log(2.0) * bytes) : 0.0;
        last_val_exact_ = replies > 0 ? static_cast<double>(exact) / static_cast<double>(replies) : 0.0;
    }

    void add_log_fields(const gpt::StepReport& r, nlohmann::json& line) override {
        if (r.val_loss) line["val_exact"] = last_val_exact_;
    }

    void save_checkpoint(std::int64_t step) override {
        checkpoint::TensorMap all;
        for (const auto& [name, t] : model_.params().state_dict()) all[kParam + name] = t;
        const optim::OptimizerState state = optimizer_.state();
        for (const auto& [name, t] : state.tensors) all[kOptimizer + name] = t;
        checkpoint::write_safetensors(checkpoint_path(), all,
                                      {{"format", kCheckpointFormat},
                                       {"step", std::to_string(step)},
                                       {"optimizer_step", std::to_string(state.step)},
                                       {"settings", settings_.dump()}});
    }

    // Restores the factors and AdamW's state; returns the step the checkpoint was taken after.
    std::int64_t load_checkpoint() {
        const std::filesystem::path path = checkpoint_path();
        check(std::filesystem::exists(path), "--resume: no checkpoint at {}", path.string());
        checkpoint::Metadata m;
        const checkpoint::TensorMap all = checkpoint::read_safetensors(path, &m);
        if (m["format"] != kCheckpointFormat) fail_format("{}: not a {} file", path.string(), kCheckpointFormat);
        const nlohmann::json saved =
            parse_json(std::string_view(m["settings"]), path.string() + ": metadata 'settings'", kMaxDocumentDepth);
        if (!saved.is_object() || !saved.contains("steps") || !saved["steps"].is_number_integer() ||
            saved["steps"].get<std::int64_t>() < 1)
            fail_format("{}: metadata 'settings': expected an object with a positive integer \"steps\"", path.string());
        gpt::check_same_settings(saved, settings_, path);
        checkpoint::TensorMap params;
        optim::OptimizerState state{count_of(m, "optimizer_step", path), {}};
        for (const auto& [name, t] : all) {
            if (name.rfind(kParam, 0) == 0) params[name.substr(kParam.size())] = t;
            if (name.rfind(kOptimizer, 0) == 0) state.tensors[name.substr(kOptimizer.size())] = t;
        }
        model_.params().load_state_dict(params, path.string());
        optimizer_.load_state(state);
        const std::int64_t done = count_of(m, "step", path);
        gpt::check_same_schedule(saved, config_.schedule, steps_, done, path);
        return done;
    }

    static std::int64_t count_of(checkpoint::Metadata& m, const std::string& key, const std::filesystem::path& path) {
        const std::string& text = m[key];
        std::int64_t value = -1;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < 0)
            fail_format("{}: metadata '{}' is not a count: \"{}\"", path.string(), key, text);
        return value;
    }

    LoraTrainConfig config_;
    gpt::ReportFn report_;
    distributed::Communicator& comm_;
    std::int64_t rows_per_rank_;
    LoraModel model_;
    Tokenizer tokenizer_;
    Dataset data_;
    optim::Adam optimizer_;
    distributed::GradientSync sync_;
    std::int64_t steps_ = 0;
    nlohmann::json settings_;  // what a resumed run must share with this one
    std::vector<std::int32_t> token_bytes_;
    std::int64_t epoch_ = -1;
    std::vector<std::int64_t> order_;
    double last_val_exact_ = 0.0;  // of the last validation
};

}  // namespace

double loss_and_gradients(const LoraModel& model, const Tensor& inputs, const Tensor& targets,
                          std::uint64_t dropout_key) {
    const Tensor loss = mean_target_loss(model, inputs, targets, dropout_key, /*training=*/true);
    ag::backward(loss);
    return static_cast<double>(loss.item());
}

LoraTrainResult train_lora(const LoraTrainConfig& config, const gpt::ReportFn& report, distributed::Communicator& comm) {
    check(std::filesystem::is_regular_file(config.model), "--model {}: no such GGUF", config.model.string());
    checkpoint::check_not_an_input(config.out_dir / "adapter.gguf", {config.model});
    return LoraTrainer(config, report, comm).run();
}

LoraTrainResult train_lora(const LoraTrainConfig& config, const gpt::ReportFn& report) {
    distributed::SingleProcess one;
    return train_lora(config, report, one);
}

}  // namespace forge::llm::lora
