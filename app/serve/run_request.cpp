// What every API's handler shares once its body is a CompletionRequest: the request goes to
// the scheduler the same way, and its answer comes back whole or as a stream of events
// (server.h describes the life of a request).
#include "app/serve/server.h"
#include "models/llm/grammar/grammar_constraint.h"

#include <httplib.h>


namespace forge::app::serve {

RequestLimits Server::request_limits(const ChatModel& chat) {
    return RequestLimits{chat.format.tokenizer().n_vocab(), options_.n_predict, chat.tool_format, &grammars_,
                         chat.model.lora() ? chat.model.lora()->size() : 0};
}

RunningRequest Server::start(const ModelLease& lease, CompletionRequest& request, std::string_view call_id_prefix, bool reasoning_apart) {
    ChatModel& model = lease->chat_model();
    if (request.grammar)
        request.generation.constraint = std::make_shared<llm::grammar::GrammarConstraint>(request.grammar, model.vocabulary);
    RunningRequest running;
    running.model = lease;
    // Calls get ids "<prefix><random>_<index>", unique across requests.
    const bool split_reasoning = reasoning_apart && options_.reasoning_format == ReasoningFormat::Auto;
    const llm::AnswerFormat format = llm::answer_format(model.format.chat_template(), split_reasoning);
    running.answer = std::make_shared<llm::AnswerSplitter>(format, model.tool_format, request.parse_tool_calls, random_id(call_id_prefix, 16) + "_");
    std::vector<std::int32_t> prompt = prompt_tokens(model, request);
    const auto n_prompt = static_cast<std::int64_t>(prompt.size());
    running.prompt_tokens = n_prompt;
    const char* field = request.endpoint == Endpoint::Completions ? "prompt" : "messages";
    if (n_prompt == 0) throw invalid_request("The prompt has no tokens", field);
    if (n_prompt >= model.n_ctx) {
        throw invalid_request(fmt::format("This model's maximum context length is {} tokens. However, your {} resulted in {} "
                                          "tokens. Please reduce the length of the {}.",
                                          model.n_ctx, field, n_prompt, field),
                              field, "context_length_exceeded");
    }
    running.stream = std::make_shared<RequestStream>();
    if (request.logprobs)
        request.generation.logprob_sink = [stream = running.stream](const llm::TokenLogprob& t) { stream->push_logprob(t); };
    llm::Request job{std::move(prompt), request.generation, nullptr, request.lora_scales};
    if (request.stream) job.sink = [stream = running.stream](std::string_view piece) { return stream->push_text(piece); };
    running.handle = submit(model, std::move(job));
    return running;
}

std::optional<llm::RequestResult> Server::wait_for_result(const RunningRequest& running) {
    llm::RequestResult result = wait_for_answer(*running.handle);
    metrics_.record_finished(result.stats);
    if (running.handle->cancelled()) return std::nullopt;  // only the wait cancels: the client is gone
    if (!result.error.empty()) throw invalid_request(result.error);
    if (result.stats.finish == llm::FinishReason::Cancelled) throw unavailable("The server is shutting down");
    return result;
}

void Server::stream_events(httplib::Response& res, const RunningRequest& running, std::shared_ptr<StreamEvents> events) {
    res.set_header("Cache-Control", "no-cache");
    Metrics* metrics = &metrics_;
    res.set_chunked_content_provider("text/event-stream", [running, events, metrics](std::size_t, httplib::DataSink& sink) {
        write_events(running, *events, metrics, [&](std::string_view bytes) { return sink.write(bytes.data(), bytes.size()); },
                     [&] { return sink.is_writable(); });
        sink.done();
        return true;
    },
    // Called however the response ends, also when httplib never got to the provider (the
    // client left during the headers): the request must not run on unread.
    [running](bool) {
        running.stream->client_gone();
        running.handle->cancel();
    });
}

bool Server::answered_whole(httplib::Response& res, const RunningRequest& running, bool stream, const std::shared_ptr<StreamEvents>& events) {
    if (stream) {
        stream_events(res, running, events);
        return false;
    }
    const std::optional<llm::RequestResult> result = wait_for_result(running);
    if (!result) return false;  // the client is gone, nobody to answer
    replay_events(running, *result, *events);
    return true;
}

}  // namespace forge::app::serve
