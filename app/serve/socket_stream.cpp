#include "app/serve/socket_stream.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace forge::app::serve {

namespace {

using std::chrono::milliseconds;

// poll() for `events` up to `timeout`, again after a signal.
bool wait_for(int socket, short events, milliseconds timeout) {
    pollfd p{socket, events, 0};
    int n = 0;
    do {
        n = ::poll(&p, 1, static_cast<int>(std::max<milliseconds::rep>(timeout.count(), 0)));
    } while (n < 0 && errno == EINTR);
    return n > 0;
}

// Numeric host and port of a socket address (as httplib reports them).
void numeric_address(const sockaddr_storage& address, socklen_t length, std::string& ip, int& port) {
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (::getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host.data(), host.size(), service.data(),
                      service.size(), NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return;
    ip = host.data();
    port = std::atoi(service.data());
}

}  // namespace

bool wait_readable(int socket, milliseconds timeout) { return wait_for(socket, POLLIN, timeout); }

bool peer_closed(int socket) {
    char byte = 0;
    const ssize_t n = ::recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return false;                                  // unread bytes: still there
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;  // nothing to say
    return true;                                              // 0: closed; other errors: reset
}

SocketStream::SocketStream(int socket, milliseconds io_timeout) : socket_(socket), io_timeout_(io_timeout) {}

bool SocketStream::is_readable() const {
    if (has_buffered()) return true;
    const auto left = std::chrono::duration_cast<milliseconds>(read_deadline_ - Clock::now());
    return left.count() > 0 && wait_for(socket_, POLLIN, std::min(left, io_timeout_));
}

bool SocketStream::is_writable() const { return wait_for(socket_, POLLOUT, io_timeout_) && !peer_closed(socket_); }

ssize_t SocketStream::read(char* ptr, std::size_t size) {
    if (buffered_begin_ == buffered_end_) {
        if (!is_readable()) return -1;
        if (size >= buffer_.size()) return ::recv(socket_, ptr, size, 0);  // a body's block: no copy
        const ssize_t n = ::recv(socket_, buffer_.data(), buffer_.size(), 0);
        if (n <= 0) return n;
        buffered_begin_ = 0;
        buffered_end_ = static_cast<std::size_t>(n);
    }
    const std::size_t n = std::min(size, buffered_end_ - buffered_begin_);
    std::memcpy(ptr, buffer_.data() + buffered_begin_, n);
    buffered_begin_ += n;
    return static_cast<ssize_t>(n);
}

ssize_t SocketStream::write(const char* ptr, std::size_t size) {
    if (!is_writable()) return -1;
    ssize_t n = 0;
    do {
        n = ::send(socket_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
}

void SocketStream::get_remote_ip_and_port(std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (::getpeername(socket_, reinterpret_cast<sockaddr*>(&address), &length) == 0) numeric_address(address, length, ip, port);
}

void SocketStream::get_local_ip_and_port(std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (::getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length) == 0) numeric_address(address, length, ip, port);
}

}  // namespace forge::app::serve
