#include "app/serve/http_reply.h"

#include "app/serve/openai_response.h"

#include <httplib.h>

namespace forge::app::serve {

void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(dump(body), "application/json");
}

void send_error(httplib::Response& res, const ApiError& error) {
    if (error.status() == 503) res.set_header("Retry-After", "1");
    send_json(res, error.status(), error.body());
}

}  // namespace forge::app::serve
