#include "nn/embedding.h"

#include "core/autograd/ops/embedding.h"

namespace forge::nn {

Embedding Embedding::make(ParameterSet& params, const std::string& name, std::int64_t vocab, std::int64_t dim,
                          const Init& init) {
    return {params.add(name + ".weight", Shape{vocab, dim}, init)};
}

Tensor Embedding::operator()(const Tensor& ids) const { return ag::embedding(table, ids); }

}  // namespace forge::nn
