// `forge embed MODEL.gguf (--text T ... | --file F) [--pooling P] [--no-normalize] [--json]`:
// one vector per input text, as serve's /v1/embeddings gives them. Inputs are the --text
// values, or the lines of a file ("-": standard input), each tokenized as llama-server
// tokenizes an embedding input (BOS/EOS where the file asks, special tokens parsed).
// Vectors are L2-normalised unless --no-normalize (OpenAI and llama-server normalise).
// Plain output: one line per input, the values space-separated; with pooling none, one line
// per token. A reranker (pooling rank) needs --query: each text is a document, and the line
// is its relevance score, sigmoid(logit) as /v1/rerank reports it.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/text_file.h"
#include "core/error.h"
#include "models/llm/embedding_model.h"
#include "models/llm/embedding_math.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace forge::app {

namespace {

struct EmbedOptions {
    std::string model;
    std::vector<std::string> texts;
    std::string file;
    std::string pooling;  // "" : the file's
    std::string query;
    bool normalize = true;
    bool json = false;
    std::int64_t ctx = 4096;
};

// The non-empty lines of a file, or of standard input for "-".
std::vector<std::string> read_lines(const std::string& path) {
    std::string text;
    if (path == "-") {
        std::ostringstream in;
        in << std::cin.rdbuf();
        text = std::move(in).str();
    } else {
        text = read_text_file(path);
    }
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) lines.push_back(std::move(line));
    }
    return lines;
}

// One input's output rows: the pooled vector, or each token's (pooling none).
std::vector<std::vector<float>> output_rows(const llm::EmbeddingModel& model, std::vector<float> values, bool normalize) {
    const auto width = static_cast<std::size_t>(model.n_embd());
    std::vector<std::vector<float>> rows;
    for (std::size_t at = 0; at < values.size(); at += width) {
        std::vector<float> row(values.begin() + static_cast<std::ptrdiff_t>(at),
                               values.begin() + static_cast<std::ptrdiff_t>(at + width));
        if (normalize) llm::normalize_l2(row);
        rows.push_back(std::move(row));
    }
    return rows;
}

int run_embed(const EmbedOptions& o) {
    std::vector<std::string> inputs = o.texts;
    if (!o.file.empty()) inputs = read_lines(o.file);
    check(!inputs.empty(), "embed: no input text (--text, or lines in --file)");
    llm::EmbeddingOptions options;
    if (!o.pooling.empty()) options.pooling = llm::pooling_from_name(o.pooling);
    options.n_ctx = o.ctx;
    const std::unique_ptr<llm::EmbeddingModel> model = llm::load_embedding_model(o.model, options);
    const bool rank = model->pooling() == llm::Pooling::Rank;
    check(!rank || !o.query.empty(), "embed: {} is a reranker (pooling rank): give --query, and the texts are documents",
          o.model);
    check(rank || o.query.empty(), "embed: --query is for rerankers (pooling rank); {} pools {}", o.model,
          llm::pooling_name(model->pooling()));
    nlohmann::json data = nlohmann::json::array();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::vector<std::int32_t> tokens =
            rank ? model->rerank_tokens(o.query, inputs[i]) : model->tokenizer().encode(inputs[i], true, true);
        check(!tokens.empty(), "embed: input {} has no tokens", i);
        std::vector<float> values = model->embed(tokens);
        if (rank) {
            const float score = llm::relevance_score(values.front());
            if (o.json) data.push_back({{"index", i}, {"relevance_score", score}, {"tokens", tokens.size()}});
            else fmt::print("{}\n", score);
            continue;
        }
        const auto rows = output_rows(*model, std::move(values), o.normalize);
        if (o.json) {
            nlohmann::json embedding = model->pooling() == llm::Pooling::None ? nlohmann::json(rows) : nlohmann::json(rows.front());
            data.push_back({{"index", i}, {"embedding", std::move(embedding)}, {"tokens", tokens.size()}});
        } else {
            for (const auto& row : rows) fmt::print("{}\n", fmt::join(row, " "));
        }
    }
    if (o.json) {
        const nlohmann::json out = {{"model", o.model}, {"pooling", llm::pooling_name(model->pooling())},
                                    {"n_embd", model->n_embd()}, {"normalized", o.normalize && !rank}, {"data", std::move(data)}};
        fmt::print("{}\n", out.dump());
    }
    return 0;
}

}  // namespace

void add_embed_command(CLI::App& forge, CommandTable& commands) {
    auto o = std::make_shared<EmbedOptions>();
    CLI::App* command = forge.add_subcommand("embed", "Print the embedding vector of each text (or rerank scores)");
    command->add_option("model", o->model, "GGUF file of an embedding model (Qwen3-Embedding, ...)")->required()->check(input_file());
    auto* text = command->add_option("--text", o->texts, "A text to embed (repeat for several)");
    auto* file = command->add_option("--file", o->file, "Embed each non-empty line of this file ('-': standard input)");
    text->excludes(file);
    command->add_option("--pooling", o->pooling, "Pooling instead of the file's pooling_type")
        ->check(pooling_type());
    command->add_option("--query", o->query, "A reranker's query: the texts are its documents, scored");
    command->add_flag("--normalize,!--no-normalize", o->normalize, "L2-normalise each vector (default on)");
    command->add_flag("--json", o->json, "Print one JSON object instead of one line per vector");
    command->add_option("--ctx", o->ctx, "The most tokens of one input (capped by the trained context)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
    command->callback([text, file] {
        if (text->count() == 0 && file->count() == 0) throw CLI::RequiredError("--text or --file");
    });
    commands.add(command, [o] { return run_embed(*o); });
}

}  // namespace forge::app
