#include "models/llm/tool_calls/tool_call_parser.h"

#include <algorithm>

namespace forge::llm::tool_calls {

namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";
constexpr std::string_view kPythonTag = "<|python_tag|>";

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// How many bytes at the end of `text` could be the start of `marker` (held back until known).
std::size_t partial_marker(std::string_view text, std::string_view marker) {
    for (std::size_t n = std::min(text.size(), marker.size() - 1); n > 0; --n) {
        if (text.substr(text.size() - n) == marker.substr(0, n)) return n;
    }
    return 0;
}

}  // namespace

ToolCallParser::ToolCallParser(ToolFormat format, std::string id_prefix) : format_(format), id_prefix_(std::move(id_prefix)) {}

ParsedOutput ToolCallParser::push(std::string_view piece) {
    ParsedOutput out;
    pending_ += piece;
    for (bool progress = true; progress;) {
        const std::size_t before = pending_.size();
        const bool was_in_call = in_call_;
        if (in_call_) scan_call(out);
        else scan_content(out, false);
        progress = in_call_ != was_in_call || (pending_.size() != before && !pending_.empty());
    }
    return out;
}

void ToolCallParser::scan_content(ParsedOutput& out, bool final) {
    if (format_ == ToolFormat::Llama3Json && !llama_content_) {
        // The answer is a call when it opens with '{' (after spaces and Llama's <|python_tag|>).
        // After a call, "; " may lead to the next one.
        std::size_t start = 0;
        while (start < pending_.size() && (is_space(pending_[start]) || (llama_decided_ && pending_[start] == ';'))) ++start;
        std::string_view rest = std::string_view(pending_).substr(start);
        if (rest.substr(0, kPythonTag.size()) == kPythonTag) {
            start += kPythonTag.size();
            while (start < pending_.size() && is_space(pending_[start])) ++start;
            rest = std::string_view(pending_).substr(start);
        }
        const bool maybe_tag = !rest.empty() && kPythonTag.substr(0, rest.size()) == rest;
        if ((rest.empty() || maybe_tag) && !final) return;  // not known yet
        if (!rest.empty() && rest[0] == '{') {
            pending_.erase(0, start);
            in_call_ = true;
            scanner_.emplace();
            call_text_.clear();
            call_announced_ = false;
            return;
        }
        if (llama_decided_ && rest.empty()) {  // spaces after a call: nothing more
            if (final) pending_.clear();
            return;
        }
        llama_content_ = true;
        llama_decided_ = true;
    }
    if (format_ == ToolFormat::Llama3Json) {
        out.content += pending_;
        pending_.clear();
        return;
    }
    if (after_call_ && !hold_spaces_after_call(final)) return;
    drop_stray_closes();
    const std::size_t open = pending_.find(kOpen);
    if (open != std::string::npos) {
        out.content += pending_.substr(0, open);
        pending_.erase(0, open + kOpen.size());
        in_call_ = true;
        scanner_.emplace();
        call_text_.clear();
        call_announced_ = false;
        return;
    }
    const std::size_t keep = final ? 0 : std::max(partial_marker(pending_, kOpen), partial_marker(pending_, kClose));
    out.content += pending_.substr(0, pending_.size() - keep);
    pending_.erase(0, pending_.size() - keep);
}

// Hermes, after a call: spaces and line ends are held until what follows is known. Before
// another call (parallel calls, one per line) or at the end they are dropped: they are layout,
// not content. Returns whether scanning may go on.
bool ToolCallParser::hold_spaces_after_call(bool final) {
    std::size_t spaces = 0;
    while (spaces < pending_.size() && is_space(pending_[spaces])) ++spaces;
    const std::string_view rest = std::string_view(pending_).substr(spaces);
    if (rest.empty()) {
        if (final) pending_.clear();
        return false;
    }
    if (rest.substr(0, kOpen.size()) == kOpen) {
        pending_.erase(0, spaces);
        return true;
    }
    if (!final && kOpen.substr(0, rest.size()) == rest) return false;  // maybe the next call's tag
    after_call_ = false;  // text follows: the spaces belong to it
    return true;
}

