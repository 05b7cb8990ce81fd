// Whether differentiable ops record the graph, per thread.
//
// Inference and training run the same forward code. With recording off (a NoGradScope, or
// simply no input that requires a gradient) an op saves nothing, so every intermediate is
// freed the moment its last handle goes: the memory profile of plain inference. With
// recording on, each op's node keeps what its VJP needs until backward() consumes it.
#pragma once

namespace forge::ag {

bool grad_enabled();

// RAII: turns recording off (or on) for the current thread until the scope ends.
class GradModeScope {
public:
    explicit GradModeScope(bool enabled);
    ~GradModeScope();
    GradModeScope(const GradModeScope&) = delete;
    GradModeScope& operator=(const GradModeScope&) = delete;

private:
    bool previous_;
};

// The usual case: evaluation, an optimizer step, anything that must not build a graph.
class NoGradScope : public GradModeScope {
public:
    NoGradScope() : GradModeScope(false) {}
};

}  // namespace forge::ag
