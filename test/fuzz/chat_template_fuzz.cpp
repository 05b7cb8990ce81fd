// libFuzzer target for chat templates: the input is a template, then (after a NUL byte) the
// bytes that pick a conversation. Parse and render must give text or throw forge::Error —
// never crash, overflow the stack, hit undefined behaviour or run without bound.
#include "core/error.h"
#include "models/llm/chat_template/chat_template.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

// A conversation from bytes: each byte picks a role and a length of content.
std::vector<forge::llm::ChatMessage> conversation(std::string_view bytes) {
    static const char* const roles[] = {"system", "user", "assistant", "tool", "x"};
    std::vector<forge::llm::ChatMessage> messages;
    for (std::size_t i = 0; i < bytes.size() && messages.size() < 8; ++i) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        const std::size_t length = std::min<std::size_t>(b >> 3, bytes.size() - i - 1);
        messages.push_back({roles[b % 5], std::string(bytes.substr(i + 1, length)),
                            (b & 4) != 0 ? std::string("thinking") : std::string()});
        i += length;
    }
    return messages;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t split = std::min(input.find('\0'), input.size());
    const std::string_view source = input.substr(0, split);
    const auto messages = conversation(split < input.size() ? input.substr(split + 1) : std::string_view());
    forge::llm::ChatOptions options;
    options.add_generation_prompt = size % 2 == 0;
    if (size % 3 == 0) options.enable_thinking = size % 5 == 0;
    options.bos_token = "<s>";
    options.eos_token = "</s>";
    try {
        if (!source.empty()) (void)forge::llm::render_chat(source, messages, options);
    } catch (const forge::Error&) {
        // The expected outcome for a template that is wrong or does something unsupported.
    }
    return 0;
}
