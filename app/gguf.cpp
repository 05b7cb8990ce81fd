// `forge gguf info FILE [--json]`: what a GGUF file holds — its metadata (long arrays
// summarized), a table of its tensors and the totals. The table prints shapes in ggml's order
// (ne[0] first) as llama.cpp's tools do; the JSON's "shape" is forge's order (outermost first,
// as Tensor::shape()) and its "ne" ggml's.
#include "app/cli_checks.h"
#include "app/commands.h"
#include "core/gguf/gguf_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>

#include <map>
#include <string>

namespace forge::app {

namespace {

constexpr std::size_t kJsonArrayItems = 16;  // arrays longer than this are summarized

nlohmann::ordered_json to_json(const gguf::Value& value) {
    return std::visit(
        [](const auto& v) -> nlohmann::ordered_json {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, gguf::Array>) {
                nlohmann::ordered_json items = nlohmann::ordered_json::array();
                for (std::size_t i = 0; i < v.items.size() && i < kJsonArrayItems; ++i) items.push_back(to_json(v.items[i]));
                if (v.items.size() <= kJsonArrayItems) return items;
                return {{"type", fmt::format("array[{}]", gguf::value_type_name(v.element_type))},
                        {"length", v.items.size()},
                        {"first", items}};
            } else {
                return v;
            }
        },
        value.storage());
}

std::string human_bytes(std::uint64_t bytes) {
    if (bytes >= (1ull << 30)) return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1ull << 30));
    if (bytes >= (1ull << 20)) return fmt::format("{:.2f} MiB", static_cast<double>(bytes) / (1ull << 20));
    if (bytes >= (1ull << 10)) return fmt::format("{:.2f} KiB", static_cast<double>(bytes) / (1ull << 10));
    return fmt::format("{} B", bytes);
}

struct Totals {
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    std::map<std::string, int> tensors_per_type;
};

Totals totals_of(const gguf::GgufFile& file) {
    Totals totals;
    for (const auto& info : file.tensors()) {
        totals.elements += static_cast<std::uint64_t>(info.numel());
        totals.bytes += info.nbytes;
        ++totals.tensors_per_type[std::string(dtype_name(info.dtype))];
    }
    return totals;
}

void print_json(const gguf::GgufFile& file) {
    const Totals totals = totals_of(file);
    nlohmann::ordered_json out;
    out["file"] = file.source();
    out["version"] = file.version();
    out["alignment"] = file.alignment();
    out["data_offset"] = file.data_offset();
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
    for (const auto& kv : file.metadata()) metadata[kv.key] = to_json(kv.value);
    out["metadata"] = metadata;
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const auto& info : file.tensors()) {
        tensors.push_back({{"name", info.name}, {"type", std::string(dtype_name(info.dtype))},
                           {"shape", info.shape().span()}, {"ne", info.dims}, {"bytes", info.nbytes}, {"offset", info.offset}});
    }
    out["tensors"] = tensors;
    out["totals"] = {{"tensors", file.tensors().size()}, {"elements", totals.elements}, {"bytes", totals.bytes},
                     {"tensors_per_type", totals.tensors_per_type}};
    fmt::print("{}\n", out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

void print_text(const gguf::GgufFile& file) {
    const Totals totals = totals_of(file);
    fmt::print("{}: GGUF v{}, alignment {}, {} metadata entries, {} tensors\n\n", printable(file.source()), file.version(),
               file.alignment(), file.metadata().size(), file.tensors().size());
    fmt::print("metadata:\n");
    for (const auto& kv : file.metadata()) {
        fmt::print("  {:<40} {:<7} {}\n", printable(kv.key), gguf::value_type_name(kv.value.type()),
                   printable(kv.value.to_string()));
    }
    std::size_t name_width = 4;
    for (const auto& info : file.tensors()) name_width = std::max(name_width, info.name.size());
    // Shapes in ggml's order, ne[0] (the row length) first, as llama.cpp's tools and forge quantize print them.
    fmt::print("\ntensors:\n  {:<{}} {:<8} {:<22} {:>12}\n", "name", name_width, "type", "shape (ne0 first)", "bytes");
    for (const auto& info : file.tensors()) {
        fmt::print("  {:<{}} {:<8} {:<22} {:>12}\n", printable(info.name), name_width, dtype_name(info.dtype), info.dims_text(),
                   info.nbytes);
    }
    fmt::print("\ntotals: {} tensors, {} elements, {} ({} bytes)\n", file.tensors().size(), totals.elements,
               human_bytes(totals.bytes), totals.bytes);
    for (const auto& [type, count] : totals.tensors_per_type) fmt::print("  {:<8} {} tensors\n", type, count);
}

}  // namespace

void add_gguf_command(CLI::App& forge, CommandTable& commands) {
    CLI::App* gguf = forge.add_subcommand("gguf", "Inspect GGUF files");
    gguf->require_subcommand(1);
    CLI::App* info = gguf->add_subcommand("info", "Print a GGUF file's metadata and tensor table");
    struct Options {
        std::string path;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    info->add_option("FILE", options->path, "GGUF file")->required();
    info->add_flag("--json", options->json, "Print JSON instead of text");
    commands.add(info, [options] {
        const auto file = gguf::GgufFile::open(options->path);
        if (options->json) print_json(file);
        else print_text(file);
        return 0;
    });
}

}  // namespace forge::app
