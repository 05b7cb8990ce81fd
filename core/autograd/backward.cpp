#include "core/autograd/backward.h"

#include "core/autograd/autograd_meta.h"
#include "core/error.h"
#include "core/ops/binary.h"
#include "core/thread_pool.h"

#include <exception>
#include <unordered_map>
#include <vector>

namespace forge::ag {
namespace {

// a + b where either may be undefined (no gradient yet).
Tensor accumulate(const Tensor& sum, const Tensor& term) {
    if (!sum.defined()) return term;
    if (!term.defined()) return sum;
    return add(sum, term);
}

void check_not_consumed(const Node& node) {
    check(!node.consumed,
          "backward through a graph a second time: op '{}' already ran its backward and freed the "
          "tensors it saved; run the forward again to get a fresh graph",
          node.name);
}

// For every node and every leaf reachable from `root`: how many edges from reachable nodes
// point at it (a node runs, and a leaf's gradient is final, when all of them have delivered).
struct Consumers {
    std::unordered_map<Node*, int> nodes;
    std::unordered_map<const AutogradMeta*, int> leaves;
};

Consumers count_consumers(Node* root) {
    Consumers consumers{{{root, 0}}, {}};
    std::vector<Node*> stack{root};
    while (!stack.empty()) {
        Node* node = stack.back();
        stack.pop_back();
        check_not_consumed(*node);
        for (const auto& input : node->inputs) {
            if (!input) continue;
            if (!input->grad_fn) {
                ++consumers.leaves[input.get()];
                continue;
            }
            Node* producer = input->grad_fn.get();
            auto [it, first_visit] = consumers.nodes.try_emplace(producer, 0);
            ++it->second;
            if (first_visit) stack.push_back(producer);
        }
    }
    return consumers;
}

// Run one node's VJP, then free what it saved. Returns one gradient per input.
std::vector<Tensor> run_node(Node& node, const Tensor& grad_output) {
    if (!grad_output.defined()) {  // every consumer's gradient was zero: so are ours
        node.vjp = nullptr;
        node.consumed = true;
        return std::vector<Tensor>(node.inputs.size());
    }
    std::uint32_t bits = 0;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        if (node.inputs[i]) bits |= 1u << i;
    }
    std::vector<Tensor> grads = node.vjp(grad_output, InputMask(bits));
    node.vjp = nullptr;
    node.consumed = true;
    check(grads.size() == node.inputs.size(), "op '{}': its VJP returned {} gradients for {} inputs", node.name,
          grads.size(), node.inputs.size());
    for (std::size_t i = 0; i < grads.size(); ++i) {
        if (node.inputs[i] && grads[i].defined() && !(grads[i].shape() == node.input_shapes[i])) {
            fail("op '{}': gradient {} has shape {}, its input has {}", node.name, i, grads[i].shape().to_string(),
                 node.input_shapes[i].to_string());
        }
    }
    return grads;
}

// Run a wave of independent nodes: in parallel when there are several (their own ops then
// run inline on each worker), on this thread with full op-level parallelism when alone.
std::vector<std::vector<Tensor>> run_wave(const std::vector<Node*>& wave,
                                          const std::vector<Tensor>& grad_outputs) {
    std::vector<std::vector<Tensor>> results(wave.size());
    std::vector<std::exception_ptr> errors(wave.size());
    ThreadPool::global().run(static_cast<std::int64_t>(wave.size()), [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        try {
            results[k] = run_node(*wave[k], grad_outputs[k]);
        } catch (...) {
            errors[k] = std::current_exception();  // exceptions must not cross the pool
        }
    });
    for (const auto& error : errors) {
        if (error) std::rethrow_exception(error);
    }
    return results;
}

Tensor seed_gradient(const Tensor& output, const Tensor& grad_output) {
    if (grad_output.defined()) {
        check(grad_output.shape() == output.shape(), "backward: grad_output shape {} differs from output shape {}",
              grad_output.shape().to_string(), output.shape().to_string());
        return grad_output;
    }
    check(output.numel() == 1, "backward() without a gradient needs a one-element output (a loss), got shape {}",
          output.shape().to_string());
    return Tensor::full(output.shape(), 1.0f);
}

}  // namespace

void backward(const Tensor& output, const Tensor& grad_output, const FinalGradientFn& on_final_gradient) {
    const auto& meta = output.autograd_meta();
    check(meta && meta->requires_grad,
          "backward() on a tensor that does not require a gradient (no parameter was marked "
          "requires_grad, or it was computed under NoGradScope)");
    const Tensor seed = seed_gradient(output, grad_output);
    if (!meta->grad_fn) {  // the output is itself a leaf
        meta->grad = accumulate(meta->grad, seed);
        if (on_final_gradient) on_final_gradient(*meta);
        return;
    }
    Node* root = meta->grad_fn.get();
    Consumers waiting = count_consumers(root);
    std::unordered_map<Node*, Tensor> pending{{root, seed}};
    std::vector<Node*> wave{root};
    while (!wave.empty()) {
        std::vector<Tensor> grad_outputs;
        for (Node* node : wave) {
            grad_outputs.push_back(std::move(pending[node]));
            pending.erase(node);
        }
        const auto results = run_wave(wave, grad_outputs);
        std::vector<Node*> next;
        for (std::size_t k = 0; k < wave.size(); ++k) {
            const Node& node = *wave[k];
            for (std::size_t i = 0; i < node.inputs.size(); ++i) {
                const auto& input = node.inputs[i];
                if (!input) continue;
                const Tensor& g = results[k][i];
                if (!input->grad_fn) {
                    if (g.defined()) input->grad = accumulate(input->grad, g.contiguous());
                    if (--waiting.leaves[input.get()] == 0 && on_final_gradient) on_final_gradient(*input);
                    continue;
                }
                Node* producer = input->grad_fn.get();
                pending[producer] = accumulate(pending[producer], g);
                if (--waiting.nodes[producer] == 0) next.push_back(producer);
            }
        }
        wave = std::move(next);
    }
}

}  // namespace forge::ag
