// Writing a JSON answer or an error (OpenAI's envelope, api_error.h; Anthropic's on its routes)
// into an httplib response.
#pragma once

#include "app/serve/api_error.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace httplib {
struct Response;
}  // namespace httplib

namespace forge::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
// A 503 also says when to retry (Retry-After: 1). On the routes of Anthropic's API (`path`
// under /v1/messages) the error has Anthropic's envelope (anthropic_api.h).
void send_error(httplib::Response& res, const ApiError& error, std::string_view path = {});

}  // namespace forge::app::serve
