#include "models/gpt/sft.h"

#include "core/checkpoint/atomic_file.h"
#include "core/distributed/single_process.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "models/gpt/conversations.h"
#include "models/gpt/corpus.h"
#include "models/gpt/evaluate.h"
#include "models/llm/hparams.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <cmath>

namespace forge::gpt {
namespace {

constexpr double kValidationFraction = 0.05;

// The GptConfig the GGUF was exported with (export_gguf.h), or an error naming what differs.
GptConfig gpt_config_of(const gguf::GgufFile& file) {
    const llm::Hparams h = llm::read_hparams(file);
    GptConfig c;
    c.depth = h.n_layer;
    c.vocab = h.n_vocab;
    c.context = h.n_ctx_train;
    c.head_dim = h.head_dim;
    c.rope_base = h.rope.theta_base;
    c.norm_eps = h.rms_eps;
    const bool same_shape = h.arch == llm::Arch::Qwen3 && h.n_embd == c.width() && h.n_ff == c.ff_hidden() &&
                            h.n_head == h.n_head_kv && h.n_head * h.head_dim == h.n_embd;
    check(same_shape,
          "--model {}: not a GPT that `forge train gpt` exported (architecture {}, width {}, depth {}, feed-forward {}); "
          "SFT continues forge's own GPTs", file.source(), h.arch_name, h.n_embd, h.n_layer, h.n_ff);
    return c;
}

std::string chat_template_of(const gguf::GgufFile& file) {
    const gguf::Value* t = file.find("tokenizer.chat_template");
    check(t != nullptr && t->string() != nullptr && !t->string()->empty(),
          "--model {}: no tokenizer.chat_template to render conversations with (train the tokenizer with "
          "`forge train tokenizer`, which writes one)", file.source());
    return *t->string();
}

struct TokenizedSet {
    std::vector<TokenizedConversation> conversations;
    std::vector<std::string> sources;
};

TokenizedSet tokenize_all(std::span<const Conversation> conversations, std::string_view chat_template,
                          const llm::Tokenizer& tokenizer) {
    TokenizedSet out;
    for (const Conversation& c : conversations) {
        out.conversations.push_back(tokenize_conversation(c, chat_template, tokenizer));
        out.sources.push_back(c.source);
    }
    return out;
}

class SftData final : public TrainingData {
public:
    SftData(PackedRows train, PackedRows val, TokenizedConversation sample, const llm::Tokenizer& tokenizer,
            std::uint64_t seed, int sample_tokens)
        : train_(std::move(train)), val_(std::move(val)), sample_(std::move(sample)), tokenizer_(tokenizer),
          seed_(seed), sample_tokens_(sample_tokens) {}

    std::int64_t train_rows() const { return train_.rows(); }

    void rows(std::int64_t first, std::int64_t count, Tensor& inputs, Tensor& targets) override {
        const std::int64_t n = train_.rows(), seq_len = train_.inputs.size(1);
        inputs = Tensor::empty({count, seq_len}, DType::I32);
        targets = Tensor::empty({count, seq_len}, DType::I32);
        for (std::int64_t r = 0; r < count; ++r) {
            const std::int64_t row = first + r, epoch = row / n;
            if (epoch != epoch_) {
                order_ = epoch_order(seed_, epoch, n);
                epoch_ = epoch;
            }
            const std::int64_t source = order_[static_cast<std::size_t>(row % n)];
            std::copy_n(train_.inputs.data<std::int32_t>() + source * seq_len, seq_len,
                        inputs.data<std::int32_t>() + r * seq_len);
            std::copy_n(train_.targets.data<std::int32_t>() + source * seq_len, seq_len,
                        targets.data<std::int32_t>() + r * seq_len);
        }
    }

