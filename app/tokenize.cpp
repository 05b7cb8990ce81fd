// `forge tokenize MODEL.gguf (--text TEXT | --file FILE) [--no-special] [--count]`: the token
// ids of the text, space-separated on one line, exactly as llama.cpp's tokenizer gives them.
// BOS/EOS are added where the GGUF's metadata asks for them (tokenizer.ggml.add_bos_token),
// like llama-tokenize; special tokens in the text ("<|im_start|>") are parsed unless
// --no-special. --count prints the number of tokens and the bytes per token instead (how
// well a tokenizer compresses a text: compare two tokenizers on the same file).
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/text_file.h"
#include "core/error.h"
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
    std::string file;
    bool no_special = false;
    bool count = false;
};

int run_tokenize(const TokenizeOptions& options) {
    const auto file = gguf::GgufFile::open(options.model);
    const auto tokenizer = llm::Tokenizer::from_gguf(file);
    const std::string text = options.file.empty() ? options.text : read_text_file(options.file);
    const auto ids = tokenizer.encode(text, /*add_special=*/true, /*parse_special=*/!options.no_special);
    if (options.count) {
        fmt::print("{} tokens, {} bytes, {:.4f} bytes per token\n", ids.size(), text.size(),
                   static_cast<double>(text.size()) / static_cast<double>(std::max<std::size_t>(ids.size(), 1)));
    } else {
        fmt::print("{}\n", fmt::join(ids, " "));
    }
    return 0;
}

}  // namespace

void add_tokenize_command(CLI::App& forge, CommandTable& commands) {
    auto options = std::make_shared<TokenizeOptions>();
    CLI::App* command = forge.add_subcommand("tokenize", "Print the token ids of a text (one line, space-separated)");
    command->add_option("model", options->model, "GGUF file with tokenizer metadata")->required()->check(input_file());
    auto* text = command->add_option("--text", options->text, "Text to tokenize");
    auto* file = command->add_option("--file", options->file, "File whose text to tokenize")->check(input_file());
    text->excludes(file);
    command->add_flag("--no-special", options->no_special, "Do not parse special tokens such as <|im_start|> in the text");
    command->add_flag("--count", options->count, "Print the token count and bytes per token instead of the ids");
    command->callback([text, file] {
        if (text->count() == 0 && file->count() == 0) throw CLI::RequiredError("--text or --file");
    });
    commands.add(command, [options] { return run_tokenize(*options); });
}

}  // namespace forge::app
