// Sending a JSON answer, or an ApiError (503s say when to retry), from any of serve's route
// files: in the envelope of the API the route belongs to, so each API's clients read the
// message — OpenAI's (api_error.h) by default, Anthropic's under /v1/messages
// (anthropic_api.h), Ollama's {"error": "..."} under /api/ (ollama_response.h).
#pragma once

#include "app/serve/api_error.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <string_view>

namespace forge::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
void send_error(httplib::Response& res, const ApiError& error, std::string_view path = {});

}  // namespace forge::app::serve
