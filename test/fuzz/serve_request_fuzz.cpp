// libFuzzer target for `forge serve`'s request parsing (app/serve/openai_request.h): the
// first byte picks the endpoint, the rest is the body as a client sent it. Parsing the body
// and the request (messages, tools, response_format schemas compiled to grammars, sampling
// fields, logit_bias, stop strings) must give a request or an ApiError, the server's 400 —
// never crash, overflow the stack, hit undefined behaviour, or throw anything else (which
// the server would report as a 500 instead of naming the field).
#include "app/serve/openai_request.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    using forge::app::serve::Endpoint;
    const Endpoint endpoint = (data[0] & 1) != 0 ? Endpoint::Completions : Endpoint::ChatCompletions;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    const forge::app::serve::RequestLimits limits{1000, 64};  // a 1000-token vocabulary, as in the tests
    try {
        forge::app::serve::parse_request(endpoint, forge::app::serve::parse_body(text), limits);
    } catch (const forge::app::serve::ApiError&) {
        // The expected outcome for a bad request: a 400 that names the field.
    }
    return 0;
}
