// Errors as OpenAI's API reports them: an HTTP status and the envelope
//   {"error": {"message": ..., "type": ..., "param": ..., "code": ...}}
// Request handlers throw ApiError; the server turns it into that response. Anything else a
// handler throws becomes a 500 with the same envelope, so no request can take the server down.
#pragma once

#include "core/error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace forge::app::serve {

class ApiError : public Error {
public:
    // `param` names the offending request field ("messages[1].role"), empty when none does.
    ApiError(int status, std::string message, std::string type, std::string param = {}, std::string code = {});

    int status() const { return status_; }
    const std::string& type() const { return type_; }
    const std::string& param() const { return param_; }
    const std::string& code() const { return code_; }
    nlohmann::json body() const;

private:
    int status_;
    std::string type_, param_, code_;
};

// The usual cases.
ApiError invalid_request(std::string message, std::string param = {}, std::string code = {});  // 400
ApiError unauthorized();                                                                       // 401
ApiError not_found(std::string message);                                                       // 404
ApiError model_not_found(const std::string& model);                                            // 404, OpenAI's code
ApiError payload_too_large(std::size_t limit);                                                 // 413
ApiError unavailable(std::string message);                                                     // 503

// The envelope for any status and message (type chosen from the status).
nlohmann::json error_body(int status, const std::string& message, const std::string& param = {},
                          const std::string& code = {});

}  // namespace forge::app::serve
