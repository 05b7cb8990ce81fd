// The memory all request bodies may hold at once. A body up to --max-body (8 MiB) is read
// whole, then parsed into JSON and copied into the request, so each costs a few times its size
// for as long as it runs: sixteen 8 MiB bodies at once took the server to 2.8 GB. A request
// reserves its Content-Length here before its body is read; one that does not fit gets 503 +
// Retry-After, and the bytes are given back when its response is written.
//
// glibc keeps freed memory for reuse, so a burst of large bodies left the process at ~1 GB for
// good; giving back a large reservation also trims the heap (malloc_trim), returning the
// pages to the system.
#pragma once

#include <cstddef>
#include <mutex>

namespace forge::app::serve {

class BodyBudget {
public:
    explicit BodyBudget(std::size_t capacity) : capacity_(capacity) {}

    // Bytes reserved for one request's body, given back on destruction.
    class Reservation {
    public:
        Reservation() = default;
        Reservation(Reservation&& other) noexcept;
        Reservation& operator=(Reservation&& other) noexcept;
        ~Reservation();
        std::size_t bytes() const { return bytes_; }

    private:
        friend class BodyBudget;
        Reservation(BodyBudget* budget, std::size_t bytes) : budget_(budget), bytes_(bytes) {}
        void give_back();
        BodyBudget* budget_ = nullptr;
        std::size_t bytes_ = 0;
    };

    // A reservation of `bytes`, or none (false) when they do not fit beside those held now.
    bool try_reserve(std::size_t bytes, Reservation& out);

    std::size_t capacity() const { return capacity_; }
    std::size_t in_use() const;

    // Bodies at least this large trim the heap when they end.
    static constexpr std::size_t kTrimAfter = std::size_t{1} << 20;

private:
    void release(std::size_t bytes);

    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::size_t in_use_ = 0;
};

}  // namespace forge::app::serve
