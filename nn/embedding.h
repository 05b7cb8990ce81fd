// A table of vectors looked up by integer id: "<name>.weight" [vocab, dim].
#pragma once

#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct Embedding {
    Tensor table;  // [vocab, dim]

    static Embedding make(ParameterSet& params, const std::string& name, std::int64_t vocab, std::int64_t dim,
                          const Init& init);
    Tensor operator()(const Tensor& ids) const;  // ids [...] (i32/i64) -> [..., dim]
};

}  // namespace forge::nn
