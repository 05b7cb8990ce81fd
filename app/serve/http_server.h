// cpp-httplib's server with the defences forge serve needs against many, slow or idle clients
// (httplib 0.11, Debian 12, has none of them built in):
//
// - a listen backlog sized for a burst of connections (httplib's is 5: 80 clients connecting
//   at once overflowed it, and some hung with a connection the server never accepted);
// - a deadline for each request to arrive whole (socket_stream.h), so a client sending a
//   header line every few seconds is dropped instead of holding a thread;
// - a limit on the connections served at once (one thread each). The pool has a few threads
//   more, in reserve: a connection over the limit gets one of them, has a short time to send
//   its request, and gets /health answered or 503 + Retry-After (unless a place came free
//   meanwhile, then it is served as any other), so /health answers even when every connection
//   is taken.
//
// Handlers learn about their connection (its socket, whether it is over the limit, the memory
// its body holds) through HttpServer::connection(): a connection is served by one thread.
#pragma once

#include "app/serve/body_budget.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace forge::app::serve {

struct HttpLimits {
    std::size_t max_connections = 84;      // served at once; more are answered from the reserve
    std::chrono::seconds timeout{30};      // one read or write; also the whole request's arrival
    std::size_t max_body = 8u << 20;       // bytes of one request body before 413
    std::size_t body_budget = 64u << 20;   // bytes of request bodies held at once (body_budget.h)
};

// The connection the calling thread serves.
struct Connection {
    int socket = -1;
    bool over_limit = false;         // only /health is answered
    BodyBudget::Reservation body;    // the current request's body, given back when it is answered
};

class HttpServer : public httplib::Server {
public:
    explicit HttpServer(const HttpLimits& limits);

    // Bind to `host`:`port` (0: any free port) and set the backlog. Returns the port, or -1.
    int bind(const std::string& host, int port);

    // The calling handler's connection (a thread serves one connection at a time).
    static Connection& connection();

    // Before a request's body is read: reserve its bytes in the body budget for the calling
    // connection's request. False when they do not fit beside the bodies held now.
    bool reserve_body(const httplib::Request& req);

    const BodyBudget& bodies() const { return bodies_; }
    const HttpLimits& limits() const { return limits_; }

    // Threads kept beyond max_connections for connections over the limit.
    static constexpr std::size_t kReserveThreads = 16;
    // How long a connection over the limit has to send its request: short, because those
    // waiting for a reserve thread wait behind it (a client on the same network sends its
    // headers at once).
    static constexpr std::chrono::milliseconds kOverLimitDeadline{500};

private:
    // One of the max_connections places, if one is free (then it is this connection's).
    bool take_place();
    bool process_and_close_socket(int socket) override;
    void serve(Connection& connection);

    HttpLimits limits_;
    BodyBudget bodies_;
    std::atomic<std::size_t> open_{0};  // places taken: connections served within the limit
};

}  // namespace forge::app::serve
