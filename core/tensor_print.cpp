// Readable printing, in the style of PyTorch:
//   tensor([[0.0000, 1.0000, 2.0000],
//           [3.0000, 4.0000, 5.0000]], shape=[2, 3], dtype=f32)
// Axes longer than kEdgeItems * 2 show their first and last kEdgeItems entries around "...".
#include "core/tensor.h"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

namespace forge {
namespace {

constexpr std::int64_t kEdgeItems = 3;

bool is_integer_dtype(DType dtype) {
    return dtype == DType::I8 || dtype == DType::I16 || dtype == DType::I32 || dtype == DType::I64 ||
           dtype == DType::U8;
}

std::string format_value(float value, bool integer) {
    if (integer) return fmt::format("{}", static_cast<long long>(value));
    if (std::isnan(value) || std::isinf(value)) return fmt::format("{}", value);
    const float magnitude = std::fabs(value);
    if (magnitude != 0.0f && (magnitude >= 1e5f || magnitude < 1e-4f)) return fmt::format("{:.4e}", value);
    return fmt::format("{:.4f}", value);
}

void print_axis(const Tensor& t, std::vector<std::int64_t>& index, int axis, int indent, std::string& out) {
    const std::int64_t n = t.shape()[axis];
    const bool summarize = n > 2 * kEdgeItems;
    const bool integer = is_integer_dtype(t.dtype());
    out += '[';
    for (std::int64_t i = 0; i < n; ++i) {
        if (summarize && i == kEdgeItems) {
            out += axis == t.rank() - 1 ? "..., " : fmt::format("...,\n{:{}}", "", indent + 1);
            i = n - kEdgeItems;
        }
        index[static_cast<std::size_t>(axis)] = i;
        if (axis == t.rank() - 1) {
            out += format_value(t.at(index), integer);
        } else {
            print_axis(t, index, axis + 1, indent + 1, out);
        }
        if (i + 1 < n) {
            out += axis == t.rank() - 1 ? ", " : fmt::format(",\n{:{}}", "", indent + 1);
        }
    }
    out += ']';
}

}  // namespace

std::string Tensor::to_string() const {
    if (!defined()) return "tensor(undefined)";
    const std::string suffix = fmt::format("shape={}, dtype={}", shape_.to_string(), dtype_name(dtype_));
    if (is_quantized(dtype_)) return fmt::format("tensor(<{} blocks>, {})", dtype_name(dtype_), suffix);
    std::string body;
    if (rank() == 0) {
        body = format_value(item(), is_integer_dtype(dtype_));
    } else {
        std::vector<std::int64_t> index(static_cast<std::size_t>(rank()), 0);
        constexpr int kPrefix = 7;  // strlen("tensor(")
        print_axis(*this, index, 0, kPrefix, body);
    }
    return fmt::format("tensor({}, {})", body, suffix);
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.to_string(); }

}  // namespace forge
