// One client connection as cpp-httplib reads and writes it, with the limits forge serve needs
// and httplib 0.11 (Debian 12) does not have: a deadline for the whole request to arrive, not
// only for each read. httplib's own stream restarts its timer at every byte, so a client that
// sends a header line every 10 s (slowloris) held a thread for ever; here the request's headers
// and body must all arrive by `deadline`, set when its first byte is readable.
#pragma once

#include <httplib.h>

#include <array>
#include <chrono>
#include <cstddef>

namespace forge::app::serve {

class SocketStream : public httplib::Stream {
public:
    using Clock = std::chrono::steady_clock;

    // `io_timeout`: the longest one write may wait for the client to make room (and one read
    // for a byte, within the deadline).
    SocketStream(int socket, std::chrono::milliseconds io_timeout);

    // Reads after this instant fail: the request was not sent in time.
    void set_read_deadline(Clock::time_point deadline) { read_deadline_ = deadline; }

    // Bytes already read from the socket and not yet handed out (a pipelined request).
    bool has_buffered() const { return buffered_begin_ < buffered_end_; }

    bool is_readable() const override;
    bool is_writable() const override;  // also false once the client has closed or reset
    ssize_t read(char* ptr, std::size_t size) override;
    ssize_t write(const char* ptr, std::size_t size) override;
    void get_remote_ip_and_port(std::string& ip, int& port) const override;
    void get_local_ip_and_port(std::string& ip, int& port) const override;
    int socket() const override { return socket_; }

private:
    int socket_;
    std::chrono::milliseconds io_timeout_;
    Clock::time_point read_deadline_ = Clock::time_point::max();
    // httplib reads request lines a byte at a time: one recv fills this instead.
    std::array<char, 4096> buffer_{};
    std::size_t buffered_begin_ = 0, buffered_end_ = 0;
};

// Wait until `socket` has something to read (or was closed) for at most `timeout`.
bool wait_readable(int socket, std::chrono::milliseconds timeout);

// Has the client closed or reset its end? (Bytes it sent and nobody read yet do not count.)
bool peer_closed(int socket);

}  // namespace forge::app::serve
