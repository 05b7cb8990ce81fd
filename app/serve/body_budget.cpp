#include "app/serve/body_budget.h"

#include <malloc.h>

#include <utility>

namespace forge::app::serve {

BodyBudget::Reservation::Reservation(Reservation&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

BodyBudget::Reservation& BodyBudget::Reservation::operator=(Reservation&& other) noexcept {
    if (this != &other) {
        give_back();
        budget_ = std::exchange(other.budget_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

BodyBudget::Reservation::~Reservation() { give_back(); }

void BodyBudget::Reservation::give_back() {
    if (budget_ == nullptr) return;
    budget_->release(bytes_);
    budget_ = nullptr;
    bytes_ = 0;
}

bool BodyBudget::try_reserve(std::size_t bytes, Reservation& out) {
    {
        std::lock_guard lock(mutex_);
        if (bytes > capacity_ - in_use_) return false;
        in_use_ += bytes;
    }
    out = Reservation(this, bytes);
    return true;
}

std::size_t BodyBudget::in_use() const {
    std::lock_guard lock(mutex_);
    return in_use_;
}

void BodyBudget::release(std::size_t bytes) {
    {
        std::lock_guard lock(mutex_);
        in_use_ -= bytes;
    }
    // The body, its JSON and the prompt made from it are freed by now; without this their
    // pages stay with the process (glibc's arenas keep them for reuse).
    if (bytes >= kTrimAfter) ::malloc_trim(0);
}

}  // namespace forge::app::serve
