// The parameters of a model, by name: the registry every nn module adds its weights to.
//
// A name is a dotted path ("blk.0.attn_q.weight"); nn's transformer modules use GGUF's
// tensor names, so a state dict is also a GGUF tensor list. Each parameter is a tensor
// handle: modules keep their own copies of the handles, and optimizers, checkpoints and
// gradient all-reduces reach the same storage through this set. A trainable parameter is
// an autograd leaf (ag::grad(p) after backward); a frozen one is a constant.
#pragma once

#include "core/checkpoint/safetensors.h"
#include "core/tensor.h"
#include "nn/init.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace forge::gguf {
class GgufFile;
class GgufWriter;
}  // namespace forge::gguf

namespace forge::nn {

struct Parameter {
    std::string name;
    Tensor value;
    bool trainable = true;
};

class ParameterSet {
public:
    explicit ParameterSet(std::uint64_t seed = 0) : seed_(seed) {}

    // A new parameter initialised from (seed, name); throws if the name is taken.
    Tensor add(std::string name, const Shape& shape, const Init& init, bool trainable = true);
    // A new parameter with the given values (copied).
    Tensor add(std::string name, const Tensor& values, bool trainable = true);

    std::uint64_t seed() const { return seed_; }
    const std::vector<Parameter>& all() const { return params_; }
    std::vector<Tensor> trainable() const;  // in insertion order
    const Tensor& at(std::string_view name) const;  // throws naming the missing parameter
    bool contains(std::string_view name) const;
    std::int64_t numel() const;  // elements of every parameter

    // name -> tensor, sharing storage with the parameters.
    checkpoint::TensorMap state_dict() const;
    // Copy values into the parameters in place; every parameter must be present with its
    // shape (strict), extra entries are an error too. `source` names the origin in errors.
    void load_state_dict(const checkpoint::TensorMap& values, std::string_view source);

    void save_safetensors(const std::filesystem::path& path) const;
    void load_safetensors(const std::filesystem::path& path);
    // Every parameter as an f32 GGUF tensor of the same name (dims innermost first).
    void add_to_gguf(gguf::GgufWriter& writer) const;
    // Parameters from GGUF tensors of the same names (f32, f16, bf16, or a block format decoded to
    // f32; extra tensors ignored).
    void load_gguf(const gguf::GgufFile& file);

private:
    std::uint64_t seed_;
    std::vector<Parameter> params_;
};

// One tensor as f32 under `name` (dims reversed to GGUF's innermost-first order); the data
// is copied when the writer writes.
void add_f32_to_gguf(gguf::GgufWriter& writer, const std::string& name, const Tensor& tensor);

}  // namespace forge::nn