// A "</tool_call>" outside a call is markup with nothing to close: never content.
void ToolCallParser::drop_stray_closes() {
    for (std::size_t at = pending_.find(kClose); at != std::string::npos; at = pending_.find(kClose, at)) {
        if (pending_.find(kOpen) < at) return;  // belongs after a call that opens first
        pending_.erase(at, kClose.size());
    }
}

void ToolCallParser::scan_call(ParsedOutput& out) {
    if (format_ == ToolFormat::Hermes) {
        const std::size_t close = pending_.find(kClose);
        const std::size_t usable = close != std::string::npos ? close : pending_.size() - partial_marker(pending_, kClose);
        for (std::size_t i = 0; i < usable; ++i) scanner_->push(pending_[i]);
        call_text_ += pending_.substr(0, usable);
        pending_.erase(0, usable);
        emit_call_progress(out);
        if (close != std::string::npos) {
            pending_.erase(0, kClose.size());
            close_call(out);
        }
        return;
    }
    // Llama3Json: the call ends with its object; then ';' or spaces may lead to another.
    std::size_t used = 0;
    while (used < pending_.size() && !scanner_->done()) {
        scanner_->push(pending_[used]);
        call_text_ += pending_[used++];
    }
    pending_.erase(0, used);
    emit_call_progress(out);
    if (scanner_->done()) {
        close_call(out);
        llama_decided_ = true;
    }
}

void ToolCallParser::emit_call_progress(ParsedOutput& out) {
    if (!scanner_->has_name()) return;
    const int index = static_cast<int>(calls_.size());
    if (!call_announced_) {
        out.tool_calls.push_back({index, id_prefix_ + std::to_string(index), scanner_->name(), ""});
        call_announced_ = true;
    }
    std::string fresh = scanner_->take_arguments();
    if (fresh.empty()) return;
    if (!out.tool_calls.empty() && out.tool_calls.back().index == index) out.tool_calls.back().arguments += fresh;
    else out.tool_calls.push_back({index, "", "", std::move(fresh)});
}

void ToolCallParser::close_call(ParsedOutput& out) {
    in_call_ = false;
    if (!scanner_->has_name()) {  // not a call after all: the text (without the markup) is content
        out.content += call_text_;
        if (format_ == ToolFormat::Llama3Json) llama_content_ = true;
        scanner_.reset();
        return;
    }
    emit_call_progress(out);
    const int index = static_cast<int>(calls_.size());
    std::string arguments = scanner_->arguments();
    if (!scanner_->has_arguments()) {  // a call without arguments: "{}" as OpenAI sends it
        arguments = "{}";
        if (!out.tool_calls.empty() && out.tool_calls.back().index == index) out.tool_calls.back().arguments += arguments;
        else out.tool_calls.push_back({index, "", "", arguments});
    }
    calls_.push_back({id_prefix_ + std::to_string(index), scanner_->name(), std::move(arguments)});
    scanner_.reset();
    after_call_ = format_ == ToolFormat::Hermes;
}

ParsedOutput ToolCallParser::finish() {
    ParsedOutput out = push("");
    if (in_call_) {
        for (char c : pending_) scanner_->push(c);
        call_text_ += pending_;
        pending_.clear();
        // Cut short (max_tokens, a full context): a call whose object never closed has broken
        // JSON. It is no call (not in calls()) and no content: finish_reason "length" says why.
        // After "<tool_call>" anything is a call; a Llama answer only once it names a function.
        const bool cut = !scanner_->done() && (format_ == ToolFormat::Hermes || scanner_->has_name());
        if (cut) {
            in_call_ = false;
            cut_call_ = true;
            scanner_.reset();
        } else {
            close_call(out);
        }
    }
    scan_content(out, true);
    if (!pending_.empty() && !in_call_) {
        out.content += pending_;
        pending_.clear();
    }
    return out;
}

}  // namespace forge::llm::tool_calls
