// The communicator of a job with one process: every collective is the identity.
#pragma once

#include "core/distributed/communicator.h"

#include <cstdlib>

namespace forge::distributed {

class SingleProcess final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string describe() const override { return "single process"; }
    void sum_in_rank_order(std::span<float>) override {}
    void sum_in_rank_order(std::span<double>) override {}
    [[noreturn]] void abort_job(int code) override { std::exit(code); }
};

}  // namespace forge::distributed
