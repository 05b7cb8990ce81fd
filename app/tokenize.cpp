// `forge tokenize MODEL.gguf --text TEXT [--no-special]`: the token ids of TEXT, space-separated
// on one line, exactly as llama.cpp's tokenizer gives them. BOS/EOS are added where the GGUF's
// metadata asks for them (tokenizer.ggml.add_bos_token), like llama-tokenize; special tokens in
// the text ("<|im_start|>") are parsed unless --no-special.
#include "app/commands.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>

namespace forge::app {

namespace {

struct TokenizeOptions {
    std::string model;
    std::string text;
    bool no_special = false;
};

int run_tokenize(const TokenizeOptions& options) {
    const auto file = gguf::GgufFile::open(options.model);
    const auto tokenizer = llm::Tokenizer::from_gguf(file);
    const auto ids = tokenizer.encode(options.text, /*add_special=*/true, /*parse_special=*/!options.no_special);
    fmt::print("{}\n", fmt::join(ids, " "));
    return 0;
}

}  // namespace

void add_tokenize_command(CLI::App& forge, CommandTable& commands) {
    auto options = std::make_shared<TokenizeOptions>();
    CLI::App* command = forge.add_subcommand("tokenize", "Print the token ids of a text (one line, space-separated)");
    command->add_option("model", options->model, "GGUF file with tokenizer metadata")->required()->check(CLI::ExistingFile);
    command->add_option("--text", options->text, "Text to tokenize")->required();
    command->add_flag("--no-special", options->no_special, "Do not parse special tokens such as <|im_start|> in the text");
    commands.add(command, [options] { return run_tokenize(*options); });
}

}  // namespace forge::app
