#include "app/serve/json_reply.h"

#include "app/serve/anthropic_api.h"
#include "app/serve/ollama_response.h"
#include "app/serve/openai_response.h"

namespace forge::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(dump(body), "application/json");
}

void send_error(httplib::Response& res, const ApiError& error, std::string_view path) {
    if (error.status() == 503) res.set_header("Retry-After", "1");
    if (path.starts_with(kAnthropicRoutes)) return send_json(res, error.status(), anthropic_error_body(error));
    if (path.starts_with("/api/")) return send_json(res, error.status(), ollama_error(error.what()));
    send_json(res, error.status(), error.body());
}

}  // namespace forge::app::serve
