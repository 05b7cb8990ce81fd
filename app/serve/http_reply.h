// Writing a JSON answer or an error (OpenAI's envelope, api_error.h) into an httplib response.
#pragma once

#include "app/serve/api_error.h"

#include <nlohmann/json.hpp>

namespace httplib {
struct Response;
}  // namespace httplib

namespace forge::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
// A 503 also says when to retry (Retry-After: 1).
void send_error(httplib::Response& res, const ApiError& error);

}  // namespace forge::app::serve
