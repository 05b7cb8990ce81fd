// Writing a JSON answer or an ApiError into an httplib response: every route file's last step.
#pragma once

#include "app/serve/api_error.h"

#include <nlohmann/json.hpp>

namespace httplib {
struct Response;
}  // namespace httplib

namespace forge::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
// The error's status and envelope; a 503 also says Retry-After: 1.
void send_error(httplib::Response& res, const ApiError& error);

}  // namespace forge::app::serve
