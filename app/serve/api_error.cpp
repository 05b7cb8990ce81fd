#include "app/serve/api_error.h"

#include <fmt/format.h>

namespace forge::app::serve {

namespace {

// OpenAI's error types by status.
std::string type_for(int status) {
    switch (status) {
        case 400: return "invalid_request_error";
        case 401: return "authentication_error";
        case 404: return "not_found_error";
        case 413: return "invalid_request_error";
        case 429: return "rate_limit_error";
        case 501: return "not_supported_error";
        case 503: return "unavailable_error";
        default: return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

nlohmann::json null_if_empty(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

ApiError::ApiError(int status, std::string message, std::string type, std::string param, std::string code)
    : Error(std::move(message)), status_(status), type_(std::move(type)), param_(std::move(param)), code_(std::move(code)) {}

nlohmann::json ApiError::body() const {
    return {{"error", {{"message", what()}, {"type", type_}, {"param", null_if_empty(param_)}, {"code", null_if_empty(code_)}}}};
}

ApiError invalid_request(std::string message, std::string param, std::string code) {
    return ApiError(400, std::move(message), type_for(400), std::move(param), std::move(code));
}

ApiError unauthorized() {
    return ApiError(401, "Invalid API key: send it as 'Authorization: Bearer KEY'", type_for(401), {}, "invalid_api_key");
}

ApiError not_found(std::string message) { return ApiError(404, std::move(message), type_for(404), {}, "not_found"); }

ApiError model_not_found(const std::string& model) {
    return ApiError(404, fmt::format("The model '{}' does not exist (GET /v1/models lists the models served)", model),
                    "invalid_request_error", "model", "model_not_found");
}

ApiError payload_too_large(std::size_t limit) {
    return ApiError(413, fmt::format("The request body is larger than the limit of {} bytes", limit), type_for(413), {},
                    "payload_too_large");
}

ApiError unavailable(std::string message) { return ApiError(503, std::move(message), type_for(503)); }

nlohmann::json error_body(int status, const std::string& message, const std::string& param, const std::string& code) {
    return ApiError(status, message, type_for(status), param, code).body();
}

}  // namespace forge::app::serve
