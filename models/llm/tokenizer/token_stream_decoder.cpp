#include "models/llm/tokenizer/token_stream_decoder.h"

#include "models/llm/tokenizer/tokenizer.h"
#include "models/llm/tokenizer/utf8.h"

namespace forge::llm {

std::string TokenStreamDecoder::push(std::int32_t id) {
    return push_bytes(tokenizer_->token_to_piece(id, special_));
}

std::string TokenStreamDecoder::push_bytes(std::string_view bytes) {
    pending_.append(bytes);
    const std::size_t keep = utf8::incomplete_tail(pending_);
    // A sequence broken in the middle (a lead byte followed by ASCII, a stray continuation
    // byte) will never complete: it is printed as U+FFFD, so every chunk is valid UTF-8.
    std::string ready = utf8::sanitize(std::string_view(pending_).substr(0, pending_.size() - keep));
    pending_.erase(0, pending_.size() - keep);
    return ready;
}

std::string TokenStreamDecoder::flush() {
    // Bytes that never completed a character (at most one truncated sequence is held): one
    // U+FFFD, as a UTF-8 decoder with errors="replace" prints for a truncated sequence.
    std::string out = pending_.empty() ? std::string() : std::string("\xEF\xBF\xBD");
    pending_.clear();
    return out;
}

}  // namespace forge::llm
