// `forge train tokenizer --data FILE... --vocab-size N --out tok.gguf [--pre NAME] [--json]`:
// trains a byte-level BPE tokenizer on text files (models/llm/tokenizer/bpe_trainer.h) and
// writes it as a vocabulary-only GGUF that `forge tokenize`, `forge train gpt --tokenizer`
// and llama.cpp read. Each file is one document; special tokens are nanochat's chat tokens.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/progress_bar.h"
#include "app/text_file.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "models/llm/tokenizer/bpe_trainer.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace forge::app {
namespace {

struct TrainTokenizerArgs {
    std::vector<std::string> data;
    std::int32_t vocab_size = 0;
    std::string out;
    std::string pre = "llama-bpe";
    bool json = false;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run_train_tokenizer(const TrainTokenizerArgs& args) {
    const auto start = std::chrono::steady_clock::now();
    llm::WordCounts words(args.pre);
    for (const std::string& path : args.data) checkpoint::check_not_an_input(args.out, {path});
    for (const std::string& path : args.data) words.add(read_text_file(path));
    check(words.total_bytes() > 0, "--data: the files hold no text");
    const double count_seconds = seconds_since(start);
    spdlog::info("{} file(s): {:.1f} MB, {} words ({} distinct) in {:.1f}s", args.data.size(),
                 static_cast<double>(words.total_bytes()) / 1e6, words.total_words(), words.distinct_words(), count_seconds);

    ProgressBar bar("vocabulary", "tokens");
    const llm::TrainedTokenizer trained = llm::train_bpe_tokenizer(
        words, args.vocab_size, [&](const llm::BpeTrainingProgress& p) { bar.update(p.tokens, args.vocab_size); });
    bar.finish();
    trained.to_gguf().write(args.out);
    const double seconds = seconds_since(start);

    // Bytes per token on the training text, from the tokenizer as `forge tokenize` builds it.
    const std::int64_t tokens = llm::count_tokens(llm::Tokenizer(trained.vocab()), words);
    const double bytes_per_token = static_cast<double>(words.total_bytes()) / static_cast<double>(std::max<std::int64_t>(tokens, 1));
    if (args.json) {
        const nlohmann::json out = {{"out", args.out},
                                    {"vocab_size", trained.vocab_size()},
                                    {"merges", trained.bpe.merges.size()},
                                    {"pre_tokenizer", trained.pre_tokenizer},
                                    {"bytes", words.total_bytes()},
                                    {"words", words.total_words()},
                                    {"tokens", tokens},
                                    {"bytes_per_token", bytes_per_token},
                                    {"seconds", seconds}};
        fmt::print("{}\n", out.dump());
    } else {
        fmt::print("{}: {} tokens ({} merges, pre-tokenizer {}), {:.2f} bytes per token on the training text, {:.1f}s\n",
                   args.out, trained.vocab_size(), trained.bpe.merges.size(), trained.pre_tokenizer, bytes_per_token,
                   seconds);
    }
    return 0;
}

}  // namespace

void add_train_tokenizer_command(CLI::App& train, CommandTable& commands) {
    auto args = std::make_shared<TrainTokenizerArgs>();
    CLI::App* command = train.add_subcommand("tokenizer", "Byte-level BPE tokenizer from text files, as a vocabulary-only GGUF");
    command->add_option("--data", args->data, "Text files (UTF-8), each one document")->required()->check(input_file());
    command->add_option("--vocab-size", args->vocab_size, "Tokens in all: 256 bytes, the merges and 5 special tokens")
        ->required()
        ->check(CLI::Range(llm::kSmallestVocabulary, llm::kLargestVocabulary));
    command->add_option("--out", args->out, "Output GGUF (written atomically)")->required();
    command->add_option("--pre", args->pre,
                        "Split regex, by llama.cpp's name: llama-bpe (GPT-4's: digits in groups of 1-3), "
                        "qwen2 (single digits), gpt-2")
        ->check(CLI::IsMember({"llama-bpe", "qwen2", "gpt-2"}))
        ->capture_default_str();
    command->add_flag("--json", args->json, "Print one JSON object with the result");
    commands.add(command, [args] { return run_train_tokenizer(*args); });
}

}  // namespace forge::app