    void validate(const GptModel& model, std::int64_t micro_batch, StepReport& r) override {
        std::vector<std::int32_t> token_bytes(static_cast<std::size_t>(tokenizer_.n_vocab()));
        for (std::int32_t id = 0; id < tokenizer_.n_vocab(); ++id) {
            token_bytes[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(tokenizer_.token_to_piece(id).size());
        }
        const HeldOutScore score = score_rows(model, val_.inputs, val_.targets, token_bytes, micro_batch);
        r.val_loss = score.loss;
        r.val_bpb = score.bits_per_byte;
        r.sample = greedy_reply(model);
    }

private:
    // The model's greedy reply to the first held-out conversation's prompt, up to its end of turn.
    std::string greedy_reply(const GptModel& model) const {
        const std::vector<std::int32_t> prompt(sample_.tokens.begin(), sample_.tokens.begin() + sample_.prompt_tokens);
        std::vector<std::int32_t> reply = greedy_continuation(model, prompt, sample_tokens_);
        const auto end = std::find_if(reply.begin(), reply.end(),
                                      [&](std::int32_t id) { return tokenizer_.is_end_of_generation(id); });
        reply.erase(end, reply.end());
        return tokenizer_.decode(prompt, /*special=*/true) + tokenizer_.decode(reply);
    }

    PackedRows train_, val_;
    TokenizedConversation sample_;
    const llm::Tokenizer& tokenizer_;
    std::uint64_t seed_;
    int sample_tokens_;
    std::int64_t epoch_ = -1;
    std::vector<std::int64_t> order_;
};

TrainResult evaluate_only(GptConfig model_config, const std::filesystem::path& base, SftData& data,
                          const TrainConfig& t) {
    model_config.context = t.seq_len;
    GptModel model(model_config, t.seed);
    model.params().load_gguf(gguf::GgufFile::open(base.string()));
    StepReport r;
    data.validate(model, t.micro_batch > 0 ? t.micro_batch : t.batch, r);
    TrainResult result;
    result.parameters = model.params().numel();
    result.val_loss = *r.val_loss;
    result.val_bpb = *r.val_bpb;
    result.model = base;
    return result;
}

// The run writes OUT/model.gguf, OUT/checkpoint.safetensors and OUT/log.jsonl. `--model RUN
// --out RUN` would replace the base model and its pretraining run's checkpoint and log:
// refused before anything is read, as every writer refuses to replace its input.
void check_not_the_base_run(const std::filesystem::path& out_dir, const std::filesystem::path& base) {
    std::error_code error;
    const bool same_folder = std::filesystem::equivalent(out_dir, base.parent_path().empty() ? "." : base.parent_path(), error);
    check(!same_folder, "refusing to write the run into {}: it is the folder of the base model {} (give another --out)",
          out_dir.string(), base.string());
    checkpoint::check_not_an_input(out_dir / "model.gguf", {base});
}

}  // namespace

std::filesystem::path sft_base_model(const std::filesystem::path& model) {
    return std::filesystem::is_directory(model) ? model / "model.gguf" : model;
}

TrainResult train_sft(SftConfig config, const ReportFn& report, distributed::Communicator& comm) {
    check(config.epochs > 0.0 && config.epochs <= kMaxEpochs, "--epochs {}: must be in (0, {}]", config.epochs, kMaxEpochs);
    const std::filesystem::path base = sft_base_model(config.model);
    check(std::filesystem::is_regular_file(base), "--model {}: no such GGUF (give a model.gguf or a run folder)",
          base.string());
    if (!config.eval_only) check_not_the_base_run(config.train.out_dir, base);
    const gguf::GgufFile file = gguf::GgufFile::open(base.string());
    const GptConfig model = gpt_config_of(file);
    const std::string chat_template = chat_template_of(file);
    const llm::Tokenizer tokenizer = llm::Tokenizer::from_gguf(file);

    TrainConfig& t = config.train;
    t.tokenizer = base;  // the export copies its tokenizer.* keys, chat template included
    t.depth = model.depth;
    t.head_dim = model.head_size();
    if (t.seq_len == 0) t.seq_len = model.context;

    std::vector<Conversation> trained = read_conversations(config.data);
    std::vector<Conversation> val;
    if (!config.val_data.empty()) {
        val = read_conversations(config.val_data);
    } else {
        const auto held =
            std::max<std::size_t>(1, static_cast<std::size_t>(kValidationFraction * static_cast<double>(trained.size())));
        check(trained.size() > held, "--data {}: {} conversation(s) are too few to hold some out (give --val-data)",
              config.data.string(), trained.size());
        val.assign(trained.end() - static_cast<std::ptrdiff_t>(held), trained.end());
        trained.resize(trained.size() - held);
    }
    const TokenizedSet train_set = tokenize_all(trained, chat_template, tokenizer);
    const TokenizedSet val_set = tokenize_all(val, chat_template, tokenizer);
    const std::int32_t pad = tokenizer.bos_id() >= 0 ? tokenizer.bos_id() : 0;
    PackedRows train_rows = pack_conversations(train_set.conversations, train_set.sources, t.seq_len, pad);
    PackedRows val_rows = pack_conversations(val_set.conversations, val_set.sources, t.seq_len, pad);

    t.steps = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(config.epochs * static_cast<double>(train_rows.rows()) / static_cast<double>(t.batch))));
    auto data = std::make_unique<SftData>(std::move(train_rows), std::move(val_rows), val_set.conversations.front(),
                                          tokenizer, t.seed, t.sample_tokens);
    if (config.eval_only) return evaluate_only(model, base, *data, t);
    RunStart start;
    start.data = std::move(data);
    start.init_weights = base;
    start.model_name = fmt::format("forge-gpt-d{}-sft", model.depth);
    return train(t, std::move(start), report, comm);
}

TrainResult train_sft(SftConfig config, const ReportFn& report) {
    distributed::SingleProcess one;
    return train_sft(std::move(config), report, one);
}

}  // namespace forge::gpt
