// One streamed response: the chunks of a running request as Server-Sent Events, written as
// the scheduler hands out text, until the finish_reason chunk, the usage chunk (when asked)
// and "data: [DONE]". A client that is gone (a failed write, or a dead socket while the
// request waits or reads its prompt) cancels the request, which frees its slot at the
// scheduler's next step. A request cancelled by the shutdown ends with an error event. With
// tools, the text goes through a ToolCallParser first: calls become delta.tool_calls, never
// delta.content.
#pragma once

#include "app/serve/metrics.h"
#include "app/serve/openai_response.h"
#include "app/serve/request_stream.h"
#include "models/llm/scheduler.h"

#include <functional>
#include <memory>
#include <string_view>

namespace forge::app::serve {

struct StreamContext {
    ResponseMeta meta;
    bool include_usage = false;
    bool logprobs = false;
    std::shared_ptr<RequestStream> stream;
    std::shared_ptr<llm::RequestHandle> handle;
    const llm::Tokenizer* tokenizer = nullptr;
    Metrics* metrics = nullptr;
    std::shared_ptr<llm::tool_calls::ToolCallParser> tool_calls;  // null: all text is content
};

// `write` sends bytes (false: the client is gone); `alive` says whether the client is still
// connected while nothing is being written.
void write_stream(const StreamContext& context, const std::function<bool(std::string_view)>& write,
                  const std::function<bool()>& alive);

}  // namespace forge::app::serve
