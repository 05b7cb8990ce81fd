#include "app/serve/model_source.h"

#include "core/error.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace forge::app::serve {

namespace fs = std::filesystem;

namespace {

std::uint64_t file_bytes(const fs::path& path, std::string_view flag) {
    std::error_code error;
    check(fs::is_regular_file(path, error), "{} {}: not a readable file", flag, path.string());
    const std::uintmax_t bytes = fs::file_size(path, error);
    check(!error, "{} {}: cannot read its size: {}", flag, path.string(), error.message());
    return bytes;
}

std::vector<fs::path> gguf_files_in(const std::string& dir) {
    std::error_code error;
    check(fs::is_directory(dir, error), "--models-dir {}: not a folder", dir);
    std::vector<fs::path> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
        if (entry.path().extension() == ".gguf" && entry.is_regular_file()) files.push_back(entry.path());
    }
    check(!error, "--models-dir {}: cannot list it: {}", dir, error.message());
    check(!files.empty(), "--models-dir {}: no *.gguf file in it", dir);
    std::ranges::sort(files);
    return files;
}

// Each name a model answers to belongs to that model alone.
void check_names_unique(const std::vector<ModelSource>& sources) {
    for (std::size_t i = 0; i < sources.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            const ModelSource& a = sources[j];
            const ModelSource& b = sources[i];
            const std::string stem = fs::path(b.path).stem().string();
            const std::string name = fs::path(b.path).filename().string();
            check(!a.answers_to(b.id) && !a.answers_to(stem) && !a.answers_to(name),
                  "two models answer to one name: {} ({}) and {} ({}); rename a file or serve one of them", a.id, a.path,
                  b.id, b.path);
        }
    }
}

}  // namespace

bool ModelSource::answers_to(std::string_view name) const {
    const fs::path file(path);
    return name == id || name == file.filename().string() || name == file.stem().string();
}

std::vector<ModelSource> find_model_sources(const std::vector<std::string>& files, const std::string& dir,
                                            const std::string& alias) {
    std::vector<ModelSource> sources;
    for (const std::string& file : files) {
        sources.push_back({fs::path(file).filename().string(), file, file_bytes(file, "--model")});
    }
    if (!dir.empty()) {
        for (const fs::path& file : gguf_files_in(dir)) {
            sources.push_back({file.stem().string(), file.string(), file_bytes(file, "--models-dir")});
        }
    }
    check(!sources.empty(), "no model to serve: give a GGUF file, -m FILE or --models-dir DIR");
    if (!alias.empty()) {
        check(sources.size() == 1, "--alias names the only model; with {} models their ids are their file names", sources.size());
        sources.front().id = alias;
    }
    check_names_unique(sources);
    return sources;
}

}  // namespace forge::app::serve
