#include "models/llm/tool_calls/harmony_parser.h"

#include <algorithm>
#include <array>

namespace forge::llm::tool_calls {

namespace {

constexpr std::string_view kMessage = "<|message|>";
constexpr std::string_view kChannel = "<|channel|>";
constexpr std::string_view kRecipient = "to=";
constexpr std::string_view kFunctions = "functions.";

// What a header may open with: the reply starts right after "<|start|>assistant", so its first
// header is "<|channel|>..." or " to=functions...".
constexpr std::array<std::string_view, 4> kHeaderOpeners = {"<|start|>", "<|channel|>", " to=", "to="};

// Where a body ends. The first three belong to the message; "<|start|>" opens the next one.
struct BodyEnd {
    std::string_view text;
    bool consumed;
};
constexpr std::array<BodyEnd, 4> kBodyEnds = {{{"<|end|>", true}, {"<|call|>", true}, {"<|return|>", true}, {"<|start|>", false}}};

// A header longer than this without "<|message|>" is not one (the reply ignores the format).
constexpr std::size_t kMaxHeader = 256;

bool could_be_header(std::string_view text) {
    return std::any_of(kHeaderOpeners.begin(), kHeaderOpeners.end(),
                       [&](std::string_view opener) { return text.starts_with(opener) || opener.starts_with(text); });
}

bool is_markup(std::string_view text) {
    return text.starts_with("<|") || std::any_of(kHeaderOpeners.begin(), kHeaderOpeners.end(),
                                                 [&](std::string_view opener) { return text.starts_with(opener); });
}

// How many bytes at the end of `text` may be the start of a body end still being streamed.
std::size_t held_tail(std::string_view text) {
    std::size_t held = 0;
    for (const BodyEnd& end : kBodyEnds) {
        for (std::size_t n = std::min(text.size(), end.text.size() - 1); n > held; --n) {
            if (text.ends_with(end.text.substr(0, n))) {
                held = n;
                break;
            }
        }
    }
    return held;
}

// The word after `key` in a header ("analysis", "functions.get_weather"), up to a space or a token.
std::string_view word_after(std::string_view header, std::string_view key) {
    const auto at = header.find(key);
    if (at == std::string_view::npos) return {};
    const std::string_view rest = header.substr(at + key.size());
    return rest.substr(0, rest.find_first_of(" <"));
}

}  // namespace

bool is_harmony_template(std::string_view chat_template) {
    return chat_template.find("<|channel|>") != std::string_view::npos &&
           chat_template.find("<|message|>") != std::string_view::npos;
}

HarmonyParser::HarmonyParser(std::string id_prefix) : id_prefix_(std::move(id_prefix)) {}

HarmonyOutput HarmonyParser::push(std::string_view piece) {
    HarmonyOutput out;
    pending_.append(piece);
    scan(out, false);
    return out;
}

HarmonyOutput HarmonyParser::finish() {
    HarmonyOutput out;
    scan(out, true);
    return out;
}

void HarmonyParser::scan(HarmonyOutput& out, bool final) {
    for (;;) {
        const bool progressed = state_ == State::Header ? read_header(out, final) : read_body(out, final);
        if (!progressed) return;
    }
}

bool HarmonyParser::read_header(HarmonyOutput& out, bool final) {
    const auto end = pending_.find(kMessage);
    if (end != std::string::npos && end <= kMaxHeader) {
        open_message(std::string_view(pending_).substr(0, end), out);
        pending_.erase(0, end + kMessage.size());
        state_ = State::Body;
        return true;
    }
    if (could_be_header(pending_) && pending_.size() <= kMaxHeader) {
        if (!final) return false;
        // At the end: a header cut short is markup, not text; "t" (maybe "to=") was text.
        if (is_markup(pending_)) {
            pending_.clear();
            return false;
        }
    }
    route_ = Route::Content;  // no header: plain text
    state_ = State::Body;
    not_a_header_ = true;
    return true;
}

bool HarmonyParser::read_body(HarmonyOutput& out, bool final) {
    std::size_t first = std::string::npos;
    const BodyEnd* found = nullptr;
    for (const BodyEnd& end : kBodyEnds) {
        // After a "header" that was none (too long), its "<|start|>" is text, else this would not move.
        const auto at = pending_.find(end.text, !end.consumed && not_a_header_ ? 1 : 0);
        if (at < first) first = at, found = &end;
    }
    not_a_header_ = false;
    if (found != nullptr) {
        emit(std::string_view(pending_).substr(0, first), out);
        pending_.erase(0, first + (found->consumed ? found->text.size() : 0));
        state_ = State::Header;
        return true;
    }
    const std::size_t keep = final ? 0 : held_tail(pending_);
    emit(std::string_view(pending_).substr(0, pending_.size() - keep), out);
    pending_.erase(0, pending_.size() - keep);
    return false;
}

void HarmonyParser::open_message(std::string_view header, HarmonyOutput& out) {
    const std::string_view recipient = word_after(header, kRecipient);
    if (!recipient.empty() && recipient != "assistant" && recipient != "user") {
        route_ = Route::Call;
        const int index = static_cast<int>(calls_.size());
        std::string name(recipient.starts_with(kFunctions) ? recipient.substr(kFunctions.size()) : recipient);
        calls_.push_back({id_prefix_ + std::to_string(index), name, ""});
        out.tool_calls.push_back({index, calls_.back().id, std::move(name), ""});
        return;
    }
    route_ = word_after(header, kChannel) == "analysis" ? Route::Thinking : Route::Content;
}

void HarmonyParser::emit(std::string_view text, HarmonyOutput& out) {
    if (text.empty()) return;
    switch (route_) {
        case Route::Thinking: out.thinking.append(text); return;
        case Route::Content: out.content.append(text); return;
        case Route::Call: break;
    }
    const int index = static_cast<int>(calls_.size()) - 1;
    calls_.back().arguments.append(text);
    // One arguments delta per push: a call's first delta carries only its id and name.
    if (!out.tool_calls.empty() && out.tool_calls.back().index == index && out.tool_calls.back().name.empty()) {
        out.tool_calls.back().arguments.append(text);
    } else {
        out.tool_calls.push_back({index, "", "", std::string(text)});
    }
}

}  // namespace forge::llm::tool_calls
