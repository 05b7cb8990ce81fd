// What a chat template may use. A template is code inside a downloaded file, so rendering it
// must end, in bounded memory, on any input: nesting that would overflow the stack, loops
// that would run for hours and strings that would fill the memory become an Error naming
// the template position instead. Real templates stay far below every limit (the deepest
// nesting in the Qwen3, Llama 3, Gemma and Mistral templates is under 20; a long
// conversation renders to well under 1 MiB, a 128k-token context to about 0.5 MiB); Python's Jinja stops at its recursion limit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace forge::llm::jinja {

inline constexpr int kMaxSyntaxDepth = 200;          // nested (), [], {}, operators and blocks
inline constexpr int kMaxCallDepth = 400;            // evaluation depth, macro calls included
inline constexpr int kMaxValueDepth = 200;           // lists and dicts inside lists and dicts
inline constexpr std::int64_t kMaxSteps = 2'000'000;  // statements, expressions and loop iterations
inline constexpr std::size_t kMaxTextBytes = std::size_t{16} << 20;  // any string, the output included
inline constexpr std::int64_t kMaxListItems = std::int64_t{1} << 22;  // range() and list building

// Counts one level of nesting for as long as it lives; `exceeded` says whether the count
// went past the limit (the caller throws with its own position).
class DepthGuard {
public:
    DepthGuard(int& depth, int limit) : depth_(depth), exceeded_(++depth > limit) {}
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    bool exceeded() const { return exceeded_; }

private:
    int& depth_;
    bool exceeded_;
};

}  // namespace forge::llm::jinja
