// The models one `forge serve` offers: GGUF files named on the command line (-m, the positional
// MODEL) or found in --models-dir, each with the id a request's `model` names it by.
//
// Ids: a file given by -m or as MODEL keeps today's name, the file name ("qwen3.gguf"; --alias
// renames a single model); a file found in --models-dir is named by its stem ("qwen3"), as
// llama-server's router names them. A request may name a model by its id, its file name or
// its stem. Two models answering to one name are refused at startup.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace forge::app::serve {

struct ModelSource {
    std::string id;
    std::string path;
    std::uint64_t bytes = 0;  // the file's size: what --models-memory counts

    // Whether a request's `model` names this one (by id, file name or stem).
    bool answers_to(std::string_view name) const;
};

// The sources for `files` (in order) and then the *.gguf files of `dir` (sorted; "" for none).
// `alias` renames the only model and is refused with more than one. Throws forge::Error for a
// file or folder that cannot be read, a folder with no GGUF file, or a name two models share.
std::vector<ModelSource> find_model_sources(const std::vector<std::string>& files, const std::string& dir,
                                            const std::string& alias);

}  // namespace forge::app::serve
