#include "app/serve/http_server.h"

#include "app/serve/socket_stream.h"
#include "core/error.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>

namespace forge::app::serve {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

thread_local Connection* t_connection = nullptr;

// While it waits for a client's next request, a thread looks this often whether the server is
// stopping (httplib's own loop looks every 10 ms).
constexpr auto kStopPoll = 100ms;

// After the response, what a client still sends (the rest of a refused body) is read and
// dropped until it stops for kStopPoll, closes, or kLinger passes: closing with unread bytes
// sends a reset, which can destroy the response before the client has read it.
constexpr auto kLinger = 1s;

// Connections a burst may leave waiting for accept(): every connection the pool serves, four
// times over, within what Linux allows (net.core.somaxconn caps it anyway).
int listen_backlog(std::size_t threads) { return static_cast<int>(std::clamp<std::size_t>(4 * threads, 128, 4096)); }

void linger_and_close(int socket) {
    ::shutdown(socket, SHUT_WR);
    const auto end = Clock::now() + kLinger;
    std::array<char, 16384> scratch{};
    while (Clock::now() < end && wait_readable(socket, kStopPoll)) {
        if (::recv(socket, scratch.data(), scratch.size(), MSG_DONTWAIT) <= 0 && peer_closed(socket)) break;
    }
    ::close(socket);
}

}  // namespace

HttpServer::HttpServer(const HttpLimits& limits) : limits_(limits), bodies_(limits.body_budget) {
    const std::size_t threads = limits_.max_connections + kReserveThreads;
    // httplib takes ownership of the pool it is given (its API needs a raw pointer).
    new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    set_payload_max_length(limits_.max_body);
    set_keep_alive_timeout(2);  // seconds an idle connection is kept: also the longest a shutdown waits for one
    set_read_timeout(limits_.timeout);
    set_write_timeout(limits_.timeout);  // a client that reads nothing for this long is gone
}

int HttpServer::bind(const std::string& host, int port) {
    const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
    if (bound < 0) return -1;
    // httplib listens with a backlog of 5; on Linux, listen() on a listening socket sets a new one.
    if (::listen(svr_sock_, listen_backlog(limits_.max_connections + kReserveThreads)) != 0) return -1;
    return bound;
}

Connection& HttpServer::connection() {
    check(t_connection != nullptr, "HttpServer::connection: called outside a connection's thread");
    return *t_connection;
}

bool HttpServer::reserve_body(const httplib::Request& req) {
    std::size_t bytes = 0;
    if (req.has_header("Content-Length")) {
        bytes = std::min<std::size_t>(req.get_header_value<std::uint64_t>("Content-Length"), limits_.max_body);
    } else if (req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) {
        bytes = limits_.max_body;  // its size is known only once it is read
    }
    return bytes == 0 || bodies_.try_reserve(bytes, connection().body);
}

bool HttpServer::take_place() {
    std::size_t open = open_.load();
    while (open < limits_.max_connections) {
        if (open_.compare_exchange_weak(open, open + 1)) return true;
    }
    return false;
}

bool HttpServer::process_and_close_socket(int socket) {
    Connection connection;
    connection.socket = socket;
    connection.over_limit = !take_place();
    t_connection = &connection;
    serve(connection);
    t_connection = nullptr;
    if (!connection.over_limit) open_.fetch_sub(1);
    linger_and_close(socket);
    return true;
}

// httplib's keep-alive loop, with the request deadline: wait for a request (at most the
// keep-alive time, checking for a stop), read and answer it, give back its body's bytes.
void HttpServer::serve(Connection& connection) {
    SocketStream stream(connection.socket, limits_.timeout);
    using std::chrono::milliseconds;
    const milliseconds idle = connection.over_limit ? kOverLimitDeadline : milliseconds(keep_alive_timeout_sec_ * 1000);
    std::size_t left = connection.over_limit ? 1 : keep_alive_max_count_;
    while (left-- > 0) {
        const auto wait_end = Clock::now() + idle;
        bool readable = stream.has_buffered();
        while (!readable && svr_sock_ != INVALID_SOCKET && Clock::now() < wait_end)
            readable = wait_readable(connection.socket, kStopPoll);
        if (!readable || svr_sock_ == INVALID_SOCKET) return;
        // A connection over the limit asks again once its request is here: a client that
        // reconnects while its previous connection is still being closed on this side (a
        // keep-alive connection ends every few requests) finds the place that one gave back.
        if (connection.over_limit && take_place()) connection.over_limit = false;
        stream.set_read_deadline(Clock::now() + (connection.over_limit ? kOverLimitDeadline : milliseconds(limits_.timeout)));
        bool connection_closed = false;
        const bool answered = process_request(stream, left == 0, connection_closed, nullptr);
        connection.body = {};
        if (!answered || connection_closed) return;
    }
}

}  // namespace forge::app::serve
