// Cross-origin requests (CORS): which web pages on other origins may call the API.
//
// A browser sends a page's request to another origin only when the answer allows that origin
// (Access-Control-Allow-Origin), and asks first with a preflight (OPTIONS with
// Access-Control-Request-Method) for requests that carry a JSON body or an Authorization
// header. By default forge allows no other origin: no CORS header is sent, so only pages
// served by forge itself (the chat page) can call it. --cors-origin ORIGIN (repeatable) allows
// one origin ("http://localhost:5173"); "*" allows any. The API key is still required on the
// request itself; a preflight never carries it and is answered without it.
#pragma once

#include <httplib.h>

#include <string>
#include <vector>

namespace forge::app::serve {

class CorsPolicy {
public:
    explicit CorsPolicy(std::vector<std::string> origins);

    // A preflight: OPTIONS naming the method the page means to send.
    static bool is_preflight(const httplib::Request& req);

    // Answer a preflight: 204 with what the page may send when its origin is allowed, else 403.
    void answer_preflight(const httplib::Request& req, httplib::Response& res) const;

    // On every other response (errors and streams too): allow the request's origin, if allowed.
    void allow(const httplib::Request& req, httplib::Response& res) const;

private:
    bool allowed(const std::string& origin) const;

    std::vector<std::string> origins_;
    bool any_ = false;
};

}  // namespace forge::app::serve
