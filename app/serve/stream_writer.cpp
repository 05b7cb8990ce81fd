#include "app/serve/stream_writer.h"

#include "app/serve/api_error.h"

#include <chrono>
#include <optional>
#include <vector>

namespace forge::app::serve {

namespace {

using namespace std::chrono_literals;

// How long the writer waits for a piece before it looks at the request and the socket again.
constexpr auto kPoll = 10ms;

class ChunkWriter {
public:
    ChunkWriter(const StreamContext& context, const std::function<bool(std::string_view)>& write)
        : c_(context), write_(write) {}

    bool role() {  // chat's first chunk: the role, no text yet (completions have no role chunk)
        if (c_.meta.endpoint != Endpoint::ChatCompletions) return true;
        ChunkParts parts;
        parts.first = true;
        return send(parts);
    }

    // Text as it arrives; log-probabilities wait for the text of their tokens.
    bool text(RequestStream::Output out) {
        logprobs_.insert(logprobs_.end(), out.logprobs.begin(), out.logprobs.end());
        if (out.text.empty()) return true;
        if (c_.tool_calls) return parsed(c_.tool_calls->push(out.text));
        ChunkParts parts;
        parts.text = out.text;
        return send(parts);
    }

    bool finish(const llm::GenerationStats& stats) {
        bool made_calls = false;
        if (c_.tool_calls) {
            if (!parsed(c_.tool_calls->finish())) return false;
            made_calls = !c_.tool_calls->calls().empty();
        }
        ChunkParts parts;
        parts.finish = stats.finish;
        parts.made_calls = made_calls;
        if (!send(parts)) return false;
        if (c_.include_usage && !write_(sse_event(usage_chunk_json(c_.meta, stats)))) return false;
        return write_(kSseDone);
    }

private:
    // What the tool-call parser let through: content text, then call deltas.
    bool parsed(const llm::tool_calls::ParsedOutput& out) {
        if (out.empty()) return true;
        ChunkParts parts;
        parts.text = out.content;
        parts.tool_calls = out.tool_calls;
        return send(parts);
    }

    bool send(ChunkParts parts) {
        if (c_.logprobs && (!parts.text.empty() || !parts.tool_calls.empty() || parts.finish)) {
            parts.logprobs = logprobs_json(c_.meta.endpoint, logprobs_, *c_.tokenizer, offset_);
            logprobs_.clear();
        }
        offset_ += parts.text.size();
        parts.usage_field = c_.include_usage;
        return write_(sse_event(chunk_json(c_.meta, parts)));
    }

    const StreamContext& c_;
    const std::function<bool(std::string_view)>& write_;
    std::vector<llm::TokenLogprob> logprobs_;
    std::size_t offset_ = 0;  // bytes of text sent (completions' text_offset)
};

}  // namespace

void write_stream(const StreamContext& c, const std::function<bool(std::string_view)>& write, const std::function<bool()>& alive) {
    ChunkWriter chunks(c, write);
    const auto gone = [&] {
        c.stream->client_gone();
        c.handle->cancel();
        if (c.metrics) c.metrics->record_finished(c.handle->wait().stats);
    };
    if (!chunks.role()) return gone();
    while (true) {
        // Everything the request streamed is in the stream before it is done, so a take after
        // seeing it done gets the last pieces.
        const bool done = c.handle->done();
        if (!chunks.text(c.stream->take(done ? 0ms : kPoll))) return gone();
        if (done) break;
        if (!alive()) return gone();
    }
    const llm::RequestResult result = c.handle->wait();
    if (c.metrics) c.metrics->record_finished(result.stats);
    if (!result.error.empty()) {
        write(sse_event(error_body(500, result.error)));
        return;
    }
    if (result.stats.finish == llm::FinishReason::Cancelled) {  // the server is shutting down
        write(sse_event(error_body(503, "The server is shutting down; the answer is incomplete", {}, "server_shutdown")));
        return;
    }
    chunks.finish(result.stats);
}

}  // namespace forge::app::serve
