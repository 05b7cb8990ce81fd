// Sending a JSON answer, or an ApiError in OpenAI's envelope (503s say when to retry), from
// any of serve's route files.
#pragma once

#include "app/serve/api_error.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace forge::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
void send_error(httplib::Response& res, const ApiError& error);

}  // namespace forge::app::serve
