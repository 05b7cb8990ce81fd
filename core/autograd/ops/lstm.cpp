#include "core/autograd/ops/lstm.h"

#include "core/autograd/variable.h"
#include "core/ops/lstm.h"

#include <vector>

namespace forge::ag {

Tensor lstm_sequence(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& h0, const Tensor& c0) {
    LstmSequence forward = forge::lstm_sequence(x, w, b, h0, c0);
    if (!any_requires_grad({&x, &w, &b, &h0, &c0})) return forward.states;
    Tensor states = forward.states;
    forward.states = detach(states);  // the VJP keeps no handle to its own output
    return record("lstm_sequence", states, {&x, &w, &b, &h0, &c0},
                  [w = detach(w), saved = std::move(forward)](const Tensor& g, InputMask wanted) {
                      LstmSequenceGrads grads = lstm_sequence_backward(w, saved, g);
                      std::vector<Tensor> out{grads.x, grads.w, grads.b, grads.h0, grads.c0};
                      for (std::size_t i = 0; i < out.size(); ++i)
                          if (!wanted[i]) out[i] = Tensor{};
                      return out;
                  });
}

}  // namespace forge::ag
