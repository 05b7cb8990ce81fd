#include "app/serve/cors.h"

#include "app/serve/api_error.h"
#include "app/serve/openai_response.h"

#include <httplib.h>

#include <algorithm>

namespace forge::app::serve {

namespace {

// Chromium keeps a preflight's answer at most 2 hours, Firefox 24: a day asks for the most.
constexpr const char* kMaxAgeSeconds = "86400";

// Trailing slashes are not part of an origin ("scheme://host[:port]"), but are easy to type.
std::string normalized(std::string origin) {
    while (origin.size() > 1 && origin.back() == '/') origin.pop_back();
    return origin;
}

}  // namespace

CorsPolicy::CorsPolicy(std::vector<std::string> origins) {
    for (std::string& origin : origins) {
        if (origin == "*") any_ = true;
        else origins_.push_back(normalized(std::move(origin)));
    }
}

bool CorsPolicy::is_preflight(const httplib::Request& req) {
    return req.method == "OPTIONS" && req.has_header("Origin") && req.has_header("Access-Control-Request-Method");
}

bool CorsPolicy::allowed(const std::string& origin) const {
    return !origin.empty() && (any_ || std::ranges::find(origins_, origin) != origins_.end());
}

void CorsPolicy::allow(const httplib::Request& req, httplib::Response& res) const {
    const std::string origin = req.get_header_value("Origin");
    if (!allowed(origin)) return;
    // The origin itself rather than "*", so that caches keep one answer per origin (Vary).
    res.set_header("Access-Control-Allow-Origin", any_ ? "*" : origin);
    if (!any_) res.set_header("Vary", "Origin");
    // What a page may read besides the simple headers: when to retry a 503.
    res.set_header("Access-Control-Expose-Headers", "Retry-After");
}

void CorsPolicy::answer_preflight(const httplib::Request& req, httplib::Response& res) const {
    const std::string origin = req.get_header_value("Origin");
    if (!allowed(origin)) {
        res.status = 403;
        res.set_content(dump(error_body(403, "Cross-origin requests from " + origin +
                                                 " are not allowed: start the server with --cors-origin " + origin)),
                        "application/json");
        return;
    }
    allow(req, res);
    res.status = 204;
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Api-Key");
    res.set_header("Access-Control-Max-Age", kMaxAgeSeconds);
}

}  // namespace forge::app::serve
