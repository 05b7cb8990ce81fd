#include "app/serve/stream_writer.h"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <vector>

namespace forge::app::serve {

namespace {

using namespace std::chrono_literals;

// How long the writer waits for a piece before it looks at the request and the socket again.
constexpr auto kPoll = 10ms;

class ChunkWriter final : public StreamEvents {
public:
    ChunkWriter(ResponseMeta meta, bool include_usage, bool logprobs, const llm::Tokenizer& tokenizer)
        : meta_(std::move(meta)), include_usage_(include_usage), logprobs_wanted_(logprobs), tokenizer_(tokenizer) {}

    std::string begin() override {  // chat's first chunk: the role, no text yet (completions have no role chunk)
        if (meta_.endpoint != Endpoint::ChatCompletions) return {};
        ChunkParts parts;
        parts.first = true;
        return send(parts);
    }

    // Log-probabilities wait for the text of their tokens.
    std::string pieces(const llm::AnswerPiece& parsed, std::span<const llm::TokenLogprob> logprobs) override {
        logprobs_.insert(logprobs_.end(), logprobs.begin(), logprobs.end());
        if (parsed.empty()) return {};
        ChunkParts parts;
        parts.reasoning = parsed.reasoning;
        parts.text = parsed.content;
        parts.tool_calls = parsed.tool_calls;
        return send(parts);
    }

    std::string finish(const llm::RequestResult& result, bool made_calls) override {
        ChunkParts parts;
        parts.finish = result.stats.finish;
        parts.made_calls = made_calls;
        std::string out = send(parts);
        if (include_usage_) out += sse_event(usage_chunk_json(meta_, result.stats));
        out += kSseDone;
        return out;
    }

    std::string failure(const ApiError& error) override { return sse_event(error.body()); }

private:
    std::string send(ChunkParts parts) {
        if (logprobs_wanted_ && (!parts.text.empty() || !parts.reasoning.empty() || !parts.tool_calls.empty() || parts.finish)) {
            parts.logprobs = logprobs_json(meta_.endpoint, logprobs_, tokenizer_, offset_);
            logprobs_.clear();
        }
        offset_ += parts.text.size();
        parts.usage_field = include_usage_;
        return sse_event(chunk_json(meta_, parts));
    }

    ResponseMeta meta_;
    bool include_usage_;
    bool logprobs_wanted_;
    const llm::Tokenizer& tokenizer_;
    std::vector<llm::TokenLogprob> logprobs_;
    std::size_t offset_ = 0;  // bytes of text sent (completions' text_offset)
};

// The end of the answer: what the splitter held back, then the closing events.
std::string closing(const RunningRequest& request, const llm::RequestResult& result, StreamEvents& events) {
    std::string out = events.pieces(request.answer->finish(), {});
    out += events.finish(result, !request.answer->calls().empty());
    return out;
}

}  // namespace

std::string sse_named_event(std::string_view name, const nlohmann::json& data) {
    return fmt::format("event: {}\ndata: {}\n\n", name, dump(data));
}

std::unique_ptr<StreamEvents> make_chunk_writer(ResponseMeta meta, bool include_usage, bool logprobs, const llm::Tokenizer& tokenizer) {
    return std::make_unique<ChunkWriter>(std::move(meta), include_usage, logprobs, tokenizer);
}

void write_events(const RunningRequest& request, StreamEvents& events, Metrics* metrics,
                  const std::function<bool(std::string_view)>& write, const std::function<bool()>& alive) {
    const auto send = [&](const std::string& bytes) { return bytes.empty() || write(bytes); };
    const auto gone = [&] {
        request.stream->client_gone();
        request.handle->cancel();
        if (metrics) metrics->record_finished(request.handle->wait().stats);
    };
    if (!send(events.begin())) return gone();
    while (true) {
        // Everything the request streamed is in the stream before it is done, so a take after
        // seeing it done gets the last pieces.
        const bool done = request.handle->done();
        const RequestStream::Output out = request.stream->take(done ? 0ms : kPoll);
        if (!out.empty() && !send(events.pieces(request.answer->push(out.text), out.logprobs))) return gone();
        if (done) break;
        if (!alive()) return gone();
    }
    const llm::RequestResult result = request.handle->wait();
    if (metrics) metrics->record_finished(result.stats);
    if (!result.error.empty()) {
        send(events.failure(ApiError(500, result.error, "server_error")));
        return;
    }
    if (result.stats.finish == llm::FinishReason::Cancelled) {  // the server is shutting down
        send(events.failure(ApiError(503, "The server is shutting down; the answer is incomplete", "unavailable_error", {},
                                     "server_shutdown")));
        return;
    }
    send(closing(request, result, events));
}

void replay_events(const RunningRequest& request, const llm::RequestResult& result, StreamEvents& events) {
    events.begin();
    events.pieces(request.answer->push(result.text), {});
    closing(request, result, events);
}

}  // namespace forge::app::serve
