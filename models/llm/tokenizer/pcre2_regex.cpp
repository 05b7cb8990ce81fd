#include "models/llm/tokenizer/pcre2_regex.h"

#include "core/error.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace forge::llm {

struct Pcre2Regex::Compiled {
    pcre2_code* code = nullptr;
    ~Compiled() { pcre2_code_free(code); }
};

namespace {

struct MatchData {
    pcre2_match_data* data;
    explicit MatchData(const pcre2_code* code) : data(pcre2_match_data_create_from_pattern(code, nullptr)) {
        if (data == nullptr) throw std::bad_alloc();
    }
    ~MatchData() { pcre2_match_data_free(data); }
    MatchData(const MatchData&) = delete;
    MatchData& operator=(const MatchData&) = delete;
};

std::string pcre2_message(int code) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(code, buffer, sizeof buffer);
    return reinterpret_cast<const char*>(buffer);
}

}  // namespace

Pcre2Regex::Pcre2Regex(std::string pattern) : pattern_(std::move(pattern)), compiled_(std::make_unique<Compiled>()) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern_.data()), pattern_.size(),
                                    PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (compiled_->code == nullptr) {
        fail("regex {:?} at offset {}: {}", pattern_, offset, pcre2_message(error));
    }
    // JIT is an optimization only: where the platform lacks it, the interpreter runs.
    pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE);
}

Pcre2Regex::Pcre2Regex(Pcre2Regex&&) noexcept = default;
Pcre2Regex& Pcre2Regex::operator=(Pcre2Regex&&) noexcept = default;
Pcre2Regex::~Pcre2Regex() = default;

void Pcre2Regex::split(std::string_view text, std::vector<std::string_view>& pieces) const {
    MatchData match(compiled_->code);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    std::size_t done = 0;  // end of the last piece emitted
    std::size_t at = 0;
    while (at < text.size()) {
        // The input was sanitized to valid UTF-8 once, so skip PCRE2's per-call check.
        const int rc = pcre2_match(compiled_->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK, match.data, nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) fail("regex {:?}: matching failed: {}", pattern_, pcre2_message(rc));
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.data);
        const std::size_t begin = ovector[0], end = ovector[1];
        if (begin > done) pieces.push_back(text.substr(done, begin - done));  // unmatched run
        if (end > begin) {
            pieces.push_back(text.substr(begin, end - begin));
            done = end;
            at = end;
        } else {
            // An empty match (none of the tokenizer patterns has one): step one character on.
            at = begin + 1;
            while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
        }
    }
    if (done < text.size()) pieces.push_back(text.substr(done));
}

}  // namespace forge::llm
